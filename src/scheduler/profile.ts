// Scheduler profiles: the default plugin set with its weights, KubeSchedulerConfiguration
// (v1) plugin enable/disable merging, pluginConfig args and MultiPoint expansion,
// following setDefaults_KubeSchedulerProfile and frameworkImpl's construction.

import { Framework, type FilterPlugin, type Handle, type Plugin, type PostFilterPlugin, type PreFilterPlugin, type PreScorePlugin, type QueueSortPlugin, type ScorePlugin } from './framework.js';
import { newBalancedAllocation } from './plugins/balanced-allocation.js';
import { newDefaultPreemption } from './plugins/default-preemption.js';
import { newImageLocality } from './plugins/image-locality.js';
import { newInterPodAffinity } from './plugins/inter-pod-affinity.js';
import { newNodeAffinity } from './plugins/node-affinity.js';
import { newNodeName } from './plugins/node-name.js';
import { newNodePorts } from './plugins/node-ports.js';
import { newNodeResourcesFit } from './plugins/node-resources-fit.js';
import { newNodeUnschedulable } from './plugins/node-unschedulable.js';
import { newPodTopologySpread } from './plugins/pod-topology-spread.js';
import { newPrioritySort } from './plugins/priority-sort.js';
import { newTaintToleration } from './plugins/taint-toleration.js';
import type { PluginFactory } from './registry.js';

export interface PluginRef {
  readonly name: string;
  readonly weight?: number;
}

export interface PluginSet {
  readonly enabled?: readonly PluginRef[];
  readonly disabled?: readonly PluginRef[];
}

export const EXTENSION_POINTS = ['queueSort', 'preFilter', 'filter', 'postFilter', 'preScore', 'score'] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

export type ProfilePluginsConfig = Partial<Record<ExtensionPoint | 'multiPoint' | 'preEnqueue' | 'reserve' | 'permit' | 'preBind' | 'bind' | 'postBind', PluginSet>>;

export interface ProfileConfig {
  readonly schedulerName?: string;
  readonly percentageOfNodesToScore?: number | null;
  readonly plugins?: ProfilePluginsConfig;
  readonly pluginConfig?: readonly { readonly name: string; readonly args?: Readonly<Record<string, unknown>> }[];
}

export interface SchedulerConfig {
  readonly percentageOfNodesToScore?: number | null;
  readonly profiles?: readonly ProfileConfig[];
}

export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/** The in-tree plugins berth implements. */
export const IN_TREE_REGISTRY: Readonly<Record<string, PluginFactory>> = {
  PrioritySort: newPrioritySort,
  NodeName: newNodeName,
  NodeUnschedulable: newNodeUnschedulable,
  TaintToleration: newTaintToleration,
  NodeAffinity: newNodeAffinity,
  NodePorts: newNodePorts,
  NodeResourcesFit: newNodeResourcesFit,
  PodTopologySpread: newPodTopologySpread,
  InterPodAffinity: newInterPodAffinity,
  DefaultPreemption: newDefaultPreemption,
  NodeResourcesBalancedAllocation: newBalancedAllocation,
  ImageLocality: newImageLocality,
};

/**
 * Default plugins berth does not model because they only act on volumes, resource
 * claims, gates or binding; for pods without those they pass every node. Accepted
 * in configurations and otherwise ignored.
 */
export const PASS_THROUGH_PLUGINS: ReadonlySet<string> = new Set([
  'SchedulingGates',
  'VolumeRestrictions',
  'NodeVolumeLimits',
  'VolumeBinding',
  'VolumeZone',
  'DynamicResources',
  'DefaultBinder',
]);

/** The v1.37 default MultiPoint list, in order, with score weights. */
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
  { name: 'DefaultPreemption' },
  { name: 'NodeResourcesBalancedAllocation', weight: 1 },
  { name: 'ImageLocality', weight: 1 },
  { name: 'DefaultBinder' },
];

export class ProfileError extends Error {}

/** mergePluginSet: user disables (or "*") drop defaults, user entries replace same-named defaults in place, the rest append. */
export function mergePluginSet(defaults: PluginSet, custom: PluginSet | undefined): Required<PluginSet> {
  const disabled = [...(custom?.disabled ?? []), ...(defaults.disabled ?? [])];
  const disabledNames = new Set(disabled.map((p) => p.name));
  const customEnabled = custom?.enabled ?? [];
  const replaced = new Set<number>();
  const enabled: PluginRef[] = [];
  if (!disabledNames.has('*')) {
    for (const d of defaults.enabled ?? []) {
      if (disabledNames.has(d.name)) continue;
      const idx = customEnabled.findIndex((c) => c.name === d.name);
      if (idx >= 0) {
        replaced.add(idx);
        enabled.push(customEnabled[idx]!);
      } else {
        enabled.push(d);
      }
    }
  }
  customEnabled.forEach((c, i) => {
    if (!replaced.has(i)) enabled.push(c);
  });
  return { enabled, disabled: disabled.map((p) => ({ name: p.name })) };
}

const IMPLEMENTS: Record<ExtensionPoint, (p: Plugin) => boolean> = {
  queueSort: (p) => 'less' in p,
  preFilter: (p) => 'preFilter' in p,
  filter: (p) => 'filter' in p,
  postFilter: (p) => 'postFilter' in p,
  preScore: (p) => 'preScore' in p,
  score: (p) => 'score' in p,
};

/** The profile's effective plugin names per extension point (after defaults and MultiPoint expansion) and score weights. */
export function resolveProfile(profile: ProfileConfig, instantiate: (name: string) => Plugin | undefined): { points: Record<ExtensionPoint, string[]>; weights: Map<string, number> } {
  const userPlugins = profile.plugins ?? {};
  const multiPoint = mergePluginSet({ enabled: DEFAULT_MULTIPOINT }, userPlugins.multiPoint);
  const points = {} as Record<ExtensionPoint, string[]>;
  for (const ext of EXTENSION_POINTS) {
    const set = mergePluginSet({}, userPlugins[ext]);
    const specific: string[] = [];
    for (const ref of set.enabled) {
      const p = instantiate(ref.name);
      if (p === undefined) continue;
      if (!IMPLEMENTS[ext](p)) throw new ProfileError(`plugin ${JSON.stringify(ref.name)} does not extend ${ext} plugin`);
      if (specific.includes(ref.name)) throw new ProfileError(`plugin ${JSON.stringify(ref.name)} already registered as ${ext} plugin`);
      specific.push(ref.name);
    }
    const disabled = new Set(set.disabled.map((d) => d.name));
    if (disabled.has('*')) {
      points[ext] = specific;
      continue;
    }
    const overrides: string[] = [];
    const fromMultiPoint: string[] = [];
    for (const ref of multiPoint.enabled) {
      const p = instantiate(ref.name);
      if (p === undefined || !IMPLEMENTS[ext](p) || disabled.has(ref.name)) continue;
      if (specific.includes(ref.name)) {
        overrides.push(ref.name);
        continue;
      }
      if (fromMultiPoint.includes(ref.name)) throw new ProfileError(`plugin ${JSON.stringify(ref.name)} already registered as ${ext} plugin`);
      fromMultiPoint.push(ref.name);
    }
    // Order: explicitly re-listed MultiPoint plugins, then MultiPoint ones, then the rest of the specific list.
    const first = specific.filter((n) => overrides.includes(n));
    points[ext] = [...first, ...fromMultiPoint, ...specific.filter((n) => !overrides.includes(n))];
  }
  const weights = new Map<string, number>();
  for (const ref of [...mergePluginSet({}, userPlugins.score).enabled, ...multiPoint.enabled]) {
    const p = instantiate(ref.name);
    if (p === undefined || !IMPLEMENTS.score(p) || weights.has(ref.name)) continue;
    const w = ref.weight ?? 0;
    weights.set(ref.name, w === 0 ? 1 : w);
  }
  return { points, weights };
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
  for (const pc of profile.pluginConfig ?? []) {
    if (argsByName.has(pc.name)) throw new ProfileError(`pluginConfig: Duplicate value: ${JSON.stringify(pc.name)}`);
    argsByName.set(pc.name, pc.args ?? {});
  }
  const instances = new Map<string, Plugin>();
  const instantiate = (name: string): Plugin | undefined => {
    const existing = instances.get(name);
    if (existing) return existing;
    const factory = IN_TREE_REGISTRY[name];
    if (!factory) {
      if (PASS_THROUGH_PLUGINS.has(name)) return undefined;
      throw new ProfileError(`plugin ${JSON.stringify(name)} does not exist`);
    }
    let plugin: Plugin;
    try {
      plugin = factory({ handle, args: argsByName.get(name) ?? {} });
    } catch (e) {
      throw new ProfileError(`initializing plugin ${JSON.stringify(name)}: ${(e as Error).message}`);
    }
    instances.set(name, plugin);
    return plugin;
  };
  const { points, weights } = resolveProfile(profile, instantiate);
  const get = <T extends Plugin>(ext: ExtensionPoint) => points[ext].map((n) => instances.get(n)! as T);
  const queueSort = get<QueueSortPlugin>('queueSort');
  if (queueSort.length !== 1) throw new ProfileError(`only one queue sort plugin required for profile with scheduler name ${JSON.stringify(profile.schedulerName ?? DEFAULT_SCHEDULER_NAME)}, but got ${queueSort.length}`);
  return new Framework(
    profile.schedulerName ?? DEFAULT_SCHEDULER_NAME,
    {
      queueSort: queueSort[0]!,
      preFilter: get<PreFilterPlugin>('preFilter'),
      filter: get<FilterPlugin>('filter'),
      postFilter: get<PostFilterPlugin>('postFilter'),
      preScore: get<PreScorePlugin>('preScore'),
      score: get<ScorePlugin>('score').map((plugin) => ({ plugin, weight: weights.get(plugin.name) ?? 1 })),
    },
    profilePct ?? globalPct,
  );
}
