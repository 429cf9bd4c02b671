import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ClusterState } from '../cluster/state.js';
import type { NodeInfo } from '../cluster/node-info.js';
import { LABEL_ZONE } from '../model/node.js';
import type { Pod } from '../model/pod.js';
import { clusterOf, container, mkNode, mkPod } from '../../test/fixtures/plugin-harness.js';
import { Framework, type FilterPlugin, type Handle, type NodeScore, type ScorePlugin } from './framework.js';
import { newPrioritySort } from './plugins/priority-sort.js';
import { buildFramework, type ProfileConfig, type SchedulerConfig } from './profile.js';
import { numFeasibleNodesToFind, Scheduler, type ScheduleOutcome } from './scheduler.js';
import { Status } from './status.js';

const ERR_REASON_FAKE = 'Nodes failed the fake plugin';

// --- fake plugins of upstream's testing/framework and schedule_one_test.go ---

class CountingFilter implements FilterPlugin {
  calls = 0;
  constructor(
    readonly name: string,
    private readonly passes: (pod: Pod, node: NodeInfo) => boolean,
  ) {}
  filter(_s: unknown, pod: Pod, node: NodeInfo): Status {
    this.calls++;
    return this.passes(pod, node) ? Status.SUCCESS : Status.unschedulable(ERR_REASON_FAKE);
  }
}
const trueFilter = () => new CountingFilter('TrueFilter', () => true);
const falseFilter = () => new CountingFilter('FalseFilter', () => false);
/** Passes only the node named like the pod. */
const matchFilter = () => new CountingFilter('MatchFilter', (pod, node) => pod.name === node.node.name);
/** Passes only nodes without pods. */
const noPodsFilter = () => new CountingFilter('NoPodsFilter', (_pod, node) => node.pods.length === 0);

class CountingScore implements ScorePlugin {
  calls = 0;
  constructor(
    readonly name: string,
    private readonly raw: (node: NodeInfo) => number,
    readonly normalizeScore?: (state: unknown, pod: Pod, scores: NodeScore[]) => void,
  ) {}
  score(_s: unknown, _p: Pod, node: NodeInfo): number {
    this.calls++;
    return this.raw(node);
  }
}
const equalPrioritizer = () => new CountingScore('EqualPrioritizerPlugin', () => 1);
const numericMap = () => new CountingScore('NumericMap', (n) => Number(n.node.name));
const reverseNumericMap = () =>
  new CountingScore('ReverseNumericMap', (n) => Number(n.node.name), (_s, _p, scores) => {
    const max = Math.max(0, ...scores.map((s) => s.score));
    const min = Math.min(...scores.map((s) => s.score));
    for (const s of scores) s.score = max + min - s.score;
  });

interface FakeProfile {
  readonly filters?: FilterPlugin[];
  readonly scores?: { plugin: ScorePlugin; weight: number }[];
  readonly percentage?: number;
}

function fakeScheduler(cluster: ClusterState, p: FakeProfile): Scheduler {
  return new Scheduler(cluster, (handle: Handle) => new Framework('default-scheduler', { queueSort: newPrioritySort({ handle, args: {} }) as never, preFilter: [], filter: p.filters ?? [], postFilter: [], preScore: [], score: p.scores ?? [] }, p.percentage ?? 0));
}

const namedNodes = (...names: string[]) => names.map((n) => mkNode(n));
const nodeList = (n: number, prefix = 'node') => Array.from({ length: n }, (_, i) => mkNode(`${prefix}${i}`));

function scheduled(o: ScheduleOutcome): Extract<ScheduleOutcome, { kind: 'scheduled' }> {
  assert.equal(o.kind, 'scheduled', o.kind === 'unschedulable' ? o.message : '');
  return o as Extract<ScheduleOutcome, { kind: 'scheduled' }>;
}

describe('numFeasibleNodesToFind (TestNumFeasibleNodesToFind)', () => {
  const cases = [
    { name: 'not set percentageOfNodesToScore and nodes number not more than 50', pct: 0, nodes: 10, want: 10 },
    { name: 'set profile percentageOfNodesToScore and nodes number not more than 50', pct: 40, nodes: 10, want: 10 },
    { name: 'not set percentageOfNodesToScore and nodes number more than 50', pct: 0, nodes: 1000, want: 420 },
    { name: 'set profile percentageOfNodesToScore and nodes number more than 50', pct: 40, nodes: 1000, want: 400 },
    { name: 'not set profile percentageOfNodesToScore and nodes number more than 50*125', pct: 0, nodes: 6000, want: 300 },
    { name: 'set profile percentageOfNodesToScore and nodes number more than 50*125', pct: 40, nodes: 6000, want: 2400 },
    { name: 'a small percentage never goes below 100 nodes', pct: 5, nodes: 1000, want: 100 },
    { name: 'the adaptive percentage bottoms out at 5%', pct: 0, nodes: 100000, want: 5000 },
    { name: 'exactly 100 nodes use the percentage', pct: 0, nodes: 100, want: 100 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(numFeasibleNodesToFind(c.pct, c.nodes), c.want));

  it('the profile value wins over the global one (set global and profile percentageOfNodesToScore)', () => {
    const cluster = clusterOf(nodeList(1000));
    const sched = new Scheduler(cluster, (h) => buildFramework({ percentageOfNodesToScore: 100 }, { percentageOfNodesToScore: 40 }, h));
    assert.equal(numFeasibleNodesToFind(sched.framework.percentageOfNodesToScore, 1000), 400);
  });
});

describe('schedulePod with fake plugins (TestSchedulerSchedulePod)', () => {
  const cases: { name: string; nodes: string[]; pod: Pod; existing?: Pod[]; profile: () => FakeProfile; wantNodes?: string[]; wantMessage?: string; evaluated?: number }[] = [
    { name: 'test 1: no node passes the filter', nodes: ['node1', 'node2'], pod: mkPod('2'), profile: () => ({ filters: [falseFilter()] }), wantMessage: `0/2 nodes are available: 2 ${ERR_REASON_FAKE}.` },
    { name: 'test 2: every node fits and scores the same', nodes: ['node1', 'node2'], pod: mkPod('ignore'), profile: () => ({ filters: [trueFilter()], scores: [{ plugin: equalPrioritizer(), weight: 1 }] }), wantNodes: ['node1', 'node2'], evaluated: 2 },
    { name: 'test 3: fits on a node where the pod name matches the node name', nodes: ['node1', 'node2'], pod: mkPod('node2'), profile: () => ({ filters: [matchFilter()] }), wantNodes: ['node2'] },
    { name: 'test 4: the highest score wins', nodes: ['3', '2', '1'], pod: mkPod('ignore'), profile: () => ({ filters: [trueFilter()], scores: [{ plugin: numericMap(), weight: 1 }] }), wantNodes: ['3'], evaluated: 3 },
    { name: 'test 5: one feasible node is taken without scoring', nodes: ['3', '2', '1'], pod: mkPod('2'), profile: () => ({ filters: [matchFilter()], scores: [{ plugin: numericMap(), weight: 1 }] }), wantNodes: ['2'], evaluated: 3 },
    {
      name: 'test 6: weights and normalization combine',
      nodes: ['3', '2', '1'],
      pod: mkPod('2'),
      profile: () => ({ filters: [trueFilter()], scores: [{ plugin: numericMap(), weight: 1 }, { plugin: reverseNumericMap(), weight: 2 }] }),
      wantNodes: ['1'],
    },
    {
      name: 'test 7: one failing filter rejects every node',
      nodes: ['3', '2', '1'],
      pod: mkPod('2'),
      profile: () => ({ filters: [trueFilter(), falseFilter()], scores: [{ plugin: numericMap(), weight: 1 }] }),
      wantMessage: `0/3 nodes are available: 3 ${ERR_REASON_FAKE}.`,
    },
    {
      name: 'test 8: the first failing filter names each node',
      nodes: ['1', '2'],
      pod: mkPod('2'),
      existing: [mkPod('2', { nodeName: '2' }, { namespace: 'other' })],
      profile: () => ({ filters: [noPodsFilter(), matchFilter()], scores: [{ plugin: numericMap(), weight: 1 }] }),
      wantMessage: `0/2 nodes are available: 2 ${ERR_REASON_FAKE}.`,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const sched = fakeScheduler(clusterOf(namedNodes(...c.nodes), c.existing ?? []), c.profile());
      const out = sched.schedulePod(c.pod);
      if (c.wantMessage) {
        assert.equal(out.kind, 'unschedulable');
        assert.equal(out.kind === 'unschedulable' && out.message, c.wantMessage);
        return;
      }
      const s = scheduled(out);
      assert.ok(c.wantNodes!.includes(s.node), s.node);
      if (c.evaluated !== undefined) assert.equal(s.evaluatedNodes, c.evaluated);
    });
  }

  it('test 8: statuses come from the first rejecting plugin per node', () => {
    const sched = fakeScheduler(clusterOf(namedNodes('1', '2'), [mkPod('x', { nodeName: '2' })]), { filters: [noPodsFilter(), matchFilter()] });
    const out = sched.schedulePod(mkPod('2'));
    assert.ok(out.kind === 'unschedulable' && out.diagnosis);
    if (out.kind !== 'unschedulable' || !out.diagnosis) return;
    assert.equal(out.diagnosis.nodeToStatus.get('1').plugin, 'MatchFilter');
    assert.equal(out.diagnosis.nodeToStatus.get('2').plugin, 'NoPodsFilter');
    assert.deepEqual([...out.diagnosis.unschedulablePlugins].sort(), ['MatchFilter', 'NoPodsFilter']);
  });

  it('no nodes at all: unschedulable, and any nomination is cleared', () => {
    const out = fakeScheduler(new ClusterState(), { filters: [trueFilter()] }).schedulePod(mkPod('p'));
    assert.deepEqual(out, { kind: 'unschedulable', message: 'no nodes available to schedule pods', clearsNomination: true });
  });
});

describe('round-robin start index (TestFairEvaluationForNodes)', () => {
  it('advances by the nodes processed, wrapping around, over more than two passes', () => {
    const numAllNodes = 500;
    const sched = fakeScheduler(clusterOf(nodeList(numAllNodes)), { filters: [trueFilter()], scores: [{ plugin: equalPrioritizer(), weight: 1 }], percentage: 30 });
    // 30% of 500 = 150, so 500 % 150 != 0 and the start index wraps unevenly.
    const nodesToFind = numFeasibleNodesToFind(sched.framework.percentageOfNodesToScore, numAllNodes);
    assert.equal(nodesToFind, 150);
    for (let i = 0; i < 2 * (Math.trunc(numAllNodes / nodesToFind) + 1); i++) {
      const s = scheduled(sched.schedulePod(mkPod(`p${i}`)));
      assert.equal(s.feasibleNodes, nodesToFind);
      assert.equal(sched.nextStartNodeIndex, ((i + 1) * nodesToFind) % numAllNodes);
    }
  });

  it('the search starts at the index left by the previous pod', () => {
    const filter = trueFilter();
    const sched = fakeScheduler(clusterOf(nodeList(300)), { filters: [filter], scores: [{ plugin: equalPrioritizer(), weight: 1 }], percentage: 10 });
    scheduled(sched.schedulePod(mkPod('a')));
    assert.equal(sched.nextStartNodeIndex, 100);
    const s = scheduled(sched.schedulePod(mkPod('b')));
    // Equal scores: the heap root is the first feasible node found, node100.
    assert.equal(s.node, 'node100');
    assert.equal(sched.nextStartNodeIndex, 200);
  });

  it('rejected nodes count as processed too', () => {
    // Odd-numbered nodes fail; 10 nodes are all examined (fewer than 100), 5 fail.
    const odd = new CountingFilter('EvenOnly', (_p, n) => Number(n.node.name.slice(4)) % 2 === 0);
    const sched = fakeScheduler(clusterOf(nodeList(10)), { filters: [odd], scores: [{ plugin: equalPrioritizer(), weight: 1 }] });
    sched.nextStartNodeIndex = 3;
    const s = scheduled(sched.schedulePod(mkPod('p')));
    assert.equal(s.evaluatedNodes, 10);
    assert.equal(s.node, 'node4');
    assert.equal(sched.nextStartNodeIndex, 3);
  });

  it('without score plugins one feasible node is enough', () => {
    const filter = trueFilter();
    const sched = fakeScheduler(clusterOf(nodeList(5)), { filters: [filter] });
    const s = scheduled(sched.schedulePod(mkPod('p')));
    // The search runs on to the next feasible node (dropped), as upstream with parallelism 1 does.
    assert.deepEqual([s.node, s.feasibleNodes, filter.calls, sched.nextStartNodeIndex], ['node0', 1, 2, 1]);
    assert.equal(scheduled(sched.schedulePod(mkPod('q'))).node, 'node1');
  });

  it('without filter plugins nodes are taken in order from the start index', () => {
    const sched = fakeScheduler(clusterOf(nodeList(4)), { scores: [{ plugin: numericMap(), weight: 1 }] });
    sched.nextStartNodeIndex = 2;
    const s = scheduled(sched.schedulePod(mkPod('p')));
    assert.deepEqual(s.scores?.map((x) => x.name), ['node2', 'node3', 'node0', 'node1']);
  });
});

describe('single feasible node shortcut', () => {
  it('skips PreScore and Score and reports every node evaluated', () => {
    const scorer = numericMap();
    const sched = fakeScheduler(clusterOf(namedNodes('1', '2', '3')), { filters: [matchFilter()], scores: [{ plugin: scorer, weight: 1 }] });
    const s = scheduled(sched.schedulePod(mkPod('2')));
    assert.equal(s.node, '2');
    assert.equal(s.feasibleNodes, 1);
    assert.equal(s.evaluatedNodes, 3);
    assert.equal(s.scores, undefined);
    assert.equal(scorer.calls, 0);
  });

  it('with the default profile: one node fits the selector, no scores are computed', () => {
    const cluster = clusterOf([mkNode('a', { alloc: { cpu: '4', memory: '8Gi' } }), mkNode('b', { alloc: { cpu: '4', memory: '8Gi' }, labels: { disk: 'ssd' } }), mkNode('c', { alloc: { cpu: '4', memory: '8Gi' } })]);
    const sched = new Scheduler(cluster, (h) => buildFramework({}, {}, h));
    const s = scheduled(sched.schedulePod(mkPod('p', { nodeSelector: { disk: 'ssd' }, containers: [container({ cpu: '1' })] })));
    assert.deepEqual([s.node, s.feasibleNodes, s.evaluatedNodes, s.scores], ['b', 1, 3, undefined]);
  });
});

describe('percentageOfNodesToScore limits the feasible set (default profile, 300 nodes)', () => {
  const cases: { name: string; config: SchedulerConfig; profile: ProfileConfig; want: number }[] = [
    { name: 'adaptive: 50 - 300/125 = 48% of 300', config: {}, profile: {}, want: 144 },
    { name: 'global 10% is raised to the 100-node minimum', config: { percentageOfNodesToScore: 10 }, profile: {}, want: 100 },
    { name: 'profile 50% wins over global 10%', config: { percentageOfNodesToScore: 10 }, profile: { percentageOfNodesToScore: 50 }, want: 150 },
    { name: '100% scores every node', config: { percentageOfNodesToScore: 100 }, profile: {}, want: 300 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const zones = ['a', 'b', 'c'];
      const nodes = Array.from({ length: 300 }, (_, i) => mkNode(`n${i}`, { alloc: { cpu: '8', memory: '32Gi' }, labels: { [LABEL_ZONE]: zones[i % 3]! } }));
      const sched = new Scheduler(clusterOf(nodes), (h) => buildFramework(c.config, c.profile, h));
      const s = scheduled(sched.schedulePod(mkPod('p', { containers: [container({ cpu: '1', memory: '1Gi' })] })));
      assert.equal(s.feasibleNodes, c.want);
      assert.equal(s.evaluatedNodes, c.want);
      assert.equal(s.scores?.length, c.want);
      assert.equal(sched.nextStartNodeIndex, c.want % 300);
    });
  }

  it('the cut-off counts feasible nodes only; rejected ones are examined on top', () => {
    // Every third node is cordoned: 100 feasible nodes are needed (10% of 300 → minimum 100).
    const nodes = Array.from({ length: 300 }, (_, i) => mkNode(`n${i}`, { alloc: { cpu: '8', memory: '32Gi' }, unschedulable: i % 3 === 0 }));
    const sched = new Scheduler(clusterOf(nodes), (h) => buildFramework({ percentageOfNodesToScore: 10 }, {}, h));
    const s = scheduled(sched.schedulePod(mkPod('p', { containers: [container({ cpu: '1' })] })));
    assert.equal(s.feasibleNodes, 100);
    // n0..n149 hold 50 cordoned + 100 feasible nodes; like upstream with parallelism 1
    // the search goes on to the next feasible node (n151, dropped), so cordoned n150 counts too.
    assert.equal(s.evaluatedNodes, 151);
    assert.equal(sched.nextStartNodeIndex, 151);
  });
});

describe('nominated node first (TestPreferNominatedNodeFilterCallCounts)', () => {
  const cases: { name: string; pod: Pod; failing?: string; want: number }[] = [
    { name: 'pod has the nominated node set, filter is called only once', pod: mkPod('p_with_nominated_node', { priority: 1000 }, {}, { nominatedNodeName: 'node1' }), want: 1 },
    { name: 'pod without the nominated pod, filter is called for each node', pod: mkPod('p_without_nominated_node', { priority: 1000 }), want: 3 },
    { name: 'nominated pod cannot pass the filter, filter is called for each node', pod: mkPod('p_with_nominated_node', { priority: 1000 }, {}, { nominatedNodeName: 'node1' }), failing: 'node1', want: 4 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const filter = new CountingFilter('FakeFilter', (_p, n) => n.node.name !== c.failing);
      const sched = fakeScheduler(clusterOf(namedNodes('node1', 'node2', 'node3')), { filters: [filter], scores: [{ plugin: equalPrioritizer(), weight: 1 }] });
      sched.schedulePod(c.pod);
      assert.equal(filter.calls, c.want);
    });
  }

  const defaultNodes = () => [mkNode('node1', { alloc: { cpu: '4', memory: '8Gi' } }), mkNode('node2', { alloc: { cpu: '4', memory: '8Gi' }, images: [{ names: ['big:latest'], sizeBytes: 900 * 1024 * 1024 }] })];

  it('a fitting nominated node is taken without scoring, even if another node would score higher', () => {
    const sched = new Scheduler(clusterOf(defaultNodes()), (h) => buildFramework({}, {}, h));
    const spec = { containers: [container({ cpu: '1' }, { image: 'big' })] };
    assert.equal(scheduled(sched.schedulePod(mkPod('free', spec))).node, 'node2');
    sched.nextStartNodeIndex = 1;
    const s = scheduled(sched.schedulePod(mkPod('nominated', spec, {}, { nominatedNodeName: 'node1' })));
    assert.deepEqual([s.node, s.feasibleNodes, s.evaluatedNodes, s.scores], ['node1', 1, 1, undefined]);
    // The nominated path returns before the round-robin index moves.
    assert.equal(sched.nextStartNodeIndex, 1);
  });

  it('a nominated node that no longer fits falls back to all nodes; its rejection is counted', () => {
    const sched = new Scheduler(clusterOf(defaultNodes()), (h) => buildFramework({}, {}, h));
    const s = scheduled(sched.schedulePod(mkPod('big', { containers: [container({ cpu: '3' })], nodeSelector: { [`kubernetes.io/hostname`]: 'node2' } }, {}, { nominatedNodeName: 'node1' })));
    assert.equal(s.node, 'node2');
    // node1 rejected twice (nominated attempt, then the full pass) but kept once; node2 fits.
    assert.equal(s.evaluatedNodes, 2);
  });

  it('the absent nodes of a PreFilterResult name the plugins that rejected the nominated node too', () => {
    // The absent status formats the diagnosis' plugin set, which the nominated-node pass already added to.
    const cluster = clusterOf([mkNode('node1'), mkNode('node2', { unschedulable: true })]);
    const sched = new Scheduler(cluster, (h) => buildFramework({}, {}, h));
    const onlyNode2 = { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In' as const, values: ['node2'] }] }] } };
    const out = sched.schedulePod(mkPod('p', { affinity: { nodeAffinity: onlyNode2 } }, {}, { nominatedNodeName: 'node2' }));
    assert.equal(out.kind, 'unschedulable');
    assert.equal(
      out.kind === 'unschedulable' && out.message,
      "0/2 nodes are available: 1 node(s) didn't satisfy plugin(s) [NodeAffinity NodeUnschedulable], 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    );
  });

  it('a nomination recorded on the scheduler is used like status.nominatedNodeName', () => {
    const filter = trueFilter();
    const sched = fakeScheduler(clusterOf(namedNodes('node1', 'node2', 'node3')), { filters: [filter], scores: [{ plugin: equalPrioritizer(), weight: 1 }] });
    const pod = mkPod('p');
    sched.nominate(pod, 'node3');
    assert.equal(scheduled(sched.schedulePod(pod)).node, 'node3');
    assert.equal(filter.calls, 1);
  });

  it('pods nominated with equal or higher priority hold their room on the node; lower ones do not', () => {
    const cluster = clusterOf([mkNode('node1', { alloc: { cpu: '4', memory: '8Gi' } }), mkNode('node2', { alloc: { cpu: '2', memory: '8Gi' } })]);
    const sched = new Scheduler(cluster, (h) => buildFramework({}, {}, h));
    const holder = mkPod('holder', { priority: 100, containers: [container({ cpu: '3' })] });
    sched.nominate(holder, 'node1');
    // LeastAllocated would prefer the empty 4-cpu node1; the nominated pod's 3 cpu push the pod to node2.
    const low = scheduled(sched.schedulePod(mkPod('low', { priority: 10, containers: [container({ cpu: '2' })] })));
    assert.equal(low.node, 'node2');
    const high = scheduled(sched.schedulePod(mkPod('high', { priority: 1000, containers: [container({ cpu: '2' })] })));
    assert.equal(high.node, 'node1');
  });
});
