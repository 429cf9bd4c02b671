import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { QuantityMap } from '../../model/manifest.js';
import type { Node } from '../../model/node.js';
import type { Pod } from '../../model/pod.js';
import { buildPlugin, byName, clusterOf, container, mkNode, mkPod, podWith, scoreNodes } from '../../../test/fixtures/plugin-harness.js';
import type { PreScorePlugin, ScorePlugin } from '../framework.js';
import { BALANCED_ALLOCATION, newBalancedAllocation } from './balanced-allocation.js';

type BA = PreScorePlugin & ScorePlugin;

/** util_test's makeNode: milliCPU and memory (bytes) plus extended resources. */
const node = (name: string, milliCPU: number, memory: number, ext: Record<string, string> = {}): Node => mkNode(name, { alloc: { cpu: `${milliCPU}m`, memory: String(memory), ...ext } });
const cpuOnly = (cpu: string): QuantityMap => ({ cpu });
const cpuMem = (cpu: string, memory: string): QuantityMap => ({ cpu, memory });
let seq = 0;
const on = (nodeName: string, ...reqs: QuantityMap[]) => mkPod(`e${seq++}`, { nodeName, containers: reqs.map((r) => container(r)) });
const GPU3 = [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }, { name: 'nvidia.com/gpu', weight: 1 }];

describe('NodeResourcesBalancedAllocation (TestNodeResourcesBalancedAllocation)', () => {
  const cases: { name: string; pod: Pod; nodes: Node[]; existing?: Pod[]; resources?: unknown; want?: Record<string, number>; skip?: boolean; runPreScore?: boolean }[] = [
    { name: 'nothing scheduled, nothing requested, skip in PreScore', pod: mkPod('p'), nodes: [node('node1', 4000, 10000), node('node2', 4000, 10000)], skip: true },
    { name: 'requestless containers are best effort too (no non-zero defaults here)', pod: mkPod('p', { containers: [container()] }), nodes: [node('node1', 4000, 10000)], skip: true },
    { name: 'nothing scheduled, resources requested, differently sized nodes', pod: podWith('p', cpuMem('1000m', '2000'), cpuMem('2000m', '3000')), nodes: [node('node1', 4000, 10000), node('node2', 6000, 10000)], want: { node1: 68, node2: 75 } },
    {
      name: 'resources requested, pods scheduled with resources',
      pod: podWith('p', cpuMem('1000m', '2000'), cpuMem('2000m', '3000')),
      nodes: [node('node1', 10000, 20000), node('node2', 10000, 20000)],
      existing: [on('node1', cpuOnly('1000m'), cpuOnly('2000m')), on('node2', cpuMem('1000m', '2000'), cpuMem('2000m', '3000'))],
      want: { node1: 73, node2: 74 },
    },
    {
      name: 'resources requested, pods scheduled with resources, differently sized nodes',
      pod: podWith('p', cpuMem('1000m', '2000'), cpuMem('2000m', '3000')),
      nodes: [node('node1', 10000, 20000), node('node2', 10000, 50000)],
      existing: [on('node1', cpuOnly('1000m'), cpuOnly('2000m')), on('node2', cpuMem('1000m', '2000'), cpuMem('2000m', '3000'))],
      want: { node1: 73, node2: 70 },
    },
    {
      name: 'resources requested, pods scheduled with resources, nodes to reach min/max score',
      pod: podWith('p', { memory: '2000' }, { memory: '3000' }),
      nodes: [node('node1', 3000, 5000), node('node2', 3000, 5000)],
      existing: [on('node1', cpuOnly('1000m'), cpuOnly('2000m'))],
      want: { node1: 100, node2: 50 },
    },
    {
      name: 'requested resources at node capacity',
      pod: podWith('p', cpuOnly('1000m'), cpuOnly('2000m')),
      nodes: [node('node1', 6000, 10000), node('node2', 6000, 10000)],
      existing: [on('node1', cpuOnly('1000m'), cpuOnly('2000m')), on('node2', cpuMem('1000m', '2000'), cpuMem('2000m', '3000'))],
      want: { node1: 62, node2: 62 },
    },
    {
      name: 'scalar resource is included in the score computation if pod requests the scalar resource',
      pod: podWith('p', { cpu: '0', memory: '0', 'nvidia.com/gpu': '1' }),
      nodes: [node('node1', 3500, 40000, { 'nvidia.com/gpu': '8' }), node('node2', 3500, 40000, { 'nvidia.com/gpu': '8' })],
      existing: [on('node1', cpuMem('1000m', '2000'), { cpu: '2000m', memory: '3000', 'nvidia.com/gpu': '3' }), on('node2', cpuMem('1000m', '2000'), cpuMem('2000m', '3000'))],
      resources: GPU3,
      want: { node1: 75, node2: 76 },
    },
    {
      name: "scalar resource is not included in the score computation if pod doesn't request the scalar resource",
      pod: podWith('p', cpuMem('1000m', '2000'), cpuMem('2000m', '3000')),
      nodes: [node('node1', 3500, 40000, { 'nvidia.com/gpu': '8' }), node('node2', 3500, 40000)],
      resources: GPU3,
      want: { node1: 56, node2: 56 },
    },
    {
      name: 'resources requested, pods scheduled with resources if PreScore not called',
      pod: podWith('p', cpuMem('1000m', '2000'), cpuMem('2000m', '3000')),
      nodes: [node('node1', 10000, 20000), node('node2', 10000, 20000)],
      existing: [on('node1', cpuOnly('1000m'), cpuOnly('2000m')), on('node2', cpuMem('1000m', '2000'), cpuMem('2000m', '3000'))],
      want: { node1: 73, node2: 74 },
      runPreScore: false,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cluster = clusterOf(c.nodes, c.existing ?? []);
      const { plugin } = buildPlugin<BA>(newBalancedAllocation, c.resources ? { resources: c.resources } : {}, cluster);
      assert.equal(plugin.name, BALANCED_ALLOCATION);
      const { scores, preScore } = scoreNodes(plugin, c.pod, cluster, c.runPreScore ?? true);
      if (c.skip) {
        assert.ok(preScore?.isSkip());
        // Score without PreScore gives a best-effort pod 0 everywhere.
        assert.deepEqual(byName(scoreNodes(plugin, c.pod, cluster, false).scores), Object.fromEntries(c.nodes.map((n) => [n.name, 0])));
        return;
      }
      assert.deepEqual(byName(scores), c.want);
    });
  }

  const bad = [
    { name: 'weights other than 1 are rejected', args: { resources: [{ name: 'cpu', weight: 2 }] }, err: 'resources[0].weight: Invalid value: 2: must be 1' },
    { name: 'repeated resources are rejected', args: { resources: [{ name: 'cpu' }, { name: 'cpu' }] }, err: 'resources[1].name: Duplicate value: "cpu"' },
  ];
  for (const c of bad) it(c.name, () => assert.throws(() => buildPlugin(newBalancedAllocation, c.args), { message: c.err }));
});
