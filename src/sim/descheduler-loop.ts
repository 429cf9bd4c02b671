// The descheduler as it is usually deployed (a Deployment running a pass every
// --descheduling-interval, 5 minutes by default, the first at start-up), in
// simulated time. Each pass plans with disruption/deschedule.ts against the
// live cluster and the PDB statuses the disruption controller keeps, then
// evicts through the eviction API. Every eviction is logged with its strategy,
// its reason and where the replacement is predicted to land; a pod a strategy
// wanted but berth left alone is logged once per reason.

import { deschedule, type DeschedulerPolicy } from '../disruption/deschedule.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import type { DisruptionController } from './controllers/disruption.js';
import type { World } from './world.js';

export const DEFAULT_DESCHEDULING_INTERVAL_MS = 5 * 60_000;

export interface DeschedulerOptions {
  readonly policy: DeschedulerPolicy;
  readonly intervalMs?: number;
}

export class DeschedulerLoop {
  private readonly reported = new Set<string>();

  constructor(
    private readonly world: World,
    private readonly disruption: DisruptionController,
    private readonly config: SchedulerConfig,
    private readonly opts: DeschedulerOptions,
  ) {}

  start(): void {
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
    const result = deschedule({ cluster, policy: this.opts.policy, scheduler: this.config, pdbAllowances: allowances, seed: engine.rand.intn(2 ** 31) });
    for (const s of result.skipped) {
      const key = `${s.pod}\0${s.strategy}\0${s.why}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      engine.record('DescheduleSkipped', { pod: s.pod, node: s.node, strategy: s.strategy, reason: s.reason, why: s.why });
    }
    for (const e of result.evictions) {
      // The eviction API has the last word (its PDB check); a refusal is logged as a skip.
      const r = this.disruption.evict(e.pod, 'Descheduled');
      if (r.allowed) engine.record('Descheduled', { pod: e.pod, node: e.node, strategy: e.strategy, reason: e.reason, predictedNode: e.predictedNode });
      else engine.record('DescheduleSkipped', { pod: e.pod, node: e.node, strategy: e.strategy, reason: e.reason, why: `the eviction API refused: ${r.causes[0]?.message ?? r.message}` });
    }
  }
}
