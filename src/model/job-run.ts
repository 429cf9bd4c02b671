// How long a Job's pod runs in a simulation and how it ends. Nothing in a manifest
// says this, so berth reads two annotations of the pod template (docs/scenario.md):
//   berth.dev/run-duration  a Go duration, "1m" when absent: from Running to exit
//   berth.dev/exit-code     0..255, "0" when absent: every run of the pod's
//                           containers ends with this code (0 = Succeeded)
// io/ validates them where they are written; sim/ reads them from the pod.

import { parseGoDuration } from './go-duration.js';
import type { Labels } from './selector.js';

export const RUN_DURATION_ANNOTATION = 'berth.dev/run-duration';
export const EXIT_CODE_ANNOTATION = 'berth.dev/exit-code';
export const DEFAULT_RUN_MS = 60_000;

export interface PodRun {
  /** From Running to the containers' exit, in ms. */
  readonly durationMs: number;
  readonly exitCode: number;
}

/** The run duration in ms; throws with the problem when the annotation is not a positive Go duration. */
export function parseRunDuration(text: string): number {
  const ns = parseGoDuration(text);
  if (ns <= 0n) throw new Error(`must be a positive duration, got ${JSON.stringify(text)}`);
  // Whole milliseconds, at least one: the simulator's clock ticks in ms.
  return Math.max(1, Number(ns / 1_000_000n));
}

/** The exit code; throws when the annotation is not an integer in 0..255. */
export function parseExitCode(text: string): number {
  if (!/^[0-9]{1,3}$/.test(text) || Number(text) > 255) throw new Error(`must be an integer from 0 to 255, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** The run of a pod with these annotations (already validated by io/). */
export function podRun(annotations: Labels): PodRun {
  const duration = annotations[RUN_DURATION_ANNOTATION];
  const code = annotations[EXIT_CODE_ANNOTATION];
  return { durationMs: duration === undefined ? DEFAULT_RUN_MS : parseRunDuration(duration), exitCode: code === undefined ? 0 : parseExitCode(code) };
}
