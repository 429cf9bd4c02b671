// Translations of Karpenter v1.14.1's disruption suite (pkg/controllers/disruption/
// *_test.go), each named after the upstream It with its Describe/Context, run through
// berth's nextDisruption in the suite's world (upstream-karpenter-disruption.test-support.ts).
// They check what upstream checks: whether a command comes, delete or replace, which
// nodes, how many replacements and of which instance types.
//
// Translated here: consolidation_test.go 82 (DescribeTable entries counted apiece),
// emptiness_test.go 20, drift_test.go 17, suite_test.go's BuildDisruptionBudgetMapping 5.
// The TTL cases are the command, then berth's
// revalidate on the cluster as it is after the wait.
//
// Translated elsewhere already: "won't replace node if any spot replacement is more
// expensive", "won't replace on-demand node if on-demand replacement is more expensive"
// (replacement-price.test.ts); "should not consolidate pods onto a destination node that
// is under its consolidateAfter window", "... with consolidateAfter set to Never"
// (consolidate.test.ts); "will not consider a node with a terminating StatefulSet pod as
// empty", drift's "should ignore nodes with the karpenter.sh/do-not-disrupt annotation set
// to true", "should not create replacements ... when the NodePool's TerminationGracePeriod
// is not nil" (do-not-disrupt), "should drift empty nodes before non-empty nodes", "should
// drift one non-empty node at a time, starting with the earliest drift" (disrupt.test.ts);
// balanced_test.go (balanced.test.ts); suite_test.go's candidate cases (consolidate.test.ts).
//
// Not expressible in berth, so not translated (upstream It — why):
//   consolidation_test.go Metrics: "should correctly report eligible nodes" and the three
//     "should correctly report invalidated commands for ..." tables (9 entries) — metrics.
//   "can replace nodes, considers PDB policy" (2) — berth's pods have no Ready condition, so
//     a PDB's unhealthyPodEvictionPolicy AlwaysAllow has nothing to act on.
//   Parallelization: "should not schedule an additional node when receiving pending pods
//     while consolidating", "should not consolidate a node that is launched for pods on a
//     deleting node" — the provisioner's run against in-flight claims and its nomination cache.
//   Reserved Capacity (3) — berth's catalog has no reserved offerings or reservation IDs.
//   Preferences (2), MinValuesPolicy (1) — the consolidation input has no preferencePolicy or
//     minValuesPolicy setting (berth runs Respect and Strict).
//   Buffer Pods (4); emptiness_test.go Buffer pod protection (6) — no CapacityBuffer pods.
//   emptiness_test.go / drift_test.go Metrics (2); drift "should only consider 3 nodes
//     allowed to be disrupted because of budgets" — metric gauges only.
//   drift "should untaint nodes when drift replacement fails" — a Node write after a failed launch.
//   singlenodeconsolidation_test.go (5) — SortCandidates with hand-set disruption costs and
//     the timeout bookkeeping are internal APIs (berth: interleaveByPool, consolidationWork).
//   staticdrift_test.go (14) — no StaticDrift method: berth manages no static NodePool (the
//     simulator leaves them out, the live controller never launches for them), so a replacement
//     from the template has nowhere to run; drift leaves their nodes alone, as Karpenter's Drift does.
//   suite_test.go BuildDisruptionBudgetMapping "should not consider nodes that have the
//     terminating status condition as part of disruption count" — the input has no NodeClaim
//     conditions: a node whose instance is terminating is either gone or being disrupted.
//   queue_test.go (8 and a table of 6) — the orchestration queue (taints, waiting for
//     replacements to initialize, retry timeouts) is the simulator's and live loop's, not a decision.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Decision } from './consolidate.js';
import { drift, revalidate, type DisruptionInput } from './disrupt.js';
import { remainingDisruptions } from './budgets.js';
import type { Node } from '../model/node.js';
import { hashAnnotations } from './drift.js';
import { compilePdb } from '../model/pdb.js';
import { consolidationCandidates, singleNode } from './consolidate.js';
import { compileNodePool } from '../model/nodepool.js';
import {
  ASSORTED, clusterWith, fakeType, firstCommand, MOST_EXPENSIVE, MOST_EXPENSIVE_SPOT, NOW, pdb, reconcile, upstreamInput, upstreamNode, upstreamPod, upstreamPool,
} from './upstream-karpenter-disruption.test-support.js';

const CT = 'consolidation_test.go';
const kindOf = (d: Decision | undefined) => d && { kind: d.kind, nodes: [...d.nodes].sort(), replacements: d.replacements.length, reason: d.reason };
const unconsolidatable = (r: ReturnType<typeof firstCommand>, node: string) => r.rejected.filter((x) => x.node === node && x.event === 'Unconsolidatable').map((x) => x.reason);

describe(`upstream Consolidation / Events (${CT})`, () => {
  const pool = upstreamPool();
  it('upstream: "should not fire an event for ConsolidationDisabled when the NodePool has consolidation set to WhenEmptyOrUnderutilized"', () => {
    const r = firstCommand(upstreamInput(clusterWith([upstreamNode('n', pool, MOST_EXPENSIVE)], []), [pool]));
    assert.deepEqual(unconsolidatable(r, 'n'), []);
  });
  it('upstream: "should fire an event for ConsolidationDisabled when the NodePool has consolidation set to WhenEmpty"', () => {
    const p = upstreamPool({ disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '1m' } });
    const r = firstCommand(upstreamInput(clusterWith([upstreamNode('n', p, MOST_EXPENSIVE)], [upstreamPod('p', 'n', { owner: null })]), [p]));
    assert.equal(r.decision, undefined);
    assert.deepEqual(unconsolidatable(r, 'n'), ['NodePool "default" has consolidation policy WhenEmpty, but node is not empty']);
  });
  it('upstream: "should fire an event for ConsolidationDisabled when the NodePool has consolidateAfter set to \'Never\'"', () => {
    const p = upstreamPool({ disruption: { consolidateAfter: 'Never' } });
    const r = firstCommand(upstreamInput(clusterWith([upstreamNode('n', p, MOST_EXPENSIVE)], [upstreamPod('p', 'n', { owner: null })]), [p]));
    assert.equal(r.decision, undefined);
    assert.deepEqual(unconsolidatable(r, 'n'), ['NodePool "default" has consolidation disabled']);
  });
  const without = (label: string) => {
    // A NodePool that does not require a capacity type (else a node without the label would be drifted).
    const open = upstreamPool({ anyCapacityType: true });
    const n = upstreamNode('n', open, MOST_EXPENSIVE);
    const { [label]: _, ...labels } = n.labels;
    return firstCommand(upstreamInput(clusterWith([{ ...n, labels }], [upstreamPod('p', 'n', { owner: null })]), [open]));
  };
  it('upstream: "should fire an event when a candidate does not have a resolvable instance type"', () => {
    const r = without('node.kubernetes.io/instance-type');
    assert.equal(r.decision, undefined);
    assert.deepEqual(unconsolidatable(r, 'n'), ['Instance Type "" not found']);
  });
  it('upstream: "should fire an event when a candidate does not have the capacity type label"', () => {
    const r = without('karpenter.sh/capacity-type');
    assert.equal(r.decision, undefined);
    assert.deepEqual(unconsolidatable(r, 'n'), ['Node does not have label "karpenter.sh/capacity-type"']);
  });
  it('upstream: "should fire an event when a candidate does not have the zone label"', () => {
    const r = without('topology.kubernetes.io/zone');
    assert.equal(r.decision, undefined);
    assert.deepEqual(unconsolidatable(r, 'n'), ['Node does not have label "topology.kubernetes.io/zone"']);
  });
});

describe(`upstream Consolidation / Budgets (${CT})`, () => {
  const ten = (budget: string) => {
    const pool = upstreamPool({ disruption: { budgets: [{ nodes: budget }] } });
    return { pool, nodes: Array.from({ length: 10 }, (_, i) => upstreamNode(`n${i}`, pool, MOST_EXPENSIVE)) };
  };
  const pools = (budget: string) => Array.from({ length: 10 }, (_, i) => upstreamPool({ name: `np${i}`, disruption: { budgets: [{ nodes: budget }] } }));
  const threeEach = (ps: ReturnType<typeof pools>) => ps.flatMap((p) => [0, 1, 2].map((i) => upstreamNode(`${p.name}-n${i}`, p, MOST_EXPENSIVE)));
  const disrupted = (ds: Decision[]) => ds.reduce((s, d) => s + d.nodes.length, 0);

  it('upstream: "should only allow 3 empty nodes to be disrupted"', () => {
    const { pool, nodes } = ten('30%');
    const ds = reconcile(upstreamInput(clusterWith(nodes, []), [pool]));
    assert.deepEqual(ds.map((d) => [d.reason, d.nodes.length]), [['Empty', 3]]);
  });
  it('upstream: "should allow all empty nodes to be disrupted"', () => {
    const { pool, nodes } = ten('100%');
    assert.deepEqual(reconcile(upstreamInput(clusterWith(nodes, []), [pool])).map((d) => [d.reason, d.nodes.length]), [['Empty', 10]]);
  });
  it('upstream: "should allow no empty nodes to be disrupted"', () => {
    const { pool, nodes } = ten('0%');
    assert.deepEqual(reconcile(upstreamInput(clusterWith(nodes, []), [pool])), []);
  });
  it('upstream: "should only allow 3 nodes to be deleted in multi node consolidation delete"', () => {
    const { pool, nodes } = ten('30%');
    const ds = reconcile(upstreamInput(clusterWith(nodes, nodes.map((n, i) => upstreamPod(`p${i}`, n.name, { cpu: '100m' }))), [pool]));
    assert.deepEqual(ds.map((d) => [d.kind, d.reason, d.nodes.length, d.replacements.length]), [['delete', 'Underutilized', 3, 0]]);
  });
  it('upstream: "should only allow 3 nodes to be deleted in single node consolidation delete"', () => {
    const { pool, nodes } = ten('30%');
    const ds = reconcile(upstreamInput(clusterWith(nodes, nodes.map((n, i) => upstreamPod(`p${i}`, n.name, { cpu: '15' }))), [pool]), 5);
    assert.equal(disrupted(ds), 3);
    assert.ok(ds.every((d) => d.kind === 'delete'));
  });
  it('upstream: "should allow 2 nodes from each nodePool to be deleted"', () => {
    const ps = pools('50%');
    const ds = reconcile(upstreamInput(clusterWith(threeEach(ps), []), ps));
    assert.deepEqual(ds.map((d) => [d.reason, d.nodes.length]), [['Empty', 20]]);
  });
  it('upstream: "should allow all nodes from each nodePool to be deleted"', () => {
    const ps = pools('100%');
    assert.deepEqual(reconcile(upstreamInput(clusterWith(threeEach(ps), []), ps)).map((d) => [d.reason, d.nodes.length]), [['Empty', 30]]);
  });
  it('upstream: "should allow no nodes from each nodePool to be deleted"', () => {
    const ps = pools('0%');
    assert.deepEqual(reconcile(upstreamInput(clusterWith(threeEach(ps), []), ps)), []);
  });
  // The "should not mark ... consolidated" cases also check IsConsolidated (berth keeps no such flag): the command part is checked.
  it('upstream: "should not mark empty node consolidated if the candidates can\'t be disrupted due to budgets with one nodepool" (no command)', () => {
    const { pool, nodes } = ten('0%');
    assert.equal(firstCommand(upstreamInput(clusterWith(nodes, []), [pool])).decision, undefined);
  });
  it('upstream: "should not mark empty node consolidated if all candidates can\'t be disrupted due to budgets with many nodepools" (no command)', () => {
    const ps = pools('0%');
    assert.equal(firstCommand(upstreamInput(clusterWith(threeEach(ps), []), ps)).decision, undefined);
  });
  const busy = (nodes: ReturnType<typeof threeEach>) => clusterWith(nodes, nodes.map((n, i) => upstreamPod(`p${i}`, n.name, { cpu: '1', owner: null })));
  // Upstream runs the one method; berth's pass runs both, with the same outcome to check.
  for (const method of ['multi', 'single']) {
    it(`upstream: "should not mark ${method} node consolidated if the candidates can't be disrupted due to budgets with one nodepool" (no command)`, () => {
      const { pool, nodes } = ten('0%');
      assert.equal(firstCommand(upstreamInput(busy(nodes), [pool])).decision, undefined);
    });
    it(`upstream: "should not mark ${method} node consolidated if all candidates can't be disrupted due to budgets with many nodepools" (no command)`, () => {
      const ps = pools('0%');
      assert.equal(firstCommand(upstreamInput(busy(threeEach(ps)), ps)).decision, undefined);
    });
  }
});

describe(`upstream Consolidation / Replace (${CT})`, () => {
  const pool = upstreamPool();
  for (const [entry, spot] of [['if the candidate is on-demand node', false], ['if the candidate is spot node', true]] as const) {
    it(`upstream: "can replace node ${entry}"`, () => {
      const node = upstreamNode('n', pool, spot ? MOST_EXPENSIVE_SPOT : MOST_EXPENSIVE);
      const { decision: d } = firstCommand(upstreamInput(clusterWith([node], [upstreamPod('p', 'n')]), [pool]));
      assert.deepEqual(kindOf(d), { kind: 'replace', nodes: ['n'], replacements: 1, reason: 'Underutilized' });
      assert.ok(!d!.replacements[0]!.instanceTypeOptions.includes(spot ? MOST_EXPENSIVE_SPOT : MOST_EXPENSIVE));
    });
    it(`upstream: "can replace nodes if another nodePool returns no instance types ${entry}"`, () => {
      // A second NodePool that no instance type satisfies.
      const empty = upstreamPool({ name: 'other', requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['none'] }] });
      const node = upstreamNode('n', pool, spot ? MOST_EXPENSIVE_SPOT : MOST_EXPENSIVE);
      const { decision: d } = firstCommand(upstreamInput(clusterWith([node], [upstreamPod('p', 'n')]), [pool, empty]));
      assert.deepEqual(kindOf(d), { kind: 'replace', nodes: ['n'], replacements: 1, reason: 'Underutilized' });
      assert.equal(d!.replacements[0]!.nodePool, 'default');
    });
    const three = (node: string) => [0, 1, 2].map((i) => upstreamPod(`p${i}`, node));
    it(`upstream: "can replace nodes, considers PDB ${entry}"`, () => {
      const node = upstreamNode('n', pool, spot ? MOST_EXPENSIVE_SPOT : MOST_EXPENSIVE);
      const r = firstCommand(upstreamInput(clusterWith([node], three('n'), [pdb('pdb', { maxUnavailable: 0 })]), [pool]));
      assert.equal(r.decision, undefined);
    });
    it(`upstream: "can replace nodes, PDB namespace must match ${entry}"`, () => {
      const node = upstreamNode('n', pool, spot ? MOST_EXPENSIVE_SPOT : MOST_EXPENSIVE);
      const other = { ...pdb('pdb', { maxUnavailable: 0 }), namespace: 'other', key: 'other/pdb' };
      const { decision: d } = firstCommand(upstreamInput(clusterWith([node], [upstreamPod('p', 'n')], [other]), [pool]));
      assert.deepEqual(kindOf(d), { kind: 'replace', nodes: ['n'], replacements: 1, reason: 'Underutilized' });
    });
    const twoCpu = (name: string, node: string, annotations?: Record<string, string>) => upstreamPod(name, node, { cpu: '2', ...(annotations && { annotations }) });
    it(`upstream: "can replace nodes, considers karpenter.sh/do-not-disrupt set to true on nodes ${entry}"`, () => {
      const type = spot ? MOST_EXPENSIVE_SPOT : MOST_EXPENSIVE;
      const nodes = [upstreamNode('n', pool, type), upstreamNode('annotated', pool, type, { cpu: 5, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })];
      const { decision: d } = firstCommand(upstreamInput(clusterWith(nodes, [twoCpu('p0', 'n'), twoCpu('p1', 'n'), twoCpu('p2', 'annotated')]), [pool]));
      assert.deepEqual(kindOf(d), { kind: 'replace', nodes: ['n'], replacements: 1, reason: 'Underutilized' });
    });
    it(`upstream: "can replace nodes, considers karpenter.sh/do-not-disrupt set to true on pods ${entry}"`, () => {
      const type = spot ? MOST_EXPENSIVE_SPOT : MOST_EXPENSIVE;
      const nodes = [upstreamNode('n', pool, type), upstreamNode('n2', pool, MOST_EXPENSIVE, { cpu: 5 })];
      const pods = [twoCpu('p0', 'n'), twoCpu('p1', 'n'), twoCpu('p2', 'n2', { 'karpenter.sh/do-not-disrupt': 'true' })];
      const { decision: d } = firstCommand(upstreamInput(clusterWith(nodes, pods), [pool]));
      assert.deepEqual(kindOf(d), { kind: 'replace', nodes: ['n'], replacements: 1, reason: 'Underutilized' });
    });
  }
  // The first `n` spot types of the assorted catalog, priced 1.0, 1.1, ... with the 17th the cheapest of all (0.001).
  const pricedSpot = (n: number) => ASSORTED.filter((t) => t.offerings[0]!.capacityType === 'spot').slice(0, n).map((t, i) =>
    fakeType(t.name, { cpu: 1, memGi: t.capacity.memory! / 2 ** 30, arch: t.labels['kubernetes.io/arch']!, os: t.labels['kubernetes.io/os']!, offerings: [{ ...t.offerings[0]!, price: i === 16 ? 0.001 : 1 + i * 0.1 }] }));
  const cheapFirst = (types: ReturnType<typeof pricedSpot>) => [...types].sort((a, b) => a.offerings[0]!.price - b.offerings[0]!.price).map((t) => t.name);
  it('upstream: "cannot replace spot with spot if less than minimum InstanceTypes flexibility"', () => {
    const first = ASSORTED.slice(0, 5);
    const types = [fakeType(first[0]!.name, { cpu: 1, memGi: 1, offerings: [{ ...first[0]!.offerings[0]!, price: 0.001 }] }), ...first.slice(1)];
    const node = upstreamNode('n', pool, types[3]!.name, { types });
    const r = firstCommand(upstreamInput(clusterWith([node], [upstreamPod('p', 'n')]), [pool], { types }));
    assert.equal(r.decision, undefined);
    assert.deepEqual(unconsolidatable(r, 'n'), ['SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got 1']);
  });
  it('upstream: "cannot replace spot with spot if the spotToSpotConsolidation is disabled"', () => {
    const node = upstreamNode('n', pool, MOST_EXPENSIVE_SPOT);
    const r = firstCommand(upstreamInput(clusterWith([node], [upstreamPod('p', 'n')]), [pool], { spotToSpot: false }));
    assert.equal(r.decision, undefined);
    assert.deepEqual(unconsolidatable(r, 'n'), ["SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node"]);
  });
  it('upstream: "cannot replace spot with spot if it is part of the 15 cheapest instance types."', () => {
    const first = ASSORTED.slice(0, 20);
    const types = [fakeType(first[0]!.name, { cpu: 1, memGi: 1, offerings: [{ ...first[0]!.offerings[0]!, price: 0.001 }] }), ...first.slice(1)];
    const secondSpot = types.filter((t) => t.offerings[0]!.capacityType === 'spot')[1]!;
    const node = upstreamNode('n', pool, secondSpot.name, { types });
    assert.equal(firstCommand(upstreamInput(clusterWith([node], [upstreamPod('p', 'n')]), [pool], { types })).decision, undefined);
  });
  it('upstream: "spot to spot consolidation should order the instance types by price before enforcing minimum flexibility."', () => {
    const types = pricedSpot(18);
    const node = upstreamNode('n', pool, types[17]!.name, { types });
    const { decision: d } = firstCommand(upstreamInput(clusterWith([node], [upstreamPod('p', 'n')]), [pool], { types }));
    assert.deepEqual(kindOf(d), { kind: 'replace', nodes: ['n'], replacements: 1, reason: 'Underutilized' });
    const options = d!.replacements[0]!.instanceTypeOptions;
    assert.deepEqual([...options].sort(), cheapFirst(types).slice(0, 15).sort());
    assert.ok(options.includes(types[16]!.name) && !options.includes(types[17]!.name));
  });
  const minValues = (n: number) => upstreamPool({ requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'Exists', minValues: n }] });
  const truncation = [
    ['spot to spot consolidation should consider the max of default and minimum number of instanceTypeOptions from minValues in requirement for truncation if minimum number of instanceTypeOptions from minValues in requirement is greater than 15.', 16, 16],
    ['spot to spot consolidation should consider the default for truncation if minimum number of instanceTypeOptions from minValues in requirement is less than 15.', 10, 15],
  ] as const;
  for (const [name, min, kept] of truncation) {
    it(`upstream: "${name}"`, () => {
      const types = pricedSpot(18);
      const p = minValues(min);
      const node = upstreamNode('n', p, types[17]!.name, { types });
      const { decision: d } = firstCommand(upstreamInput(clusterWith([node], [upstreamPod('p', 'n')]), [p], { types }));
      assert.deepEqual(kindOf(d), { kind: 'replace', nodes: ['n'], replacements: 1, reason: 'Underutilized' });
      assert.deepEqual([...d!.replacements[0]!.instanceTypeOptions].sort(), cheapFirst(types).slice(0, kept).sort());
    });
  }
  for (const [entry, spot] of [['if the candidate is on-demand node', false], ['if the candidate is spot node', true]] as const) {
    it(`upstream: "Consolidation should fail if filterByPrice breaks the minimum requirement from the NodePools. ${entry}"`, () => {
      // Upstream's two entries differ only in which types it appends again to the catalog; both bind the
      // pod to the spot node, the 16th cheapest spot type, under minValues 16 for instance types.
      const ofSpot = ASSORTED.filter((t) => t.offerings[0]!.capacityType === 'spot');
      const sorted = [...ofSpot].sort((a, b) => a.offerings[0]!.price - b.offerings[0]!.price || ofSpot.indexOf(a) - ofSpot.indexOf(b));
      const p = minValues(16);
      const node = upstreamNode('n', p, sorted[15]!.name);
      const r = firstCommand(upstreamInput(clusterWith([node], [upstreamPod('p', 'n')]), [p], { types: [...ASSORTED, ...ASSORTED.filter((t) => (t.offerings[0]!.capacityType === 'spot') === spot)] }));
      assert.equal(r.decision, undefined);
    });
  }
  it('upstream: "should handle failing filterOutSameInstanceType correctly (without a panic) when minValues isn\'t satisfied"', () => {
    const offering = { zone: 'test-zone-1a', capacityType: 'on-demand' as const };
    const types = [fakeType('current-on-demand', { cpu: 5, offerings: [{ ...offering, price: 0.5 }] }), fakeType('other-on-demand', { cpu: 5, offerings: [{ ...offering, price: 0.4 }] })];
    const p = upstreamPool({ anyCapacityType: true, requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'Exists', minValues: 2 }, { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }] });
    const nodes = [0, 1, 2].map((i) => upstreamNode(`n${i}`, p, 'current-on-demand', { types, cpu: 4 }));
    const pods = ['n0', 'n1', 'n2', 'n2'].map((n, i) => upstreamPod(`p${i}`, n, { cpu: '2' }));
    // The first two cannot merge into one replacement (of the other type alone minValues fails); one of them is deleted.
    const { decision: d } = firstCommand(upstreamInput(clusterWith(nodes, pods), [p], { types }));
    assert.equal(d?.kind, 'delete');
    assert.equal(d!.nodes.length, 1);
    assert.ok(['n0', 'n1'].includes(d!.nodes[0]!));
  });
});

describe(`upstream Consolidation / Delete (${CT})`, () => {
  const pool = upstreamPool();
  const LEAST = '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand';
  const two = (p = pool, o: Parameters<typeof upstreamNode>[3] = {}) => [upstreamNode('n0', p, LEAST, o), upstreamNode('n1', p, LEAST, o)];
  // Two pods on the first node, one on the second (the suite's usual layout).
  const layout = (opts: (i: number) => Parameters<typeof upstreamPod>[2] = () => ({})) => ['n0', 'n0', 'n1'].map((n, i) => upstreamPod(`p${i}`, n, opts(i)));
  const deletes = (d: Decision | undefined, node: string) => assert.deepEqual(kindOf(d), { kind: 'delete', nodes: [node], replacements: 0, reason: 'Underutilized' });

  it('upstream: "can delete nodes"', () => {
    deletes(firstCommand(upstreamInput(clusterWith(two(), layout()), [pool])).decision, 'n1');
  });
  it('upstream: "does not delete nodes with pod churn, deletes nodes without pod churn"', () => {
    // Emptiness picks both; while it waits a pod binds to the first (the upstream test's validator does that).
    const before = clusterWith(two(), []);
    const { decision: d } = firstCommand(upstreamInput(before, [pool]));
    assert.deepEqual(kindOf(d), { kind: 'delete', nodes: ['n0', 'n1'], replacements: 0, reason: 'Empty' });
    const after = clusterWith(two(), [upstreamPod('churn', 'n0')]);
    const again = revalidate(upstreamInput(after, [pool]), d!);
    assert.deepEqual(kindOf('nodes' in again ? again : undefined), { kind: 'delete', nodes: ['n1'], replacements: 0, reason: 'Empty' });
  });
  it('upstream: "can delete nodes if another nodePool has no node template"', () => {
    // berth's NodePool always has a template; a second NodePool no instance type satisfies stands for one that cannot launch.
    const other = upstreamPool({ name: 'no-template', requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['none'] }] });
    deletes(firstCommand(upstreamInput(clusterWith(two(), layout()), [pool, other])).decision, 'n1');
  });
  it('upstream: "can delete nodes, when non-Karpenter capacity can fit pods"', () => {
    const n0 = upstreamNode('n0', pool, LEAST);
    const { 'karpenter.sh/nodepool': _, ...labels } = upstreamNode('unmanaged', pool, LEAST).labels;
    const unmanaged = { ...upstreamNode('unmanaged', pool, LEAST), labels: { 'kubernetes.io/hostname': 'unmanaged', 'kubernetes.io/os': labels['kubernetes.io/os']!, 'kubernetes.io/arch': labels['kubernetes.io/arch']! } };
    const pods = [0, 1, 2].map((i) => upstreamPod(`p${i}`, 'n0'));
    deletes(firstCommand(upstreamInput(clusterWith([n0, unmanaged], pods), [pool])).decision, 'n0');
  });
  it('upstream: "can delete nodes, considers PDB"', () => {
    const pods = layout((i): Parameters<typeof upstreamPod>[2] => ({ labels: i === 2 ? { app: 'test' } : {} }));
    deletes(firstCommand(upstreamInput(clusterWith(two(), pods, [pdb('pdb', { maxUnavailable: 0 })]), [pool])).decision, 'n0');
  });
  it('upstream: "can delete nodes, considers karpenter.sh/do-not-disrupt set to true on nodes"', () => {
    const nodes = [upstreamNode('n0', pool, LEAST), upstreamNode('n1', pool, LEAST, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })];
    deletes(firstCommand(upstreamInput(clusterWith(nodes, layout()), [pool])).decision, 'n0');
  });
  it('upstream: "can delete nodes, considers karpenter.sh/do-not-disrupt set to true on pods"', () => {
    const pods = layout((i) => (i === 2 ? { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } : {}));
    deletes(firstCommand(upstreamInput(clusterWith(two(), pods), [pool])).decision, 'n0');
  });
  // Upstream sets the grace period on the NodeClaims; berth reads it from their NodePool.
  const graced = upstreamPool({ terminationGracePeriod: '300s' });
  it('upstream: "does not consolidate nodes with karpenter.sh/do-not-disrupt set to true on pods when the NodePool\'s TerminationGracePeriod is not nil"', () => {
    const pods = layout(() => ({ annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }));
    assert.deepEqual(reconcile(upstreamInput(clusterWith(two(graced), pods), [graced])), []);
  });
  it('upstream: "does not consolidate nodes with pods with blocking PDBs when the NodePool\'s TerminationGracePeriod is not nil"', () => {
    assert.deepEqual(reconcile(upstreamInput(clusterWith(two(graced), layout(), [pdb('pdb', { maxUnavailable: 0 })]), [graced])), []);
  });
  it('upstream: "does not consolidate nodes with pods that have a duration-based do-not-disrupt annotation that is still active"', () => {
    const pods = layout((i) => (i === 2 ? { annotations: { 'karpenter.sh/do-not-disrupt': '2m' }, startTime: new Date(NOW).toISOString() } : {}));
    deletes(firstCommand(upstreamInput(clusterWith(two(), pods), [pool])).decision, 'n0');
  });
  it('upstream: "can consolidate nodes after duration-based do-not-disrupt annotation expires"', () => {
    const pods = layout(() => ({ annotations: { 'karpenter.sh/do-not-disrupt': '2m' }, startTime: new Date(NOW).toISOString() }));
    const cluster = clusterWith(two(), pods);
    assert.deepEqual(reconcile(upstreamInput(cluster, [pool])), []);
    assert.equal(reconcile(upstreamInput(cluster, [pool], { nowMs: NOW + 3 * 60_000 })).length, 1);
  });
  it('upstream: "can delete nodes, considers invalid do-not-disrupt annotation format as not blocking"', () => {
    const pods = layout((i) => (i === 2 ? { annotations: { 'karpenter.sh/do-not-disrupt': 'invalid-format' } } : {}));
    deletes(firstCommand(upstreamInput(clusterWith(two(), pods), [pool])).decision, 'n1');
  });
  it('upstream: "can delete nodes, evicts pods without an ownerRef"', () => {
    deletes(firstCommand(upstreamInput(clusterWith(two(), layout(() => ({ owner: null }))), [pool])).decision, 'n1');
  });
  it('upstream: "won\'t delete node if it would require pods to schedule on an uninitialized node"', () => {
    const r = firstCommand(upstreamInput(clusterWith(two(), layout()), [pool], { uninitialized: new Set(['n0']), initializing: new Set(['n0']) }));
    assert.equal(r.decision, undefined);
    assert.match(unconsolidatable(r, 'n1').join(), /Not all pods would schedule/);
  });
  it('upstream: "should replace a node with a cheaper one even when consolidateAfter has not expired"', () => {
    const p = upstreamPool({ disruption: { consolidateAfter: '1m' } });
    const node = upstreamNode('n', p, MOST_EXPENSIVE, { creation: NOW - 2 * 60_000 });
    const { decision: d } = firstCommand(upstreamInput(clusterWith([node], [upstreamPod('p', 'n')]), [p], { lastPodEventMs: new Map([['n', NOW - 2 * 60_000]]) }));
    assert.deepEqual(kindOf(d), { kind: 'replace', nodes: ['n'], replacements: 1, reason: 'Underutilized' });
  });
  it('upstream: "should consider initialized nodes before uninitialized nodes"', () => {
    const offering = { zone: 'test-zone-1', capacityType: 'on-demand' as const };
    const types = [fakeType('default-instance-type', { cpu: 3, memGi: 3, offerings: [offering] }), fakeType('small-instance-type', { cpu: 1, memGi: 1, offerings: [offering] })];
    const GI = 2 ** 30;
    const sized = (n: ReturnType<typeof upstreamNode>, cpu: number, memGi: number) => ({ ...n, allocatable: { ...n.allocatable, cpu: cpu * 1000, memory: memGi * GI }, capacity: { ...n.capacity, cpu: cpu * 1000, memory: memGi * GI } });
    const nodes = Array.from({ length: 100 }, (_, i) => sized(upstreamNode(`d${i}`, pool, 'default-instance-type', { types }), 3, 3));
    const initialized = 37;
    const small = sized(upstreamNode('small', pool, 'small-instance-type', { types }), 1, 1);
    const req = (cpu: string, mem: string) => ({ spec: { containers: [{ name: 'c', resources: { requests: { cpu, memory: mem } } }] } });
    const pods = [...nodes.map((n, i) => upstreamPod(`p${i}`, n.name, req('2', '2Gi'))), upstreamPod('small-pod', 'small', req('1', '1Gi'))];
    const uninitialized = new Set(nodes.filter((_, i) => i !== initialized).map((n) => n.name));
    const { decision: d } = firstCommand(upstreamInput(clusterWith([...nodes, small], pods), [pool], { types, uninitialized, initializing: uninitialized }));
    deletes(d, 'small');
    assert.deepEqual(d!.displacedPods, [{ pod: 'default/small-pod', node: `d${initialized}` }]);
  });
  it('upstream: "can delete nodes with a permanently pending pod"', () => {
    const pending = { ...upstreamPod('pending', '', { spec: { nodeSelector: { 'non-existent': 'node-label' } } }), phase: 'Pending' };
    deletes(firstCommand(upstreamInput(clusterWith(two(), [...layout(), pending]), [pool])).decision, 'n1');
  });
  it('upstream: "won\'t delete nodes if it would make a non-pending pod go pending"', () => {
    const nodes = [upstreamNode('n0', pool, LEAST, { labels: { foo: '1' } }), upstreamNode('n1', pool, LEAST, { labels: { foo: '2' } })];
    const pods = layout((i) => ({ spec: { nodeSelector: { foo: i === 2 ? '2' : '1' } } }));
    assert.deepEqual(reconcile(upstreamInput(clusterWith(nodes, pods), [pool])), []);
  });
  it('upstream: "can delete nodes while an invalid node pool exists"', () => {
    // A NodePool whose instance types cannot be listed: berth's stand-in is one no instance type satisfies.
    const bad = upstreamPool({ name: 'bad-nodepool', requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['none'] }] });
    deletes(firstCommand(upstreamInput(clusterWith(two(), layout()), [bad, pool])).decision, 'n1');
  });
});

// The TTL cases: the command, then Karpenter's re-check after its wait (berth's revalidate) on the cluster as it is then.
describe(`upstream Consolidation / TTL (${CT})`, () => {
  const pool = upstreamPool();
  const LEAST = '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand';
  const recheck = (cluster: ReturnType<typeof clusterWith>, d: Decision | undefined) => revalidate(upstreamInput(cluster, [pool]), d!);
  const dnd = { 'karpenter.sh/do-not-disrupt': 'true' };
  it('upstream: "should wait for the node TTL for non-empty nodes before consolidating"', () => {
    const nodes = [upstreamNode('n0', pool, LEAST), upstreamNode('n1', pool, LEAST)];
    const cluster = clusterWith(nodes, ['n0', 'n0', 'n1'].map((n, i) => upstreamPod(`p${i}`, n)));
    const { decision: d } = firstCommand(upstreamInput(cluster, [pool]));
    assert.deepEqual(kindOf(d), { kind: 'delete', nodes: ['n1'], replacements: 0, reason: 'Underutilized' });
    const again = recheck(cluster, d);
    assert.deepEqual(kindOf('nodes' in again ? again : undefined), kindOf(d));
  });
  it('upstream: "should not consolidate if the action picks different instance types after the node TTL wait"', () => {
    const node = upstreamNode('n0', pool, MOST_EXPENSIVE);
    const { decision: d } = firstCommand(upstreamInput(clusterWith([node], [upstreamPod('p', 'n0', { cpu: '1' })]), [pool]));
    assert.equal(d?.kind, 'replace');
    const again = recheck(clusterWith([node], [upstreamPod('p', 'n0', { cpu: '1' }), upstreamPod('p2', 'n0', { cpu: '1' })]), d);
    assert.ok('invalid' in again, JSON.stringify(again).slice(0, 300));
  });
  it('upstream: "should not consolidate if the action becomes invalid during the node TTL wait"', () => {
    const node = upstreamNode('n0', pool, MOST_EXPENSIVE);
    const { decision: d } = firstCommand(upstreamInput(clusterWith([node], []), [pool]));
    assert.deepEqual(kindOf(d), { kind: 'delete', nodes: ['n0'], replacements: 0, reason: 'Empty' });
    assert.ok('invalid' in recheck(clusterWith([node], [upstreamPod('p', 'n0', { owner: null, annotations: dnd })]), d));
  });
  it('upstream: "should not replace node if a pod schedules with karpenter.sh/do-not-disrupt set to true during the TTL wait"', () => {
    const node = upstreamNode('n', pool, MOST_EXPENSIVE);
    const pod = upstreamPod('p', 'n', { owner: null });
    const { decision: d } = firstCommand(upstreamInput(clusterWith([node], [pod]), [pool]));
    assert.equal(d?.kind, 'replace');
    assert.ok('invalid' in recheck(clusterWith([node], [pod, upstreamPod('dnd', 'n', { owner: null, annotations: dnd })]), d));
  });
  it('upstream: "should not replace node if a pod schedules with a blocking PDB during the TTL wait"', () => {
    const node = upstreamNode('n', pool, MOST_EXPENSIVE);
    const pod = upstreamPod('p', 'n', { owner: null, labels: {} });
    const { decision: d } = firstCommand(upstreamInput(clusterWith([node], [pod]), [pool]));
    assert.equal(d?.kind, 'replace');
    assert.ok('invalid' in recheck(clusterWith([node], [pod, upstreamPod('blocked', 'n', { owner: null })], [pdb('pdb', { maxUnavailable: 0 })]), d));
  });
  const twoBusy = () => {
    const nodes = [upstreamNode('n0', pool, MOST_EXPENSIVE), upstreamNode('n1', pool, MOST_EXPENSIVE)];
    const pods = [upstreamPod('p0', 'n0', { owner: null, labels: {} }), upstreamPod('p1', 'n1', { owner: null, labels: {} })];
    const { decision: d } = firstCommand(upstreamInput(clusterWith(nodes, pods), [pool]));
    assert.ok(d && d.reason === 'Underutilized');
    return { nodes, pods, d };
  };
  it('upstream: "should not delete node if pods schedule with karpenter.sh/do-not-disrupt set to true during the TTL wait"', () => {
    const { nodes, pods, d } = twoBusy();
    const added = ['n0', 'n1'].map((n) => upstreamPod(`dnd-${n}`, n, { owner: null, annotations: dnd }));
    assert.ok('invalid' in recheck(clusterWith(nodes, [...pods, ...added]), d));
  });
  it('upstream: "should not delete node if pods schedule with a blocking PDB during the TTL wait"', () => {
    const { nodes, pods, d } = twoBusy();
    const added = ['n0', 'n1'].map((n) => upstreamPod(`blocked-${n}`, n, { owner: null }));
    assert.ok('invalid' in recheck(clusterWith(nodes, [...pods, ...added], [pdb('pdb', { maxUnavailable: 0 })]), d));
  });
});

describe(`upstream Consolidation / Multi-NodeClaim (${CT})`, () => {
  const pool = upstreamPool();
  const three = (type: string) => [0, 1, 2].map((i) => upstreamNode(`n${i}`, pool, type));
  for (const [entry, spot] of [['if the candidate is on-demand node', false], ['if the candidate is spot node', true]] as const) {
    const type = spot ? MOST_EXPENSIVE_SPOT : MOST_EXPENSIVE;
    it(`upstream: "can merge 3 nodes into 1 ${entry}"`, () => {
      const { decision: d } = firstCommand(upstreamInput(clusterWith(three(type), [0, 1, 2].map((i) => upstreamPod(`p${i}`, `n${i}`))), [pool]));
      assert.deepEqual(kindOf(d), { kind: 'replace', nodes: ['n0', 'n1', 'n2'], replacements: 1, reason: 'Underutilized' });
    });
    it(`upstream: "won't merge 2 nodes into 1 of the same type ${entry}"`, () => {
      // Upstream's entries swap the capacity types: the on-demand entry uses the cheapest spot type, and the reverse.
      const least = spot ? '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand' : '1-cpu-1-mem-amd64-linux-test-zone-1-spot';
      const nodes = [upstreamNode('n0', pool, least), upstreamNode('n1', pool, least)];
      const pods = ['n0', 'n1', 'n1'].map((n, i) => upstreamPod(`p${i}`, n));
      const { decision: d } = firstCommand(upstreamInput(clusterWith(nodes, pods), [pool]));
      assert.deepEqual(kindOf(d), { kind: 'delete', nodes: ['n0'], replacements: 0, reason: 'Underutilized' });
    });
    it(`upstream: "should wait for the node TTL for non-empty nodes before consolidating (multi-node) ${entry}"`, () => {
      // Upstream's entries swap again: the on-demand entry runs on the spot nodes.
      const t = spot ? MOST_EXPENSIVE : MOST_EXPENSIVE_SPOT;
      const nodes = [upstreamNode('n0', pool, t), upstreamNode('n1', pool, t)];
      const cluster = clusterWith(nodes, ['n0', 'n0', 'n1'].map((n, i) => upstreamPod(`p${i}`, n)));
      const { decision: d } = firstCommand(upstreamInput(cluster, [pool]));
      assert.deepEqual(kindOf(d), { kind: 'replace', nodes: ['n0', 'n1'], replacements: 1, reason: 'Underutilized' });
      const again = revalidate(upstreamInput(cluster, [pool]), d!);
      assert.deepEqual(kindOf('nodes' in again ? again : undefined), kindOf(d));
    });
    it(`upstream: "should consolidate multiple empty nodes via multi-nodeclaim consolidation ${entry}"`, () => {
      // berth's emptiness, which Karpenter runs first too, takes all three.
      const t = spot ? MOST_EXPENSIVE : MOST_EXPENSIVE_SPOT;
      const ds = reconcile(upstreamInput(clusterWith([0, 1, 2].map((i) => upstreamNode(`n${i}`, pool, t)), []), [pool]));
      assert.deepEqual(ds.map(kindOf), [{ kind: 'delete', nodes: ['n0', 'n1', 'n2'], replacements: 0, reason: 'Empty' }]);
    });
    it(`upstream: "should continue to single nodeclaim consolidation when multi-nodeclaim consolidation fails validation after the node ttl ${entry}"`, () => {
      const t = spot ? MOST_EXPENSIVE : MOST_EXPENSIVE_SPOT;
      const nodes = [0, 1, 2].map((i) => upstreamNode(`n${i}`, pool, t));
      const pods = [0, 1, 2].map((i) => upstreamPod(`p${i}`, `n${i}`));
      const { decision: multi } = firstCommand(upstreamInput(clusterWith(nodes, pods), [pool]));
      assert.deepEqual(kindOf(multi), { kind: 'replace', nodes: ['n0', 'n1', 'n2'], replacements: 1, reason: 'Underutilized' });
      // During the wait a 1-cpu pod binds to each of the first two nodes.
      const later = upstreamInput(clusterWith(nodes, [...pods, upstreamPod('x0', 'n0', { cpu: '1', owner: null }), upstreamPod('x1', 'n1', { cpu: '1', owner: null })]), [pool]);
      assert.ok('invalid' in revalidate(later, multi!));
      const { eligible } = consolidationCandidates(later);
      assert.deepEqual(kindOf(singleNode(later, eligible)), { kind: 'delete', nodes: ['n2'], replacements: 0, reason: 'Underutilized' });
    });
  }
  it('upstream: "can merge 3 nodes into 1 if the candidates have both spot and on-demand"', () => {
    const nodes = [upstreamNode('n0', pool, MOST_EXPENSIVE), upstreamNode('n1', pool, MOST_EXPENSIVE), upstreamNode('n2', pool, MOST_EXPENSIVE_SPOT)];
    const { decision: d } = firstCommand(upstreamInput(clusterWith(nodes, [0, 1, 2].map((i) => upstreamPod(`p${i}`, `n${i}`))), [pool]));
    assert.deepEqual(kindOf(d), { kind: 'replace', nodes: ['n0', 'n1', 'n2'], replacements: 1, reason: 'Underutilized' });
  });
});

describe(`upstream Consolidation / Node Lifetime Consideration (${CT})`, () => {
  it('upstream: "should consolidate the node with best savings ratio first"', () => {
    const expiring = upstreamPool({ expireAfter: '3s' });
    const least = '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand';
    const nodes = [upstreamNode('n0', expiring, least, { creation: NOW - 4000 }), upstreamNode('n1', expiring, least, { creation: NOW - 2000 })];
    const { decision: d } = firstCommand(upstreamInput(clusterWith(nodes, ['n0', 'n0', 'n1'].map((n, i) => upstreamPod(`p${i}`, n))), [expiring]));
    assert.deepEqual(kindOf(d), { kind: 'delete', nodes: ['n1'], replacements: 0, reason: 'Underutilized' });
  });
});

describe(`upstream Consolidation / Topology Consideration (${CT})`, () => {
  const pool = upstreamPool();
  const zonal = (zone2Type: string) => [
    upstreamNode('n0', pool, '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand', { cpu: 1 }),
    upstreamNode('n1', pool, zone2Type, { cpu: 1 }),
    upstreamNode('n2', pool, '1-cpu-1-mem-amd64-linux-test-zone-3-on-demand', { cpu: 1 }),
  ];
  it('upstream: "can replace node maintaining zonal topology spread"', () => {
    const labels = { app: 'test-zonal-spread' };
    const spread = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: labels } }] };
    const pods = [0, 1, 2].map((i) => upstreamPod(`p${i}`, `n${i}`, { cpu: '1', labels, spec: spread }));
    const { decision: d } = firstCommand(upstreamInput(clusterWith(zonal('64-cpu-128-mem-amd64-linux-test-zone-2-on-demand'), pods), [pool]));
    assert.deepEqual(kindOf(d), { kind: 'replace', nodes: ['n1'], replacements: 1, reason: 'Underutilized' });
    assert.equal(d!.replacements[0]!.zone, 'test-zone-2');
  });
  it('upstream: "won\'t delete node if it would violate pod anti-affinity"', () => {
    const anti = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'test' } }, topologyKey: 'kubernetes.io/hostname' }] } } };
    const pods = [0, 1, 2].map((i) => upstreamPod(`p${i}`, `n${i}`, { cpu: '1', spec: anti }));
    assert.deepEqual(reconcile(upstreamInput(clusterWith(zonal('1-cpu-1-mem-amd64-linux-test-zone-2-on-demand'), pods), [pool])), []);
  });
});

describe(`upstream Consolidation / Static NodePool (${CT})`, () => {
  it('upstream: "should not consolidate static NodePool nodes"', () => {
    const staticPool = compileNodePool({
      metadata: { name: 'static' },
      spec: { replicas: 2, template: { spec: { requirements: [], nodeClassRef: { group: 'karpenter.test.sh', kind: 'TestNodeClass', name: 'default' } } } },
    });
    const nodes = [0, 1].map((i) => upstreamNode(`s${i}`, staticPool, MOST_EXPENSIVE));
    assert.deepEqual(reconcile(upstreamInput(clusterWith(nodes, []), [staticPool])), []);
  });
});

const ET = 'emptiness_test.go';
describe(`upstream Emptiness (${ET})`, () => {
  const pool = upstreamPool({ disruption: { consolidationPolicy: 'WhenEmpty' } });
  const SPOT_LEAST = '1-cpu-1-mem-amd64-linux-test-zone-1-spot';
  const LEAST = '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand';
  const node = (name = 'n0', p = pool, o: Parameters<typeof upstreamNode>[3] = {}) => upstreamNode(name, p, SPOT_LEAST, o);
  const run = (nodes: ReturnType<typeof node>[], pods: ReturnType<typeof upstreamPod>[] = [], pools = [pool], o: Parameters<typeof upstreamInput>[2] = {}) => reconcile(upstreamInput(clusterWith(nodes, pods), pools, o));
  const emptyDelete = (nodes: string[]) => [{ kind: 'delete', nodes, replacements: 0, reason: 'Empty' }];
  const budgeted = (budget: string) => {
    const p = upstreamPool({ disruption: { consolidationPolicy: 'WhenEmpty', budgets: [{ nodes: budget }] } });
    return { p, nodes: Array.from({ length: 10 }, (_, i) => node(`n${i}`, p)) };
  };
  const perPool = (budget: string) => {
    const ps = Array.from({ length: 10 }, (_, i) => upstreamPool({ name: `np${i}`, disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '30s', budgets: [{ nodes: budget }] } }));
    return { ps, nodes: ps.flatMap((p) => [0, 1, 2].map((i) => node(`${p.name}-n${i}`, p))) };
  };
  describe('Budgets', () => {
    it('upstream: "should allow all empty nodes to be disrupted"', () => {
      const { p, nodes } = budgeted('100%');
      assert.deepEqual(run(nodes, [], [p]).map((d) => [d.reason, d.nodes.length]), [['Empty', 10]]);
    });
    it('upstream: "should allow no empty nodes to be disrupted"', () => {
      const { p, nodes } = budgeted('0%');
      assert.deepEqual(run(nodes, [], [p]), []);
    });
    it('upstream: "should only allow 3 empty nodes to be disrupted"', () => {
      const { p, nodes } = budgeted('30%');
      assert.deepEqual(run(nodes, [], [p]).map((d) => [d.reason, d.nodes.length]), [['Empty', 3]]);
    });
    it('upstream: "should allow 2 nodes from each nodePool to be deleted"', () => {
      const { ps, nodes } = perPool('50%');
      assert.deepEqual(run(nodes, [], ps).map((d) => [d.reason, d.nodes.length]), [['Empty', 20]]);
    });
    it('upstream: "should allow all nodes from each nodePool to be deleted"', () => {
      const { ps, nodes } = perPool('100%');
      assert.deepEqual(run(nodes, [], ps).map((d) => [d.reason, d.nodes.length]), [['Empty', 30]]);
    });
  });
  describe('Emptiness', () => {
    it('upstream: "can delete empty nodes"', () => assert.deepEqual(run([node()]).map(kindOf), emptyDelete(['n0'])));
    it('upstream: "can delete empty and drifted nodes"', () => {
      // Drifted here: the NodePool no longer allows the node's zone.
      const p = upstreamPool({ disruption: { consolidationPolicy: 'WhenEmpty' }, requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-2'] }] });
      const ds = run([node('n0', p)], [], [p]);
      assert.deepEqual(ds.map((d) => [d.kind, d.nodes, d.replacements.length]), [['delete', ['n0'], 0]]);
    });
    // berth's Consolidatable condition is consolidateAfter since the last pod event: a node inside that window stands for one without it.
    const notConsolidatable = upstreamPool({ disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '30s' } });
    const recent = { lastPodEventMs: new Map([['n0', NOW - 1000]]) };
    it('upstream: "should ignore nodes without the consolidatable status condition"', () => {
      assert.deepEqual(run([node('n0', notConsolidatable)], [], [notConsolidatable], recent), []);
    });
    it('upstream: "should ignore nodes with the karpenter.sh/do-not-disrupt annotation"', () => {
      assert.deepEqual(run([node('n0', pool, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })]), []);
    });
    it('upstream: "should delete nodes with the karpenter.sh/do-not-disrupt annotation set to false"', () => {
      assert.deepEqual(run([node('n0', pool, { annotations: { 'karpenter.sh/do-not-disrupt': 'false' } })]).map(kindOf), emptyDelete(['n0']));
    });
    it('upstream: "should ignore nodes that have pods"', () => {
      assert.deepEqual(run([node()], [upstreamPod('p', 'n0', { owner: null })]), []);
    });
    it('upstream: "should ignore nodes with the consolidatable status condition set to false"', () => {
      assert.deepEqual(run([node('n0', notConsolidatable)], [], [notConsolidatable], recent), []);
    });
  });
  it('upstream: "can delete multiple empty nodes"', () => assert.deepEqual(run([node('n0'), node('n1')]).map(kindOf), emptyDelete(['n0', 'n1'])));
  it('upstream: "considers pending pods when consolidating"', () => {
    const large = '64-cpu-1-mem-amd64-linux-test-zone-1-on-demand';
    const n = upstreamNode('n0', pool, large, { cpu: 64, pods: 5 });
    const pending = { ...upstreamPod('unsched', '', { cpu: '62', owner: null }), phase: 'Pending' };
    assert.deepEqual(run([n], [upstreamPod('p', 'n0', { cpu: '1', owner: null }), pending]), []);
  });
  const least = () => upstreamNode('n0', pool, LEAST);
  it('upstream: "will consider a node with a DaemonSet pod as empty"', () => {
    const ds = upstreamPod('ds-pod', 'n0', { owner: { kind: 'DaemonSet', name: 'ds' } });
    assert.deepEqual(run([least()], [ds]).map(kindOf), emptyDelete(['n0']));
  });
  it('upstream: "will consider a node with terminating Deployment pods as empty"', () => {
    const pods = [0, 1, 2].map((i) => ({ ...upstreamPod(`p${i}`, 'n0'), terminating: true }));
    assert.deepEqual(run([least()], pods).map(kindOf), emptyDelete(['n0']));
  });
  it('upstream: "should wait for the node TTL for empty nodes before consolidating"', () => {
    const cluster = clusterWith([node()], []);
    const { decision: d } = firstCommand(upstreamInput(cluster, [pool]));
    assert.deepEqual([kindOf(d)], emptyDelete(['n0']));
    const again = revalidate(upstreamInput(cluster, [pool]), d!);
    assert.deepEqual([kindOf('nodes' in again ? again : undefined)], emptyDelete(['n0']));
  });
  it('upstream: "should not consolidate static NodePool nodes" (Static NodePool)', () => {
    const staticPool = compileNodePool({ metadata: { name: 'static' }, spec: { replicas: 2, template: { spec: { requirements: [], nodeClassRef: { group: 'karpenter.test.sh', kind: 'TestNodeClass', name: 'default' } } } } });
    assert.deepEqual(run([0, 1].map((i) => upstreamNode(`s${i}`, staticPool, MOST_EXPENSIVE)), [], [staticPool]), []);
  });
});

const DT = 'drift_test.go';
describe(`upstream Drift (${DT})`, () => {
  // The suite's drift NodePool: consolidateAfter 1h; its nodes are not Consolidatable (a pod event just now stands for that).
  const pool = upstreamPool({ disruption: { consolidateAfter: '1h' } });
  // Drifted: the node carries a stale NodePool hash (berth's way to a Drifted condition).
  const drifted = hashAnnotations({ hash: 'stale' });
  const node = (name: string, o: Parameters<typeof upstreamNode>[3] & { drift?: boolean; p?: typeof pool } = {}) => {
    const { drift = true, p = pool, ...rest } = o;
    return upstreamNode(name, p, MOST_EXPENSIVE, { ...rest, annotations: { ...(drift ? drifted : hashAnnotations(p)), ...rest.annotations } });
  };
  const input = (nodes: ReturnType<typeof node>[], pods: ReturnType<typeof upstreamPod>[] = [], o: Parameters<typeof upstreamInput>[2] & { pools?: (typeof pool)[]; pdbs?: ReturnType<typeof pdb>[] } = {}) => {
    const { pools = [pool], pdbs = [], ...rest } = o;
    return upstreamInput(clusterWith(nodes, pods, pdbs), pools, { lastPodEventMs: new Map(nodes.map((n) => [n.name, NOW])), ...rest });
  };
  const driftCmd = (d: Decision | undefined) => d && { kind: d.kind, nodes: [...d.nodes], replacements: d.replacements.length, reason: d.reason };
  const dnd = (value: string, start = NOW) => ({ owner: null, annotations: { 'karpenter.sh/do-not-disrupt': value }, startTime: new Date(start).toISOString() });

  it('upstream: "should not consider static nodepool for drift" (Static NodePool)', () => {
    const staticPool = compileNodePool({
      metadata: { name: 'static' },
      spec: { replicas: 2, template: { spec: { requirements: [], nodeClassRef: { group: 'karpenter.test.sh', kind: 'TestNodeClass', name: 'default' } } } },
    });
    const nodes = [0, 1].map((i) => node(`s${i}`, { p: staticPool }));
    assert.equal(drift(input(nodes, [], { pools: [staticPool] })), undefined);
  });

  describe('Budgets', () => {
    it('upstream: "should disrupt 3 nodes, taking into account commands in progress"', () => {
      const p = upstreamPool({ disruption: { consolidateAfter: '1h', budgets: [{ nodes: '30%' }] } });
      const nodes = Array.from({ length: 10 }, (_, i) => node(`n${i}`, { drift: i < 5, p }));
      const pods = [0, 1, 2, 3, 4].map((i) => upstreamPod(`p${i}`, `n${i}`, { cpu: '1' }));
      const ds = reconcile(input(nodes, pods, { pools: [p] }), 5);
      assert.deepEqual(ds.map((d) => [d.reason, d.nodes.length]), [['Drifted', 1], ['Drifted', 1], ['Drifted', 1]]);
    });
    it('upstream: "should respect budgets for multiple nodepools"', () => {
      const ps = Array.from({ length: 10 }, (_, i) => upstreamPool({ name: `np${i}`, disruption: { consolidateAfter: 'Never', budgets: [{ nodes: '1' }] } }));
      const nodes = ps.flatMap((p) => [0, 1, 2].map((i) => node(`${p.name}-n${i}`, { p })));
      const pods = ps.flatMap((p) => [0, 1].map((i) => upstreamPod(`${p.name}-p${i}`, `${p.name}-n${i}`, { cpu: '1' })));
      const ds = reconcile(input(nodes, pods, { pools: ps }), 30);
      assert.equal(ds.length, 10);
      assert.ok(ds.every((d) => d.reason === 'Drifted' && d.nodes.length === 1));
      assert.deepEqual(new Set(ds.map((d) => d.nodes[0]!.split('-')[0])).size, 10);
    });
  });
  describe('Drift', () => {
    it('upstream: "should continue to the next drifted node if the first cannot reschedule all pods"', () => {
      const nodes = [node('n0'), node('n1', { cpu: 1 })];
      const pods = [upstreamPod('big', 'n0', { cpu: '150', owner: null }), upstreamPod('small', 'n1', { cpu: '1', owner: null })];
      const { decision: d } = firstCommand(input(nodes, pods));
      assert.equal(d?.reason, 'Drifted');
      assert.deepEqual(d!.nodes, ['n1']);
    });
    it('upstream: "should ignore nodes without the drifted status condition"', () => {
      assert.equal(firstCommand(input([node('n0', { drift: false })])).decision, undefined);
    });
    it('upstream: "should ignore nodes with the drifted status condition set to false"', () => {
      // berth has no Drifted=False apart from not drifted.
      assert.equal(firstCommand(input([node('n0', { drift: false })])).decision, undefined);
    });
    it('upstream: "should delete drifted nodes with the karpenter.sh/do-not-disrupt annotation set to false"', () => {
      const nodes = [node('n0', { annotations: { 'karpenter.sh/do-not-disrupt': 'false' } }), node('n1', { drift: false })];
      assert.deepEqual(driftCmd(firstCommand(input(nodes, [upstreamPod('p', 'n0')])).decision), { kind: 'delete', nodes: ['n0'], replacements: 0, reason: 'Drifted' });
    });
    it('upstream: "should not create replacements for drifted nodes that have pods with the karpenter.sh/do-not-disrupt annotation set to true"', () => {
      assert.equal(firstCommand(input([node('n0')], [upstreamPod('p', 'n0', dnd('true'))])).decision, undefined);
    });
    it('upstream: "should not create replacements for drifted nodes that have pods with the blocking PDBs when the NodePool\'s TerminationGracePeriod is not nil"', () => {
      const p = upstreamPool({ disruption: { consolidateAfter: '1h' }, terminationGracePeriod: '300s' });
      const pods = [upstreamPod('p', 'n0', { owner: null, labels: { test: 'value' } })];
      const blocking = compilePdb({ metadata: { name: 'pdb', namespace: 'default' }, spec: { selector: { matchLabels: { test: 'value' } }, maxUnavailable: 0 } });
      const { decision: d } = firstCommand(input([node('n0', { p })], pods, { pools: [p], pdbs: [blocking] }));
      assert.equal(d?.replacements.length ?? 0, 0);
    });
    it('upstream: "should not drift nodes with pods that have a duration-based do-not-disrupt annotation that is still active"', () => {
      const nodes = [node('n0')];
      const pods = [upstreamPod('p', 'n0', dnd('2m'))];
      assert.equal(firstCommand(input(nodes, pods)).decision, undefined);
      assert.deepEqual(driftCmd(firstCommand(input(nodes, pods, { nowMs: NOW + 3 * 60_000 })).decision), { kind: 'replace', nodes: ['n0'], replacements: 1, reason: 'Drifted' });
    });
    it('upstream: "should drift nodes with pods that have an invalid do-not-disrupt annotation format"', () => {
      const nodes = [node('n0'), node('n1', { drift: false })];
      const pods = [upstreamPod('p', 'n0', { annotations: { 'karpenter.sh/do-not-disrupt': 'invalid-format' } })];
      assert.deepEqual(driftCmd(firstCommand(input(nodes, pods)).decision), { kind: 'delete', nodes: ['n0'], replacements: 0, reason: 'Drifted' });
    });
    it('upstream: "should not drift nodes until the longest duration-based do-not-disrupt grace period expires across multiple pods"', () => {
      const nodes = [node('n0')];
      const pods = [upstreamPod('p1', 'n0', dnd('1m')), upstreamPod('p2', 'n0', dnd('3m'))];
      assert.equal(firstCommand(input(nodes, pods)).decision, undefined);
      assert.equal(firstCommand(input(nodes, pods, { nowMs: NOW + 2 * 60_000 })).decision, undefined);
      assert.deepEqual(driftCmd(firstCommand(input(nodes, pods, { nowMs: NOW + 4 * 60_000 })).decision), { kind: 'replace', nodes: ['n0'], replacements: 1, reason: 'Drifted' });
    });
    it('upstream: "should replace drifted nodes"', () => {
      assert.deepEqual(driftCmd(firstCommand(input([node('n0')], [upstreamPod('p', 'n0')])).decision), { kind: 'replace', nodes: ['n0'], replacements: 1, reason: 'Drifted' });
    });
    it('upstream: "should delete drifted nodes"', () => {
      const nodes = [node('n0'), node('n1', { drift: false })];
      assert.deepEqual(driftCmd(firstCommand(input(nodes, [upstreamPod('p', 'n0')])).decision), { kind: 'delete', nodes: ['n0'], replacements: 0, reason: 'Drifted' });
    });
    it('upstream: "should delete drifted nodes when they are empty and consolidation is disabled"', () => {
      const p = upstreamPool({ disruption: { consolidateAfter: 'Never' } });
      assert.deepEqual(driftCmd(firstCommand(input([node('n0', { p })], [], { pools: [p] })).decision), { kind: 'delete', nodes: ['n0'], replacements: 0, reason: 'Drifted' });
    });
    it('upstream: "should delete drifted nodes when they are empty and consolidatable"', () => {
      // Consolidatable: no pod event for longer than consolidateAfter. Emptiness or drift, the empty node goes.
      const { decision: d } = firstCommand(input([node('n0')], [], { lastPodEventMs: new Map([['n0', NOW - 2 * 3_600_000]]) }));
      assert.deepEqual([d?.kind, d?.nodes, d?.replacements.length], ['delete', ['n0'], 0]);
    });
    it('upstream: "can replace drifted nodes with multiple nodes"', () => {
      const offering = { zone: 'test-zone-1a', capacityType: 'on-demand' as const };
      const types = [fakeType('current-on-demand', { offerings: [{ ...offering, price: 0.5, available: false }] }), fakeType('replacement-on-demand', { cpu: 3, offerings: [{ ...offering, price: 0.3 }] })];
      const n = upstreamNode('n0', pool, 'current-on-demand', { types, cpu: 8, annotations: drifted });
      const pods = [0, 1, 2].map((i) => upstreamPod(`p${i}`, 'n0', { cpu: '2' }));
      const { decision: d } = firstCommand(upstreamInput(clusterWith([n], pods), [pool], { types, lastPodEventMs: new Map([['n0', NOW]]) }));
      assert.deepEqual(driftCmd(d), { kind: 'replace', nodes: ['n0'], replacements: 3, reason: 'Drifted' });
    });
  });
});

describe('suite_test.go BuildDisruptionBudgetMapping', () => {
  // Ten initialized nodes of the most expensive type, a 100% budget unless given; each reason's remaining disruptions.
  const pool = upstreamPool();
  const ten = Array.from({ length: 10 }, (_, i) => upstreamNode(`n${i}`, pool, MOST_EXPENSIVE));
  const remaining = (nodes: readonly Node[], o: Partial<DisruptionInput> = {}, p = pool) =>
    (['Empty', 'Underutilized', 'Drifted'] as const).map((reason) => remainingDisruptions({ cluster: clusterWith(nodes, []), pools: [p], nowMs: NOW, ...o }, reason).get(p.name));
  it('upstream: "should not consider nodes that are not managed as part of disruption count"', () => {
    const unmanaged: Node = { ...ten[0]!, name: 'unmanaged', labels: { 'kubernetes.io/hostname': 'unmanaged' } };
    assert.deepEqual(remaining([...ten, unmanaged]), [10, 10, 10]);
  });
  it('upstream: "should not consider nodes that are not initialized as part of disruption count"', () => {
    assert.deepEqual(remaining([...ten, upstreamNode('booting', pool, MOST_EXPENSIVE)], { initializing: new Set(['booting']) }), [10, 10, 10]);
  });
  it('upstream: "should not return a negative disruption value"', () => {
    const tenPercent = upstreamPool({ disruption: { budgets: [{ nodes: '10%' }] } });
    assert.deepEqual(remaining(ten, { disrupting: new Set(ten.map((n) => n.name)) }, tenPercent), [0, 0, 0]);
  });
  it('upstream: "should consider nodes with a deletion timestamp set and MarkedForDeletion to the disruption count"', () => {
    assert.deepEqual(remaining(ten, { disrupting: new Set(['n0', 'n1']) }), [8, 8, 8]);
  });
  it('upstream: "should consider not ready nodes to the disruption count"', () => {
    assert.deepEqual(remaining(ten, { notReady: new Set(['n0', 'n1']) }), [8, 8, 8]);
  });
});
