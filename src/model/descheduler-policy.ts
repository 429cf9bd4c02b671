// The descheduler's policy as berth runs it, in the shape of descheduler/v1alpha2 (model/:
// io/ reads it, disruption/ runs it):
// profiles, each with its DefaultEvictor arguments and its enabled Deschedule
// and Balance plugins (with that plugin's args), plus the global eviction limits.
// Upstream runs the Deschedule plugins of every profile, then the Balance plugins
// of every profile, all through one evictor that keeps the limits.

import type { Selector } from './selector.js';

export const DESCHEDULE_PLUGINS = [
  'RemovePodsViolatingNodeAffinity',
  'RemovePodsViolatingInterPodAntiAffinity',
  'RemovePodsViolatingNodeTaints',
  'RemovePodsHavingTooManyRestarts',
  'PodLifeTime',
  'RemoveFailedPods',
] as const;
export const BALANCE_PLUGINS = ['RemoveDuplicates', 'RemovePodsViolatingTopologySpreadConstraint', 'LowNodeUtilization', 'HighNodeUtilization'] as const;
export const STRATEGY_NAMES = [...DESCHEDULE_PLUGINS, ...BALANCE_PLUGINS] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

/** Namespaces a strategy works on: only `include`, or all but `exclude` (never both). */
export interface NamespaceFilter {
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
}

/** Pod protections of the DefaultEvictor (podProtections, or the deprecated booleans that stand for them). */
export type PodProtection = 'PodsWithLocalStorage' | 'DaemonSetPods' | 'SystemCriticalPods' | 'FailedBarePods' | 'PodsWithPVC' | 'PodsWithoutPDB' | 'PodsWithResourceClaims';
export const DEFAULT_POD_PROTECTIONS: readonly PodProtection[] = ['PodsWithLocalStorage', 'SystemCriticalPods', 'FailedBarePods', 'DaemonSetPods'];
export const EXTRA_POD_PROTECTIONS: readonly PodProtection[] = ['PodsWithPVC', 'PodsWithoutPDB', 'PodsWithResourceClaims'];

export interface EvictorArgs {
  readonly evictLocalStoragePods?: boolean;
  readonly evictSystemCriticalPods?: boolean;
  readonly evictDaemonSetPods?: boolean;
  readonly evictFailedBarePods?: boolean;
  readonly ignorePvcPods?: boolean;
  readonly ignorePodsWithoutPDB?: boolean;
  /** The new-style protections; when either list is non-empty the deprecated booleans are ignored, as upstream. */
  readonly podProtections?: { readonly extraEnabled?: readonly PodProtection[]; readonly defaultDisabled?: readonly PodProtection[] };
  /** Pods at or above this priority stay (only while SystemCriticalPods protection is on, as upstream). */
  readonly priorityThreshold?: number;
  readonly labelSelector?: Selector;
  readonly namespaceLabelSelector?: Selector;
  /** Evict a pod only if it fits some other Ready node (selector, affinity, taints, cordon, anti-affinity, resources). */
  readonly nodeFit?: boolean;
  readonly nodeSelector?: Selector;
  /** Pods of owners with fewer pods than this stay (values ≤ 1 mean no check). */
  readonly minReplicas?: number;
  readonly noEvictionPolicy?: 'Preferred' | 'Mandatory';
  /** Pods started less than this long ago (or not started) stay. */
  readonly minPodAgeMs?: number;
}

export type NodeAffinityType = 'requiredDuringSchedulingIgnoredDuringExecution' | 'preferredDuringSchedulingIgnoredDuringExecution';

/** Percent of allocatable per resource (cpu, memory, pods or an extended resource). */
export type Thresholds = Readonly<Record<string, number>>;

interface Filtered {
  readonly namespaces?: NamespaceFilter;
  readonly labelSelector?: Selector;
}

export interface StrategyArgs {
  readonly RemovePodsViolatingNodeAffinity: Filtered & { readonly nodeAffinityType: readonly NodeAffinityType[] };
  readonly RemovePodsViolatingInterPodAntiAffinity: Filtered;
  readonly RemovePodsViolatingNodeTaints: Filtered & { readonly includePreferNoSchedule?: boolean; readonly excludedTaints?: readonly string[]; readonly includedTaints?: readonly string[] };
  readonly RemovePodsHavingTooManyRestarts: Filtered & { readonly podRestartThreshold: number; readonly includingInitContainers?: boolean; readonly states?: readonly string[] };
  readonly PodLifeTime: Filtered & {
    readonly maxPodLifeTimeSeconds?: number;
    readonly states?: readonly string[];
    readonly ownerKinds?: NamespaceFilter;
    readonly exitCodes?: readonly number[];
    readonly includingInitContainers?: boolean;
  };
  readonly RemoveFailedPods: Filtered & {
    readonly excludeOwnerKinds?: readonly string[];
    /** 3600 from the policy's defaults; no age check when unset. */
    readonly minPodLifetimeSeconds?: number;
    readonly reasons?: readonly string[];
    readonly exitCodes?: readonly number[];
    readonly includingInitContainers?: boolean;
  };
  readonly RemoveDuplicates: { readonly excludeOwnerKinds?: readonly string[]; readonly namespaces?: NamespaceFilter };
  readonly RemovePodsViolatingTopologySpreadConstraint: Filtered & { readonly constraints: readonly ('DoNotSchedule' | 'ScheduleAnyway')[]; readonly topologyBalanceNodeFit?: boolean };
  readonly LowNodeUtilization: {
    readonly thresholds: Thresholds;
    readonly targetThresholds: Thresholds;
    readonly useDeviationThresholds?: boolean;
    readonly numberOfNodes?: number;
    readonly evictableNamespaces?: NamespaceFilter;
    readonly evictionLimits?: { readonly node?: number };
  };
  readonly HighNodeUtilization: { readonly thresholds: Thresholds; readonly numberOfNodes?: number; readonly evictableNamespaces?: NamespaceFilter; readonly evictionModes?: readonly 'OnlyThresholdingResources'[] };
}

export type PluginEntry = { readonly [K in StrategyName]: { readonly name: K; readonly args: StrategyArgs[K] } }[StrategyName];

export interface DeschedulerProfile {
  readonly name: string;
  readonly evictor: EvictorArgs;
  /** Enabled Deschedule plugins, in the order the profile lists them. */
  readonly deschedule: readonly PluginEntry[];
  /** Enabled Balance plugins, in the order the profile lists them. */
  readonly balance: readonly PluginEntry[];
}

export interface DeschedulerPolicy {
  readonly profiles: readonly DeschedulerProfile[];
  /** Only nodes whose labels match are processed. */
  readonly nodeSelector?: Selector;
  readonly maxNoOfPodsToEvictPerNode?: number;
  readonly maxNoOfPodsToEvictPerNamespace?: number;
  readonly maxNoOfPodsToEvictTotal?: number;
  /**
   * berth's option, off by default (upstream evicts whatever a plugin selects):
   * evict a pod only when the scheduler, run on a prediction of the cluster with
   * the evicted pod still on its node while it terminates, places the replacement
   * on another node where the plugin's complaint is gone.
   */
  readonly predictPlacement?: boolean;
}

/** The upstream defaults of each plugin's arguments (what `args: {}` means). */
export const DEFAULT_STRATEGY_ARGS: { readonly [K in StrategyName]: StrategyArgs[K] } = {
  RemovePodsViolatingNodeAffinity: { nodeAffinityType: ['requiredDuringSchedulingIgnoredDuringExecution'] },
  RemovePodsViolatingInterPodAntiAffinity: {},
  RemovePodsViolatingNodeTaints: {},
  RemovePodsHavingTooManyRestarts: { podRestartThreshold: 0 },
  PodLifeTime: {},
  RemoveFailedPods: { minPodLifetimeSeconds: 3600 },
  RemoveDuplicates: {},
  RemovePodsViolatingTopologySpreadConstraint: { constraints: ['DoNotSchedule'] },
  LowNodeUtilization: { thresholds: {}, targetThresholds: {} },
  HighNodeUtilization: { thresholds: {} },
};

export function isBalancePlugin(name: StrategyName): boolean {
  return (BALANCE_PLUGINS as readonly string[]).includes(name);
}

export function inNamespaces(filter: NamespaceFilter | undefined, namespace: string): boolean {
  if (!filter) return true;
  if (filter.include && filter.include.length > 0) return filter.include.includes(namespace);
  return !(filter.exclude ?? []).includes(namespace);
}

/** A one-profile policy running `plugins` (args as given, upstream's order) with `evictor`; the shape the Scenario shorthand compiles to. */
export function singleProfilePolicy(
  plugins: { readonly [K in StrategyName]?: StrategyArgs[K] },
  opts: Omit<DeschedulerPolicy, 'profiles'> & { readonly evictor?: EvictorArgs } = {},
): DeschedulerPolicy {
  const { evictor, ...rest } = opts;
  const entries = (names: readonly StrategyName[]) => names.filter((n) => plugins[n] !== undefined).map((name) => ({ name, args: plugins[name] }) as PluginEntry);
  return { ...rest, profiles: [{ name: 'default', evictor: evictor ?? {}, deschedule: entries(DESCHEDULE_PLUGINS), balance: entries(BALANCE_PLUGINS) }] };
}
