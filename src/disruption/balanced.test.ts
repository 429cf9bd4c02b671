// consolidationPolicy: Balanced. The upstream cases are translations of Karpenter
// v1.14.1's balanced_test.go and balanced_scoring_test.go, named after their `It`.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { approved, poolTotals, scoreCommand, scoreMove, scoreOf, type PoolTotals } from './balanced.js';
import type { Candidate } from './candidates.js';
import { boundPod, catalogNode, clusterOf, nodePool } from './fixtures.test-support.js';
import { consolidate } from './consolidate.js';
import { catalogPrices } from './pricing.js';
import { CATALOG } from './fixtures.test-support.js';
import type { NodePool } from '../model/nodepool.js';
import type { Node } from '../model/node.js';
import { compilePod } from '../model/pod.js';

// The RFC's example pool: eight m7i.xlarge and two m7i.2xlarge ($58.08/day), 80 pods.
const RFC: PoolTotals = { cost: 58.08, disruptionCost: 90 };
const near = (a: number, b: number, eps: number) => assert.ok(Math.abs(a - b) <= eps, `${a} is not within ${eps} of ${b}`);

describe('ScoreMove (upstream balanced_test.go)', () => {
  it('upstream: "should approve an oversized node consolidation"', () => {
    const s = scoreMove(7.26, 4, RFC);
    assert.ok(approved(s));
    near(scoreOf(s), 7.26 / 58.08 / (4 / 90), 0.02);
  });
  it('upstream: "should approve a spare capacity delete"', () => assert.ok(approved(scoreMove(4.84, 5, RFC))));
  it('upstream: "should reject a marginal move"', () => assert.ok(!approved(scoreMove(2.42, 9, RFC))));
  it('upstream: "should reject a well-packed node with zero savings"', () => {
    const s = scoreMove(0, 11, RFC);
    assert.ok(!approved(s));
    assert.equal(scoreOf(s), 0);
  });
  it('upstream: "should approve a replace in a uniform pool"', () => assert.ok(approved(scoreMove(2.42, 9, { cost: 48.4, disruptionCost: 90 }))));
  it('upstream: "should approve low-disruption nodes and reject high-disruption nodes"', () => {
    const het = { cost: 58.08, disruptionCost: 117 };
    assert.ok(approved(scoreMove(4.84, 5, het)));
    assert.ok(!approved(scoreMove(4.84, 32, het)));
  });
  it('upstream: "should produce the same score regardless of pool size"', () => near(scoreOf(scoreMove(7.26, 4, RFC)), scoreOf(scoreMove(7.26, 4, { cost: 580.8, disruptionCost: 900 })), 0.01));
  it('upstream: "should approve with +Inf score when move disruption is zero and savings positive"', () => {
    const s = scoreMove(4.84, 0, RFC);
    assert.ok(approved(s));
    assert.equal(scoreOf(s), Infinity);
  });
  it('upstream: "should reject when both savings and disruption are zero"', () => assert.ok(!approved(scoreMove(0, 0, RFC))));
  it('upstream: "should reject when nodepool cost is zero"', () => assert.ok(!approved(scoreMove(4.84, 5, { cost: 0, disruptionCost: 90 }))));
  it('upstream: "should produce identical scores for proportionally equivalent moves"', () => {
    const od = scoreMove(4.84, 4, { cost: 48.4, disruptionCost: 90 });
    near(scoreOf(od), scoreOf(scoreMove(1.45, 4, { cost: 14.5, disruptionCost: 90 })), 0.01);
    assert.ok(approved(od));
  });
});

describe('EvaluateBalancedMove (upstream balanced_scoring_test.go)', () => {
  const balanced = (name: string): NodePool => ({ ...nodePool({ disruption: { consolidationPolicy: 'Balanced', budgets: [{ nodes: '100%' }] } }), name });
  const other = (name: string): NodePool => ({ ...nodePool(), name });
  const candidate = (name: string, pool: NodePool, pods = 1): Candidate => ({
    node: catalogNode(name, pool, 'm5.xlarge'),
    pool,
    reschedulable: Array.from({ length: pods }, (_, i) => boundPod(`${name}-p${i}`, name, '100m')),
  });
  const flat = (_: Node) => 4.84;
  const totalsOf = (cs: Candidate[]) => poolTotals({ cluster: clusterOf(cs.map((c) => c.node), cs.flatMap((c) => c.reschedulable)), candidates: cs, pricePerHour: flat });

  it('a node that is no candidate counts 1 plus its running pods; DaemonSet and finished pods add nothing', () => {
    const pool = balanced('p');
    const c = candidate('n0', pool);
    const done = { ...boundPod('done', 'n1', '100m'), phase: 'Succeeded' as const };
    const ds = compilePod({ metadata: { name: 'ds', namespace: 'default', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: 'd', controller: true }] }, spec: { nodeName: 'n1', containers: [{ name: 'c' }] } }, { order: 0 });
    const cluster = clusterOf([c.node, catalogNode('n1', pool, 'm5.xlarge')], [...c.reschedulable, boundPod('run', 'n1', '100m'), ds]);
    cluster.removePod(`default/done`);
    cluster.addPod(done);
    assert.deepEqual(poolTotals({ cluster, candidates: [c], pricePerHour: flat }).get('p'), { cost: 2 * 4.84, disruptionCost: 2 + 2 });
  });
  it('upstream: "should skip non-Balanced pools and approve unconditionally"', () => {
    const cs = [candidate('n0', other('p'), 20)];
    assert.equal(scoreCommand(cs, 0, totalsOf(cs), flat).size, 0);
  });
  it('upstream: "should reject when candidate NodePool is missing from totals map"', () => {
    const s = scoreCommand([candidate('n0', balanced('missing'))], 4.84, new Map(), flat).get('missing')!;
    assert.equal(scoreOf(s), 0);
    assert.ok(!approved(s));
  });
  it('upstream: "should approve a delete command for a single Balanced NodePool"', () => {
    const pool = balanced('single');
    const all = Array.from({ length: 10 }, (_, i) => candidate(`n${i}`, pool));
    const s = scoreCommand([all[0]!], 4.84, totalsOf(all), flat).get('single')!;
    assert.ok(approved(s));
    near(scoreOf(s), 1, 0.05);
  });
  it('upstream: "should attribute savings proportionally in cross-NodePool scenarios"', () => {
    const b = Array.from({ length: 5 }, (_, i) => candidate(`b${i}`, balanced('pool-balanced')));
    const e = Array.from({ length: 5 }, (_, i) => candidate(`e${i}`, other('pool-empty')));
    const scores = scoreCommand([b[0]!, e[0]!], 2 * 4.84, totalsOf([...b, ...e]), flat);
    assert.deepEqual([...scores.keys()], ['pool-balanced']);
    near(scoreOf(scores.get('pool-balanced')!), 1, 0.05);
  });
});

describe('Balanced consolidation', () => {
  const price = catalogPrices(CATALOG);
  // Ten m5.large nodes a do-not-disrupt pod keeps (they count in the pool's totals only) and one
  // m5.xlarge whose pods fit on an m5.large: the replace saves half of it.
  const dnd = { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } };
  const setup = (policy: 'Balanced' | 'WhenEmptyOrUnderutilized', podsOnBig: number) => {
    const pool = nodePool({ disruption: { consolidationPolicy: policy, budgets: [{ nodes: '100%' }] } });
    const small = Array.from({ length: 10 }, (_, i) => catalogNode(`s${i}`, pool, 'm5.large'));
    const big = catalogNode('big', pool, 'm5.xlarge');
    const pods = [...small.flatMap((n) => [boundPod(`${n.name}-a`, n.name, '1500m', dnd), boundPod(`${n.name}-b`, n.name, '300m')]), ...Array.from({ length: podsOnBig }, (_, i) => boundPod(`big-${i}`, 'big', '100m'))];
    return consolidate({ cluster: clusterOf([...small, big], pods), pools: [pool], nowMs: 3_600_000, pricePerHour: price, replacement: { instanceTypes: CATALOG } });
  };
  it('replaces the oversized node when its share of savings outweighs its share of disruption', () => {
    assert.deepEqual(setup('Balanced', 2).decisions[0]?.nodes, ['big']);
  });
  it('rejects the same replace when the node carries many pods (WhenEmptyOrUnderutilized still takes it)', () => {
    const r = setup('Balanced', 14);
    assert.deepEqual(r.decisions, []);
    assert.match(r.rejected.find((x) => x.node === 'big')!.reason, /^NodePool "default" is Balanced: the move saves .* \(score 0\.\d+, below 0\.5\)$/);
    assert.deepEqual(setup('WhenEmptyOrUnderutilized', 14).decisions[0]?.nodes, ['big']);
  });
});
