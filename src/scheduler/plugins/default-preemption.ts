// DefaultPreemption (PostFilter): when a pod fits nowhere, find lower-priority
// pods whose eviction would let it in and nominate the node (see ../preemption.ts).

import type { PostFilterPlugin } from '../framework.js';
import {
  DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE,
  DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE,
  Evaluator,
  type PreemptionArgs,
} from '../preemption.js';
import type { PluginFactory } from '../registry.js';
import { Status } from '../status.js';

export const DEFAULT_PREEMPTION = 'DefaultPreemption';

const MAX_INT32 = 2147483647;
const MIN_INT32 = -2147483648;

/** An int32 field of the args; absent or null takes the default, as a nil pointer does upstream. */
function int32Arg(args: Readonly<Record<string, unknown>>, key: string, fallback: number): number {
  const v = args[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < MIN_INT32 || v > MAX_INT32) {
    throw new Error(`DefaultPreemptionArgs.${key}: must be a 32-bit integer, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** SetDefaults_DefaultPreemptionArgs then ValidateDefaultPreemptionArgs, with upstream's field error texts. */
export function parseDefaultPreemptionArgs(args: Readonly<Record<string, unknown>>): PreemptionArgs {
  const minCandidateNodesPercentage = int32Arg(args, 'minCandidateNodesPercentage', DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE);
  const minCandidateNodesAbsolute = int32Arg(args, 'minCandidateNodesAbsolute', DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE);
  const errs: string[] = [];
  if (minCandidateNodesPercentage < 0 || minCandidateNodesPercentage > 100) {
    errs.push(`minCandidateNodesPercentage: Invalid value: ${minCandidateNodesPercentage}: not in valid range [0, 100]`);
  }
  if (minCandidateNodesAbsolute < 0) errs.push(`minCandidateNodesAbsolute: Invalid value: ${minCandidateNodesAbsolute}: not in valid range [0, inf)`);
  if (minCandidateNodesPercentage === 0 && minCandidateNodesAbsolute === 0) {
    errs.push(
      'minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute',
      'minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage',
    );
  }
  // field.ErrorList.ToAggregate: one error as is, several in brackets.
  if (errs.length === 1) throw new Error(errs[0]);
  if (errs.length > 1) throw new Error(`[${errs.join(', ')}]`);
  return { minCandidateNodesPercentage, minCandidateNodesAbsolute };
}

export const newDefaultPreemption: PluginFactory = ({ handle, args }): PostFilterPlugin => {
  const evaluator = new Evaluator(handle, parseDefaultPreemptionArgs(args));
  return {
    name: DEFAULT_PREEMPTION,
    postFilter: (state, pod, statuses) => {
      const { result, status } = evaluator.preempt(state, pod, statuses);
      const msg = status.message();
      const out = msg === '' ? status : new Status(status.code, [`preemption: ${msg}`]);
      return result ? { result, status: out } : { status: out };
    },
  };
};
