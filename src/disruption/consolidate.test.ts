import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterState } from '../cluster/state.js';
import { compileNode } from '../model/node.js';
import { compileNodePool, type NodePoolManifest } from '../model/nodepool.js';
import { compilePod, type Pod } from '../model/pod.js';
import { consolidate } from './consolidate.js';
import { findCandidates } from './candidates.js';
import { remainingDisruptions } from './budgets.js';

let order = 0;
function pool(budgetNodes = '100%'): ReturnType<typeof compileNodePool> {
  const m: NodePoolManifest = {
    metadata: { name: 'default' },
    spec: {
      template: { spec: { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'Exists' }], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } },
      disruption: { budgets: [{ nodes: budgetNodes }] },
    },
  };
  return compileNodePool(m);
}
function node(name: string, annotations: Record<string, string> = {}) {
  return compileNode({ metadata: { name, annotations, labels: { 'karpenter.sh/nodepool': 'default', 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': 'a' } }, status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' } } }, order++);
}
function pod(name: string, nodeName: string, opts: { anti?: boolean; annotations?: Record<string, string> } = {}): Pod {
  const affinity = opts.anti ? { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'kubernetes.io/hostname' }] } } : undefined;
  return compilePod({ metadata: { name, namespace: 'default', labels: { app: 'x' }, annotations: opts.annotations ?? {} }, spec: { nodeName, affinity, containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } }, { order: order++ });
}
function cluster(nodes: ReturnType<typeof node>[], pods: Pod[]): ClusterState {
  const c = new ClusterState();
  for (const n of nodes) c.addNode(n);
  for (const p of pods) c.addPod(p);
  return c;
}
const price = () => 1;

describe('candidates', () => {
  const cases = [
    { name: 'node annotation blocks', nodes: [node('n1', { 'karpenter.sh/do-not-disrupt': 'true' })], pods: [], want: /annotation/ },
    { name: 'pod annotation blocks', nodes: [node('n1')], pods: [pod('p', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })], want: /pod "default\/p"/ },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const r = findCandidates({ cluster: cluster(tc.nodes, tc.pods), pools: [pool()], nowMs: 1e12 });
      assert.equal(r.candidates.length, 0);
      assert.match(r.rejected[0]!.reason, tc.want);
    });
  }
});

describe('budgets', () => {
  it('a count budget of 1 allows one disruption, none while one is in progress', () => {
    const c = cluster([node('a'), node('b'), node('c')], []);
    assert.equal(remainingDisruptions(c, [pool('1')], 0, 'Empty').get('default'), 1);
    assert.equal(remainingDisruptions(c, [pool('1')], 0, 'Empty', new Set(['a'])).get('default'), 0);
  });
  it('emptiness deletes only as many empty nodes as the budget allows', () => {
    const c = cluster([node('a'), node('b'), node('c')], []);
    const r = consolidate({ cluster: c, pools: [pool('2')], nowMs: 1e12, pricePerHour: price });
    assert.deepEqual(r.decisions.map((d) => [d.reason, d.nodes.length]), [['Empty', 2]]);
  });
});

describe('consolidation', () => {
  it('moves pods off underutilized nodes (multi-node delete), predicting targets', () => {
    const c = cluster([node('a'), node('b'), node('c')], [pod('p1', 'a'), pod('p2', 'b'), pod('p3', 'c')]);
    const r = consolidate({ cluster: c, pools: [pool()], nowMs: 1e12, pricePerHour: price });
    assert.equal(r.decisions.length, 1);
    assert.equal(r.decisions[0]!.nodes.length, 2);
    assert.equal(r.decisions[0]!.displacedPods.length, 2);
    assert.equal(r.decisions[0]!.savingsPerHour, 2);
  });
  it('never breaks required anti-affinity', () => {
    const c = cluster([node('a'), node('b')], [pod('p1', 'a', { anti: true }), pod('p2', 'b', { anti: true })]);
    const r = consolidate({ cluster: c, pools: [pool()], nowMs: 1e12, pricePerHour: price });
    assert.deepEqual(r.decisions, []);
  });
  it('WhenEmpty leaves underutilized nodes alone', () => {
    const p = pool();
    const whenEmpty = { ...p, disruption: { ...p.disruption, consolidationPolicy: 'WhenEmpty' as const } };
    const c = cluster([node('a'), node('b')], [pod('p1', 'a'), pod('p2', 'b')]);
    assert.deepEqual(consolidate({ cluster: c, pools: [whenEmpty], nowMs: 1e12, pricePerHour: price }).decisions, []);
  });
});
