// Scheduler profiles: the default plugin set with its weights, KubeSchedulerConfiguration
// (v1) plugin enable/disable merging, pluginConfig args and MultiPoint expansion,
// following setDefaults_KubeSchedulerProfile and frameworkImpl's construction.

import { Framework, type FilterPlugin, type Handle, type Plugin, type PostFilterPlugin, type PreBindPlugin, type PreFilterPlugin, type PreScorePlugin, type QueueSortPlugin, type ReservePlugin, type ScorePlugin } from './framework.js';
import { newBalancedAllocation } from './plugins/balanced-allocation.js';
import { newDefaultPreemption } from './plugins/default-preemption.js';
import { newImageLocality } from './plugins/image-locality.js';
import { newInterPodAffinity } from './plugins/inter-pod-affinity.js';
import { newNodeAffinity } from './plugins/node-affinity.js';
import { newNodeName } from './plugins/node-name.js';
import { newNodeVolumeLimits } from './plugins/node-volume-limits.js';
import { newNodePorts } from './plugins/node-ports.js';
import { newNodeResourcesFit } from './plugins/node-resources-fit.js';
import { newNodeUnschedulable } from './plugins/node-unschedulable.js';
import { newPodTopologySpread } from './plugins/pod-topology-spread.js';
import { newPrioritySort } from './plugins/priority-sort.js';
import { newTaintToleration } from './plugins/taint-toleration.js';
import { newVolumeBinding } from './plugins/volume-binding.js';
import { newVolumeRestrictions } from './plugins/volume-restrictions.js';
import { newVolumeZone } from './plugins/volume-zone.js';
import type { PluginFactory } from './registry.js';
import type { FeatureGates } from './feature-gates.js';

export interface PluginRef {
  readonly name: string;
  readonly weight?: number;
}

export interface PluginSet {
  readonly enabled?: readonly PluginRef[];
  readonly disabled?: readonly PluginRef[];
}

/** The extension points berth's framework runs. */
export const EXTENSION_POINTS = ['queueSort', 'preFilter', 'filter', 'postFilter', 'preScore', 'score', 'reserve', 'preBind'] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

/** Every extension point a v1 profile configures (besides multiPoint), in the order frameworkImpl fills them. */
export const CONFIG_EXTENSION_POINTS = ['preFilter', 'filter', 'postFilter', 'reserve', 'preScore', 'score', 'preBind', 'bind', 'postBind', 'permit', 'preEnqueue', 'queueSort'] as const;
export type ConfigExtensionPoint = (typeof CONFIG_EXTENSION_POINTS)[number];

/** The Go interface names upstream errors mention. */
const INTERFACE_NAMES: Readonly<Record<ConfigExtensionPoint, string>> = {
  preFilter: 'PreFilterPlugin',
  filter: 'FilterPlugin',
  postFilter: 'PostFilterPlugin',
  reserve: 'ReservePlugin',
  preScore: 'PreScorePlugin',
  score: 'ScorePlugin',
  preBind: 'PreBindPlugin',
  bind: 'BindPlugin',
  postBind: 'PostBindPlugin',
  permit: 'PermitPlugin',
  preEnqueue: 'PreEnqueuePlugin',
  queueSort: 'QueueSortPlugin',
};

export type ProfilePluginsConfig = Partial<Record<ConfigExtensionPoint | 'multiPoint', PluginSet>>;

export interface ProfileConfig {
  readonly schedulerName?: string;
  readonly percentageOfNodesToScore?: number | null;
  readonly plugins?: ProfilePluginsConfig;
  readonly pluginConfig?: readonly { readonly name: string; readonly args?: Readonly<Record<string, unknown>> }[];
}

export interface SchedulerConfig {
  readonly percentageOfNodesToScore?: number | null;
  readonly profiles?: readonly ProfileConfig[];
  /** kube-scheduler's --feature-gates (not part of the configuration file). */
  readonly featureGates?: FeatureGates;
}

export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
const API_VERSION = 'kubescheduler.config.k8s.io/v1';

/** The in-tree plugins berth implements. */
export const IN_TREE_REGISTRY: Readonly<Record<string, PluginFactory>> = {
  PrioritySort: newPrioritySort,
  NodeName: newNodeName,
  NodeUnschedulable: newNodeUnschedulable,
  TaintToleration: newTaintToleration,
  NodeAffinity: newNodeAffinity,
  NodePorts: newNodePorts,
  NodeResourcesFit: newNodeResourcesFit,
  VolumeRestrictions: newVolumeRestrictions,
  NodeVolumeLimits: newNodeVolumeLimits,
  VolumeBinding: newVolumeBinding,
  VolumeZone: newVolumeZone,
  PodTopologySpread: newPodTopologySpread,
  InterPodAffinity: newInterPodAffinity,
  DefaultPreemption: newDefaultPreemption,
  NodeResourcesBalancedAllocation: newBalancedAllocation,
  ImageLocality: newImageLocality,
};

/**
 * Default plugins berth does not model because they only act on resource
 * claims, declared node features, gates or binding; for pods without those they
 * pass every node. Accepted in configurations (at the extension points they
 * implement upstream) and otherwise ignored.
 */
export const PASS_THROUGH_PLUGINS: Readonly<Record<string, readonly ConfigExtensionPoint[]>> = {
  SchedulingGates: ['preEnqueue'],
  DynamicResources: ['preEnqueue', 'preFilter', 'filter', 'postFilter', 'score', 'reserve', 'preBind'],
  DefaultBinder: ['bind'],
  NodeDeclaredFeatures: ['preFilter', 'filter'],
};

/** Upstream extension points of berth's plugins that berth's framework does not run. */
const UNMODELED_POINTS: Readonly<Record<string, readonly ConfigExtensionPoint[]>> = {
  DefaultPreemption: ['preEnqueue'],
};

/** Plugins removed from the v1 API; naming one is a validation error. */
const REMOVED_PLUGINS: ReadonlySet<string> = new Set(['AzureDiskLimits', 'CinderLimits', 'EBSLimits', 'GCEPDLimits']);

/**
 * Plugins whose pluginConfig args the configuration validator checks whether or
 * not the profile enables them (upstream's list keys NodeResourcesFit's validator
 * under "NodeResourcesFitArgs", so Fit args are only checked when Fit is built).
 */
const ARGS_VALIDATED_BY_CONFIG: ReadonlySet<string> = new Set(['DefaultPreemption', 'InterPodAffinity', 'NodeAffinity', 'NodeResourcesBalancedAllocation', 'PodTopologySpread']);

/**
 * The v1.37 default MultiPoint list, in order, with score weights: getDefaultPlugins
 * plus what its on-by-default feature gates add (DynamicResources before
 * DefaultPreemption, NodeDeclaredFeatures last).
 */
export const DEFAULT_MULTIPOINT: readonly PluginRef[] = [
  { name: 'SchedulingGates' },
  { name: 'PrioritySort' },
  { name: 'NodeName' },
  { name: 'NodeUnschedulable' },
  { name: 'TaintToleration', weight: 3 },
  { name: 'NodeAffinity', weight: 2 },
  { name: 'NodePorts' },
  { name: 'NodeResourcesFit', weight: 1 },
  { name: 'VolumeRestrictions' },
  { name: 'NodeVolumeLimits' },
  { name: 'VolumeBinding' },
  { name: 'VolumeZone' },
  { name: 'PodTopologySpread', weight: 2 },
  { name: 'InterPodAffinity', weight: 2 },
  { name: 'DynamicResources', weight: 2 },
  { name: 'DefaultPreemption' },
  { name: 'NodeResourcesBalancedAllocation', weight: 1 },
  { name: 'ImageLocality', weight: 1 },
  { name: 'DefaultBinder' },
  { name: 'NodeDeclaredFeatures' },
];

export class ProfileError extends Error {}

/**
 * mergePluginSet: user disables (or "*") drop defaults; a user entry naming a
 * default replaces it in place (the last such entry wins, as upstream indexes
 * them in a map); every other user entry is appended in order, duplicates
 * included (the framework rejects those later).
 */
export function mergePluginSet(defaults: PluginSet, custom: PluginSet | undefined): Required<PluginSet> {
  const disabled = [...(custom?.disabled ?? []), ...(defaults.disabled ?? [])].map((p) => ({ name: p.name }));
  const disabledNames = new Set(disabled.map((p) => p.name));
  const customEnabled = custom?.enabled ?? [];
  const lastIndex = new Map<string, number>();
  customEnabled.forEach((c, i) => lastIndex.set(c.name, i));
  const replaced = new Set<number>();
  const enabled: PluginRef[] = [];
  if (!disabledNames.has('*')) {
    for (const d of defaults.enabled ?? []) {
      if (disabledNames.has(d.name)) continue;
      const idx = lastIndex.get(d.name);
      if (idx === undefined) {
        enabled.push(d);
      } else {
        replaced.add(idx);
        enabled.push(customEnabled[idx]!);
      }
    }
  }
  customEnabled.forEach((c, i) => {
    if (!replaced.has(i)) enabled.push(c);
  });
  return { enabled, disabled };
}

/** The method a plugin object has for each extension point berth models or a test plugin may carry. */
export const METHOD: Readonly<Record<ConfigExtensionPoint, string>> = {
  preFilter: 'preFilter',
  filter: 'filter',
  postFilter: 'postFilter',
  reserve: 'reserve',
  preScore: 'preScore',
  score: 'score',
  preBind: 'preBind',
  bind: 'bind',
  postBind: 'postBind',
  permit: 'permit',
  preEnqueue: 'preEnqueue',
  queueSort: 'less',
};

/** A profile's plugins after defaults, merging and MultiPoint expansion. */
export interface ResolvedProfile {
  /** Per berth-modeled extension point, the plugins berth runs (pass-through ones left out). */
  readonly points: Record<ExtensionPoint, string[]>;
  /** Per configurable extension point, every enabled plugin, pass-through ones included (upstream's ListPlugins). */
  readonly configured: Record<ConfigExtensionPoint, string[]>;
  /** Score weight per score plugin. */
  readonly weights: Map<string, number>;
}

/**
 * Resolves a profile the way frameworkImpl is built: the specific extension point
 * lists first (each plugin must exist, implement the point and appear once), then
 * MultiPoint expansion per point (skipped for points that disable "*"; a plugin
 * also listed at the specific point keeps that place; the order is overrides,
 * MultiPoint plugins, then the rest of the specific list), then the queue-sort and
 * bind counts, then score weights (a specific score entry's weight wins over
 * MultiPoint's; 0 or unset means 1).
 *
 * `instantiate` returns the plugin for a name berth implements and undefined
 * otherwise; names in PASS_THROUGH_PLUGINS are known without an instance.
 */
export function resolveProfile(profile: ProfileConfig, instantiate: (name: string) => Plugin | undefined): ResolvedProfile {
  const userPlugins = profile.plugins ?? {};
  const schedulerName = profile.schedulerName ?? DEFAULT_SCHEDULER_NAME;
  const multiPoint = mergePluginSet({ enabled: DEFAULT_MULTIPOINT }, userPlugins.multiPoint);
  const sets = {} as Record<ConfigExtensionPoint, Required<PluginSet>>;
  for (const ext of CONFIG_EXTENSION_POINTS) sets[ext] = mergePluginSet({}, userPlugins[ext]);

  for (const ext of CONFIG_EXTENSION_POINTS) {
    sets[ext].enabled.forEach((ref, i) => {
      if (REMOVED_PLUGINS.has(ref.name)) {
        throw new ProfileError(`plugins.${ext}.enabled[${i}]: Invalid value: ${JSON.stringify(ref.name)}: was invalid in version "${API_VERSION}" (KubeSchedulerConfiguration is version "${API_VERSION}")`);
      }
    });
  }

  // Instantiate every plugin the profile names (pluginsNeeded), before any list is checked.
  const instances = new Map<string, Plugin>();
  const needed = [...CONFIG_EXTENSION_POINTS.flatMap((ext) => sets[ext].enabled), ...multiPoint.enabled].map((r) => r.name);
  for (const name of needed) {
    if (instances.has(name)) continue;
    const p = instantiate(name);
    if (p !== undefined) instances.set(name, p);
  }
  const known = (name: string) => instances.has(name) || name in PASS_THROUGH_PLUGINS;
  const implementsPoint = (name: string, ext: ConfigExtensionPoint): boolean => {
    const p = instances.get(name);
    if (p === undefined) return PASS_THROUGH_PLUGINS[name]?.includes(ext) ?? false;
    return METHOD[ext] in p || (UNMODELED_POINTS[name]?.includes(ext) ?? false);
  };

  const configured = {} as Record<ConfigExtensionPoint, string[]>;
  for (const ext of CONFIG_EXTENSION_POINTS) {
    const iface = INTERFACE_NAMES[ext];
    const list: string[] = [];
    for (const ref of sets[ext].enabled) {
      if (!known(ref.name)) throw new ProfileError(`${iface} ${JSON.stringify(ref.name)} does not exist`);
      if (!implementsPoint(ref.name, ext)) throw new ProfileError(`plugin ${JSON.stringify(ref.name)} does not extend ${iface} plugin`);
      if (list.includes(ref.name)) throw new ProfileError(`plugin ${JSON.stringify(ref.name)} already registered as ${JSON.stringify(iface)}`);
      list.push(ref.name);
    }
    configured[ext] = list;
  }

  if (multiPoint.enabled.length > 0) {
    for (const ext of CONFIG_EXTENSION_POINTS) {
      const iface = INTERFACE_NAMES[ext];
      const disabled = new Set(sets[ext].disabled.map((d) => d.name));
      if (disabled.has('*')) continue;
      const specific = configured[ext];
      const overrides = new Set<string>();
      const fromMultiPoint: string[] = [];
      for (const ref of multiPoint.enabled) {
        if (!known(ref.name)) throw new ProfileError(`${iface} ${JSON.stringify(ref.name)} does not exist`);
        if (!implementsPoint(ref.name, ext) || disabled.has(ref.name)) continue;
        if (specific.includes(ref.name)) {
          overrides.add(ref.name);
          continue;
        }
        if (fromMultiPoint.includes(ref.name)) throw new ProfileError(`plugin ${JSON.stringify(ref.name)} already registered as ${JSON.stringify(iface)}`);
        fromMultiPoint.push(ref.name);
      }
      configured[ext] = [...specific.filter((n) => overrides.has(n)), ...fromMultiPoint, ...specific.filter((n) => !overrides.has(n))];
    }
  }

  if (configured.queueSort.length !== 1) {
    throw new ProfileError(`only one queue sort plugin required for profile with scheduler name ${JSON.stringify(schedulerName)}, but got ${configured.queueSort.length}`);
  }
  if (configured.bind.length === 0) throw new ProfileError(`at least one bind plugin is needed for profile with scheduler name ${JSON.stringify(schedulerName)}`);

  const weights = new Map<string, number>();
  for (const ref of [...sets.score.enabled, ...multiPoint.enabled]) {
    if (!implementsPoint(ref.name, 'score') || weights.has(ref.name)) continue;
    const w = ref.weight ?? 0;
    weights.set(ref.name, w === 0 ? 1 : w);
  }

  const points = {} as Record<ExtensionPoint, string[]>;
  for (const ext of EXTENSION_POINTS) points[ext] = configured[ext].filter((n) => instances.has(n));
  return { points, configured, weights };
}

function validatePercentage(v: number | null | undefined, field: string): number | undefined {
  if (v === null || v === undefined) return undefined;
  if (!Number.isInteger(v) || v < 0 || v > 100) throw new ProfileError(`${field}: Invalid value: ${v}: not in valid range [0-100]`);
  return v;
}

/** Builds the framework for one profile; plugins receive `handle`. */
export function buildFramework(config: SchedulerConfig, profile: ProfileConfig, handle: Handle): Framework {
  const globalPct = validatePercentage(config.percentageOfNodesToScore, 'percentageOfNodesToScore') ?? 0;
  const profilePct = validatePercentage(profile.percentageOfNodesToScore, 'profiles.percentageOfNodesToScore');
  const argsByName = new Map<string, Readonly<Record<string, unknown>>>();
  (profile.pluginConfig ?? []).forEach((pc, i) => {
    if (REMOVED_PLUGINS.has(pc.name)) {
      throw new ProfileError(`pluginConfig[${i}]: Invalid value: ${JSON.stringify(pc.name)}: was invalid in version "${API_VERSION}" (KubeSchedulerConfiguration is version "${API_VERSION}")`);
    }
    if (argsByName.has(pc.name)) throw new ProfileError(`pluginConfig[${i}]: Duplicate value: ${JSON.stringify(pc.name)}`);
    argsByName.set(pc.name, pc.args ?? {});
  });
  const create = (name: string, factory: PluginFactory): Plugin => {
    try {
      return factory({ handle, args: argsByName.get(name) ?? {}, ...(config.featureGates ? { features: config.featureGates } : {}) });
    } catch (e) {
      throw new ProfileError(`initializing plugin ${JSON.stringify(name)}: ${(e as Error).message}`);
    }
  };
  // Configuration validation checks these args even for plugins the profile leaves out.
  for (const name of argsByName.keys()) {
    const factory = IN_TREE_REGISTRY[name];
    if (factory && ARGS_VALIDATED_BY_CONFIG.has(name)) create(name, factory);
  }
  const instances = new Map<string, Plugin>();
  const { points, weights, configured } = resolveProfile(profile, (name) => {
    const factory = IN_TREE_REGISTRY[name];
    if (!factory) return undefined;
    const plugin = create(name, factory);
    instances.set(name, plugin);
    return plugin;
  });
  const get = <T extends Plugin>(ext: ExtensionPoint) => points[ext].map((n) => instances.get(n)! as T);
  return new Framework(
    profile.schedulerName ?? DEFAULT_SCHEDULER_NAME,
    {
      queueSort: get<QueueSortPlugin>('queueSort')[0]!,
      preFilter: get<PreFilterPlugin>('preFilter'),
      filter: get<FilterPlugin>('filter'),
      postFilter: get<PostFilterPlugin>('postFilter'),
      preScore: get<PreScorePlugin>('preScore'),
      score: get<ScorePlugin>('score').map((plugin) => ({ plugin, weight: weights.get(plugin.name) ?? 1 })),
      reserve: get<ReservePlugin>('reserve'),
      preBind: get<PreBindPlugin>('preBind'),
    },
    profilePct ?? globalPct,
    { preFilter: configured.preFilter, postFilter: configured.postFilter },
  );
}
