// The contract every check under analyze/checks/ implements: a pure function from
// the loaded workloads and cluster to findings. Checks simulate through sim/
// (never a wall clock or Math.random), so the same input and seed give the same
// findings.

import type { SchedulerConfig } from '../scheduler/profile.js';
import type { LoadedInput } from '../io/load.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import type { ScenarioDescheduler } from '../io/scenario-spec.js';
import type { Finding } from './finding.js';

export interface AnalysisContext {
  /** Workloads, nodes, pods, PDBs and NodePools, as `berth simulate` loads them. */
  readonly input: LoadedInput;
  /** The catalog the provisioner launches from (the bundled one unless --catalog). */
  readonly instanceTypes: readonly InstanceType[];
  /** Whether NodePools may launch capacity in the simulations (--provisioner on|off). */
  readonly provisioner: boolean;
  readonly seed: number;
  /** `--scale-up F`: scale workloads without an autoscaler to F × replicas in the scale-up checks (absent: only autoscaled ones). */
  readonly scaleUp?: number;
  /** The descheduler running in every simulation (check --descheduler-policy), as the cluster runs it. */
  readonly descheduler?: ScenarioDescheduler;
  /** kube-scheduler's feature gates and configuration in every simulation and plan (check --feature-gates). */
  readonly scheduler?: SchedulerConfig;
}

export interface Check {
  /** The rule name findings carry, e.g. "node-loss". */
  readonly rule: string;
  readonly description: string;
  run(ctx: AnalysisContext): Finding[];
}
