// Fixes a check may show: each candidate is applied and re-checked, the ones that
// do not clear the finding are dropped, and each that does is reduced — every part
// of a combined fix dropped in turn, every count shrunk — while the rest still
// clears it, so no fix carries a part it does not need.

import type { LoadedInput } from '../io/load.js';
import type { Remedy } from './finding.js';
import { combine } from './remedies.js';

/** Whether the finding is gone on the changed input (a re-simulation). */
export type Clears = (input: LoadedInput) => boolean;

/** The smallest form of a fix that clears the finding (a greedy one-pass reduction). */
export function reduce(remedy: Remedy, input: LoadedInput, clears: Clears): Remedy {
  let parts = [...(remedy.parts ?? [remedy])];
  for (let i = 0; i < parts.length && parts.length > 1; ) {
    const rest = parts.filter((_, j) => j !== i);
    if (clears(combine(...rest).apply(input))) parts = rest;
    else i++;
  }
  for (let i = 0; i < parts.length; i++) {
    for (let smaller = parts[i]!.shrink?.(); smaller; smaller = smaller.shrink?.()) {
      const candidate = parts.map((x, j) => (j === i ? smaller! : x));
      if (!clears(combine(...candidate).apply(input))) break;
      parts = candidate;
    }
  }
  return combine(...parts);
}

/** The candidates that clear the finding, each reduced, without two that end up the same; best first as given. */
export function proveFixes(candidates: readonly Remedy[], input: LoadedInput, clears: Clears): Remedy[] {
  const out: Remedy[] = [];
  for (const c of candidates) {
    if (!clears(c.apply(input))) continue;
    const r = reduce(c, input, clears);
    if (!out.some((x) => x.description === r.description)) out.push(r);
  }
  return out;
}
