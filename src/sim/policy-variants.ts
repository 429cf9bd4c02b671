// One scenario run under several NodePool disruption settings (`berth what-if`): each
// variant replaces spec.disruption of every provisioning NodePool and turns Karpenter's
// disruption loop on, and the run is measured for what a policy costs: dollars over time,
// evictions, pods disrupted per workload, and time workloads and PDBs spent short.

import type { LoadedInput } from '../io/load.js';
import type { ScenarioSpec } from '../io/scenario-spec.js';
import type { DisruptionVariant } from '../io/what-if-spec.js';
import { podWorkload } from './history.js';
import { runScenario, type RunOptions } from './scenario.js';
import type { Simulation } from './simulation.js';

export interface VariantResult {
  readonly name: string;
  readonly consolidationPolicy: string;
  readonly consolidateAfter: string;
  readonly budgets: string;
  readonly spotToSpotConsolidation: boolean;
  /** Set when the variant turns berth's consolidation cost step on. */
  readonly optimize?: 'cost';
  /** Dollars over the whole run: the integral of $/h over simulated time. */
  readonly totalCost: number;
  readonly averageCostPerHour: number;
  readonly peakCostPerHour: number;
  readonly finalCostPerHour: number;
  /** $/h at each sample time (every sampleMs from 0 to the end). */
  readonly costSeries: readonly { readonly t: number; readonly costPerHour: number }[];
  readonly nodesLaunched: number;
  /** Nodes Karpenter's disruption loop removed (consolidation, drift, expiry). */
  readonly nodesDisrupted: number;
  /** Evictions through the eviction API (Karpenter's drains, the descheduler, scenario drains). */
  readonly evictions: number;
  /** Pods evicted by node disruption, per workload. */
  readonly podsDisrupted: Readonly<Record<string, number>>;
  /** ms each Deployment or StatefulSet had fewer available replicas than it wanted. */
  readonly belowDesiredMs: Readonly<Record<string, number>>;
  /** ms each PodDisruptionBudget had fewer healthy pods than it requires. */
  readonly belowPdbMs: Readonly<Record<string, number>>;
  readonly pendingAtEnd: number;
  readonly events: number;
}

interface Tracker {
  below: Map<string, number>;
  since: Map<string, number>;
}

function track(t: Tracker, key: string, short: boolean, now: number): void {
  const since = t.since.get(key);
  if (short && since === undefined) t.since.set(key, now);
  else if (!short && since !== undefined) {
    t.below.set(key, (t.below.get(key) ?? 0) + now - since);
    t.since.delete(key);
  }
}

function close(t: Tracker, now: number): Record<string, number> {
  for (const [key, since] of t.since) t.below.set(key, (t.below.get(key) ?? 0) + now - since);
  return Object.fromEntries([...t.below].filter(([, ms]) => ms > 0).sort(([a], [b]) => a.localeCompare(b)));
}

/** Measures a run; call before it starts, read the result after. */
function measure(sim: Simulation, sampleMs: number): (untilMs: number) => Omit<VariantResult, 'name' | 'consolidationPolicy' | 'consolidateAfter' | 'budgets' | 'spotToSpotConsolidation' | 'optimize' | 'pendingAtEnd'> {
  const changes: { t: number; cost: number }[] = [];
  const desired: Tracker = { below: new Map(), since: new Map() };
  const pdbs: Tracker = { below: new Map(), since: new Map() };
  const podsDisrupted = new Map<string, number>();
  let evictions = 0;
  let nodesDisrupted = 0;
  let nodesLaunched = 0;
  let seen = 0;
  let events = 0;
  sim.engine.afterEach(() => {
    events++;
    const now = sim.engine.now;
    const log = sim.engine.log;
    for (; seen < log.length; seen++) {
      const r = log[seen]!;
      if (r.type === 'Evicted') evictions++;
      else if (r.type === 'NodeDisrupted') nodesDisrupted++;
      else if (r.type === 'NodeClaimLaunched') nodesLaunched++;
      else if (r.type === 'DisruptionEviction') {
        const pod = sim.world.cluster.getPod(String(r.pod));
        const workload = pod ? podWorkload(sim, pod) : String(r.pod);
        podsDisrupted.set(workload, (podsDisrupted.get(workload) ?? 0) + 1);
      }
    }
    const cost = sim.cloud.costPerHour();
    if (changes.at(-1)?.cost !== cost) {
      if (changes.at(-1)?.t === now) changes[changes.length - 1] = { t: now, cost };
      else changes.push({ t: now, cost });
    }
    for (const d of sim.deployments.objects.values()) track(desired, `Deployment/${d.name}`, d.status.availableReplicas < d.replicas, now);
    for (const s of sim.statefulSets.objects.values()) track(desired, `StatefulSet/${s.name}`, s.status.availableReplicas < s.replicas, now);
    for (const [key, p] of sim.disruption.pdbs) track(pdbs, key, p.status.currentHealthy < p.status.desiredHealthy, now);
  });
  return (untilMs) => {
    let total = 0;
    let peak = 0;
    changes.forEach((c, i) => {
      const end = Math.min(changes[i + 1]?.t ?? untilMs, untilMs);
      total += (c.cost * Math.max(0, end - c.t)) / 3_600_000;
      peak = Math.max(peak, c.cost);
    });
    const costSeries: { t: number; costPerHour: number }[] = [];
    let j = 0;
    for (let t = 0; t <= untilMs; t += sampleMs) {
      while (j + 1 < changes.length && changes[j + 1]!.t <= t) j++;
      costSeries.push({ t, costPerHour: changes[j] && changes[j]!.t <= t ? changes[j]!.cost : 0 });
    }
    return {
      totalCost: Math.round(total * 1e4) / 1e4,
      averageCostPerHour: untilMs > 0 ? Math.round((total / (untilMs / 3_600_000)) * 1e4) / 1e4 : 0,
      peakCostPerHour: peak,
      finalCostPerHour: changes.at(-1)?.cost ?? 0,
      costSeries,
      nodesLaunched,
      nodesDisrupted,
      evictions,
      podsDisrupted: Object.fromEntries([...podsDisrupted].sort(([a], [b]) => a.localeCompare(b))),
      belowDesiredMs: close(desired, untilMs),
      belowPdbMs: close(pdbs, untilMs),
      events,
    };
  };
}

function describeBudgets(v: DisruptionVariant): string {
  return v.disruption.budgets.map((b) => `${b.nodes}${b.schedule ? ` ${b.schedule} for ${b.durationSeconds}s` : ''}${b.reasons ? ` (${b.reasons.join('/')})` : ''}`).join(', ') || 'none';
}

export interface VariantRunOptions extends Omit<RunOptions, 'observe'> {
  /** Resolution of the cost series. */
  readonly sampleMs: number;
  /** Told each variant's name before it runs. */
  readonly onVariant?: (name: string, index: number) => void;
}

/** Runs `spec` on `input` once per variant and measures each run; the variants share seed and timeline. */
export function runVariants(input: LoadedInput, spec: ScenarioSpec, variants: readonly DisruptionVariant[], opts: VariantRunOptions): VariantResult[] {
  return variants.map((v, i) => {
    opts.onVariant?.(v.name, i);
    const variantInput: LoadedInput = { ...input, nodePools: input.nodePools.map((np) => (np.replicas === null ? { ...np, disruption: v.disruption } : np)) };
    // The variant alone decides the disruption loop's settings, the scenario's cost step too.
    const variantSpec: ScenarioSpec = { ...spec, disruption: { ...spec.disruption, enabled: true, spotToSpotConsolidation: v.spotToSpotConsolidation, optimize: v.optimize } };
    let finish: ReturnType<typeof measure> | undefined;
    // The measures read no why-not event, and an Unconsolidatable's wording may cost a simulation.
    const run = runScenario(variantInput, variantSpec, { ...opts, whyNotEvents: false, observe: (sim) => (finish = measure(sim, opts.sampleMs)) });
    const metrics = finish!(run.final.timeMs);
    const after = v.disruption.consolidateAfterSeconds;
    return {
      name: v.name,
      consolidationPolicy: v.disruption.consolidationPolicy,
      consolidateAfter: after === null ? 'Never' : `${after}s`,
      budgets: describeBudgets(v),
      spotToSpotConsolidation: v.spotToSpotConsolidation,
      ...(v.optimize ? { optimize: v.optimize } : {}),
      ...metrics,
      pendingAtEnd: run.final.pending.length,
    };
  });
}
