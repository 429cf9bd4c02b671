// The simulated clock starts at 0; a cluster read from a dump or an API server
// carries wall-clock timestamps (node and pod creation, pod start). For the
// simulation to see a node created an hour ago as an hour old — consolidateAfter
// passed, expireAfter counting, do-not-disrupt durations running, newer pods
// ranked as newer than older ones — those times are taken relative to the moment
// the snapshot stands for: simulated time 0.

import type { Node } from '../model/node.js';
import { changedPod, type Pod } from '../model/pod.js';

/** Times below this (1973) are input order indexes standing in for a missing timestamp, not wall-clock times. */
const EPOCH_FLOOR_MS = 1e11;

interface Timed {
  readonly nodes: readonly Node[];
  readonly pods: readonly Pod[];
}

/** The newest wall-clock timestamp of the input (node or pod creation, pod start), if it has any: a lower bound on when the snapshot was taken. */
export function newestTimestamp(input: Timed): number | undefined {
  let newest: number | undefined;
  const see = (t: number | undefined) => {
    if (t !== undefined && t >= EPOCH_FLOOR_MS && (newest === undefined || t > newest)) newest = t;
  };
  for (const n of input.nodes) see(n.creation);
  for (const p of input.pods) {
    see(p.creation);
    see(p.startTime);
  }
  return newest;
}

/**
 * The input with its times relative to `originMs` (simulated time 0): negative for
 * what happened before. An object without a timestamp (its creation is its input
 * order) counts as older than every timestamped one, in input order.
 */
export function relativeTo<T extends Timed>(input: T, originMs: number): T {
  return {
    ...input,
    nodes: input.nodes.map((n) => ({ ...n, creation: n.creation - originMs })),
    pods: input.pods.map((p) => changedPod(p, { creation: p.creation - originMs, startTime: p.startTime === undefined ? undefined : p.startTime - originMs })),
  };
}

/**
 * The input as of `originMs` (simulated time 0), by default its newest timestamp;
 * unchanged when it has no timestamp at all (hand-written objects).
 */
export function fromOrigin<T extends Timed>(input: T, originMs?: number): T {
  const origin = originMs ?? newestTimestamp(input);
  return origin === undefined ? input : relativeTo(input, origin);
}
