// rollout-deadlock: simulates a template change of every Deployment, StatefulSet
// and DaemonSet on the analysed cluster and reports the ones whose rollout does
// not complete (or a rollout already in progress that is stuck), with the pod
// that cannot be placed and the scheduler's reason. Fixes are tried in order —
// replace in place (maxSurge 0, maxUnavailable 1), one more node or a higher
// NodePool limit, preferred instead of required anti-affinity, topology spread —
// and only the ones whose re-simulated rollout completes are offered.

import type { WorkloadSummary } from '../../io/load.js';
import { LABEL_HOSTNAME, LABEL_ZONE, type Node } from '../../model/node.js';
import type { Pod } from '../../model/pod.js';
import { maxSurge, maxUnavailable } from '../../sim/controllers/deployment.js';
import { deploymentComplete, rolloutProgress, statefulSetComplete, type RolloutProgress } from '../../sim/rollout-status.js';
import type { ScenarioRun } from '../../sim/scenario.js';
import type { Simulation } from '../../sim/simulation.js';
import type { RolloutKind } from '../../io/scenario-spec.js';
import { formatTime } from '../../sim/timeline.js';
import { itemCheck, type AnalysisContext } from '../check.js';
import type { Finding, Remedy } from '../finding.js';
import { antiAffinityVariant, currentVariant, findWorkload, nodeManifest, placementPatch, selfAntiAffinity, templateNodeFor, withNode, withoutPoolLimits, withRollout, withTemplate, workloadRef } from '../remedies.js';
import { baseline, exchanged, memoized, whatIfSession } from '../what-if.js';

const RULE = 'rollout-deadlock';
/** When the simulated template change happens: after the baseline has settled. */
const ROLLOUT_AT_MS = 60_000;
/** How long a rollout is given at first: past the default progressDeadlineSeconds (10 min) and a node launch. */
const WATCH_MS = 30 * 60_000;
/** A rollout with no pod turning ready for this long is stuck. */
const STALL_MS = 10 * 60_000;
const MAX_WATCH_MS = 12 * 3600_000;
/** Zones tried for the "one more node" fix. */
const MAX_ZONES_TRIED = 3;

const ROLLOUT_KINDS: readonly RolloutKind[] = ['Deployment', 'StatefulSet', 'DaemonSet'];

export interface RolloutOutcome {
  readonly run: ScenarioRun;
  readonly progress: RolloutProgress;
  /** When the watched rollout started: the simulated change, or 0 for one already in progress. */
  readonly startedAt: number;
  readonly inProgress: boolean;
}

export function isRollable(w: WorkloadSummary): w is WorkloadSummary & { kind: RolloutKind } {
  return (ROLLOUT_KINDS as readonly string[]).includes(w.kind) && w.rollout.updateStrategy?.type !== 'OnDelete';
}

/** When the last pod of the workload turned ready: a rollout that did so within STALL_MS of the end is still moving. */
function lastReadyAt(run: ScenarioRun, p: RolloutProgress): number | undefined {
  let last: number | undefined;
  for (const pod of p.pods) {
    const t = run.sim.world.readySince(pod.key);
    if (t !== undefined && Number.isFinite(t) && (last === undefined || t > last)) last = t;
  }
  return last;
}

function stillProgressing(run: ScenarioRun, p: RolloutProgress, since: number): boolean {
  const last = lastReadyAt(run, p);
  return !p.complete && last !== undefined && last > since && last >= run.final.timeMs - STALL_MS;
}

/**
 * What is kept of a simulated rollout: its simulation only when it is stuck (a finding
 * reads it); one that completed, or was still progressing when the watch ended, is read
 * no more and ended at `endedAt`; a stuck one as the memo keeps it has neither (its
 * simulation went to the caller that ran it).
 */
export type SimulatedRollout = (RolloutOutcome & { readonly endedAt?: undefined }) | (Omit<RolloutOutcome, 'run'> & { readonly run?: undefined; readonly endedAt?: number });

/**
 * Stops the simulation after the first event at which the rollout of `w` started at
 * ROLLOUT_AT_MS is complete: its verdict is decided then, and the minutes the watch
 * had left (old pods terminating, controllers syncing) were simulated for nothing.
 * A rollout that completed and would come undone later in the watch (a pod of it
 * preempted by another workload's) counts as completed: it did complete. Deployment
 * and StatefulSet statuses are read after each event; a DaemonSet's status (a walk
 * over every node) only after a change of the world while none of its pods is outdated.
 */
function stopWhenComplete(sim: Simulation, w: WorkloadSummary & { kind: RolloutKind }): void {
  /** The template's hash (a StatefulSet's update revision) before the change. */
  let hashBefore: string | undefined;
  /** A Deployment's status when the change was first seen: until a sync after the change writes another, its status is the one from before. */
  let statusAtChange: unknown;
  let changed = false;
  sim.world.onChange(() => (changed = true));
  sim.engine.afterEach(() => {
    const worldChanged = changed;
    changed = false;
    const hash = w.kind === 'Deployment' ? sim.deployments.objects.get(w.key)?.hash : w.kind === 'StatefulSet' ? sim.statefulSets.objects.get(w.key)?.updateRevision : sim.daemonSets.objects.get(w.key)?.hash;
    if (hash === undefined) return;
    if (sim.engine.now < ROLLOUT_AT_MS || hashBefore === undefined) hashBefore = hash;
    else if (hash !== hashBefore && complete(worldChanged)) sim.engine.stop();
  });
  /** Whether the rollout is complete as rolloutProgress reads it, its template having changed. */
  function complete(worldChanged: boolean): boolean {
    if (w.kind === 'Deployment') {
      const d = sim.deployments.objects.get(w.key)!;
      statusAtChange ??= d.status;
      return d.status !== statusAtChange && deploymentComplete(d);
    }
    if (w.kind === 'StatefulSet') return statefulSetComplete(sim.statefulSets.objects.get(w.key)!);
    const ds = sim.daemonSets.objects.get(w.key)!;
    return worldChanged && sim.daemonSets.hasOutdatedPods(ds) === false && rolloutProgress(sim, w.kind, w.key)!.complete;
  }
}

/**
 * A template change of `w` (a restart annotation) one minute in, watched for 30
 * minutes — longer while pods keep turning ready (a DaemonSet on hundreds of
 * nodes replaces one pod at a time), up to MAX_WATCH_MS. A longer watch goes on
 * with the same simulation (the same as running it from the start to the longer
 * end), and the outcome is shared by every check that asks (callers only read it).
 * The memo keeps the outcome without its simulation, which goes only to the caller
 * that ran it: kept for the whole check, the 60 rollouts of a 1,000-node cluster held
 * ~600 MB that every full GC walked (a DaemonSet's on 5,000 nodes, still progressing
 * after 12 simulated hours, ~1 GB), and each part of this check at 2,000 nodes left
 * ~50 MB of stuck ones' in its worker.
 */
export function simulateRollout(ctx: AnalysisContext, w: WorkloadSummary & { kind: RolloutKind }, provisioner = ctx.provisioner): SimulatedRollout | undefined {
  let fresh: SimulatedRollout | undefined;
  const kept = memoized(ctx, rolloutKey(w, provisioner), () => {
    fresh = runRollout(ctx, w, provisioner);
    return fresh && { progress: fresh.progress, startedAt: fresh.startedAt, inProgress: fresh.inProgress, ...(fresh.endedAt !== undefined ? { endedAt: fresh.endedAt } : {}) };
  });
  return fresh ?? kept;
}

const rolloutKey = (w: WorkloadSummary, provisioner: boolean) => JSON.stringify(['rollout', w.kind, w.key, provisioner]);

/** simulateRollout without the memo. */
function runRollout(ctx: AnalysisContext, w: WorkloadSummary & { kind: RolloutKind }, provisioner: boolean): SimulatedRollout | undefined {
  const session = whatIfSession(ctx, {
    name: `rollout:${workloadRef(w)}`,
    steps: [{ at: ROLLOUT_AT_MS, action: { type: 'rollout', kind: w.kind, name: w.key } }],
    provisioner,
    observe: (sim) => stopWhenComplete(sim, w),
  });
  for (let watch = WATCH_MS; ; ) {
    const run = session.runTo(ROLLOUT_AT_MS + watch);
    const progress = rolloutProgress(run.sim, w.kind, w.key);
    if (!progress) return undefined;
    if (!progress.complete && !stillProgressing(run, progress, ROLLOUT_AT_MS)) return { run, progress, startedAt: ROLLOUT_AT_MS, inProgress: false };
    if (progress.complete || watch >= MAX_WATCH_MS) return { progress, startedAt: ROLLOUT_AT_MS, inProgress: false, endedAt: run.final.timeMs };
    // Long enough for the rest at the pace so far, with a margin.
    const pace = (lastReadyAt(run, progress)! - ROLLOUT_AT_MS) / Math.max(1, progress.updated);
    watch = Math.min(MAX_WATCH_MS, Math.max(2 * watch, Math.ceil(pace * progress.desired * 1.25) + STALL_MS));
  }
}

/** What a simulated template change of `w` tells a reader that needs no run (required-vs-preferred). */
export type RolloutSummary = Pick<RolloutProgress, 'complete' | 'updated' | 'desired' | 'available'>;

/**
 * simulateRollout's outcome as plain data, which a pool's workers give each other:
 * the rollouts rollout-deadlock simulates in one worker are the ones
 * required-vs-preferred asks about in the other.
 */
export function rolloutSummary(ctx: AnalysisContext, w: WorkloadSummary & { kind: RolloutKind }, simulate = () => simulateRollout(ctx, w)): RolloutSummary | undefined {
  return exchanged(ctx, JSON.stringify(['rollout-summary', w.kind, w.key]), () => {
    const p = simulate()?.progress;
    return p && { complete: p.complete, updated: p.updated, desired: p.desired, available: p.available };
  });
}

/**
 * The rollout of `w` that does not complete, if any: the one in progress in the
 * input, else a simulated template change. Undefined when the workload is not
 * fully up even without a rollout (pods of its current template cannot all run:
 * a capacity or constraint problem other checks report), when rollouts complete,
 * or when one is still making progress at the end of the watch (slow, not stuck).
 */
export function stuckRollout(ctx: AnalysisContext, w: WorkloadSummary & { kind: RolloutKind }): RolloutOutcome | undefined {
  const base = baseline(ctx);
  const now = rolloutProgress(base.sim, w.kind, w.key);
  if (!now || now.desired === 0) return undefined;
  if (!now.complete) return now.outdated > 0 && !stillProgressing(base, now, 0) ? { run: base, progress: now, startedAt: 0, inProgress: true } : undefined;
  // A rollout another worker saw complete is not simulated again here.
  let simulated: SimulatedRollout | undefined;
  if (rolloutSummary(ctx, w, () => (simulated = simulateRollout(ctx, w)))?.complete !== false) return undefined;
  simulated ??= simulateRollout(ctx, w);
  // Ended (still progressing when the longest watch ended): slow, not stuck.
  if (!simulated || simulated.endedAt !== undefined) return undefined;
  // A stuck rollout simulated before (its outcome kept without its simulation) is simulated again for the finding, alike.
  const r = simulated.run ? simulated : runRollout(ctx, w, ctx.provisioner);
  return r?.run ? r : undefined;
}

const shortMessage = (m: string) => m.split(' preemption: ')[0]!;

/** The first FailedScheduling of each pod from `after` on. */
function failureMessages(run: ScenarioRun, after: number): Map<string, { t: number; message: string }> {
  const out = new Map<string, { t: number; message: string }>();
  for (const e of run.events) if (e.type === 'FailedScheduling' && e.t >= after && !out.has(e['pod'] as string)) out.set(e['pod'] as string, { t: e.t, message: e['message'] as string });
  return out;
}

function strategyText(run: ScenarioRun, w: WorkloadSummary & { kind: RolloutKind }): string {
  if (w.kind === 'Deployment') {
    const d = run.sim.deployments.objects.get(w.key)!;
    return d.strategy.type === 'Recreate' ? 'Recreate' : `maxSurge ${maxSurge(d)}, maxUnavailable ${maxUnavailable(d)}`;
  }
  const ru = w.rollout.updateStrategy?.rollingUpdate;
  return `maxSurge ${String(ru?.maxSurge ?? 0)}, maxUnavailable ${String(ru?.maxUnavailable ?? 1)}`;
}

function explain(w: WorkloadSummary & { kind: RolloutKind }, o: RolloutOutcome): { message: string; evidence: string[] } {
  const { run, progress: p, startedAt } = o;
  const failures = failureMessages(run, startedAt);
  const stuck = p.pods.find((pod) => !pod.terminating && !pod.nodeName && failures.has(pod.key));
  const evidence: string[] = [];
  evidence.push(
    o.inProgress
      ? `t=0s: the pods of ${workloadRef(w)} in the input are not all of its template: its rollout is under way (${strategyText(run, w)}, ${p.desired} replicas)`
      : `t=${formatTime(startedAt)}: template change of ${workloadRef(w)} (${strategyText(run, w)}, ${p.desired} replicas)`,
  );
  const scalings = run.events.filter((e) => e.t >= startedAt && e.type === 'ScalingReplicaSet' && e['deployment'] === w.key).slice(0, 3);
  for (const e of scalings) evidence.push(`t=${formatTime(e.t)}: ReplicaSet ${e['replicaSet'] as string} scaled ${e['from'] as number} → ${e['to'] as number}`);
  if (stuck) {
    const f = failures.get(stuck.key)!;
    evidence.push(`t=${formatTime(f.t)}: pod ${stuck.key} FailedScheduling: ${f.message}`);
  }
  const deadline = run.events.find((e) => e.t >= startedAt && e.type === 'DeploymentCondition' && e['deployment'] === w.key && e['reason'] === 'ProgressDeadlineExceeded');
  if (deadline) evidence.push(`t=${formatTime(deadline.t)}: Progressing=False (ProgressDeadlineExceeded)`);
  const pending = p.pods.filter((pod) => !pod.terminating && !pod.nodeName).length;
  evidence.push(`t=${formatTime(run.final.timeMs)}: ${p.updated}/${p.desired} replicas updated, ${p.available} available, ${p.outdated} outdated, ${pending} pending`);
  const what = o.inProgress ? `the rollout of ${workloadRef(w)} to its template is stuck` : `a rollout of ${workloadRef(w)} never completes`;
  const why = stuck
    ? `: pod ${stuck.key} of the new template cannot be scheduled (${shortMessage(failures.get(stuck.key)!.message)})${antiAffinityHint(w, run, failures.get(stuck.key)!.message)}`
    : `: ${p.available} of ${p.desired} replicas available`;
  return { message: `${what} (stuck at ${p.updated}/${p.desired} replicas updated)${why}`, evidence };
}

/**
 * The arithmetic behind a surge pod that hostname anti-affinity keeps out: the
 * nodes the scheduler rejects only for anti-affinity (its filters run in order,
 * so they passed every other one) are the eligible ones, and each runs a replica.
 */
function antiAffinityHint(w: WorkloadSummary & { kind: RolloutKind }, run: ScenarioRun, message: string): string {
  if (w.kind !== 'Deployment' || !selfAntiAffinity(w.template).required.some((t) => t.topologyKey === LABEL_HOSTNAME)) return '';
  const d = run.sim.deployments.objects.get(w.key);
  const eligible = /(\d+) node\(s\) didn't match pod anti-affinity rules/.exec(message)?.[1];
  if (!d || eligible === undefined || maxSurge(d) === 0) return '';
  return `; required ${LABEL_HOSTNAME} anti-affinity with ${d.replicas} replicas + ${maxSurge(d)} surge pod(s) on ${eligible} eligible node(s)`;
}

/** A fix worth trying; the "one more node" ones are alternatives (one zone each) of which the first that works is kept. */
type Candidate = Remedy & { readonly addsNode?: true };

/** Fixes worth trying, most local first; each is then proven by re-simulating. */
function candidates(ctx: AnalysisContext, w: WorkloadSummary & { kind: RolloutKind }, o: RolloutOutcome): Candidate[] {
  const out: Candidate[] = [];
  const input = ctx.input;
  if (w.kind === 'Deployment') {
    const d = o.run.sim.deployments.objects.get(w.key)!;
    if (d.strategy.type === 'RollingUpdate' && !(maxSurge(d) === 0 && maxUnavailable(d) >= 1)) {
      out.push({
        description: `set ${workloadRef(w)} spec.strategy.rollingUpdate to maxSurge: 0, maxUnavailable: 1 (replace one pod at a time instead of adding a surge pod)`,
        patches: [{ object: workloadRef(w), type: 'merge', patch: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } } } }],
        apply: (i) => withRollout(i, w, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } }),
      });
    }
  } else if (w.kind === 'DaemonSet') {
    const ru = w.rollout.updateStrategy?.rollingUpdate;
    if (ru?.maxSurge !== undefined && ru.maxSurge !== 0 && ru.maxSurge !== '0%') {
      out.push({
        description: `set ${workloadRef(w)} spec.updateStrategy.rollingUpdate to maxSurge: 0, maxUnavailable: 1`,
        patches: [{ object: workloadRef(w), type: 'merge', patch: { spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } } } }],
        apply: (i) => withRollout(i, w, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } }),
      });
    }
  }
  const limited = ctx.provisioner ? input.nodePools.filter((np) => np.replicas === null && Object.keys(np.limits).length > 0) : [];
  for (const np of limited) {
    const limits = Object.entries(np.limits).map(([k, v]) => `${k}: ${v}`).join(', ');
    out.push({
      description: `raise the limits of NodePool ${np.name} (now ${limits}) so the provisioner can add a node`,
      patches: [{ object: `NodePool/${np.name}`, type: 'merge', patch: { spec: { limits: null } } }],
      apply: (i) => withoutPoolLimits(i, np.name),
    });
  }
  if (limited.length === 0) {
    for (const { like, zone } of nodeChoices(input.nodes, o.progress.pods, w.templatePod)) {
      const name = uniqueName(input.nodes, `${like.name}-extra`);
      const node: Node = { ...like, name, uid: name, labels: { ...like.labels, [LABEL_HOSTNAME]: name, [LABEL_ZONE]: zone }, unschedulable: false };
      out.push({
        description: `add one node like ${like.name} in zone ${zone} (e.g. ${name})`,
        patches: [{ object: `Node/${name}`, type: 'create', patch: nodeManifest(node) }],
        apply: (i) => withNode(i, like, name, zone),
        addsNode: true,
      });
    }
  }
  if (currentVariant(w.template) === 'required') {
    const keys = [...new Set(selfAntiAffinity(w.template).required.map((t) => t.topologyKey))].join(', ');
    out.push({
      description: `make the pod anti-affinity of ${workloadRef(w)} on ${keys} preferred instead of required`,
      patches: [placementPatch(w, antiAffinityVariant(w.template, 'preferred'))],
      apply: (i) => withTemplate(i, w, antiAffinityVariant(findWorkload(i, w)!.template, 'preferred')),
    });
  }
  if (currentVariant(w.template) !== undefined) {
    const keys = [...new Set([...selfAntiAffinity(w.template).required, ...selfAntiAffinity(w.template).preferred].map((t) => t.topologyKey))].join(', ');
    out.push({
      description: `replace the pod anti-affinity of ${workloadRef(w)} with topologySpreadConstraints on ${keys} (maxSkew: 1, whenUnsatisfiable: DoNotSchedule)`,
      patches: [placementPatch(w, antiAffinityVariant(w.template, 'spread'))],
      apply: (i) => withTemplate(i, w, antiAffinityVariant(findWorkload(i, w)!.template, 'spread')),
    });
  }
  return out;
}

/**
 * A node to copy — one already running the workload (a kind that fits its pods),
 * else any — that the pods can use (not tainted against them, cordoned or a
 * control-plane node), in each zone, zones with fewest of its pods first.
 */
function nodeChoices(nodes: readonly Node[], pods: readonly Pod[], templatePod: Pod): { like: Node; zone: string }[] {
  const onNode = new Set(pods.map((p) => p.nodeName));
  const hosting = nodes.filter((n) => onNode.has(n.name));
  const like = templateNodeFor(templatePod, [...hosting, ...nodes]);
  if (!like) return [];
  // Running pods per node name: one pass over the pods, not one per node (a DaemonSet's 5,000 on 5,000 nodes).
  const running = new Map<string, number>();
  for (const p of pods) if (!p.terminating) running.set(p.nodeName, (running.get(p.nodeName) ?? 0) + 1);
  const count = new Map<string, number>();
  for (const n of nodes) {
    const z = n.labels[LABEL_ZONE];
    if (z !== undefined) count.set(z, (count.get(z) ?? 0) + (running.get(n.name) ?? 0));
  }
  const zones = [...count].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).map(([z]) => z);
  return (zones.length > 0 ? zones : [like.labels[LABEL_ZONE] ?? '']).slice(0, MAX_ZONES_TRIED).map((zone) => ({ like, zone }));
}

function uniqueName(nodes: readonly Node[], base: string): string {
  let name = base;
  for (let i = 2; nodes.some((n) => n.name === name); i++) name = `${base}-${i}`;
  return name;
}

/** The fixes that, applied, let the rollout complete; for "one more node", only the first zone that works. */
function provenFixes(ctx: AnalysisContext, w: WorkloadSummary & { kind: RolloutKind }, o: RolloutOutcome): Remedy[] {
  const proven: Remedy[] = [];
  let nodeFixed = false;
  for (const c of candidates(ctx, w, o)) {
    if (c.addsNode && nodeFixed) continue;
    const fixed = { ...ctx, input: c.apply(ctx.input) };
    const fw = findWorkload(fixed.input, w);
    if (!fw || !isRollable(fw) || stuckRollout(fixed, fw)) continue;
    proven.push({ description: c.description, apply: c.apply, ...(c.patches ? { patches: c.patches } : {}) });
    if (c.addsNode) nodeFixed = true;
  }
  return proven;
}

export const rolloutDeadlock = itemCheck({
  rule: RULE,
  description: 'A template change of each Deployment, StatefulSet and DaemonSet, simulated on this cluster, completes',
  items: (ctx) => ctx.input.workloads.filter(isRollable),
  findings(ctx, w): Finding[] {
    const o = stuckRollout(ctx, w);
    if (!o) return [];
    const { message, evidence } = explain(w, o);
    const remedies = provenFixes(ctx, w, o);
    return [
      {
        severity: 'error',
        rule: RULE,
        object: workloadRef(w),
        message,
        evidence,
        fix: remedies.length > 0 ? remedies.map((r) => r.description) : ['no single change berth tried lets the rollout complete: add capacity where the pending pod can run'],
        remedies,
      },
    ];
  },
});
