import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ClusterState } from '../cluster/state.js';
import type { Framework, Plugin } from './framework.js';
import {
  buildFramework,
  CONFIG_EXTENSION_POINTS,
  DEFAULT_MULTIPOINT,
  METHOD,
  mergePluginSet,
  ProfileError,
  resolveProfile,
  type ConfigExtensionPoint,
  type PluginSet,
  type ProfileConfig,
  type ProfilePluginsConfig,
  type SchedulerConfig,
} from './profile.js';
import { Scheduler } from './scheduler.js';

describe('mergePluginSet (TestMergePlugins)', () => {
  const p = (name: string, weight?: number) => (weight === undefined ? { name } : { name, weight });
  const cases: { name: string; defaults: PluginSet; custom: PluginSet | undefined; enabled: { name: string; weight?: number }[]; disabled?: string[] }[] = [
    { name: 'AppendCustomPlugin', defaults: { enabled: [p('DefaultPlugin1'), p('DefaultPlugin2')] }, custom: { enabled: [p('CustomPlugin')] }, enabled: [p('DefaultPlugin1'), p('DefaultPlugin2'), p('CustomPlugin')] },
    {
      name: 'InsertAfterDefaultPlugins2',
      defaults: { enabled: [p('DefaultPlugin1'), p('DefaultPlugin2')] },
      custom: { enabled: [p('CustomPlugin'), p('DefaultPlugin2')], disabled: [p('DefaultPlugin2')] },
      enabled: [p('DefaultPlugin1'), p('CustomPlugin'), p('DefaultPlugin2')],
      disabled: ['DefaultPlugin2'],
    },
    {
      name: 'InsertBeforeAllPlugins',
      defaults: { enabled: [p('DefaultPlugin1'), p('DefaultPlugin2')] },
      custom: { enabled: [p('CustomPlugin'), p('DefaultPlugin1'), p('DefaultPlugin2')], disabled: [p('*')] },
      enabled: [p('CustomPlugin'), p('DefaultPlugin1'), p('DefaultPlugin2')],
      disabled: ['*'],
    },
    { name: 'ReorderDefaultPlugins', defaults: { enabled: [p('DefaultPlugin1'), p('DefaultPlugin2')] }, custom: { enabled: [p('DefaultPlugin2'), p('DefaultPlugin1')], disabled: [p('*')] }, enabled: [p('DefaultPlugin2'), p('DefaultPlugin1')], disabled: ['*'] },
    { name: 'ApplyNilCustomPlugin', defaults: { enabled: [p('DefaultPlugin1'), p('DefaultPlugin2')] }, custom: undefined, enabled: [p('DefaultPlugin1'), p('DefaultPlugin2')] },
    { name: 'CustomPluginOverrideDefaultPlugin', defaults: { enabled: [p('Plugin1'), p('Plugin2'), p('Plugin3')] }, custom: { enabled: [p('Plugin1', 2), p('Plugin3', 3)] }, enabled: [p('Plugin1', 2), p('Plugin2'), p('Plugin3', 3)] },
    { name: 'OrderPreserveAfterOverride', defaults: { enabled: [p('Plugin1'), p('Plugin2'), p('Plugin3')] }, custom: { enabled: [p('Plugin2', 2), p('Plugin1', 1)] }, enabled: [p('Plugin1', 1), p('Plugin2', 2), p('Plugin3')] },
    {
      name: 'RepeatedCustomPlugin',
      defaults: { enabled: [p('Plugin1'), p('Plugin2'), p('Plugin3')] },
      custom: { enabled: [p('Plugin1'), p('Plugin2', 2), p('Plugin3'), p('Plugin2', 4)] },
      enabled: [p('Plugin1'), p('Plugin2', 4), p('Plugin3'), p('Plugin2', 2)],
    },
    {
      name: 'Append disabled Multipoint plugins',
      defaults: { enabled: [p('DefaultPlugin1'), p('DefaultPlugin2')] },
      custom: { enabled: [p('CustomPlugin'), p('CustomPlugin2')], disabled: [p('DefaultPlugin2')] },
      enabled: [p('DefaultPlugin1'), p('CustomPlugin'), p('CustomPlugin2')],
      disabled: ['DefaultPlugin2'],
    },
    { name: 'override default MultiPoint plugins with custom value', defaults: { enabled: [p('DefaultPlugin')] }, custom: { enabled: [p('DefaultPlugin', 5)] }, enabled: [p('DefaultPlugin', 5)] },
    { name: 'disabled MultiPoint plugin in default set', defaults: { enabled: [p('DefaultPlugin')], disabled: [p('DefaultPlugin2')] }, custom: { enabled: [p('CustomPlugin')] }, enabled: [p('DefaultPlugin'), p('CustomPlugin')], disabled: ['DefaultPlugin2'] },
    { name: 'multipoint with only disabled gets merged', defaults: { enabled: [p('DefaultPlugin')] }, custom: { disabled: [p('DefaultPlugin')] }, enabled: [], disabled: ['DefaultPlugin'] },
    { name: 'user disables come before default disables', defaults: { enabled: [], disabled: [p('A')] }, custom: { disabled: [p('B', 3)] }, enabled: [], disabled: ['B', 'A'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = mergePluginSet(c.defaults, c.custom);
      assert.deepEqual(got.enabled, c.enabled);
      assert.deepEqual(got.disabled, (c.disabled ?? []).map((name) => ({ name })));
    });
  }
});

// ------------------------------------------------- MultiPoint expansion

/** framework_test.go's registry: one plugin per name with the extension points it implements. */
const ALL_POINTS: readonly ConfigExtensionPoint[] = CONFIG_EXTENSION_POINTS;
function fake(name: string, points: readonly ConfigExtensionPoint[]): Plugin {
  const p: Record<string, unknown> = { name };
  for (const ext of points) p[METHOD[ext]] = () => undefined;
  return p as unknown as Plugin;
}
const REGISTRY: Record<string, Plugin> = {
  testPlugin: fake('testPlugin', ALL_POINTS),
  scorePlugin1: fake('scorePlugin1', ['preScore', 'score']),
  scorePlugin2: fake('scorePlugin2', ['score']),
  scoreWithNormalizePlugin1: fake('scoreWithNormalizePlugin1', ['score']),
  queueSortPlugin: fake('queueSortPlugin', ['queueSort']),
  bindPlugin: fake('bindPlugin', ['bind']),
  filterPlugin: fake('filterPlugin', ['filter']),
};
const lookup = (name: string) => REGISTRY[name];

type Want = Partial<Record<ConfigExtensionPoint, string[]>>;
const everywhere = (name: string): Want => Object.fromEntries(ALL_POINTS.map((ext) => [ext, [name]]));

/** A raw profile as upstream's framework test builds it: no default MultiPoint plugins. */
function raw(plugins: ProfilePluginsConfig): ProfileConfig {
  const mp = plugins.multiPoint ?? {};
  return { plugins: { ...plugins, multiPoint: { enabled: mp.enabled ?? [], disabled: [{ name: '*' }, ...(mp.disabled ?? [])] } } };
}

function expectPlugins(got: Record<ConfigExtensionPoint, string[]>, want: Want): void {
  const full = Object.fromEntries(ALL_POINTS.map((ext) => [ext, want[ext] ?? []]));
  assert.deepEqual(got, full);
}

describe('resolveProfile: MultiPoint expansion (TestNewFrameworkMultiPointExpansion)', () => {
  const cases: { name: string; plugins: ProfilePluginsConfig; want?: Want; weights?: Record<string, number>; err?: string }[] = [
    { name: 'plugin expansion', plugins: { multiPoint: { enabled: [{ name: 'testPlugin', weight: 5 }] } }, want: everywhere('testPlugin'), weights: { testPlugin: 5 } },
    {
      name: 'disable MultiPoint plugin at some extension points',
      plugins: { multiPoint: { enabled: [{ name: 'testPlugin' }] }, preScore: { disabled: [{ name: 'testPlugin' }] }, score: { disabled: [{ name: 'testPlugin' }] } },
      want: { ...everywhere('testPlugin'), preScore: [], score: [] },
    },
    {
      name: 'Multiple MultiPoint plugins',
      plugins: { multiPoint: { enabled: [{ name: 'testPlugin' }, { name: 'scorePlugin1' }] } },
      want: { ...everywhere('testPlugin'), preScore: ['testPlugin', 'scorePlugin1'], score: ['testPlugin', 'scorePlugin1'] },
      weights: { testPlugin: 1, scorePlugin1: 1 },
    },
    {
      name: 'disable MultiPoint extension',
      plugins: { multiPoint: { enabled: [{ name: 'testPlugin' }, { name: 'scorePlugin1' }] }, preScore: { disabled: [{ name: '*' }] } },
      want: { ...everywhere('testPlugin'), preScore: [], score: ['testPlugin', 'scorePlugin1'] },
    },
    {
      name: 'Reorder MultiPoint plugins (specified extension takes precedence)',
      plugins: { multiPoint: { enabled: [{ name: 'scoreWithNormalizePlugin1' }, { name: 'testPlugin' }, { name: 'scorePlugin1' }] }, score: { enabled: [{ name: 'scorePlugin1' }, { name: 'testPlugin' }] } },
      want: { ...everywhere('testPlugin'), preScore: ['testPlugin', 'scorePlugin1'], score: ['scorePlugin1', 'testPlugin', 'scoreWithNormalizePlugin1'] },
      weights: { scorePlugin1: 1, testPlugin: 1, scoreWithNormalizePlugin1: 1 },
    },
    {
      name: 'Reorder MultiPoint plugins (specified extension only takes precedence when it exists in MultiPoint)',
      plugins: { multiPoint: { enabled: [{ name: 'testPlugin' }, { name: 'scorePlugin1' }] }, score: { enabled: [{ name: 'scoreWithNormalizePlugin1' }, { name: 'scorePlugin1' }, { name: 'testPlugin' }] } },
      want: { ...everywhere('testPlugin'), preScore: ['testPlugin', 'scorePlugin1'], score: ['scorePlugin1', 'testPlugin', 'scoreWithNormalizePlugin1'] },
    },
    {
      name: 'Override MultiPoint plugins weights',
      plugins: { multiPoint: { enabled: [{ name: 'testPlugin' }, { name: 'scorePlugin1' }] }, score: { enabled: [{ name: 'scorePlugin1', weight: 5 }, { name: 'testPlugin', weight: 3 }] } },
      want: { ...everywhere('testPlugin'), preScore: ['testPlugin', 'scorePlugin1'], score: ['scorePlugin1', 'testPlugin'] },
      weights: { scorePlugin1: 5, testPlugin: 3 },
    },
    {
      name: "disable and enable MultiPoint plugins with '*'",
      plugins: { multiPoint: { enabled: [{ name: 'queueSortPlugin' }, { name: 'bindPlugin' }, { name: 'scorePlugin1' }] } },
      want: { queueSort: ['queueSortPlugin'], preScore: ['scorePlugin1'], score: ['scorePlugin1'], bind: ['bindPlugin'] },
      weights: { scorePlugin1: 1 },
    },
    {
      name: 'disable and enable MultiPoint plugin by name',
      plugins: { multiPoint: { enabled: [{ name: 'bindPlugin' }, { name: 'queueSortPlugin' }, { name: 'scorePlugin1' }], disabled: [{ name: 'scorePlugin1' }] } },
      want: { queueSort: ['queueSortPlugin'], preScore: ['scorePlugin1'], score: ['scorePlugin1'], bind: ['bindPlugin'] },
    },
    { name: "Expect 'already registered' error", plugins: { multiPoint: { enabled: [{ name: 'testPlugin' }, { name: 'testPlugin' }] } }, err: 'plugin "testPlugin" already registered as "PreFilterPlugin"' },
    {
      name: 'Override MultiPoint plugins weights and avoid a plugin being loaded multiple times',
      plugins: {
        multiPoint: { enabled: [{ name: 'testPlugin' }, { name: 'scorePlugin1' }] },
        score: { enabled: [{ name: 'scorePlugin1', weight: 5 }, { name: 'scorePlugin2', weight: 5 }, { name: 'testPlugin', weight: 3 }] },
      },
      want: { ...everywhere('testPlugin'), preScore: ['testPlugin', 'scorePlugin1'], score: ['scorePlugin1', 'testPlugin', 'scorePlugin2'] },
      weights: { scorePlugin1: 5, scorePlugin2: 5, testPlugin: 3 },
    },
    {
      name: 'a specific score entry without weight means 1, not the MultiPoint weight',
      plugins: { multiPoint: { enabled: [{ name: 'testPlugin', weight: 7 }] }, score: { enabled: [{ name: 'testPlugin' }] } },
      want: everywhere('testPlugin'),
      weights: { testPlugin: 1 },
    },
    { name: 'unknown plugin at a specific point', plugins: { multiPoint: { enabled: [{ name: 'testPlugin' }] }, filter: { enabled: [{ name: 'nope' }] } }, err: 'FilterPlugin "nope" does not exist' },
    { name: 'unknown plugin in MultiPoint', plugins: { multiPoint: { enabled: [{ name: 'testPlugin' }, { name: 'nope' }] } }, err: 'PreFilterPlugin "nope" does not exist' },
    { name: 'a plugin at a point it does not implement', plugins: { multiPoint: { enabled: [{ name: 'testPlugin' }] }, score: { enabled: [{ name: 'filterPlugin' }] } }, err: 'plugin "filterPlugin" does not extend ScorePlugin plugin' },
    { name: 'double registration at a specific point', plugins: { multiPoint: { enabled: [{ name: 'testPlugin' }] }, filter: { enabled: [{ name: 'filterPlugin' }, { name: 'filterPlugin' }] } }, err: 'plugin "filterPlugin" already registered as "FilterPlugin"' },
    {
      name: 'specific lists are checked before MultiPoint',
      plugins: { multiPoint: { enabled: [{ name: 'nope' }] }, queueSort: { enabled: [{ name: 'filterPlugin' }] } },
      err: 'plugin "filterPlugin" does not extend QueueSortPlugin plugin',
    },
    { name: 'no queue sort plugin', plugins: { multiPoint: { enabled: [{ name: 'bindPlugin' }] } }, err: 'only one queue sort plugin required for profile with scheduler name "default-scheduler", but got 0' },
    { name: 'two queue sort plugins', plugins: { multiPoint: { enabled: [{ name: 'testPlugin' }, { name: 'queueSortPlugin' }] } }, err: 'only one queue sort plugin required for profile with scheduler name "default-scheduler", but got 2' },
    { name: 'no bind plugin', plugins: { multiPoint: { enabled: [{ name: 'queueSortPlugin' }] } }, err: 'at least one bind plugin is needed for profile with scheduler name "default-scheduler"' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      if (c.err) {
        assert.throws(() => resolveProfile(raw(c.plugins), lookup), (e: unknown) => e instanceof ProfileError && e.message === c.err);
        return;
      }
      const got = resolveProfile(raw(c.plugins), lookup);
      expectPlugins(got.configured, c.want!);
      if (c.weights) assert.deepEqual(Object.fromEntries(got.weights), c.weights);
    });
  }
});

// --------------------------------------------------------- the default profile

const PRE_AND_FILTER = ['NodeName', 'NodeUnschedulable', 'TaintToleration', 'NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'VolumeRestrictions', 'NodeVolumeLimits', 'VolumeBinding', 'VolumeZone', 'PodTopologySpread', 'InterPodAffinity', 'DynamicResources', 'NodeDeclaredFeatures'];
/** testing/defaults.ExpandedPluginsV1 (the placement and pod-group points berth does not configure left out). */
const EXPANDED_V1: Record<ConfigExtensionPoint, string[]> = {
  preEnqueue: ['SchedulingGates', 'DynamicResources', 'DefaultPreemption'],
  queueSort: ['PrioritySort'],
  preFilter: PRE_AND_FILTER,
  filter: PRE_AND_FILTER,
  postFilter: ['DynamicResources', 'DefaultPreemption'],
  preScore: ['TaintToleration', 'NodeAffinity', 'NodeResourcesFit', 'VolumeBinding', 'PodTopologySpread', 'InterPodAffinity', 'NodeResourcesBalancedAllocation'],
  score: ['TaintToleration', 'NodeAffinity', 'NodeResourcesFit', 'VolumeBinding', 'PodTopologySpread', 'InterPodAffinity', 'DynamicResources', 'NodeResourcesBalancedAllocation', 'ImageLocality'],
  reserve: ['VolumeBinding', 'DynamicResources'],
  preBind: ['VolumeBinding', 'DynamicResources'],
  bind: ['DefaultBinder'],
  postBind: [],
  permit: [],
};
const DEFAULT_WEIGHTS = { TaintToleration: 3, NodeAffinity: 2, NodeResourcesFit: 1, VolumeBinding: 1, PodTopologySpread: 2, InterPodAffinity: 2, DynamicResources: 2, NodeResourcesBalancedAllocation: 1, ImageLocality: 1 };

function build(config: SchedulerConfig, profile: ProfileConfig): Framework {
  return new Scheduler(new ClusterState(), (h) => buildFramework(config, profile, h)).framework;
}

function names(fw: Framework) {
  return {
    queueSort: [fw.plugins.queueSort.name],
    preFilter: fw.plugins.preFilter.map((p) => p.name),
    filter: fw.plugins.filter.map((p) => p.name),
    postFilter: fw.plugins.postFilter.map((p) => p.name),
    preScore: fw.plugins.preScore.map((p) => p.name),
    score: fw.plugins.score.map((s) => `${s.plugin.name}:${s.weight}`),
    reserve: (fw.plugins.reserve ?? []).map((p) => p.name),
    preBind: (fw.plugins.preBind ?? []).map((p) => p.name),
  };
}

describe('the v1.37 default profile', () => {
  it('MultiPoint defaults include the on-by-default gated plugins', () => {
    assert.deepEqual(DEFAULT_MULTIPOINT.slice(-6).map((p) => p.name), ['DynamicResources', 'DefaultPreemption', 'NodeResourcesBalancedAllocation', 'ImageLocality', 'DefaultBinder', 'NodeDeclaredFeatures']);
  });

  it('expands like upstream ExpandedPluginsV1, with its weights', () => {
    const { configured, weights } = resolveProfile({}, lookupInTree);
    assert.deepEqual(configured, EXPANDED_V1);
    assert.deepEqual(Object.fromEntries(weights), DEFAULT_WEIGHTS);
  });

  it('builds the framework berth runs: pass-through plugins left out', () => {
    assert.deepEqual(names(build({}, {})), {
      queueSort: ['PrioritySort'],
      preFilter: ['NodeName', 'NodeUnschedulable', 'TaintToleration', 'NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'VolumeRestrictions', 'NodeVolumeLimits', 'VolumeBinding', 'VolumeZone', 'PodTopologySpread', 'InterPodAffinity'],
      filter: ['NodeName', 'NodeUnschedulable', 'TaintToleration', 'NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'VolumeRestrictions', 'NodeVolumeLimits', 'VolumeBinding', 'VolumeZone', 'PodTopologySpread', 'InterPodAffinity'],
      postFilter: ['DefaultPreemption'],
      preScore: ['TaintToleration', 'NodeAffinity', 'NodeResourcesFit', 'VolumeBinding', 'PodTopologySpread', 'InterPodAffinity', 'NodeResourcesBalancedAllocation'],
      score: ['TaintToleration:3', 'NodeAffinity:2', 'NodeResourcesFit:1', 'VolumeBinding:1', 'PodTopologySpread:2', 'InterPodAffinity:2', 'NodeResourcesBalancedAllocation:1', 'ImageLocality:1'],
      reserve: ['VolumeBinding'],
      preBind: ['VolumeBinding'],
    });
  });

  const configs: { name: string; profile: ProfileConfig; check: (n: ReturnType<typeof names>) => void }[] = [
    {
      name: 'a disabled score plugin keeps filtering',
      profile: { plugins: { score: { disabled: [{ name: 'NodeResourcesBalancedAllocation' }, { name: 'ImageLocality' }] } } },
      check: (n) => {
        assert.deepEqual(n.score, ['TaintToleration:3', 'NodeAffinity:2', 'NodeResourcesFit:1', 'VolumeBinding:1', 'PodTopologySpread:2', 'InterPodAffinity:2']);
        assert.ok(n.preScore.includes('NodeResourcesBalancedAllocation'));
      },
    },
    {
      name: 'a MultiPoint weight override replaces the default in place',
      profile: { plugins: { multiPoint: { enabled: [{ name: 'ImageLocality', weight: 5 }, { name: 'NodeResourcesFit', weight: 4 }] } } },
      check: (n) => assert.deepEqual(n.score, ['TaintToleration:3', 'NodeAffinity:2', 'NodeResourcesFit:4', 'VolumeBinding:1', 'PodTopologySpread:2', 'InterPodAffinity:2', 'NodeResourcesBalancedAllocation:1', 'ImageLocality:5']),
    },
    {
      name: 'a score entry moves the plugin first and sets its weight',
      profile: { plugins: { score: { enabled: [{ name: 'ImageLocality', weight: 10 }] } } },
      check: (n) => assert.deepEqual(n.score, ['ImageLocality:10', 'TaintToleration:3', 'NodeAffinity:2', 'NodeResourcesFit:1', 'VolumeBinding:1', 'PodTopologySpread:2', 'InterPodAffinity:2', 'NodeResourcesBalancedAllocation:1']),
    },
    {
      name: 'score disabled "*" with an explicit list keeps only that list',
      profile: { plugins: { score: { disabled: [{ name: '*' }], enabled: [{ name: 'NodeResourcesFit', weight: 2 }] } } },
      check: (n) => assert.deepEqual(n.score, ['NodeResourcesFit:2']),
    },
    {
      name: 'MultiPoint disabled by name drops the plugin everywhere',
      profile: { plugins: { multiPoint: { disabled: [{ name: 'TaintToleration' }] } } },
      check: (n) => {
        assert.ok(!n.filter.includes('TaintToleration'));
        assert.ok(!n.score.some((s) => s.startsWith('TaintToleration')));
      },
    },
    {
      name: 'a plugin may be listed at an extension point it implements upstream even if it does nothing there',
      profile: { plugins: { preFilter: { enabled: [{ name: 'TaintToleration' }] }, preEnqueue: { enabled: [{ name: 'DefaultPreemption' }] } } },
      check: (n) => assert.equal(n.preFilter[0], 'TaintToleration'),
    },
  ];
  for (const c of configs) it(c.name, () => c.check(names(build({}, c.profile))));

  const errors: { name: string; config?: SchedulerConfig; profile: ProfileConfig; err: string | RegExp }[] = [
    { name: 'an unknown plugin', profile: { plugins: { filter: { enabled: [{ name: 'NoSuchPlugin' }] } } }, err: 'FilterPlugin "NoSuchPlugin" does not exist' },
    { name: 'a pass-through plugin where it has no such extension point', profile: { plugins: { score: { enabled: [{ name: 'VolumeZone' }] } } }, err: 'plugin "VolumeZone" does not extend ScorePlugin plugin' },
    { name: 'a berth plugin where upstream has no such extension point', profile: { plugins: { reserve: { enabled: [{ name: 'NodeResourcesFit' }] } } }, err: 'plugin "NodeResourcesFit" does not extend ReservePlugin plugin' },
    { name: 'the same plugin twice at one point', profile: { plugins: { filter: { enabled: [{ name: 'NodePorts' }, { name: 'NodePorts' }] } } }, err: 'plugin "NodePorts" already registered as "FilterPlugin"' },
    { name: 'disabling the only binder', profile: { plugins: { bind: { disabled: [{ name: '*' }] } } }, err: 'at least one bind plugin is needed for profile with scheduler name "default-scheduler"' },
    { name: 'disabling the queue sort', profile: { schedulerName: 'custom', plugins: { multiPoint: { disabled: [{ name: 'PrioritySort' }] } } }, err: 'only one queue sort plugin required for profile with scheduler name "custom", but got 0' },
    { name: 'a removed v1 plugin', profile: { plugins: { filter: { enabled: [{ name: 'EBSLimits' }] } } }, err: 'plugins.filter.enabled[0]: Invalid value: "EBSLimits": was invalid in version "kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")' },
    { name: 'repeated pluginConfig', profile: { pluginConfig: [{ name: 'NodeAffinity' }, { name: 'NodeAffinity' }] }, err: 'pluginConfig[1]: Duplicate value: "NodeAffinity"' },
    { name: 'invalid args name the plugin', profile: { pluginConfig: [{ name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'Nope' } } }] }, err: /^initializing plugin "NodeResourcesFit": scoringStrategy.type: Unsupported value: "Nope"/ },
    {
      name: 'args validated by the configuration even when the plugin is disabled',
      profile: { plugins: { multiPoint: { disabled: [{ name: 'NodeResourcesBalancedAllocation' }] } }, pluginConfig: [{ name: 'NodeResourcesBalancedAllocation', args: { resources: [{ name: 'cpu', weight: 3 }] } }] },
      err: 'initializing plugin "NodeResourcesBalancedAllocation": resources[0].weight: Invalid value: 3: must be 1',
    },
    { name: 'global percentage out of range', config: { percentageOfNodesToScore: 101 }, profile: {}, err: 'percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]' },
    { name: 'profile percentage out of range', profile: { percentageOfNodesToScore: -1 }, err: 'profiles.percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]' },
  ];
  for (const c of errors) {
    it(`error: ${c.name}`, () => {
      assert.throws(() => build(c.config ?? {}, c.profile), (e: unknown) => e instanceof ProfileError && (typeof c.err === 'string' ? e.message === c.err : c.err.test(e.message)));
    });
  }

  it('NodeResourcesFit args are only checked when Fit is built (upstream keys its validator as "NodeResourcesFitArgs")', () => {
    assert.doesNotThrow(() => build({}, { plugins: { multiPoint: { disabled: [{ name: 'NodeResourcesFit' }] } }, pluginConfig: [{ name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'Nope' } } }] }));
  });

  const pct: { name: string; config: SchedulerConfig; profile: ProfileConfig; want: number }[] = [
    { name: 'unset everywhere: adaptive (0)', config: {}, profile: {}, want: 0 },
    { name: 'global value', config: { percentageOfNodesToScore: 40 }, profile: {}, want: 40 },
    { name: 'profile value wins over global', config: { percentageOfNodesToScore: 100 }, profile: { percentageOfNodesToScore: 40 }, want: 40 },
    { name: 'a profile 0 is explicit adaptive', config: { percentageOfNodesToScore: 40 }, profile: { percentageOfNodesToScore: 0 }, want: 0 },
    { name: 'a null profile value falls back to global', config: { percentageOfNodesToScore: 30 }, profile: { percentageOfNodesToScore: null }, want: 30 },
  ];
  for (const c of pct) it(`percentageOfNodesToScore: ${c.name}`, () => assert.equal(build(c.config, c.profile).percentageOfNodesToScore, c.want));
});

/** Instances of berth's in-tree plugins (from the default framework), for calling resolveProfile directly. */
let inTree: Plugin[] | undefined;
function lookupInTree(name: string): Plugin | undefined {
  if (!inTree) {
    const fw = build({}, {});
    inTree = [fw.plugins.queueSort, ...fw.plugins.preFilter, ...fw.plugins.filter, ...fw.plugins.postFilter, ...fw.plugins.preScore, ...fw.plugins.score.map((s) => s.plugin)];
  }
  return inTree.find((p) => p.name === name);
}
