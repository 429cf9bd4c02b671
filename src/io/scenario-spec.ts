// A scenario as the simulator runs it: settings, timed actions and expectations,
// already validated and compiled (times in ms, selectors compiled, nodes built).
// The YAML form (berth.dev/v1alpha1 Scenario) is parsed by io/scenario.ts.

import type { DecisionReason } from '../disruption/consolidate.js';
import type { DeschedulerPolicy } from '../model/descheduler-policy.js';
import type { Node } from '../model/node.js';
import type { NodePool } from '../model/nodepool.js';
import type { Selector } from '../model/selector.js';
import type { PersistentVolume, PersistentVolumeClaimManifest, StorageClass } from '../model/volumes.js';
import type { CapacityType } from '../provisioner/catalog/types.js';

/**
 * The longest simulated time a scenario may ask for (one year). The node lifecycle
 * checks every node each 5 s, so a run costs time in proportion to its length even
 * when nothing happens; a typo such as until: 999999h would otherwise run for days.
 */
export const MAX_SIMULATED_MS = 8760 * 3_600_000;
export const MAX_SIMULATED_TEXT = '8760h (one year)';

export type ScalableKind = 'Deployment' | 'StatefulSet' | 'ReplicaSet';
export type RolloutKind = 'Deployment' | 'StatefulSet' | 'DaemonSet';

export type Action =
  | { readonly type: 'scale'; readonly kind: ScalableKind; readonly name: string; readonly replicas: number }
  /** A template change: a new image for one container (the first by default), or a restart annotation. */
  | { readonly type: 'rollout'; readonly kind: RolloutKind; readonly name: string; readonly image?: string; readonly container?: string }
  | { readonly type: 'failNode'; readonly node: string }
  | { readonly type: 'recoverNode'; readonly node: string }
  | { readonly type: 'failZone'; readonly zone: string }
  | { readonly type: 'recoverZone'; readonly zone: string }
  | { readonly type: 'terminateNode'; readonly node: string }
  | { readonly type: 'spotInterruption'; readonly node: string }
  | { readonly type: 'insufficientCapacity'; readonly instanceType?: string; readonly zone?: string; readonly capacityType?: CapacityType; readonly durationMs: number }
  | { readonly type: 'cordon'; readonly node: string }
  | { readonly type: 'uncordon'; readonly node: string }
  | { readonly type: 'drain'; readonly node: string }
  | { readonly type: 'addNode'; readonly node: Node }
  | { readonly type: 'removeNode'; readonly node: string }
  | { readonly type: 'deletePod'; readonly pod: string }
  /** Its pods go with it; its claims too under persistentVolumeClaimRetentionPolicy.whenDeleted: Delete. */
  | { readonly type: 'deleteStatefulSet'; readonly name: string }
  | { readonly type: 'provisioner'; readonly enabled: boolean }
  /** A NodePool's new spec (same name): nodes that no longer match it drift. */
  | { readonly type: 'updateNodePool'; readonly pool: NodePool }
  | { readonly type: 'addPersistentVolume'; readonly volume: PersistentVolume }
  | { readonly type: 'deletePersistentVolume'; readonly name: string }
  /** The claim as written: the default StorageClass is admitted when the step runs. */
  | { readonly type: 'addPersistentVolumeClaim'; readonly claim: PersistentVolumeClaimManifest }
  | { readonly type: 'deletePersistentVolumeClaim'; readonly claim: string }
  | { readonly type: 'addStorageClass'; readonly storageClass: StorageClass }
  | { readonly type: 'deleteStorageClass'; readonly name: string };

export interface Step {
  readonly at: number;
  readonly action: Action;
  /** "file:line" of the step, for messages. */
  readonly source: string;
}

export interface PodSelection {
  /** Namespace to look in; every namespace when unset. */
  readonly namespace?: string;
  readonly selector: Selector;
  /** The selector as written, for messages. */
  readonly text: string;
}

export type Check =
  | { readonly type: 'allScheduled' }
  | { readonly type: 'pending'; readonly pods: PodSelection; readonly count: number }
  | { readonly type: 'distinctNodes'; readonly pods: PodSelection }
  | { readonly type: 'distinctZones'; readonly pods: PodSelection; readonly min: number }
  | { readonly type: 'maxPerNode'; readonly pods: PodSelection; readonly max: number }
  | { readonly type: 'nodeCount'; readonly nodePool?: string; readonly min?: number; readonly max?: number }
  | { readonly type: 'rolloutComplete'; readonly deployment: string; readonly withinMs: number }
  | { readonly type: 'rolloutStuck'; readonly deployment: string; readonly forMs: number }
  | { readonly type: 'availableReplicas'; readonly deployment: string; readonly min: number; readonly throughout: boolean }
  /** Nodes the disruption loop removed (for one reason, or any): how many, and how many at most were being disrupted at once. */
  | { readonly type: 'disruptions'; readonly reason?: DecisionReason; readonly min?: number; readonly max?: number; readonly maxConcurrent?: number };

export interface Expectation {
  /** When to evaluate; the end of the run when unset. `throughout` checks hold from `at` (or 0) to the end. */
  readonly at?: number;
  readonly check: Check;
  readonly source: string;
}

export interface ScenarioTiming {
  readonly podStartMs?: number;
  readonly podReadyMs?: number;
  readonly nodeLaunchMs?: number;
  readonly nodeRegisterMs?: number;
  readonly nodeReadyMs?: number;
  readonly startupTaintMs?: number;
  /** How long a CSI driver takes to create a dynamically provisioned volume. */
  readonly volumeProvisionMs?: number;
}

/** The descheduler loop: on or off, how often it runs, what it does. */
/** The descheduler's --descheduling-interval when a scenario does not set one: 5 minutes. */
export const DEFAULT_DESCHEDULING_INTERVAL_MS = 5 * 60_000;

export interface ScenarioDescheduler {
  readonly enabled: boolean;
  readonly intervalMs: number;
  readonly policy: DeschedulerPolicy;
}

export interface ScenarioSpec {
  readonly name: string;
  readonly seed: number;
  /** spec.startTime: the wall-clock time (ms since the Unix epoch) of simulated time 0, which CronJob schedules read. */
  readonly startTimeMs?: number;
  /** Simulated time to run; the last step or expectation plus 10 minutes when unset. */
  readonly untilMs?: number;
  readonly provisioner: { readonly enabled: boolean; readonly batchIdleMs?: number; readonly batchMaxMs?: number };
  /** Karpenter's disruption loop: consolidation, drift and expiry. */
  readonly disruption?: {
    readonly enabled: boolean;
    readonly spotToSpotConsolidation: boolean;
    readonly pollIntervalMs?: number;
    readonly validationDelayMs?: number;
    /** berth's consolidation cost step past Karpenter's fixed point (off by default). */
    readonly optimize?: 'cost';
  };
  readonly timing: ScenarioTiming;
  readonly descheduler?: ScenarioDescheduler;
  readonly steps: readonly Step[];
  readonly expect: readonly Expectation[];
}
