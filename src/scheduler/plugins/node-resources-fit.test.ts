import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { QuantityMap } from '../../model/manifest.js';
import type { Pod } from '../../model/pod.js';
import { buildPlugin, byName, clusterOf, container, mkNode, mkPod, nodeInfoWith, podWith, scoreNodes, statusOf } from '../../../test/fixtures/plugin-harness.js';
import { CycleState, type FilterPlugin, type PreFilterPlugin, type PreScorePlugin, type ScorePlugin } from '../framework.js';
import { Code } from '../status.js';
import { insufficientResources, newNodeResourcesFit, type InsufficientResource } from './node-resources-fit.js';

type FitPlugin = PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin;

const EXT_A = 'example.com/aaa';
const EXT_B = 'example.com/bbb';
const K8S_A = 'kubernetes.io/something';
const K8S_B = 'subdomain.kubernetes.io/something';
const HUGE_A = 'hugepages-2Mi';

/** Upstream's framework.Resource{MilliCPU, Memory, ...} as a container request list. */
function res(milliCPU: number, memory: number, scalars: Record<string, number> = {}): QuantityMap {
  const out: Record<string, string> = { cpu: `${milliCPU}m`, memory: String(memory) };
  for (const [k, v] of Object.entries(scalars)) out[k] = String(v);
  return out;
}

/** newResourceInitPod: the same pod with these init containers. */
function withInit(containers: QuantityMap[], init: QuantityMap[], extra: { overhead?: QuantityMap; podLevel?: QuantityMap } = {}): Pod {
  return mkPod('p', {
    containers: containers.map((r) => container(r)),
    initContainers: init.map((r) => container(r)),
    ...(extra.overhead ? { overhead: extra.overhead } : {}),
    ...(extra.podLevel ? { resources: { requests: extra.podLevel } } : {}),
  });
}

const pod = (...reqs: QuantityMap[]) => podWith('p', ...reqs);
const existing = (...reqs: QuantityMap[]) => podWith('existing', ...reqs);

// makeAllocatableResources(10, 20, 32, 5, 20, 5)
const fitNode = () => mkNode('n', { alloc: { cpu: '10m', memory: '20', pods: '32', [EXT_A]: '5', 'ephemeral-storage': '20', [HUGE_A]: '5' } });

const ins = (resourceName: string, requested: number, used: number, capacity: number, unresolvable = false): InsufficientResource => ({
  resourceName,
  reason: resourceName === 'pods' ? 'Too many pods' : `Insufficient ${resourceName}`,
  requested,
  used,
  capacity,
  unresolvable,
});

describe('NodeResourcesFit Filter (TestEnoughRequests)', () => {
  const cases: { name: string; pod: Pod; on: Pod; args?: Record<string, unknown>; want: InsufficientResource[] }[] = [
    { name: 'no resources requested always fits', pod: mkPod('p'), on: existing(res(10, 20)), want: [] },
    { name: 'too many resources fails', pod: pod(res(1, 1)), on: existing(res(10, 20)), want: [ins('cpu', 1, 10, 10), ins('memory', 1, 20, 20)] },
    { name: 'too many resources fails due to init container cpu', pod: withInit([res(1, 1)], [res(3, 1)]), on: existing(res(8, 19)), want: [ins('cpu', 3, 8, 10)] },
    { name: 'too many resources fails due to highest init container cpu', pod: withInit([res(1, 1)], [res(3, 1), res(2, 1)]), on: existing(res(8, 19)), want: [ins('cpu', 3, 8, 10)] },
    { name: 'too many resources fails due to init container memory', pod: withInit([res(1, 1)], [res(1, 3)]), on: existing(res(9, 19)), want: [ins('memory', 3, 19, 20)] },
    { name: 'too many resources fails due to highest init container memory', pod: withInit([res(1, 1)], [res(1, 3), res(1, 2)]), on: existing(res(9, 19)), want: [ins('memory', 3, 19, 20)] },
    { name: "init container fits because it's the max, not sum, of containers and init containers", pod: withInit([res(1, 1)], [res(1, 1)]), on: existing(res(9, 19)), want: [] },
    { name: 'multiple init containers fit because it is the max', pod: withInit([res(1, 1)], [res(1, 1), res(1, 1)]), on: existing(res(9, 19)), want: [] },
    { name: 'both resources fit', pod: pod(res(1, 1)), on: existing(res(5, 5)), want: [] },
    { name: 'one resource memory fits', pod: pod(res(2, 1)), on: existing(res(9, 5)), want: [ins('cpu', 2, 9, 10)] },
    { name: 'one resource cpu fits', pod: pod(res(1, 2)), on: existing(res(5, 19)), want: [ins('memory', 2, 19, 20)] },
    { name: 'equal edge case', pod: pod(res(5, 1)), on: existing(res(5, 19)), want: [] },
    { name: 'equal edge case for init container', pod: withInit([res(4, 1)], [res(5, 1)]), on: existing(res(5, 19)), want: [] },
    { name: 'extended resource fits', pod: pod({ [EXT_A]: '1' }), on: existing({}), want: [] },
    { name: 'extended resource fits for init container', pod: withInit([{}], [{ [EXT_A]: '1' }]), on: existing({}), want: [] },
    { name: 'extended resource capacity enforced', pod: pod(res(1, 1, { [EXT_A]: 10 })), on: existing(res(0, 0, { [EXT_A]: 0 })), want: [ins(EXT_A, 10, 0, 5, true)] },
    { name: 'extended resource capacity enforced for init container', pod: withInit([{}], [res(1, 1, { [EXT_A]: 10 })]), on: existing(res(0, 0, { [EXT_A]: 0 })), want: [ins(EXT_A, 10, 0, 5, true)] },
    { name: 'extended resource allocatable enforced', pod: pod(res(1, 1, { [EXT_A]: 1 })), on: existing(res(0, 0, { [EXT_A]: 5 })), want: [ins(EXT_A, 1, 5, 5)] },
    { name: 'extended resource allocatable enforced for init container', pod: withInit([{}], [res(1, 1, { [EXT_A]: 1 })]), on: existing(res(0, 0, { [EXT_A]: 5 })), want: [ins(EXT_A, 1, 5, 5)] },
    { name: 'extended resource allocatable enforced for multiple containers', pod: pod(res(1, 1, { [EXT_A]: 3 }), res(1, 1, { [EXT_A]: 3 })), on: existing(res(0, 0, { [EXT_A]: 2 })), want: [ins(EXT_A, 6, 2, 5, true)] },
    { name: 'extended resource allocatable admits multiple init containers', pod: withInit([{}], [res(1, 1, { [EXT_A]: 3 }), res(1, 1, { [EXT_A]: 3 })]), on: existing(res(0, 0, { [EXT_A]: 2 })), want: [] },
    { name: 'extended resource allocatable enforced for multiple init containers', pod: withInit([{}], [res(1, 1, { [EXT_A]: 6 }), res(1, 1, { [EXT_A]: 3 })]), on: existing(res(0, 0, { [EXT_A]: 2 })), want: [ins(EXT_A, 6, 2, 5, true)] },
    { name: 'extended resource allocatable enforced for unknown resource', pod: pod(res(1, 1, { [EXT_B]: 1 })), on: existing(res(0, 0)), want: [ins(EXT_B, 1, 0, 0, true)] },
    { name: 'extended resource allocatable enforced for unknown resource for init container', pod: withInit([{}], [res(1, 1, { [EXT_B]: 1 })]), on: existing(res(0, 0)), want: [ins(EXT_B, 1, 0, 0, true)] },
    { name: 'kubernetes.io resource capacity enforced', pod: pod(res(1, 1, { [K8S_A]: 10 })), on: existing(res(0, 0)), want: [ins(K8S_A, 10, 0, 0, true)] },
    { name: 'kubernetes.io resource capacity enforced for init container', pod: withInit([{}], [res(1, 1, { [K8S_B]: 10 })]), on: existing(res(0, 0)), want: [ins(K8S_B, 10, 0, 0, true)] },
    { name: 'hugepages resource capacity enforced', pod: pod(res(1, 1, { [HUGE_A]: 10 })), on: existing(res(0, 0, { [HUGE_A]: 0 })), want: [ins(HUGE_A, 10, 0, 5, true)] },
    { name: 'hugepages resource capacity enforced for init container', pod: withInit([{}], [res(1, 1, { [HUGE_A]: 10 })]), on: existing(res(0, 0, { [HUGE_A]: 0 })), want: [ins(HUGE_A, 10, 0, 5, true)] },
    { name: 'hugepages resource allocatable enforced for multiple containers', pod: pod(res(1, 1, { [HUGE_A]: 3 }), res(1, 1, { [HUGE_A]: 3 })), on: existing(res(0, 0, { [HUGE_A]: 2 })), want: [ins(HUGE_A, 6, 2, 5, true)] },
    { name: 'skip checking ignored extended resource', pod: pod(res(1, 1, { [EXT_B]: 1 })), on: existing(res(0, 0)), args: { ignoredResources: [EXT_B] }, want: [] },
    { name: 'resources + pod overhead fits', pod: withInit([res(1, 1)], [], { overhead: { cpu: '3m', memory: '13' } }), on: existing(res(5, 5)), want: [] },
    { name: 'requests + overhead does not fit for memory', pod: withInit([res(1, 1)], [], { overhead: { cpu: '1m', memory: '15' } }), on: existing(res(5, 5)), want: [ins('memory', 16, 5, 20)] },
    {
      name: 'skip checking ignored extended resource via resource groups',
      pod: pod(res(1, 1, { [EXT_B]: 1, [K8S_A]: 1 })),
      on: existing(res(0, 0)),
      args: { ignoredResourceGroups: ['example.com'] },
      want: [ins(K8S_A, 1, 0, 0, true)],
    },
    { name: 'skip checking extended resource request with quantity zero', pod: pod(res(1, 1, { [EXT_A]: 0 })), on: existing(res(0, 0, { [EXT_A]: 6 })), want: [] },
    { name: 'skip checking resource request with quantity zero (pod-level resources on)', pod: pod({ [EXT_A]: '1' }), on: existing(res(20, 30, { [EXT_A]: 1 })), want: [] },
    { name: 'both pod-level and container-level resources fit', pod: withInit([res(1, 1)], [], { podLevel: { cpu: '1m', memory: '2' } }), on: existing(res(5, 5)), want: [] },
    { name: 'pod-level cpu resource not fit', pod: withInit([res(1, 1)], [], { podLevel: { cpu: '7m', memory: '2' } }), on: existing(res(5, 5)), want: [ins('cpu', 7, 5, 10)] },
    { name: 'pod-level memory resource not fit', pod: withInit([res(1, 1)], [], { podLevel: { cpu: '3m', memory: '2' } }), on: existing(res(5, 19)), want: [ins('memory', 2, 19, 20)] },
    { name: 'pod-level hugepages resource fit', pod: withInit([], [], { podLevel: { cpu: '3m', memory: '2', [HUGE_A]: '5' } }), on: existing({}), want: [] },
    {
      name: 'both pod-level and container-level hugepages resource fit',
      pod: withInit([res(1, 1, { [HUGE_A]: 3 })], [], { podLevel: { cpu: '3m', memory: '2', [HUGE_A]: '5' } }),
      on: existing({}),
      want: [],
    },
    { name: 'pod-level hugepages resource not fit', pod: withInit([], [], { podLevel: { cpu: '3m', memory: '2', [HUGE_A]: '10' } }), on: existing({}), want: [ins(HUGE_A, 10, 0, 5, true)] },
    {
      name: 'one pod-level cpu resource fits and all init and non-init containers resources fit',
      pod: withInit([res(1, 1)], [res(1, 1)], { podLevel: { cpu: '3m', memory: '2' } }),
      on: existing(res(5, 19)),
      want: [ins('memory', 2, 19, 20)],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { plugin } = buildPlugin<FitPlugin>(newNodeResourcesFit, c.args ?? {});
      const info = nodeInfoWith(fitNode(), c.on);
      const state = new CycleState();
      assert.ok(plugin.preFilter(state, c.pod, [info]).status.isSuccess());
      const status = plugin.filter(state, c.pod, info);
      if (c.want.length === 0) {
        assert.ok(status.isSuccess(), status.message());
      } else {
        const code = c.want.some((r) => r.unresolvable) ? Code.UnschedulableAndUnresolvable : Code.Unschedulable;
        assert.deepEqual(statusOf(status), { code, reasons: c.want.map((r) => r.reason) });
      }
      const a = c.args ?? {};
      assert.deepEqual(insufficientResources(c.pod, info, new Set((a.ignoredResources as string[]) ?? []), new Set((a.ignoredResourceGroups as string[]) ?? [])), c.want);
    });
  }
});

describe('NodeResourcesFit Filter: pod count (TestNotEnoughRequests)', () => {
  // makeAllocatableResources(10, 20, 1, 0, 0, 0): room for exactly one pod, which is taken.
  const node = () => mkNode('n', { alloc: { cpu: '10m', memory: '20', pods: '1', [EXT_A]: '0', 'ephemeral-storage': '0', [HUGE_A]: '0' } });
  const cases = [
    { name: "even without specified resources, predicate fails when there's no space for additional pod", pod: mkPod('p'), on: existing(res(10, 20)) },
    { name: "even if both resources fit, predicate fails when there's no space for additional pod", pod: pod(res(1, 1)), on: existing(res(5, 5)) },
    { name: "even for equal edge case, predicate fails when there's no space for additional pod", pod: pod(res(5, 1)), on: existing(res(5, 19)) },
    { name: 'even for equal edge case, predicate fails when there is no space due to init container', pod: withInit([res(5, 1)], [res(5, 1)]), on: existing(res(5, 19)) },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { plugin } = buildPlugin<FitPlugin>(newNodeResourcesFit);
      const info = nodeInfoWith(node(), c.on);
      assert.deepEqual(statusOf(plugin.filter(new CycleState(), c.pod, info)), { code: Code.Unschedulable, reasons: ['Too many pods'] });
      assert.deepEqual(insufficientResources(c.pod, info), [ins('pods', 1, 1, 1)]);
    });
  }
});

describe('NodeResourcesFit Filter: ephemeral storage (TestStorageRequests)', () => {
  const storage = (n: number) => ({ 'ephemeral-storage': String(n) });
  const cases = [
    { name: 'empty storage requested, and pod fits', pod: pod(res(1, 1)), on: existing(res(2, 10)), want: null },
    { name: 'storage ephemeral local storage request exceeds allocatable', pod: pod(storage(25)), on: existing(res(2, 2)), want: { code: Code.UnschedulableAndUnresolvable, reasons: ['Insufficient ephemeral-storage'] } },
    { name: 'ephemeral local storage is sufficient', pod: pod(storage(5)), on: existing({ ...res(2, 2), ...storage(10) }), want: null },
    { name: 'pod fits', pod: pod(storage(10)), on: existing(res(2, 2)), want: null },
    { name: 'storage used by other pods counts', pod: pod(storage(11)), on: existing({ ...res(2, 2), ...storage(10) }), want: { code: Code.Unschedulable, reasons: ['Insufficient ephemeral-storage'] } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { plugin } = buildPlugin<FitPlugin>(newNodeResourcesFit);
      const status = plugin.filter(new CycleState(), c.pod, nodeInfoWith(fitNode(), c.on));
      if (c.want === null) assert.ok(status.isSuccess(), status.message());
      else assert.deepEqual(statusOf(status), c.want);
    });
  }
});

describe('NodeResourcesFit Filter: restartable init containers', () => {
  const sidecarPod = (req?: QuantityMap, sidecar?: QuantityMap) =>
    mkPod('p', { containers: [container(req)], initContainers: [container(sidecar, { restartPolicy: 'Always' })] });
  const cases = [
    { name: 'allow pod without restartable init containers', pod: mkPod('p', { containers: [container()] }), want: null },
    { name: 'allow pod with restartable init containers', pod: sidecarPod(), want: null },
    { name: 'allow pod if the total requested resources do not exceed the node allocatable resources', pod: sidecarPod({ cpu: '1m' }, { cpu: '1m' }), want: null },
    {
      name: "not allow pod if the total requested resources do exceed the node's allocatable resources",
      pod: sidecarPod({ cpu: '1m' }, { cpu: '2m' }),
      want: { code: Code.UnschedulableAndUnresolvable, reasons: ['Insufficient cpu'] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { plugin } = buildPlugin<FitPlugin>(newNodeResourcesFit);
      const info = nodeInfoWith(mkNode('n', { alloc: { cpu: '2m', memory: '0', pods: '1' } }));
      const status = plugin.filter(new CycleState(), c.pod, info);
      if (c.want === null) assert.ok(status.isSuccess(), status.message());
      else assert.deepEqual(statusOf(status), c.want);
    });
  }
});

// ------------------------------------------------------------------ scoring

/** st.MakeNode().Capacity(...): capacity and allocatable alike. */
const capNode = (name: string, cpu: string, memory: string, extra: Record<string, string> = {}) => mkNode(name, { alloc: { cpu, memory, ...extra } });
/** st.MakePod().Node(node).Req(...)...: one container per request list. */
let seq = 0;
const bound = (node: string, ...reqs: QuantityMap[]) => mkPod(`on-${node}-${seq++}`, { nodeName: node, containers: reqs.map((r) => container(r)) });
const cm = (cpu: string, memory: string, extra: Record<string, string> = {}): QuantityMap => ({ cpu, memory, ...extra });

interface ScoreCase {
  readonly name: string;
  readonly pod: Pod;
  readonly nodes: ReturnType<typeof capNode>[];
  readonly existing?: Pod[];
  readonly strategy?: Record<string, unknown>;
  readonly want: Record<string, number>;
  readonly runPreScore?: boolean;
}

function runScoreCases(title: string, cases: readonly ScoreCase[]): void {
  describe(title, () => {
    for (const c of cases) {
      it(c.name, () => {
        const cluster = clusterOf(c.nodes, c.existing ?? []);
        const { plugin } = buildPlugin<FitPlugin>(newNodeResourcesFit, c.strategy ? { scoringStrategy: c.strategy } : {}, cluster);
        assert.deepEqual(byName(scoreNodes(plugin, c.pod, cluster, c.runPreScore ?? true).scores), c.want);
      });
    }
  });
}

const twoContainers = () => podWith('p', cm('1000', '2000'), cm('2000', '3000'));
const EXT = 'abc.com/xyz';
const extendedSet = [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }, { name: EXT, weight: 1 }];
const least = (resources?: unknown) => ({ type: 'LeastAllocated', ...(resources !== undefined ? { resources } : {}) });
const most = (resources?: unknown) => ({ type: 'MostAllocated', ...(resources !== undefined ? { resources } : {}) });

runScoreCases('NodeResourcesFit Score: LeastAllocated (TestLeastAllocatedScoringStrategy)', [
  { name: 'nothing scheduled, nothing requested', pod: mkPod('p'), nodes: [capNode('node1', '4000', '10000'), capNode('node2', '4000', '10000')], strategy: least(), want: { node1: 100, node2: 100 } },
  { name: 'nothing scheduled, resources requested, differently sized nodes', pod: twoContainers(), nodes: [capNode('node1', '4000', '10000'), capNode('node2', '6000', '10000')], strategy: least(), want: { node1: 37, node2: 50 } },
  { name: 'an empty resources list takes the cpu+memory default (v1 defaulting)', pod: twoContainers(), nodes: [capNode('node1', '4000', '10000'), capNode('node2', '6000', '10000')], strategy: least([]), want: { node1: 37, node2: 50 } },
  {
    name: 'no resources requested, pods scheduled',
    pod: mkPod('p'),
    nodes: [capNode('node1', '4000', '10000'), capNode('node2', '4000', '10000')],
    existing: [bound('node1'), bound('node1'), bound('node2'), bound('node2')],
    strategy: least(),
    want: { node1: 100, node2: 100 },
  },
  {
    name: 'no resources requested, pods scheduled with resources',
    pod: mkPod('p'),
    nodes: [capNode('node1', '10000', '20000'), capNode('node2', '10000', '20000')],
    existing: [bound('node1', cm('3000', '0')), bound('node1', cm('3000', '0')), bound('node2', cm('3000', '0')), bound('node2', cm('3000', '5000'))],
    strategy: least(),
    want: { node1: 70, node2: 57 },
  },
  {
    name: 'resources requested, pods scheduled with resources',
    pod: twoContainers(),
    nodes: [capNode('node1', '10000', '20000'), capNode('node2', '10000', '20000')],
    existing: [bound('node1', cm('3000', '0')), bound('node2', cm('3000', '5000'))],
    strategy: least(),
    want: { node1: 57, node2: 45 },
  },
  {
    name: 'resources requested, pods scheduled with resources, differently sized nodes',
    pod: twoContainers(),
    nodes: [capNode('node1', '10000', '20000'), capNode('node2', '10000', '50000')],
    existing: [bound('node1', cm('3000', '0')), bound('node2', cm('3000', '5000'))],
    strategy: least(),
    want: { node1: 57, node2: 60 },
  },
  {
    name: 'requested resources exceed node capacity',
    pod: podWith('p', cm('3000', '0')),
    nodes: [capNode('node1', '4000', '10000'), capNode('node2', '4000', '10000')],
    existing: [bound('node1', cm('3000', '0')), bound('node2', cm('3000', '5000'))],
    strategy: least(),
    want: { node1: 50, node2: 25 },
  },
  {
    name: 'zero node resources, pods scheduled with resources',
    pod: mkPod('p'),
    nodes: [mkNode('node1'), mkNode('node2')],
    existing: [bound('node1', cm('3000', '0')), bound('node2', cm('3000', '5000'))],
    strategy: least(),
    want: { node1: 0, node2: 0 },
  },
  {
    name: 'nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes',
    pod: twoContainers(),
    nodes: [capNode('node1', '4000', '10000'), capNode('node2', '6000', '10000')],
    strategy: least([{ name: 'memory', weight: 2 }, { name: 'cpu', weight: 1 }]),
    want: { node1: 41, node2: 50 },
  },
  {
    name: 'a zero weight means the default weight 1 in v1 args',
    pod: twoContainers(),
    nodes: [capNode('node1', '4000', '10000'), capNode('node2', '6000', '10000')],
    strategy: least([{ name: 'memory', weight: 1 }, { name: 'cpu', weight: 0 }]),
    want: { node1: 37, node2: 50 },
  },
  {
    name: 'bypass extended resource if the pod does not request',
    pod: twoContainers(),
    nodes: [capNode('node1', '6000', '10000'), capNode('node2', '6000', '10000', { [EXT]: '4' })],
    strategy: least(extendedSet),
    want: { node1: 50, node2: 50 },
  },
  {
    name: 'honor extended resource if the pod requests',
    pod: podWith('p', cm('3000', '5000', { [EXT]: '2' })),
    nodes: [capNode('node1', '6000', '10000', { [EXT]: '4' }), capNode('node2', '6000', '10000', { [EXT]: '10' })],
    strategy: least(extendedSet),
    want: { node1: 50, node2: 60 },
  },
  {
    name: "if the node doesn't have a resource",
    pod: podWith('p', cm('3000', '4000')),
    nodes: [capNode('node1', '6000', '10000'), capNode('node2', '6000', '10000', { [EXT]: '4' })],
    strategy: least([{ name: EXT, weight: 2 }, { name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }]),
    want: { node1: 55, node2: 55 },
  },
]);

runScoreCases('NodeResourcesFit Score: MostAllocated (TestMostAllocatedScoringStrategy)', [
  { name: 'nothing scheduled, nothing requested', pod: mkPod('p'), nodes: [capNode('node1', '4000', '10000'), capNode('node2', '4000', '10000')], strategy: most(), want: { node1: 0, node2: 0 } },
  { name: 'nothing scheduled, resources requested, differently sized nodes', pod: twoContainers(), nodes: [capNode('node1', '4000', '10000'), capNode('node2', '6000', '10000')], strategy: most(), want: { node1: 62, node2: 50 } },
  {
    name: 'no resources requested, pods scheduled with resources',
    pod: mkPod('p'),
    nodes: [capNode('node1', '10000', '20000'), capNode('node2', '10000', '20000')],
    existing: [bound('node1', cm('3000', '0')), bound('node1', cm('3000', '0')), bound('node2', cm('3000', '0')), bound('node2', cm('3000', '5000'))],
    strategy: most(),
    want: { node1: 30, node2: 42 },
  },
  {
    name: 'resources requested, pods scheduled with resources',
    pod: twoContainers(),
    nodes: [capNode('node1', '10000', '20000'), capNode('node2', '10000', '20000')],
    existing: [bound('node1', cm('3000', '0')), bound('node2', cm('3000', '5000'))],
    strategy: most(),
    want: { node1: 42, node2: 55 },
  },
  {
    name: 'resources requested equal node capacity',
    pod: podWith('p', cm('2000', '4000'), cm('3000', '5000')),
    nodes: [capNode('node1', '5000', '10000'), capNode('node2', '10000', '9000')],
    strategy: most(),
    want: { node1: 95, node2: 75 },
  },
  {
    name: 'nothing scheduled, resources requested with different weights, differently sized nodes',
    pod: twoContainers(),
    nodes: [capNode('node1', '4000', '10000'), capNode('node2', '6000', '10000')],
    strategy: most([{ name: 'memory', weight: 2 }, { name: 'cpu', weight: 1 }]),
    want: { node1: 58, node2: 50 },
  },
  {
    name: 'no resources requested, pods scheduled, nonzero request for resource',
    pod: mkPod('p', { containers: [container()] }),
    nodes: [capNode('node1', '250m', '1000Mi'), capNode('node2', '250m', '1000Mi')],
    existing: [mkPod('e1', { nodeName: 'node1', containers: [container()] }), mkPod('e2', { nodeName: 'node1', containers: [container()] })],
    strategy: most(),
    want: { node1: 80, node2: 30 },
  },
  {
    name: 'bypass extended resource if the pod does not request',
    pod: twoContainers(),
    nodes: [capNode('node1', '6000', '10000'), capNode('node2', '6000', '10000', { [EXT]: '4' })],
    strategy: most(extendedSet),
    want: { node1: 50, node2: 50 },
  },
  {
    name: 'honor extended resource if the pod request',
    pod: podWith('p', cm('3000', '5000', { [EXT]: '2' })),
    nodes: [capNode('node1', '6000', '10000', { [EXT]: '4' }), capNode('node2', '6000', '10000', { [EXT]: '10' })],
    strategy: most(extendedSet),
    want: { node1: 50, node2: 40 },
  },
  {
    name: "if the node doesn't have a resource",
    pod: podWith('p', cm('3000', '4000')),
    nodes: [capNode('node1', '6000', '10000'), capNode('node2', '6000', '10000', { [EXT]: '4' })],
    strategy: most([{ name: EXT, weight: 2 }, { name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }]),
    want: { node1: 45, node2: 45 },
  },
]);

const rtcr = (shape: { utilization: number; score: number }[], resources?: unknown) => ({
  type: 'RequestedToCapacityRatio',
  ...(resources !== undefined ? { resources } : {}),
  requestedToCapacityRatio: { shape },
});
const DESC = [{ utilization: 0, score: 10 }, { utilization: 100, score: 0 }];

runScoreCases('NodeResourcesFit Score: RequestedToCapacityRatio (TestRequestedToCapacityRatioScoringStrategy)', [
  {
    name: 'nothing scheduled, nothing requested (default - least requested nodes have priority)',
    pod: mkPod('p'),
    nodes: [capNode('node1', '4000', '10000'), capNode('node2', '4000', '10000')],
    existing: [bound('node1'), bound('node1')],
    strategy: rtcr(DESC),
    want: { node1: 100, node2: 100 },
  },
  {
    name: 'nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)',
    pod: twoContainers(),
    nodes: [capNode('node1', '4000', '10000'), capNode('node2', '6000', '10000')],
    existing: [bound('node1'), bound('node1')],
    strategy: rtcr(DESC),
    want: { node1: 38, node2: 50 },
  },
  {
    name: 'no resources requested, pods scheduled with resources (default - least requested nodes have priority)',
    pod: mkPod('p'),
    nodes: [capNode('node1', '4000', '10000'), capNode('node2', '6000', '10000')],
    existing: [bound('node1', cm('3000', '5000')), bound('node2', cm('3000', '5000'))],
    strategy: rtcr(DESC),
    want: { node1: 38, node2: 50 },
  },
]);

// makeNode(name, milliCPU, memory, extended): capacity = allocatable.
const extNode = (name: string, ext: Record<string, string>) => mkNode(name, { alloc: { cpu: '4000m', memory: String(10000 * 1024 * 1024), ...ext } });
const BIN = [{ utilization: 0, score: 0 }, { utilization: 100, score: 1 }];

runScoreCases('NodeResourcesFit Score: RequestedToCapacityRatio bin packing, one extended resource', [
  { name: 'nothing scheduled, nothing requested', pod: mkPod('p'), nodes: [extNode('node1', { 'intel.com/foo': '8' }), extNode('node2', { 'intel.com/foo': '4' })], strategy: rtcr(BIN, [{ name: 'intel.com/foo', weight: 1 }]), want: { node1: 0, node2: 0 } },
  {
    name: 'resources requested, pods scheduled with less resources',
    pod: podWith('p', { 'intel.com/foo': '2' }),
    nodes: [extNode('node1', { 'intel.com/foo': '8' }), extNode('node2', { 'intel.com/foo': '4' })],
    existing: [mkPod('pending')],
    strategy: rtcr(BIN, [{ name: 'intel.com/foo', weight: 1 }]),
    want: { node1: 2, node2: 5 },
  },
  {
    name: 'resources requested, pods scheduled with resources, on node with existing pod running',
    pod: podWith('p', { 'intel.com/foo': '2' }),
    nodes: [extNode('node1', { 'intel.com/foo': '8' }), extNode('node2', { 'intel.com/foo': '4' })],
    existing: [bound('node2', { 'intel.com/foo': '2' })],
    strategy: rtcr(BIN, [{ name: 'intel.com/foo', weight: 1 }]),
    want: { node1: 2, node2: 10 },
  },
  {
    name: 'resources requested, pods scheduled with more resources',
    pod: podWith('p', { 'intel.com/foo': '4' }),
    nodes: [extNode('node1', { 'intel.com/foo': '8' }), extNode('node2', { 'intel.com/foo': '4' })],
    existing: [mkPod('pending')],
    strategy: rtcr(BIN, [{ name: 'intel.com/foo', weight: 1 }]),
    want: { node1: 5, node2: 10 },
  },
]);

const fooBar = [{ name: 'intel.com/foo', weight: 3 }, { name: 'intel.com/bar', weight: 5 }];
const fbNodes = () => [extNode('node1', { 'intel.com/foo': '8', 'intel.com/bar': '4' }), extNode('node2', { 'intel.com/foo': '4', 'intel.com/bar': '8' })];

runScoreCases('NodeResourcesFit Score: RequestedToCapacityRatio bin packing, two weighted extended resources', [
  { name: 'nothing scheduled, nothing requested', pod: mkPod('p'), nodes: fbNodes(), strategy: rtcr(BIN, fooBar), want: { node1: 0, node2: 0 } },
  { name: 'resources requested, pods scheduled with less resources', pod: podWith('p', { 'intel.com/foo': '2', 'intel.com/bar': '2' }), nodes: fbNodes(), existing: [mkPod('pending')], strategy: rtcr(BIN, fooBar), want: { node1: 4, node2: 3 } },
  {
    name: 'resources requested, pods scheduled with resources, on node with existing pod running',
    pod: podWith('p', { 'intel.com/foo': '2', 'intel.com/bar': '2' }),
    nodes: fbNodes(),
    existing: [bound('node2', { 'intel.com/foo': '4', 'intel.com/bar': '2' })],
    strategy: rtcr(BIN, fooBar),
    want: { node1: 4, node2: 7 },
  },
  { name: 'resources requested, pods scheduled with more resources', pod: podWith('p', { 'intel.com/foo': '4', 'intel.com/bar': '2' }), nodes: fbNodes(), existing: [mkPod('pending')], strategy: rtcr(BIN, fooBar), want: { node1: 5, node2: 5 } },
]);

const fitScoreNodes = () => [capNode('node1', '4000', '10000'), capNode('node2', '6000', '10000')];
const fitScoreExisting = () => [bound('node1', cm('2000', '4000')), bound('node2', cm('1000', '2000'))];
const sidecarOn = (node: string) => mkPod(`sc-${node}`, { nodeName: node, containers: [container(cm('1000', '2000'))], initContainers: [container(cm('1000', '2000'), { restartPolicy: 'Always' })] });

runScoreCases('NodeResourcesFit Score: strategies (TestFitScore)', [
  { name: 'RequestedToCapacityRatio case1', pod: podWith('p', cm('3000', '5000')), nodes: fitScoreNodes(), existing: fitScoreExisting(), strategy: rtcr(DESC), want: { node1: 10, node2: 32 } },
  { name: 'RequestedToCapacityRatio case2', pod: podWith('p', cm('3000', '5000')), nodes: fitScoreNodes(), existing: fitScoreExisting(), strategy: rtcr([{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }]), want: { node1: 95, node2: 68 } },
  { name: 'MostAllocated', pod: podWith('p', cm('1000', '2000')), nodes: fitScoreNodes(), existing: fitScoreExisting(), strategy: most(), want: { node1: 67, node2: 36 } },
  { name: 'LeastAllocated', pod: podWith('p', cm('1000', '2000')), nodes: fitScoreNodes(), existing: fitScoreExisting(), strategy: least(), want: { node1: 32, node2: 63 } },
  { name: 'default args are LeastAllocated on cpu and memory', pod: podWith('p', cm('1000', '2000')), nodes: fitScoreNodes(), existing: fitScoreExisting(), want: { node1: 32, node2: 63 } },
  { name: 'RequestedToCapacityRatio case1 if PreScore is not called', pod: podWith('p', cm('3000', '5000')), nodes: fitScoreNodes(), existing: fitScoreExisting(), strategy: rtcr(DESC), want: { node1: 10, node2: 32 }, runPreScore: false },
  { name: 'MostAllocated if PreScore is not called', pod: podWith('p', cm('1000', '2000')), nodes: fitScoreNodes(), existing: fitScoreExisting(), strategy: most(), want: { node1: 67, node2: 36 }, runPreScore: false },
  {
    name: 'MostAllocated with sidecar container',
    pod: podWith('p', cm('1000', '2000')),
    nodes: [capNode('node1', '4000', '10000'), capNode('node2', '4000', '10000')],
    existing: [sidecarOn('node1'), bound('node2', cm('1000', '2000'))],
    strategy: most(),
    want: { node1: 67, node2: 45 },
  },
  {
    name: 'LeastAllocated with sidecar container',
    pod: podWith('p', cm('1000', '2000')),
    nodes: [capNode('node1', '4000', '10000'), capNode('node2', '4000', '10000')],
    existing: [sidecarOn('node1'), bound('node2', cm('1000', '2000'))],
    strategy: least(),
    want: { node1: 32, node2: 55 },
  },
]);
