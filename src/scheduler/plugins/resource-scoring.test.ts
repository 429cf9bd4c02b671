import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST } from '../../model/resources.js';
import { container, mkPod } from '../../../test/fixtures/plugin-harness.js';
import { balancedScorer, brokenLinear, goRound, leastAllocatedScorer, mostAllocatedScorer, requestedToCapacityRatioScorer } from './resource-scoring.js';

describe('brokenLinear (TestBrokenLinearFunction)', () => {
  const cases = [
    {
      name: 'two points',
      points: [{ utilization: 10, score: 1 }, { utilization: 90, score: 9 }],
      at: [[-10, 1], [0, 1], [9, 1], [10, 1], [15, 1], [19, 1], [20, 2], [89, 8], [90, 9], [99, 9], [100, 9], [110, 9]],
    },
    {
      name: 'rising then falling',
      points: [{ utilization: 0, score: 2 }, { utilization: 40, score: 10 }, { utilization: 100, score: 0 }],
      at: [[-10, 2], [0, 2], [20, 6], [30, 8], [40, 10], [70, 5], [100, 0], [110, 0]],
    },
    {
      name: 'flat',
      points: [{ utilization: 0, score: 2 }, { utilization: 40, score: 2 }, { utilization: 100, score: 2 }],
      at: [[-10, 2], [0, 2], [20, 2], [30, 2], [40, 2], [70, 2], [100, 2], [110, 2]],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const f = brokenLinear(c.points);
      assert.deepEqual(c.at.map(([p]) => [p, f(p!)]), c.at);
    });
  }
});

describe('goRound (math.Round)', () => {
  const cases = [[2.5, 3], [37.5, 38], [-2.5, -3], [2.4999, 2], [0, 0]];
  for (const [x, want] of cases) it(`${x}`, () => assert.equal(goRound(x!), want));
});

describe('per-strategy resource scorers', () => {
  const two = [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }];
  const cases = [
    // CPU (4000-3000)*100/4000 = 25, memory 50: (25+50)/2 truncates to 37.
    { name: 'least allocated: integer mean truncates', score: leastAllocatedScorer(two)([3000, 5000], [0, 0], [4000, 10000]), want: 37 },
    { name: 'least allocated: over capacity scores 0 for that resource', score: leastAllocatedScorer(two)([6000, 5000], [0, 0], [4000, 10000]), want: 25 },
    { name: 'least allocated: resources without allocatable are left out', score: leastAllocatedScorer(two)([3000, 0], [0, 0], [4000, 0]), want: 25 },
    { name: 'most allocated: requests are capped at capacity', score: mostAllocatedScorer(two)([6000, 5000], [0, 0], [4000, 10000]), want: 75 },
    { name: 'most allocated: weights', score: mostAllocatedScorer([{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 2 }])([3000, 5000], [0, 0], [4000, 10000]), want: 58 },
    // Shape 10→0 scaled to 100→0: cpu 75% → 25, memory 50% → 50; mean 37.5 rounds to 38.
    { name: 'requested to capacity ratio: the mean is rounded', score: requestedToCapacityRatioScorer(two, [{ utilization: 0, score: 10 }, { utilization: 100, score: 0 }])([3000, 5000], [0, 0], [4000, 10000]), want: 38 },
    // Zero-scored resources are left out of the mean: cpu 100% → 0 is dropped, memory 50% → 50.
    { name: 'requested to capacity ratio: zero scores do not count', score: requestedToCapacityRatioScorer(two, [{ utilization: 0, score: 10 }, { utilization: 100, score: 0 }])([4000, 5000], [0, 0], [4000, 10000]), want: 50 },
    { name: 'requested to capacity ratio: over capacity is treated as full', score: requestedToCapacityRatioScorer(two, [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }])([9000, 10000], [0, 0], [4000, 10000]), want: 100 },
    // With pod: cpu 75%, mem 50% → std 0.125 → 87; without: 0/0 → 100: 50 + (50+87-100)/2 = 68.
    { name: 'balanced: moving away from balance', score: balancedScorer([3000, 5000], [0, 0], [4000, 10000]), want: 68 },
    { name: 'balanced: unchanged balance gives 75', score: balancedScorer([3000, 5000], [0, 0], [6000, 10000]), want: 75 },
    { name: 'balanced: reaching perfect balance gives 100', score: balancedScorer([3000, 5000], [3000, 0], [3000, 5000]), want: 100 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(c.score, c.want));
});

describe('scoring requests with non-zero defaults (TestResourceAllocationScorerCalculateRequests)', () => {
  const oneMi = 1048576;
  const cases = [
    { name: 'overhead only', pod: mkPod('p', { overhead: { cpu: '1', memory: '1Mi' } }), cpu: 1000, memory: oneMi },
    { name: '1x requestless container', pod: mkPod('p', { containers: [container()] }), cpu: DEFAULT_MILLI_CPU_REQUEST, memory: DEFAULT_MEMORY_REQUEST },
    { name: '2x requestless container', pod: mkPod('p', { containers: [container(), container()] }), cpu: 2 * DEFAULT_MILLI_CPU_REQUEST, memory: 2 * DEFAULT_MEMORY_REQUEST },
    { name: 'request container + requestless container', pod: mkPod('p', { containers: [container({ cpu: '1', memory: '1Mi' }), container()] }), cpu: 1000 + DEFAULT_MILLI_CPU_REQUEST, memory: oneMi + DEFAULT_MEMORY_REQUEST },
    {
      name: 'container + requestless container + overhead',
      pod: mkPod('p', { overhead: { cpu: '1', memory: '1Mi' }, containers: [container({ cpu: '1', memory: '1Mi' }), container()] }),
      cpu: 2000 + DEFAULT_MILLI_CPU_REQUEST,
      memory: 2 * oneMi + DEFAULT_MEMORY_REQUEST,
    },
    {
      name: 'init container + container + requestless container + overhead',
      pod: mkPod('p', { overhead: { cpu: '1', memory: '1Mi' }, initContainers: [container({ cpu: '3' })], containers: [container({ cpu: '1', memory: '1Mi' }), container()] }),
      cpu: 4000,
      memory: 2 * oneMi + DEFAULT_MEMORY_REQUEST,
    },
    {
      name: 'requestless init container + small init container + small container',
      pod: mkPod('p', { initContainers: [container(), container({ cpu: '1m', memory: '1' })], containers: [container({ cpu: '3m', memory: '3' })] }),
      cpu: DEFAULT_MILLI_CPU_REQUEST,
      memory: DEFAULT_MEMORY_REQUEST,
    },
    {
      name: 'requestless init container + small init container + small container + requestless container',
      pod: mkPod('p', { initContainers: [container(), container({ cpu: '1m', memory: '1' })], containers: [container({ cpu: '3m', memory: '3' }), container()] }),
      cpu: 3 + DEFAULT_MILLI_CPU_REQUEST,
      memory: 3 + DEFAULT_MEMORY_REQUEST,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(c.pod.resources.scoring.cpu, c.cpu);
      assert.equal(c.pod.resources.scoring.memory, c.memory);
    });
  }
});
