// Score normalization shared by several plugins (helper.DefaultNormalizeScore).

import { MAX_NODE_SCORE, type NodeScore } from '../framework.js';

/** Scales scores to [0, maxPriority] by the highest one; `reverse` flips them (lower raw is better). */
export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: NodeScore[]): void {
  let maxCount = 0;
  for (const s of scores) if (s.score > maxCount) maxCount = s.score;
  if (maxCount === 0) {
    if (reverse) for (const s of scores) s.score = maxPriority;
    return;
  }
  for (const s of scores) {
    const scaled = Math.trunc((maxPriority * s.score) / maxCount);
    s.score = reverse ? maxPriority - scaled : scaled;
  }
}

export const normalizeToMax = (reverse: boolean) => (_state: unknown, _pod: unknown, scores: NodeScore[]) => defaultNormalizeScore(MAX_NODE_SCORE, reverse, scores);
