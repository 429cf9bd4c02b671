// InterPodAffinityArgs as written in a KubeSchedulerConfiguration (v1):
// defaulted (hardPodAffinityWeight 1) and validated as upstream.

import { FieldError } from '../../../model/errors.js';

export interface InterPodAffinityArgs {
  /** Score weight of an existing pod's required affinity term that the incoming pod matches; 0 turns it off. */
  readonly hardPodAffinityWeight: number;
  /** Skip scoring existing pods' preferred terms unless the incoming pod has preferred terms. */
  readonly ignorePreferredTermsOfExistingPods: boolean;
}

const MIN_HARD_POD_AFFINITY_WEIGHT = 0;
const MAX_HARD_POD_AFFINITY_WEIGHT = 100;
const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'hardPodAffinityWeight', 'ignorePreferredTermsOfExistingPods']);
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export function parseInterPodAffinityArgs(raw: Readonly<Record<string, unknown>>): InterPodAffinityArgs {
  // The scheduler decodes its configuration strictly.
  for (const key of Object.keys(raw)) {
    if (!KNOWN_FIELDS.has(key)) throw new FieldError(`unknown field ${JSON.stringify(key)}`, [key]);
  }
  const w = raw.hardPodAffinityWeight;
  let hardPodAffinityWeight = 1;
  if (w !== undefined && w !== null) {
    if (typeof w !== 'number' || !Number.isInteger(w) || w < INT32_MIN || w > INT32_MAX) {
      throw new FieldError(`Invalid value: ${JSON.stringify(w)}: must be a 32-bit integer`, ['hardPodAffinityWeight']);
    }
    hardPodAffinityWeight = w;
  }
  if (hardPodAffinityWeight < MIN_HARD_POD_AFFINITY_WEIGHT || hardPodAffinityWeight > MAX_HARD_POD_AFFINITY_WEIGHT) {
    throw new FieldError(
      `Invalid value: ${hardPodAffinityWeight}: not in valid range [${MIN_HARD_POD_AFFINITY_WEIGHT}, ${MAX_HARD_POD_AFFINITY_WEIGHT}]`,
      ['hardPodAffinityWeight'],
    );
  }
  const ignore = raw.ignorePreferredTermsOfExistingPods;
  if (ignore !== undefined && ignore !== null && typeof ignore !== 'boolean') {
    throw new FieldError(`Invalid value: ${JSON.stringify(ignore)}: must be a boolean`, ['ignorePreferredTermsOfExistingPods']);
  }
  return { hardPodAffinityWeight, ignorePreferredTermsOfExistingPods: ignore === true };
}
