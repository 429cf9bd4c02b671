import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { qualifiedNameErrors as labelKeyErrors } from '../../model/label-syntax.js';
import { parseBalancedAllocationArgs, parseFitArgs } from './resource-args.js';

const DEFAULT = [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }];

describe('parseFitArgs defaults (SetDefaults_NodeResourcesFitArgs)', () => {
  const cases: { name: string; args: Record<string, unknown>; strategy: string; resources: { name: string; weight: number }[] }[] = [
    { name: 'no args: LeastAllocated on cpu and memory', args: {}, strategy: 'LeastAllocated', resources: DEFAULT },
    { name: 'a strategy without resources gets cpu and memory', args: { scoringStrategy: { type: 'MostAllocated' } }, strategy: 'MostAllocated', resources: DEFAULT },
    { name: 'an empty resources list gets cpu and memory', args: { scoringStrategy: { type: 'MostAllocated', resources: [] } }, strategy: 'MostAllocated', resources: DEFAULT },
    {
      name: 'unset and zero weights become 1, others are kept',
      args: { scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu' }, { name: 'memory', weight: 0 }, { name: 'nvidia.com/gpu', weight: 7 }] } },
      strategy: 'LeastAllocated',
      resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }, { name: 'nvidia.com/gpu', weight: 7 }],
    },
    {
      name: 'duplicate resource names are accepted for NodeResourcesFit',
      args: { scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 1 }, { name: 'cpu', weight: 2 }] } },
      strategy: 'LeastAllocated',
      resources: [{ name: 'cpu', weight: 1 }, { name: 'cpu', weight: 2 }],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const a = parseFitArgs(c.args);
      assert.equal(a.strategy, c.strategy);
      assert.deepEqual(a.resources, c.resources);
    });
  }

  it('keeps the RequestedToCapacityRatio shape and the ignored resources', () => {
    const a = parseFitArgs({
      ignoredResources: ['example.com/foo'],
      ignoredResourceGroups: ['example.com'],
      scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }] } },
    });
    assert.deepEqual(a.shape, [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }]);
    assert.deepEqual([...a.ignoredResources], ['example.com/foo']);
    assert.deepEqual([...a.ignoredResourceGroups], ['example.com']);
  });
});

describe('parseFitArgs validation (ValidateNodeResourcesFitArgs)', () => {
  const cases: { name: string; args: Record<string, unknown>; err: string | RegExp }[] = [
    { name: 'IgnoredResources: too long value', args: { ignoredResources: [`longvalue${'a'.repeat(64)}`] }, err: /name part must be no more than 63 bytes/ },
    { name: 'IgnoredResources: name is empty', args: { ignoredResources: ['example.com/'] }, err: /name part must be non-empty/ },
    { name: 'IgnoredResources: name has too many slash', args: { ignoredResources: ['example.com/aaa/bbb'] }, err: /a valid label key must consist of/ },
    { name: 'IgnoredResourceGroups: illegal args', args: { ignoredResourceGroups: ['example.com/'] }, err: /name part must be non-empty/ },
    { name: 'IgnoredResourceGroups: name is too long', args: { ignoredResourceGroups: ['a'.repeat(64)] }, err: /name part must be no more than 63 bytes/ },
    { name: 'IgnoredResourceGroups: name cannot contain slash', args: { ignoredResourceGroups: ['example.com/aa'] }, err: "ignoredResourceGroups[0]: Invalid value: \"example.com/aa\": resource group name can't contain '/'" },
    {
      name: 'ScoringStrategy: type is unsupported',
      args: { scoringStrategy: { type: 'Invalid' } },
      err: 'scoringStrategy.type: Unsupported value: "Invalid": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
    },
    { name: 'ScoringStrategy: a given strategy needs a type', args: { scoringStrategy: { resources: [{ name: 'cpu', weight: 1 }] } }, err: /scoringStrategy\.type: Unsupported value: "": supported values/ },
    {
      name: 'ScoringStrategy: requestedToCapacityRatio field is missing',
      args: { scoringStrategy: { type: 'RequestedToCapacityRatio' } },
      err: 'scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio',
    },
    {
      name: 'ScoringStrategy: requestedToCapacityRatio is forbidden for other types',
      args: { scoringStrategy: { type: 'LeastAllocated', requestedToCapacityRatio: { shape: [{ utilization: 0, score: 0 }] } } },
      err: 'scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio',
    },
    { name: 'resource with negative weight', args: { scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'memory', weight: -1 }, { name: 'cpu', weight: 1 }] } }, err: 'scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not in valid range (0, 100]' },
    { name: 'resource weight larger than MaxNodeScore', args: { scoringStrategy: { type: 'MostAllocated', resources: [{ name: 'memory', weight: 1 }, { name: 'cpu', weight: 101 }] } }, err: 'scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]' },
    {
      name: 'multi invalid resources are reported together',
      args: { scoringStrategy: { type: 'MostAllocated', resources: [{ name: 'cpu', weight: -5 }, { name: 'memory', weight: 101 }] } },
      err: '[scoringStrategy.resources[0].weight: Invalid value: -5: resource weight of cpu not in valid range (0, 100], scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of memory not in valid range (0, 100]]',
    },
    { name: 'no shapes', args: { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: {} } }, err: 'scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified' },
    { name: 'utilization less than min', args: { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: -1, score: 3 }] } } }, err: 'scoringStrategy.requestedToCapacityRatio.shape[0].utilization: Invalid value: -1: not in valid range [0, 100]' },
    { name: 'utilization greater than max', args: { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 101, score: 3 }] } } }, err: 'scoringStrategy.requestedToCapacityRatio.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]' },
    {
      name: 'duplicated utilization values',
      args: { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 10, score: 3 }, { utilization: 10, score: 3 }] } } },
      err: 'scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 10: values must be sorted in increasing order',
    },
    {
      name: 'non-increasing utilization values',
      args: { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 10, score: 3 }, { utilization: 20, score: 3 }, { utilization: 15, score: 3 }] } } },
      err: 'scoringStrategy.requestedToCapacityRatio.shape[2].utilization: Invalid value: 15: values must be sorted in increasing order',
    },
    { name: 'score less than min', args: { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 10, score: -1 }] } } }, err: 'scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: -1: not in valid range [0, 10]' },
    { name: 'score greater than max', args: { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 10, score: 11 }] } } }, err: 'scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: 11: not in valid range [0, 10]' },
  ];
  for (const c of cases) it(c.name, () => assert.throws(() => parseFitArgs(c.args), typeof c.err === 'string' ? { message: c.err } : c.err));

  const valid = [
    { name: 'IgnoredResources: valid args', args: { ignoredResources: ['example.com'] } },
    { name: 'IgnoredResourceGroups: valid args', args: { ignoredResourceGroups: ['example.com'] } },
    { name: 'multi valid resources', args: { scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 10 }] } } },
    { name: 'increasing utilization values', args: { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 10, score: 3 }, { utilization: 20, score: 3 }, { utilization: 30, score: 3 }] } } } },
  ];
  for (const c of valid) it(c.name, () => assert.doesNotThrow(() => parseFitArgs(c.args)));
});

describe('parseBalancedAllocationArgs (ValidateNodeResourcesBalancedAllocationArgs)', () => {
  it('defaults to cpu and memory', () => {
    assert.deepEqual(parseBalancedAllocationArgs({}), DEFAULT);
    assert.deepEqual(parseBalancedAllocationArgs({ resources: [] }), DEFAULT);
  });
  it('an unset weight is 1', () => assert.deepEqual(parseBalancedAllocationArgs({ resources: [{ name: 'cpu' }, { name: 'nvidia.com/gpu', weight: 0 }] }), [{ name: 'cpu', weight: 1 }, { name: 'nvidia.com/gpu', weight: 1 }]));
  const cases = [
    { name: 'invalid config: weight must be 1', resources: [{ name: 'cpu', weight: 2 }, { name: 'memory', weight: 1 }], err: 'resources[0].weight: Invalid value: 2: must be 1' },
    { name: 'repeated resources', resources: [{ name: 'cpu', weight: 1 }, { name: 'cpu', weight: 1 }], err: 'resources[1].name: Duplicate value: "cpu"' },
  ];
  for (const c of cases) it(c.name, () => assert.throws(() => parseBalancedAllocationArgs({ resources: c.resources }), { message: c.err }));
});

describe('labelKeyErrors (content.IsLabelKey)', () => {
  const cases = [
    { name: 'plain name', value: 'simple', want: 0 },
    { name: 'prefixed name', value: 'example.com/My_Name-1.0', want: 0 },
    { name: 'empty prefix', value: '/name', want: 1 },
    { name: 'upper-case prefix', value: 'Example.com/name', want: 1 },
    { name: 'bad name characters', value: 'foo bar', want: 1 },
    { name: 'empty string', value: '', want: 2 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(labelKeyErrors(c.value).length, c.want, labelKeyErrors(c.value).join('; ')));
});
