import assert from 'node:assert/strict';
import { compilePdb } from '../model/pdb.js';
import { describe, it } from 'node:test';

import { ClusterState } from '../cluster/state.js';
import type { Pod } from '../model/pod.js';
import { Rand } from '../model/rand.js';
import { ERR_DB_PRESENT, filtered, harness, mkNode, mkPdb, mkPod, type Setup } from '../../test/fixtures/preemption-harness.js';
import {
  ERR_NO_VICTIMS,
  Evaluator,
  lowerPriorityNominatedPods,
  moreImportantPod,
  numCandidates,
  pdbBudgets,
  pickOneNodeForPreemption,
  splitByPdbViolation,
  type Candidate,
  type PdbBudget,
} from './preemption.js';
import { Code } from './status.js';

const names = (pods: readonly Pod[]) => pods.map((p) => p.name);

describe('moreImportantPod', () => {
  const cases = [
    { name: 'higher priority wins', a: mkPod('a', { priority: 5 }), b: mkPod('b', { priority: 1 }), want: true },
    { name: 'lower priority loses', a: mkPod('a', { priority: 1 }), b: mkPod('b', { priority: 5 }), want: false },
    { name: 'equal priority: the one that started earlier', a: mkPod('a', { created: '2024-01-01T00:00:00Z' }), b: mkPod('b', { created: '2024-01-02T00:00:00Z' }), want: true },
    { name: 'equal priority: the later one is less important', a: mkPod('a', { created: '2024-01-02T00:00:00Z' }), b: mkPod('b', { created: '2024-01-01T00:00:00Z' }), want: false },
    { name: 'equal priority and start: neither', a: mkPod('a', { created: '2024-01-01T00:00:00Z' }), b: mkPod('b', { created: '2024-01-01T00:00:00Z' }), want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(moreImportantPod(c.a, c.b), c.want));
});

describe('numCandidates', () => {
  const cases = [
    { name: 'small cluster: every node', nodes: 5, pct: 10, abs: 100, want: 5 },
    { name: 'absolute minimum dominates', nodes: 500, pct: 10, abs: 100, want: 100 },
    { name: 'percentage dominates', nodes: 5000, pct: 10, abs: 100, want: 500 },
    { name: 'percentage truncates', nodes: 1005, pct: 35, abs: 0, want: 351 },
    { name: 'zero percentage uses the absolute', nodes: 10, pct: 0, abs: 3, want: 3 },
    { name: 'zero absolute can give zero', nodes: 5, pct: 10, abs: 0, want: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(numCandidates(c.nodes, { minCandidateNodesPercentage: c.pct, minCandidateNodesAbsolute: c.abs }), c.want));
  }
});

describe('splitByPdbViolation', () => {
  const web = (name: string, ns = 'default') => mkPod(name, { ns, labels: { app: 'web' } });
  const budget = (allowed: number, spec: Parameters<typeof mkPdb>[1] = { matchLabels: { app: 'web' } }): PdbBudget => ({ pdb: mkPdb('pdb', spec), disruptionsAllowed: allowed });
  const cases: { name: string; pods: Pod[]; budgets: PdbBudget[]; violating: string[] }[] = [
    { name: 'budget spent in order: the second pod violates', pods: [web('a'), web('b')], budgets: [budget(1)], violating: ['b'] },
    { name: 'no budget left: every matching pod violates', pods: [web('a'), web('b')], budgets: [budget(0)], violating: ['a', 'b'] },
    { name: 'pods without labels never violate', pods: [mkPod('bare')], budgets: [budget(0, { matchLabels: {} })], violating: [] },
    { name: 'other namespaces do not count', pods: [web('a', 'other')], budgets: [budget(0)], violating: [] },
    { name: 'an empty selector matches nothing here', pods: [web('a')], budgets: [budget(0, { matchLabels: {} })], violating: [] },
    { name: 'a null selector matches nothing', pods: [web('a')], budgets: [budget(0, { matchLabels: null })], violating: [] },
    { name: 'non-matching labels do not count', pods: [mkPod('db', { labels: { app: 'db' } })], budgets: [budget(0)], violating: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { violating, nonViolating } = splitByPdbViolation(c.pods, c.budgets);
      assert.deepEqual(names(violating), c.violating);
      assert.equal(violating.length + nonViolating.length, c.pods.length);
    });
  }
});

describe('pdbBudgets', () => {
  const cases = [
    { name: 'status.disruptionsAllowed is taken as is', pdb: mkPdb('p', { matchLabels: { app: 'web' }, minAvailable: 0, allowed: 0 }), want: 0 },
    { name: 'computed: healthy minus minAvailable', pdb: mkPdb('p', { matchLabels: { app: 'web' }, minAvailable: 1 }), want: 1 },
    { name: 'computed: never below zero', pdb: mkPdb('p', { matchLabels: { app: 'web' }, minAvailable: 5 }), want: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cluster = new ClusterState();
      cluster.addNode(mkNode('n1', { cpu: '10' }));
      // Two Running pods; a pending one and a terminating one match but are not healthy.
      cluster.addPod(mkPod('r1', { node: 'n1', labels: { app: 'web' } }));
      cluster.addPod(mkPod('r2', { node: 'n1', labels: { app: 'web' } }));
      cluster.addPod(mkPod('pending', { labels: { app: 'web' } }));
      cluster.addPod(mkPod('dying', { node: 'n1', labels: { app: 'web' }, terminating: true }));
      cluster.pdbs = [c.pdb];
      assert.equal(pdbBudgets(cluster)[0]!.disruptionsAllowed, c.want);
    });
  }
});

describe('pickOneNodeForPreemption', () => {
  const cand = (name: string, numPDBViolations: number, pods: Pod[]): Candidate => ({ name, victims: { pods, numPDBViolations } });
  const p = (priority: number, created?: string) => mkPod(`p${priority}`, { priority, ...(created ? { created } : {}) });
  const cases: { name: string; candidates: Candidate[]; want: string }[] = [
    { name: 'fewest PDB violations', candidates: [cand('a', 2, [p(1)]), cand('b', 1, [p(9)])], want: 'b' },
    { name: 'lowest highest-priority victim', candidates: [cand('a', 0, [p(5)]), cand('b', 0, [p(3), p(2), p(1)])], want: 'b' },
    { name: 'smallest priority sum', candidates: [cand('a', 0, [p(5), p(4)]), cand('b', 0, [p(5), p(1)])], want: 'b' },
    { name: 'negative priorities still add cost', candidates: [cand('a', 0, [p(-5), p(-5)]), cand('b', 0, [p(-5)])], want: 'b' },
    // Equal shifted sums: 5 + 2·(-2^30) + 3·2^31 = 5 + 0 + 2·2^31.
    { name: 'fewest victims', candidates: [cand('a', 0, [p(5), p(-(2 ** 30)), p(-(2 ** 30))]), cand('b', 0, [p(5), p(0)])], want: 'b' },
    {
      name: 'latest start among the highest-priority victims',
      candidates: [cand('a', 0, [p(5, '2024-01-01T00:00:00Z'), p(1, '2024-09-01T00:00:00Z')]), cand('b', 0, [p(5, '2024-02-01T00:00:00Z'), p(1, '2023-01-01T00:00:00Z')])],
      want: 'b',
    },
    { name: 'complete tie: the first candidate', candidates: [cand('a', 0, [p(5, '2024-01-01T00:00:00Z')]), cand('b', 0, [p(5, '2024-01-01T00:00:00Z')])], want: 'a' },
    { name: 'no candidates', candidates: [], want: '' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(pickOneNodeForPreemption(c.candidates), c.want));
});

/** Runs a full scheduling attempt for `preemptor` and returns what DefaultPreemption decided. */
function preempt(setup: Setup, preemptor: Pod) {
  const h = harness({ ...setup, pods: [...(setup.pods ?? []), preemptor] });
  const outcome = h.scheduler.schedulePod(preemptor);
  assert.equal(outcome.kind, 'unschedulable');
  if (outcome.kind !== 'unschedulable') throw new Error('unreachable');
  return { node: outcome.preemption?.nominatedNodeName ?? '', victims: names(outcome.preemption?.victims ?? []), message: outcome.message };
}

describe('victim selection and node choice', () => {
  const cases: { name: string; setup: Setup; preemptor: Pod; node: string; victims: string[] }[] = [
    {
      name: 'a high-priority pod preempts the lowest-priority pod on a full node',
      setup: { nodes: [mkNode('n1')], pods: [mkPod('low', { node: 'n1', priority: 1 }), mkPod('mid', { node: 'n1', priority: 5 })] },
      preemptor: mkPod('hi', { priority: 10 }),
      node: 'n1',
      victims: ['low'],
    },
    {
      name: 'evicts as many as needed, most important first',
      setup: { nodes: [mkNode('n1')], pods: [mkPod('low', { node: 'n1', priority: 1 }), mkPod('mid', { node: 'n1', priority: 5 })] },
      preemptor: mkPod('hi', { priority: 10, cpu: '2' }),
      node: 'n1',
      victims: ['mid', 'low'],
    },
    {
      name: 'equal priority: the pod that started earlier is reprieved',
      setup: {
        nodes: [mkNode('n1')],
        pods: [mkPod('young', { node: 'n1', priority: 1, created: '2024-05-01T00:00:00Z' }), mkPod('old', { node: 'n1', priority: 1, created: '2024-01-01T00:00:00Z' })],
      },
      preemptor: mkPod('hi', { priority: 10 }),
      node: 'n1',
      victims: ['young'],
    },
    {
      name: 'pods of equal priority are never victims',
      setup: { nodes: [mkNode('n1')], pods: [mkPod('same', { node: 'n1', priority: 10 }), mkPod('low', { node: 'n1', priority: 1 })] },
      preemptor: mkPod('hi', { priority: 10, cpu: '2' }),
      node: '',
      victims: [],
    },
    {
      name: 'PDB-protected pods are reprieved before others',
      setup: {
        nodes: [mkNode('n1')],
        pods: [mkPod('protected', { node: 'n1', priority: 1, labels: { app: 'web' } }), mkPod('free', { node: 'n1', priority: 5 })],
        pdbs: [mkPdb('web', { matchLabels: { app: 'web' }, allowed: 0 })],
      },
      preemptor: mkPod('hi', { priority: 10 }),
      node: 'n1',
      victims: ['free'],
    },
    {
      // FilterVictimsWithPDBViolation skips a PDB whose selector LabelSelectorAsSelector refuses (a stored legacy value).
      name: 'a PDB whose selector has a legacy label value protects no pod',
      setup: {
        nodes: [mkNode('n1')],
        pods: [mkPod('protected', { node: 'n1', priority: 1, labels: { app: 'web' } }), mkPod('free', { node: 'n1', priority: 5 })],
        // Parsed leniently, NotIn "bad value!" would select the protected pod.
        pdbs: [compilePdb({ metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['bad value!'] }] } }, status: { disruptionsAllowed: 0 } })],
      },
      preemptor: mkPod('hi', { priority: 10 }),
      node: 'n1',
      victims: ['protected'],
    },
    {
      name: 'the node with fewer PDB violations wins',
      setup: {
        nodes: [mkNode('n1', { cpu: '1' }), mkNode('n2', { cpu: '1' })],
        pods: [mkPod('protected', { node: 'n1', priority: 1, labels: { app: 'web' } }), mkPod('free', { node: 'n2', priority: 5 })],
        pdbs: [mkPdb('web', { matchLabels: { app: 'web' }, allowed: 0 })],
      },
      preemptor: mkPod('hi', { priority: 10 }),
      node: 'n2',
      victims: ['free'],
    },
    ...[
      { minAvailable: 1, node: 'n1', victims: ['web-low'] },
      { minAvailable: 2, node: 'n2', victims: ['free'] },
    ].map(({ minAvailable, node, victims }) => ({
      name: `a PDB computed from the cluster (minAvailable ${minAvailable} of 2 healthy)`,
      setup: {
        nodes: [mkNode('n1', { cpu: '2' }), mkNode('n2', { cpu: '1' })],
        pods: [
          mkPod('web-low', { node: 'n1', priority: 1, labels: { app: 'web' } }),
          mkPod('web-keep', { node: 'n1', priority: 100, labels: { app: 'web' } }),
          mkPod('free', { node: 'n2', priority: 5 }),
        ],
        pdbs: [mkPdb('web', { matchLabels: { app: 'web' }, minAvailable })],
      },
      preemptor: mkPod('hi', { priority: 10 }),
      node,
      victims,
    })),
    {
      name: 'the node whose victims have the lower priority wins',
      setup: { nodes: [mkNode('n1', { cpu: '1' }), mkNode('n2', { cpu: '1' })], pods: [mkPod('p5', { node: 'n1', priority: 5 }), mkPod('p3', { node: 'n2', priority: 3 })] },
      preemptor: mkPod('hi', { priority: 10 }),
      node: 'n2',
      victims: ['p3'],
    },
    {
      name: 'UnschedulableAndUnresolvable nodes are not candidates',
      setup: {
        nodes: [mkNode('n1', { cpu: '1', zone: 'b' }), mkNode('n2', { cpu: '1', zone: 'a' })],
        pods: [mkPod('cheap', { node: 'n1', priority: 0 }), mkPod('dear', { node: 'n2', priority: 8 })],
      },
      preemptor: mkPod('hi', { priority: 10, nodeSelector: { 'topology.kubernetes.io/zone': 'a' } }),
      node: 'n2',
      victims: ['dear'],
    },
    {
      name: 'PreFilter extensions see victims removed and re-added',
      setup: { nodes: [mkNode('n1', { cpu: '4' })], pods: [mkPod('old-db', { node: 'n1', priority: 1, labels: { app: 'db' } }), mkPod('other', { node: 'n1', priority: 1 })] },
      preemptor: mkPod('new-db', { priority: 10, labels: { app: 'db' } }),
      node: 'n1',
      victims: ['old-db'],
    },
    {
      name: 'nominated pods of higher priority keep their room',
      setup: {
        nodes: [mkNode('n1', { cpu: '2' }), mkNode('n2', { cpu: '2' })],
        pods: [mkPod('a1', { node: 'n1', priority: 1 }), mkPod('a2', { node: 'n1', priority: 1 }), mkPod('b1', { node: 'n2', priority: 2 }), mkPod('b2', { node: 'n2', priority: 2 })],
        nominated: { n1: [mkPod('waiting', { priority: 20, cpu: '2' })] },
      },
      preemptor: mkPod('hi', { priority: 10 }),
      node: 'n2',
      victims: ['b2'],
    },
    {
      name: 'nominated pods of lower priority are ignored',
      setup: {
        nodes: [mkNode('n1', { cpu: '2' }), mkNode('n2', { cpu: '2' })],
        pods: [mkPod('a1', { node: 'n1', priority: 1 }), mkPod('a2', { node: 'n1', priority: 1 }), mkPod('b1', { node: 'n2', priority: 2 }), mkPod('b2', { node: 'n2', priority: 2 })],
        nominated: { n1: [mkPod('waiting', { priority: 3, cpu: '2' })] },
      },
      preemptor: mkPod('hi', { priority: 10 }),
      node: 'n1',
      victims: ['a2'],
    },
    {
      name: 'terminating pods still count as victims (upstream evaluates them too)',
      setup: { nodes: [mkNode('n1', { cpu: '1' })], pods: [mkPod('dying', { node: 'n1', priority: 1, terminating: true })] },
      preemptor: mkPod('hi', { priority: 10 }),
      node: 'n1',
      victims: ['dying'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = preempt(c.setup, c.preemptor);
      assert.deepEqual({ node: got.node, victims: got.victims }, { node: c.node, victims: c.victims });
    });
  }

  it('without the PreFilter extensions the db pod could not be placed (control)', () => {
    const h = harness({ nodes: [mkNode('n1', { cpu: '4' })], pods: [mkPod('old-db', { node: 'n1', priority: 1, labels: { app: 'db' } })] });
    const { statuses } = filtered(h, mkPod('new-db', { priority: 10, labels: { app: 'db' } }));
    assert.deepEqual(statuses.get('n1').reasons, [ERR_DB_PRESENT]);
  });
});

describe('selectVictimsOnNode', () => {
  it('reports no victims as UnschedulableAndUnresolvable', () => {
    const h = harness({ nodes: [mkNode('n1')], pods: [mkPod('same', { node: 'n1', priority: 10 })] });
    const preemptor = mkPod('hi', { priority: 10, cpu: '2' });
    const { state } = filtered(h, preemptor);
    const ev = new Evaluator(h.handle, { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
    const r = ev.selectVictimsOnNode(state.clone(), preemptor, h.cluster.nodeInfo('n1')!.clone(), []);
    assert.equal(r.status.code, Code.UnschedulableAndUnresolvable);
    assert.deepEqual(r.status.reasons, [ERR_NO_VICTIMS]);
  });

  it('returns the filter status when the preemptor does not fit even with every victim gone', () => {
    const h = harness({ nodes: [mkNode('n1', { cpu: '1' })], pods: [mkPod('low', { node: 'n1', priority: 1 })] });
    const preemptor = mkPod('huge', { priority: 10, cpu: '3' });
    const { state } = filtered(h, preemptor);
    const ev = new Evaluator(h.handle, { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
    const r = ev.selectVictimsOnNode(state.clone(), preemptor, h.cluster.nodeInfo('n1')!.clone(), []);
    assert.equal(r.status.code, Code.Unschedulable);
    assert.deepEqual(r.status.reasons, ['Insufficient cpu']);
  });

  it('does not change the NodeInfo it was not given', () => {
    const h = harness({ nodes: [mkNode('n1')], pods: [mkPod('low', { node: 'n1', priority: 1 }), mkPod('low2', { node: 'n1', priority: 1 })] });
    const preemptor = mkPod('hi', { priority: 10 });
    h.scheduler.schedulePod(preemptor);
    assert.deepEqual(names(h.cluster.nodeInfo('n1')!.pods), ['low', 'low2']);
    assert.equal(h.cluster.nodeInfo('n1')!.requested.cpu, 2000);
  });

  it('counts a PDB violation when a protected pod has to go', () => {
    const h = harness({ nodes: [mkNode('n1', { cpu: '1' })], pods: [mkPod('protected', { node: 'n1', priority: 1, labels: { app: 'web' } })] });
    const preemptor = mkPod('hi', { priority: 10 });
    const { state } = filtered(h, preemptor);
    const ev = new Evaluator(h.handle, { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
    const budgets = [{ pdb: mkPdb('web', { matchLabels: { app: 'web' } }), disruptionsAllowed: 0 }];
    const r = ev.selectVictimsOnNode(state.clone(), preemptor, h.cluster.nodeInfo('n1')!.clone(), budgets);
    assert.deepEqual({ victims: names(r.victims), violations: r.numPDBViolations }, { victims: ['protected'], violations: 1 });
  });

  it('keeps the victims in importance order across the PDB and non-PDB passes', () => {
    const h = harness({
      nodes: [mkNode('n1', { cpu: '3' })],
      pods: [mkPod('free-low', { node: 'n1', priority: 1 }), mkPod('protected', { node: 'n1', priority: 3, labels: { app: 'web' } }), mkPod('free-high', { node: 'n1', priority: 5 })],
    });
    const preemptor = mkPod('hi', { priority: 10, cpu: '3' });
    const { state } = filtered(h, preemptor);
    const ev = new Evaluator(h.handle, { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
    const budgets = [{ pdb: mkPdb('web', { matchLabels: { app: 'web' } }), disruptionsAllowed: 0 }];
    const r = ev.selectVictimsOnNode(state.clone(), preemptor, h.cluster.nodeInfo('n1')!.clone(), budgets);
    assert.deepEqual({ victims: names(r.victims), violations: r.numPDBViolations }, { victims: ['free-high', 'protected', 'free-low'], violations: 1 });
  });
});

describe('dryRunPreemption', () => {
  // n1 and n2 hold a PDB-protected pod (violating candidates), n3 an unprotected one.
  const setup = (): Setup => ({
    nodes: [mkNode('n1', { cpu: '1' }), mkNode('n2', { cpu: '1' }), mkNode('n3', { cpu: '1' })],
    pods: [mkPod('w1', { node: 'n1', priority: 1, labels: { app: 'web' } }), mkPod('w2', { node: 'n2', priority: 1, labels: { app: 'web' } }), mkPod('f3', { node: 'n3', priority: 1 })],
  });
  const budgets = [{ pdb: mkPdb('web', { matchLabels: { app: 'web' } }), disruptionsAllowed: 0 }];
  const cases = [
    { name: 'keeps going until a non-violating candidate is found; violating ones are capped', offset: 0, num: 1, want: ['n3', 'n1'] },
    { name: 'starts at the offset and wraps round', offset: 2, num: 1, want: ['n3'] },
    { name: 'enough candidates stops the walk', offset: 2, num: 2, want: ['n3', 'n1'] },
    { name: 'a zero-sized window keeps nothing', offset: 0, num: 0, want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const h = harness(setup());
      const preemptor = mkPod('hi', { priority: 10 });
      const { state } = filtered(h, preemptor);
      const ev = new Evaluator(h.handle, { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
      const r = ev.dryRunPreemption(state, preemptor, h.cluster.nodeInfos(), () => budgets, c.offset, c.num);
      assert.deepEqual(
        r.candidates.map((x) => x.name),
        c.want,
      );
      assert.equal(r.nodeStatuses.size, 0);
    });
  }

  it('reads no PDB budgets when no node has a lower-priority pod, and marks every node as having no victims', () => {
    const h = harness(setup());
    const preemptor = mkPod('same', { priority: 1 });
    const { state } = filtered(h, preemptor);
    const ev = new Evaluator(h.handle, { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
    let read = 0;
    const r = ev.dryRunPreemption(state, preemptor, h.cluster.nodeInfos(), () => (read++, budgets), 0, 3);
    assert.deepEqual(
      { read, candidates: r.candidates.length, statuses: [...r.nodeStatuses.explicit].map(([n, st]) => `${n}: ${st.message()}`) },
      { read: 0, candidates: 0, statuses: ['n1: No preemption victims found for incoming pod', 'n2: No preemption victims found for incoming pod', 'n3: No preemption victims found for incoming pod'] },
    );
  });
});

describe('determinism', () => {
  const nodes = () => ['n1', 'n2', 'n3', 'n4', 'n5'].map((n) => mkNode(n, { cpu: '1' }));
  const pods = () => ['n1', 'n2', 'n3', 'n4', 'n5'].map((n) => mkPod(`v-${n}`, { node: n, priority: 1 }));
  // A one-node window: the seeded offset alone decides where to preempt.
  const args = { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 1 };
  const run = (seed: number) => preempt({ nodes: nodes(), pods: pods(), args, seed }, mkPod('hi', { priority: 10 })).node;

  for (const seed of [0, 1, 7, 42]) {
    it(`seed ${seed} picks the node at the seeded offset, every time`, () => {
      const want = `n${new Rand(seed).intn(5) + 1}`;
      assert.equal(run(seed), want);
      assert.equal(run(seed), want);
    });
  }

  it('different seeds spread over the nodes', () => {
    const picked = new Set(Array.from({ length: 20 }, (_, s) => run(s)));
    assert.ok(picked.size > 1, `every seed picked ${[...picked].join(',')}`);
  });
});

describe('lowerPriorityNominatedPods', () => {
  it('lists only the nominated pods below the preemptor priority', () => {
    const h = harness({ nodes: [mkNode('n1')], nominated: { n1: [mkPod('lo', { priority: 1 }), mkPod('eq', { priority: 10 }), mkPod('hi', { priority: 20 })] } });
    assert.deepEqual(names(lowerPriorityNominatedPods(h.handle, 10, 'n1')), ['lo']);
  });
});
