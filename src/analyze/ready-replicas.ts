// Ready replicas of each pod group over a simulated run: subscribed to the
// simulation before it runs, it follows readiness changes (Ready, NotReady,
// terminating, deleted) and records each group's count whenever it changes, so a
// check can ask how low a group fell after a fault and when it was whole again.

import type { Pod } from '../model/pod.js';
import type { Simulation } from '../sim/simulation.js';
import { groupFinder, type PodGroup } from './pod-groups.js';

export interface ReadyPoint {
  readonly t: number;
  readonly ready: number;
}

export interface ReadyTracker {
  /** Pass as a what-if's `observe`. */
  observe(sim: Simulation): void;
  /** The group's ready count after each change, in time order (the first point is the count at the start). */
  series(group: PodGroup): readonly ReadyPoint[];
  /** The group's ready count now. */
  ready(group: PodGroup): number;
  /** Whether a pod key was one of the group's pods at any time of the run. */
  isMember(group: PodGroup, podKey: string): boolean;
  /** The keys of every pod that was one of the group's at any time of the run. */
  memberKeys(group: PodGroup): ReadonlySet<string>;
}

/**
 * `each`: every group is counted as if it were tracked alone (a pod counts for every
 * group that has it), which is what one tracker per group gives, at the cost of one;
 * otherwise a pod counts for the first group that has it.
 */
export function trackReady(groups: readonly PodGroup[], each = false): ReadyTracker {
  const ready = new Map<PodGroup, Set<string>>(groups.map((g) => [g, new Set()]));
  const points = new Map<PodGroup, ReadyPoint[]>(groups.map((g) => [g, []]));
  /** Pod key → its groups (maybe none), decided when the pod is first seen. */
  const groupsOf = new Map<string, readonly PodGroup[]>();
  const members = new Map<PodGroup, Set<string>>(groups.map((g) => [g, new Set()]));
  const find = cachedFinder(groups);
  const lookup = (pod: Pod): readonly PodGroup[] => {
    let gs = groupsOf.get(pod.key);
    if (gs === undefined) {
      gs = find(pod);
      if (gs.length === 0) gs = NONE;
      else if (!each && gs.length > 1) gs = [gs[0]!];
      groupsOf.set(pod.key, gs);
      for (const g of gs) members.get(g)!.add(pod.key);
    }
    return gs;
  };
  const note = (g: PodGroup, t: number) => {
    const list = points.get(g)!;
    const n = ready.get(g)!.size;
    const last = list[list.length - 1];
    if (last && last.ready === n) return;
    if (last && last.t === t) list[list.length - 1] = { t, ready: n };
    else list.push({ t, ready: n });
  };
  const set = (pod: Pod, isReady: boolean, t: number) => {
    for (const g of lookup(pod)) {
      const s = ready.get(g)!;
      if (isReady) s.add(pod.key);
      else s.delete(pod.key);
      note(g, t);
    }
  };
  return {
    observe(sim) {
      const { world, engine } = sim;
      // The start's counts, noted once per group (a note per pod gives the same one point).
      for (const pod of world.cluster.pods()) {
        const gs = lookup(pod);
        if (gs.length > 0 && world.isReady(pod.key)) for (const g of gs) ready.get(g)!.add(pod.key);
      }
      for (const g of groups) note(g, 0);
      world.onChange((c) => {
        const t = engine.now;
        if (c.kind === 'podAdded') {
          groupsOf.delete(c.pod.key);
          lookup(c.pod);
        }
        else if (c.kind === 'podReady') set(c.pod, true, t);
        else if (c.kind === 'podNotReady' || c.kind === 'podDeleted') set(c.pod, false, t);
        else if (c.kind === 'podUpdated' && c.pod.terminating && !c.old.terminating) set(c.pod, false, t);
      });
    },
    series: (g) => points.get(g) ?? [],
    ready: (g) => ready.get(g)?.size ?? 0,
    isMember: (g, key) => members.get(g)?.has(key) ?? false,
    memberKeys: (g) => members.get(g) ?? NO_KEYS,
  };
}

/**
 * groupFinder(groups), its answer kept per pod object (its namespace, labels and
 * owners never change) for as long as the list lives: every run over one built
 * cluster starts with the same pod objects, and a check tracks the same list of
 * groups through many runs (each loss batch), so each pod is matched once.
 */
function cachedFinder(groups: readonly PodGroup[]): (pod: Pod) => readonly PodGroup[] {
  let cached = finders.get(groups);
  if (!cached) {
    const find = groupFinder(groups);
    const known = new WeakMap<Pod, readonly PodGroup[]>();
    cached = (pod) => {
      let gs = known.get(pod);
      if (gs === undefined) known.set(pod, (gs = find(pod)));
      return gs;
    };
    finders.set(groups, cached);
  }
  return cached;
}

const finders = new WeakMap<readonly PodGroup[], (pod: Pod) => readonly PodGroup[]>();

const NONE: readonly PodGroup[] = [];
const NO_KEYS: ReadonlySet<string> = new Set();

export interface ReadyWindow {
  /** Ready count just before `from`. */
  readonly before: number;
  readonly min: number;
  /** When the count first reached its minimum. */
  readonly minAt: number;
  /** How long the count stayed below `floor` in total (0 when it never did). */
  readonly belowMs: number;
  /** First time after `from` the count is back at `whole` and stays there to `until`; undefined when it is not. */
  readonly wholeAgainAt: number | undefined;
}

/** The ready count of a series between `from` and `until`, against a floor and the whole count. */
export function readyWindow(series: readonly ReadyPoint[], from: number, until: number, floor: number, whole: number): ReadyWindow {
  let current = 0;
  let i = 0;
  for (; i < series.length && series[i]!.t <= from; i++) current = series[i]!.ready;
  const before = current;
  let min = current;
  let minAt = from;
  let belowMs = 0;
  let since = from;
  let wholeAgainAt: number | undefined = current >= whole ? from : undefined;
  for (; i < series.length && series[i]!.t <= until; i++) {
    const p = series[i]!;
    if (current < floor) belowMs += p.t - since;
    since = p.t;
    current = p.ready;
    if (current < min) {
      min = current;
      minAt = p.t;
    }
    if (current >= whole) wholeAgainAt ??= p.t;
    else wholeAgainAt = undefined;
  }
  if (current < floor) belowMs += until - since;
  return { before, min, minAt, belowMs, wholeAgainAt };
}
