// The descheduler's policy as berth runs it: the DefaultEvictor's arguments, the
// eviction limits and one entry per enabled strategy, with the upstream
// descheduler's argument names (descheduler/v1alpha2 pluginConfig args).

export const STRATEGY_NAMES = [
  'RemovePodsViolatingNodeAffinity',
  'RemovePodsViolatingInterPodAntiAffinity',
  'RemoveDuplicates',
  'RemovePodsViolatingTopologySpreadConstraint',
  'LowNodeUtilization',
  'HighNodeUtilization',
] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

/** Namespaces a strategy works on: only `include`, or all but `exclude` (never both). */
export interface NamespaceFilter {
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
}

export interface EvictorArgs {
  readonly evictLocalStoragePods?: boolean;
  readonly evictSystemCriticalPods?: boolean;
  readonly evictDaemonSetPods?: boolean;
  readonly ignorePvcPods?: boolean;
  /** Pods at or above this priority stay; system-cluster-critical (2000000000) when unset. */
  readonly priorityThreshold?: number;
}

export type NodeAffinityType = 'requiredDuringSchedulingIgnoredDuringExecution' | 'preferredDuringSchedulingIgnoredDuringExecution';

/** Percent of allocatable per resource (cpu, memory, pods or an extended resource). */
export type Thresholds = Readonly<Record<string, number>>;

export interface StrategyArgs {
  readonly RemovePodsViolatingNodeAffinity: { readonly nodeAffinityType: readonly NodeAffinityType[]; readonly namespaces?: NamespaceFilter };
  readonly RemovePodsViolatingInterPodAntiAffinity: { readonly namespaces?: NamespaceFilter };
  readonly RemoveDuplicates: { readonly excludeOwnerKinds?: readonly string[]; readonly namespaces?: NamespaceFilter };
  readonly RemovePodsViolatingTopologySpreadConstraint: { readonly constraints: readonly ('DoNotSchedule' | 'ScheduleAnyway')[]; readonly namespaces?: NamespaceFilter };
  readonly LowNodeUtilization: { readonly thresholds: Thresholds; readonly targetThresholds: Thresholds; readonly numberOfNodes?: number; readonly evictableNamespaces?: NamespaceFilter };
  readonly HighNodeUtilization: { readonly thresholds: Thresholds; readonly numberOfNodes?: number; readonly evictableNamespaces?: NamespaceFilter };
}

export interface DeschedulerPolicy {
  readonly evictor?: EvictorArgs;
  readonly maxNoOfPodsToEvictPerNode?: number;
  readonly maxNoOfPodsToEvictPerNamespace?: number;
  readonly maxNoOfPodsToEvictTotal?: number;
  readonly strategies: { readonly [K in StrategyName]?: StrategyArgs[K] };
}

/** The upstream defaults of each strategy's arguments (what `Strategy: {}` means). */
export const DEFAULT_STRATEGY_ARGS: { readonly [K in StrategyName]: StrategyArgs[K] } = {
  RemovePodsViolatingNodeAffinity: { nodeAffinityType: ['requiredDuringSchedulingIgnoredDuringExecution'] },
  RemovePodsViolatingInterPodAntiAffinity: {},
  RemoveDuplicates: {},
  RemovePodsViolatingTopologySpreadConstraint: { constraints: ['DoNotSchedule'] },
  LowNodeUtilization: { thresholds: {}, targetThresholds: {} },
  HighNodeUtilization: { thresholds: {} },
};

export function inNamespaces(filter: NamespaceFilter | undefined, namespace: string): boolean {
  if (!filter) return true;
  if (filter.include) return filter.include.includes(namespace);
  return !(filter.exclude ?? []).includes(namespace);
}
