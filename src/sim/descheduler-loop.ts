// The descheduler as it is usually deployed (a Deployment running a pass every
// --descheduling-interval, 5 minutes by default, the first at start-up), in
// simulated time. Each pass plans with disruption/deschedule.ts against the
// live cluster and the PDB statuses the disruption controller keeps, then
// evicts through the eviction API. Every eviction is logged with its strategy,
// its reason and where the replacement is predicted to land, and, once the
// controller's replacement is bound, where it went and whether the prediction
// held; a pod a strategy wanted but berth left alone is logged once per reason.

import { deschedule, type DeschedulerPolicy } from '../disruption/deschedule.js';
import type { Pod } from '../model/pod.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import type { DisruptionController } from './controllers/disruption.js';
import type { World } from './world.js';
import { DEFAULT_DESCHEDULING_INTERVAL_MS } from '../io/scenario-spec.js';

export interface DeschedulerOptions {
  readonly policy: DeschedulerPolicy;
  readonly intervalMs?: number;
}

interface Awaiting {
  readonly evicted: string;
  readonly predictedNode: string;
  /** The controller's new pod, once created. */
  replacement?: string;
}

export class DeschedulerLoop {
  private readonly reported = new Set<string>();
  /** Controller uid → evictions whose replacement has not been bound yet, oldest first. */
  private readonly awaiting = new Map<string, Awaiting[]>();

  constructor(
    private readonly world: World,
    private readonly disruption: DisruptionController,
    private readonly config: SchedulerConfig,
    private readonly opts: DeschedulerOptions,
  ) {}

  start(): void {
    this.world.onChange((c) => {
      if (c.kind === 'podAdded' && !c.pod.nodeName) this.replacementCreated(c.pod);
      if (c.kind === 'podUpdated' && !c.old.nodeName && c.pod.nodeName) this.replacementBound(c.pod);
    });
    const interval = this.opts.intervalMs ?? DEFAULT_DESCHEDULING_INTERVAL_MS;
    const tick = () => {
      this.pass();
      this.world.engine.after(interval, 'descheduler', tick);
    };
    this.world.engine.at(this.world.engine.now, 'descheduler', tick);
  }

  /** One descheduling pass. */
  pass(): void {
    const { engine, cluster } = this.world;
    const allowances = new Map([...this.disruption.pdbs.values()].map((p) => [p.pdb.key, p.status.disruptionsAllowed]));
    const result = deschedule({ cluster, policy: this.opts.policy, scheduler: this.config, pdbAllowances: allowances, seed: engine.rand.intn(2 ** 31), nowMs: engine.now });
    for (const s of result.skipped) {
      const key = `${s.pod}\0${s.strategy}\0${s.why}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      engine.record('DescheduleSkipped', { pod: s.pod, node: s.node, strategy: s.strategy, reason: s.reason, why: s.why });
    }
    for (const e of result.evictions) {
      // The eviction API has the last word (its PDB check); a refusal is logged as a skip.
      const r = this.disruption.evict(e.pod, 'Descheduled');
      if (r.allowed) {
        engine.record('Descheduled', { pod: e.pod, node: e.node, strategy: e.strategy, reason: e.reason, predictedNode: e.predictedNode });
        const owner = ownerUid(cluster.getPod(e.pod));
        if (owner !== undefined) this.awaiting.set(owner, [...(this.awaiting.get(owner) ?? []), { evicted: e.pod, predictedNode: e.predictedNode }]);
      } else engine.record('DescheduleSkipped', { pod: e.pod, node: e.node, strategy: e.strategy, reason: e.reason, why: `the eviction API refused: ${r.causes[0]?.message ?? r.message}` });
    }
  }

  /** The controller's next new pod stands in for its oldest eviction still without one. */
  private replacementCreated(pod: Pod): void {
    const next = this.awaiting.get(ownerUid(pod) ?? '')?.find((a) => a.replacement === undefined);
    if (next) next.replacement = pod.key;
  }

  private replacementBound(pod: Pod): void {
    const owner = ownerUid(pod) ?? '';
    const list = this.awaiting.get(owner);
    const i = list?.findIndex((a) => a.replacement === pod.key) ?? -1;
    if (!list || i < 0) return;
    const a = list.splice(i, 1)[0]!;
    if (list.length === 0) this.awaiting.delete(owner);
    this.world.engine.record('DescheduledPodPlaced', { pod: a.evicted, replacement: pod.key, node: pod.nodeName, predictedNode: a.predictedNode, asPredicted: pod.nodeName === a.predictedNode });
  }
}

function ownerUid(pod: Pod | undefined): string | undefined {
  return pod?.ownerReferences.find((o) => o.controller)?.uid;
}
