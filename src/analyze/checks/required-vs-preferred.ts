// required-vs-preferred: for each Deployment or StatefulSet whose pods keep away
// from each other with pod anti-affinity, simulates three ways of writing that
// on this cluster — required anti-affinity, preferred anti-affinity, topology
// spread (maxSkew 1, DoNotSchedule) on the same keys — under the loss of the
// node that runs most of its replicas and under a rollout, and says which holds
// both: every replica available again after the node loss (with the capacity
// the cluster has), and the rollout completing. A warning when another variant
// holds strictly more than the current one (its remedy switches to it); nothing
// when the current one is already as good as any (the node-loss and
// co-location rules report what no variant fixes).

import type { LoadedInput, WorkloadSummary } from '../../io/load.js';
import { rolloutProgress } from '../../sim/rollout-status.js';
import type { RolloutKind } from '../../io/scenario-spec.js';
import { formatTime } from '../../sim/timeline.js';
import { itemCheck, type AnalysisContext } from '../check.js';
import type { Finding, Remedy } from '../finding.js';
import { antiAffinityVariant, currentVariant, placementPatch, withTemplate, workloadRef, type AntiAffinityVariant } from '../remedies.js';
import { baseline, memoized, simulateWhatIf } from '../what-if.js';
import { isRollable, rolloutSummary } from './rollout-deadlock.js';

const RULE = 'required-vs-preferred';
const FAIL_AT_MS = 60_000;
/** Past the default 300 s NoExecute toleration of an unreachable node, plus rescheduling and a node launch. */
const AFTER_LOSS_MS = 20 * 60_000;
const VARIANTS: readonly AntiAffinityVariant[] = ['required', 'preferred', 'spread'];

const VARIANT_TEXT: Record<AntiAffinityVariant, string> = {
  required: 'required pod anti-affinity',
  preferred: 'preferred pod anti-affinity',
  spread: 'topology spread (maxSkew 1, DoNotSchedule)',
};

interface Property {
  readonly holds: boolean;
  readonly detail: string;
}

interface VariantResult {
  readonly variant: AntiAffinityVariant;
  readonly nodeLoss: Property;
  readonly rollout: Property;
}

type Rollable = WorkloadSummary & { kind: RolloutKind };

/** The workloads whose variants may be compared (those with self anti-affinity among them are the items): a variant changes only the template. */
const compared = (w: WorkloadSummary): w is Rollable => isRollable(w) && w.kind !== 'DaemonSet' && w.replicas >= 2;

/** What a node loss left of one workload, 20 minutes on. */
interface AfterLoss {
  readonly available: number;
  readonly desired: number;
  /** The last FailedScheduling of a pending pod of the workload ('' when none is pending). */
  readonly reason: string;
}

/**
 * The loss of `node` simulated once for every workload whose worst node it is:
 * what nodeLoss reads of each workload it may be asked for (compared: not the
 * DaemonSets, whose status walks every node), kept instead of the run (the runs of
 * a 1,000-node cluster's workloads held hundreds of MB through the check).
 */
function afterNodeLoss(ctx: AnalysisContext, node: string): { readonly endMs: number; readonly workloads: ReadonlyMap<string, AfterLoss> } {
  return memoized(ctx, JSON.stringify(['node-loss-after', node]), () => {
    const run = simulateWhatIf(ctx, { name: `node-loss:${node}`, steps: [{ at: FAIL_AT_MS, action: { type: 'failNode', node } }], untilMs: FAIL_AT_MS + AFTER_LOSS_MS });
    const lastFailure = new Map<string, string>();
    for (const e of run.events) if (e.type === 'FailedScheduling') lastFailure.set(e['pod'] as string, e['message'] as string);
    const workloads = new Map<string, AfterLoss>();
    for (const w of ctx.input.workloads) {
      if (!compared(w)) continue;
      const after = rolloutProgress(run.sim, w.kind, w.key);
      if (!after) continue;
      const pending = after.pods.find((p) => !p.nodeName && !p.terminating);
      const why = pending ? lastFailure.get(pending.key) : undefined;
      workloads.set(`${w.kind}/${w.key}`, { available: after.available, desired: after.desired, reason: why !== undefined ? `; ${pending!.key}: ${why.split(' preemption: ')[0]!}` : '' });
    }
    return { endMs: run.final.timeMs, workloads };
  });
}

/** Fails the node that runs most of the workload's replicas, then looks 20 minutes later. */
function nodeLoss(ctx: AnalysisContext, w: Rollable): Property {
  const base = rolloutProgress(baseline(ctx).sim, w.kind, w.key);
  if (!base) return { holds: false, detail: 'not simulated' };
  const perNode = new Map<string, number>();
  for (const p of base.pods) if (p.nodeName && !p.terminating) perNode.set(p.nodeName, (perNode.get(p.nodeName) ?? 0) + 1);
  const worst = [...perNode].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  if (!worst) return { holds: false, detail: 'no replica runs before any node is lost' };
  const [node, count] = worst;
  const { endMs, workloads } = afterNodeLoss(ctx, node);
  const after = workloads.get(`${w.kind}/${w.key}`)!;
  const lost = `node ${node} (${count} of ${base.desired} replicas) fails at t=${formatTime(FAIL_AT_MS)}`;
  if (after.available >= after.desired) return { holds: true, detail: `${lost}: all ${after.desired} replicas available again by t=${formatTime(endMs)}` };
  return { holds: false, detail: `${lost}: ${after.available}/${after.desired} available at t=${formatTime(endMs)}${after.reason}` };
}

function rollout(ctx: AnalysisContext, w: Rollable): Property {
  const p = rolloutSummary(ctx, w);
  if (!p) return { holds: false, detail: 'not simulated' };
  return p.complete
    ? { holds: true, detail: 'a template change completes' }
    : { holds: false, detail: `a template change is stuck at ${p.updated}/${p.desired} updated, ${p.available} available` };
}


const score = (r: VariantResult) => Number(r.nodeLoss.holds) + Number(r.rollout.holds);
const holdsBoth = (r: VariantResult) => r.nodeLoss.holds && r.rollout.holds;
/** a holds every property b holds, and one more. */
const strictlyBetter = (a: VariantResult, b: VariantResult) => score(a) > score(b) && (a.nodeLoss.holds || !b.nodeLoss.holds) && (a.rollout.holds || !b.rollout.holds);

function inputFor(input: LoadedInput, w: Rollable, variant: AntiAffinityVariant, current: AntiAffinityVariant): LoadedInput {
  return variant === current ? input : withTemplate(input, w, antiAffinityVariant(w.template, variant));
}

const mark = (p: Property) => (p.holds ? 'holds' : 'fails');

export const requiredVsPreferred = itemCheck({
  rule: RULE,
  description: 'For workloads with pod anti-affinity: which of required, preferred or topology spread survives a node loss and a rollout on this cluster',
  items: (ctx) =>
    ctx.input.workloads.flatMap((w) => {
      if (!compared(w)) return [];
      const current = currentVariant(w.template);
      return current ? [{ w, current }] : [];
    }),
  findings(ctx, { w, current }): Finding[] {
    const resultOf = (variant: AntiAffinityVariant): VariantResult => {
      const vctx = { ...ctx, input: inputFor(ctx.input, w, variant, current) };
      return { variant, nodeLoss: nodeLoss(vctx, w), rollout: rollout(vctx, w) };
    };
    const mine = resultOf(current);
    // No variant holds more than both: nothing to report, the others need no simulation.
    if (holdsBoth(mine)) return [];
    const results = VARIANTS.map((variant) => (variant === current ? mine : resultOf(variant)));
    const better = results.filter((r) => r !== mine && strictlyBetter(r, mine)).sort((a, b) => score(b) - score(a));
    const evidence = results.map((r) => `${VARIANT_TEXT[r.variant]}${r === mine ? ' (current)' : ''}: node loss ${mark(r.nodeLoss)} — ${r.nodeLoss.detail}; rollout ${mark(r.rollout)} — ${r.rollout.detail}`);
    const both = results.filter(holdsBoth).map((r) => VARIANT_TEXT[r.variant]);
    const summary = both.length > 0 ? `holding both on this cluster: ${both.join(', ')}` : 'none of the variants holds both on this cluster (it needs more nodes)';
    if (better.length === 0) return [];
    const remedies: Remedy[] = better.map((r) => ({
      description: `use ${VARIANT_TEXT[r.variant]} instead of ${VARIANT_TEXT[current]} in ${workloadRef(w)}`,
      patches: [placementPatch(w, antiAffinityVariant(w.template, r.variant))],
      apply: (i: LoadedInput) => inputFor(i, w, r.variant, current),
    }));
    return [
      {
        severity: 'warning',
        rule: RULE,
        object: workloadRef(w),
        message: `${VARIANT_TEXT[better[0]!.variant]} would hold ${holdsBoth(better[0]!) ? 'both node loss and rollout' : 'more'} where the current ${VARIANT_TEXT[current]} does not; ${summary}`,
        evidence,
        fix: remedies.map((r) => r.description),
        remedies,
      },
    ];
  },
});
