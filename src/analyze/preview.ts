// `berth preview`: what the cluster's controllers will do next, and why. The
// cluster is simulated as it stands (no steps) with Karpenter's disruption loop
// on and, given a policy, the descheduler; what they did is read back from the
// simulation's log: each disruption command in order with where its pods went,
// drift, expiry, why the nodes left alone were left alone (Karpenter's own
// DisruptionBlocked / Unconsolidatable wording), the descheduler's evictions and
// whether they were futile. Pending pods get kube-scheduler's answer as of now.

import { buildClusterState } from '../cluster/state.js';
import type { LoadedInput } from '../io/load.js';
import type { ScenarioDescheduler } from '../io/scenario-spec.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import { scheduleAll } from '../scheduler/run.js';
import type { LogRecord } from '../sim/engine.js';
import { runScenario } from '../sim/scenario.js';
import { fromOrigin } from '../sim/time-origin.js';
import { catalogPrices } from '../disruption/pricing.js';
import type { Node } from '../model/node.js';

export interface PreviewOptions {
  readonly input: LoadedInput;
  readonly instanceTypes: readonly InstanceType[];
  readonly seed: number;
  /** How far ahead to look (simulated). */
  readonly horizonMs: number;
  readonly scheduler?: SchedulerConfig;
  readonly descheduler?: ScenarioDescheduler;
  /** The wall-clock time (ms) the cluster snapshot stands for, simulated time 0; default: its newest timestamp. */
  readonly originMs?: number;
}

export interface PodMove {
  readonly pod: string;
  readonly from: string;
  /** Where the scheduler predicted it would land when the decision was made. */
  readonly predicted: string;
  /** Where its replacement did land in the simulation ('' while pending at the horizon). */
  readonly landed: string;
}

export interface DisruptionStep {
  readonly atMs: number;
  readonly reason: string;
  readonly kind: string;
  readonly nodes: readonly string[];
  /** New nodes launched first: name:instance-type/zone/capacity-type. */
  readonly replacements: readonly string[];
  readonly savingsPerHour: number;
  readonly evictions: readonly PodMove[];
  /** When the last of its nodes was gone (undefined: still draining at the horizon). */
  readonly doneAtMs: number | undefined;
}

export interface Blocker {
  readonly node: string;
  /** DisruptionBlocked or Unconsolidatable, as Karpenter publishes it on the Node; empty when it publishes none there. */
  readonly event: string;
  readonly message: string;
}

export interface Descheduling {
  readonly atMs: number;
  readonly strategy: string;
  readonly reason: string;
  readonly move: PodMove;
  /** The replacement pod landed on the node it was evicted from: the eviction changed nothing. */
  readonly futile: boolean;
}

export interface Preview {
  readonly horizonMs: number;
  readonly pending: readonly { pod: string; message: string }[];
  readonly drifted: readonly { node: string; nodePool: string; reason: string; atMs: number }[];
  readonly expired: readonly string[];
  readonly disruptions: readonly DisruptionStep[];
  /** Nodes Karpenter leaves alone at the horizon, with the event it publishes on each (DisruptionBlocked, Unconsolidatable). */
  readonly blocked: readonly Blocker[];
  readonly descheduled: readonly Descheduling[];
  /** The nodes' $/h at their catalog offerings, now and at the horizon (nodes the catalog does not price are left out of both). */
  readonly costPerHour: { readonly now: number; readonly atHorizon: number };
}

const text = (r: LogRecord, field: string): string => String(r[field] ?? '');
const list = (s: string): string[] => (s === '' || s === 'none' ? [] : s.split(','));

export function preview(opts: PreviewOptions): Preview {
  const input = fromOrigin(opts.input, opts.originMs);
  const pending = scheduleAll(buildClusterState(input), opts.scheduler ?? {}, { seed: opts.seed }).unschedulable.map((u) => ({ pod: u.pod, message: u.message }));
  const price = catalogPrices(opts.instanceTypes);
  const cost = (nodes: Iterable<Node>) => Math.round([...nodes].reduce((sum, n) => sum + (price(n) ?? 0), 0) * 1e4) / 1e4;
  const run = runScenario(
    input,
    {
      name: 'preview',
      seed: opts.seed,
      untilMs: opts.horizonMs,
      provisioner: { enabled: true },
      disruption: { enabled: true, spotToSpotConsolidation: false },
      ...(opts.descheduler ? { descheduler: opts.descheduler } : {}),
      timing: {},
      steps: [],
      expect: [],
    },
    { instanceTypes: opts.instanceTypes, ...(opts.scheduler ? { schedulerConfig: opts.scheduler } : {}) },
  );
  const events = run.events;
  const of = (type: string) => events.filter((r) => r.type === type);

  // A replacement pod is matched to the pod it replaces by the loop's own record of it.
  const landedAfterDisruption = new Map(of('DisruptedPodPlaced').map((r) => [text(r, 'evicted'), text(r, 'node')]));
  const landedAfterDescheduling = new Map(of('DescheduledPodPlaced').map((r) => [text(r, 'pod'), text(r, 'node')]));
  const goneAt = new Map(of('NodeDisrupted').map((r) => [text(r, 'node'), r.t]));

  const disruptions = of('Disrupting').map((r): DisruptionStep => {
    const nodes = list(text(r, 'nodes'));
    const evictions = of('DisruptionEviction')
      .filter((e) => nodes.includes(text(e, 'node')) && e.t >= r.t)
      .map((e) => ({ pod: text(e, 'pod'), from: text(e, 'node'), predicted: text(e, 'predictedNode'), landed: landedAfterDisruption.get(text(e, 'pod')) ?? '' }));
    const done = nodes.map((n) => goneAt.get(n));
    return {
      atMs: r.t,
      reason: text(r, 'reason'),
      kind: text(r, 'kind'),
      nodes,
      replacements: list(text(r, 'replacements')),
      savingsPerHour: Number(r.savingsPerHour ?? 0),
      evictions,
      doneAtMs: done.every((t) => t !== undefined) ? Math.max(...(done as number[])) : undefined,
    };
  });

  // Karpenter's word on each node still there, as of the horizon (a pass computed without acting);
  // reasons Karpenter publishes on no Node (a NodePool's blocking budget, a Balanced score) have no event.
  const blocked = (run.sim.nodeDisruption?.rejections() ?? [])
    .map((r) => ({ node: r.node, event: r.event ?? '', message: r.reason }))
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));

  const descheduled = of('Descheduled').map((r): Descheduling => {
    const landed = landedAfterDescheduling.get(text(r, 'pod')) ?? '';
    return {
      atMs: r.t,
      strategy: text(r, 'strategy'),
      reason: text(r, 'reason'),
      move: { pod: text(r, 'pod'), from: text(r, 'node'), predicted: text(r, 'predictedNode'), landed },
      futile: landed === text(r, 'node'),
    };
  });

  return {
    horizonMs: opts.horizonMs,
    pending,
    drifted: of('NodeDrifted').map((r) => ({ node: text(r, 'node'), nodePool: text(r, 'nodePool'), reason: text(r, 'reason'), atMs: r.t })),
    expired: of('NodeExpired').map((r) => text(r, 'node')),
    disruptions,
    blocked,
    descheduled,
    costPerHour: { now: cost(input.nodes), atHorizon: cost(run.sim.world.cluster.nodeInfos().map((i) => i.node)) },
  };
}
