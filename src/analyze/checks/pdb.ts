// pdb: PodDisruptionBudgets that cannot do their job. One that allows no
// disruption at the replicas it guards (minAvailable >= replicas, maxUnavailable 0)
// makes every drain of their nodes hang — shown by simulating the drain; one that
// selects no pod protects nothing (usually a selector typo); and pods selected by
// two budgets cannot be evicted at all (the eviction API refuses them).

import type { LoadedInput } from '../../io/load.js';
import { disruptionsAllowed, type PodDisruptionBudget } from '../../model/pdb.js';
import type { Pod } from '../../model/pod.js';
import { formatTime } from '../../sim/timeline.js';
import type { AnalysisContext, Check } from '../check.js';
import type { Finding, Remedy } from '../finding.js';
import { unmodelledPodOwners } from '../unmodelled.js';
import { simulateWhatIf } from '../what-if.js';

const DRAIN_AT_MS = 30_000;
/** How long a drain is watched: kubectl retries a refused eviction every 5 s, for ever. */
const DRAIN_WATCH_MS = 5 * 60_000;

const objectOf = (b: PodDisruptionBudget) => `PodDisruptionBudget/${b.namespace}/${b.name}`;
const selects = (b: PodDisruptionBudget, p: Pod) => p.namespace === b.namespace && b.selector.matches(p.labels);
const livePods = (input: LoadedInput) => input.pods.filter((p) => !p.terminating && p.phase !== 'Succeeded' && p.phase !== 'Failed');

function spec(b: PodDisruptionBudget): string {
  if (b.maxUnavailable !== undefined) return `maxUnavailable ${String(b.maxUnavailable)}`;
  if (b.minAvailable !== undefined) return `minAvailable ${String(b.minAvailable)}`;
  return 'neither minAvailable nor maxUnavailable (every pod must stay)';
}

/** The budget rewritten to allow one disruption at a time. */
function allowOne(b: PodDisruptionBudget): Remedy {
  return {
    description: `set ${objectOf(b)} to maxUnavailable 1 (instead of ${spec(b)})`,
    patches: [{ object: objectOf(b), type: 'merge', patch: { spec: { maxUnavailable: 1, minAvailable: null } } }],
    apply: (input) => ({ ...input, pdbs: input.pdbs.map((x) => (x.key === b.key ? { namespace: x.namespace, name: x.name, key: x.key, selector: x.selector, maxUnavailable: 1 } : x)) }),
  };
}

function withoutBudget(b: PodDisruptionBudget): Remedy {
  return { description: `delete ${objectOf(b)}`, patches: [{ object: objectOf(b), type: 'delete' }], apply: (input) => ({ ...input, pdbs: input.pdbs.filter((x) => x.key !== b.key) }) };
}

/** Drains the node of the first selected pod and reports what the drain did. */
function drainEvidence(ctx: AnalysisContext, b: PodDisruptionBudget): { hung: boolean; lines: string[] } {
  const settle = simulateWhatIf(ctx, { name: 'pdb-placement', steps: [], untilMs: DRAIN_AT_MS });
  const pod = [...settle.sim.world.cluster.pods()].find((p) => p.nodeName && !p.terminating && selects(b, p));
  if (!pod) return { hung: false, lines: ['no selected pod is running, so no drain was simulated'] };
  const run = simulateWhatIf(ctx, { name: 'pdb-drain', steps: [{ at: DRAIN_AT_MS, action: { type: 'drain', node: pod.nodeName } }], untilMs: DRAIN_AT_MS + DRAIN_WATCH_MS });
  const lines: string[] = [];
  let retries = 0;
  for (const e of run.events) {
    if (e.type === 'DrainStarted') lines.push(`t=${formatTime(e.t)} drain ${String(e['node'])} (runs ${pod.key})`);
    else if (e.type === 'DrainEvictionRetry' && String(e['pod']).startsWith(`${b.namespace}/`) && retries++ === 0) lines.push(`t=${formatTime(e.t)} ${String(e['message'])}`);
    else if (e.type === 'DrainComplete') lines.push(`t=${formatTime(e.t)} drain complete`);
  }
  const hung = !run.events.some((e) => e.type === 'DrainComplete');
  if (hung) lines.push(`t=${formatTime(DRAIN_AT_MS + DRAIN_WATCH_MS)} still draining: ${retries} eviction(s) refused, retried every 5s`);
  return { hung, lines };
}

function blocking(ctx: AnalysisContext, b: PodDisruptionBudget, expected: number): Finding | undefined {
  if (expected === 0 || disruptionsAllowed(b, expected, expected) > 0) return undefined;
  const drain = drainEvidence(ctx, b);
  const fix: string[] = [];
  const remedies: Remedy[] = [];
  const one = allowOne(b);
  fix.push(`${one.description}: one pod at a time may be evicted while the rest stay`);
  remedies.push(one);
  if (b.minAvailable !== undefined && expected >= 2) fix.push(`or minAvailable ${expected - 1}`);
  fix.push(`or more replicas than the budget keeps (more than ${expected})`);
  return {
    severity: 'error',
    rule: 'pdb',
    object: objectOf(b),
    message: `${spec(b)} with ${expected} pod(s) allows no disruption at all: every drain of their nodes ${drain.hung ? 'hangs' : 'would hang'} (node upgrades, consolidation, kubectl drain)`,
    evidence: [`${expected} selected pod(s) expected; disruptionsAllowed = 0 even with all healthy`, ...drain.lines],
    fix,
    remedies,
  };
}

function empty(b: PodDisruptionBudget, input: LoadedInput): Finding {
  const unseen = unmodelledPodOwners(input).filter((o) => o.namespace === b.namespace);
  if (unseen.length > 0) {
    const owners = unseen.map((o) => `${o.kind}/${o.name}`).join(', ');
    return {
      severity: 'info',
      rule: 'pdb',
      object: objectOf(b),
      message: `its selector matches no pod of the input, but ${owners} in ${b.namespace} create pods berth does not model: it likely guards those, and drains of their nodes were not checked against it`,
      evidence: [`0 of ${livePods(input).filter((p) => p.namespace === b.namespace).length} pod(s) in ${b.namespace} match`, `not modelled there: ${owners}`],
      fix: [],
    };
  }
  const near = input.workloads.filter((w) => w.namespace === b.namespace).map((w) => `${w.kind}/${w.name} ${JSON.stringify(w.templatePod.labels)}`);
  return {
    severity: 'warning',
    rule: 'pdb',
    object: objectOf(b),
    message: `its selector matches no pod in namespace ${b.namespace}: it protects nothing`,
    evidence: [`0 of ${livePods(input).filter((p) => p.namespace === b.namespace).length} pod(s) in ${b.namespace} match`, ...(near.length > 0 ? [`workloads there and their pod labels: ${near.join('; ')}`] : [])],
    fix: ['correct spec.selector to the labels of the pods it should protect, or delete it'],
  };
}

function overlap(a: PodDisruptionBudget, b: PodDisruptionBudget, pods: readonly Pod[]): Finding {
  const remedy = withoutBudget(b);
  return {
    severity: 'error',
    rule: 'pdb',
    object: objectOf(b),
    message: `it selects ${pods.length} pod(s) that ${objectOf(a)} selects too: the eviction API refuses to evict a pod with more than one budget, so drains of their nodes hang`,
    evidence: [`both select: ${pods.slice(0, 5).map((p) => p.key).join(', ')}${pods.length > 5 ? ', …' : ''}`],
    fix: [`${remedy.description}, or narrow one selector so each pod has one budget`],
    remedies: [remedy],
  };
}

export const pdbCheck: Check = {
  rule: 'pdb',
  description: 'PodDisruptionBudgets that allow no disruption (drains hang), protect nothing, or overlap on the same pods',
  run(ctx) {
    const pods = livePods(ctx.input);
    const out: Finding[] = [];
    const budgets = ctx.input.pdbs;
    budgets.forEach((b, i) => {
      const selected = pods.filter((p) => selects(b, p));
      if (selected.length === 0) {
        out.push(empty(b, ctx.input));
        return;
      }
      for (const a of budgets.slice(0, i)) {
        const shared = selected.filter((p) => selects(a, p));
        if (shared.length > 0) out.push(overlap(a, b, shared));
      }
      const f = blocking(ctx, b, selected.length);
      if (f) out.push(f);
    });
    return out;
  },
};
