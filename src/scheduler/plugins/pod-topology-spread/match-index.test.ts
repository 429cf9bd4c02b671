// The cluster's MatchIndex keeps matching-pod counts and domain totals up to date
// change by change. Every answer it gives must equal a count made from scratch,
// whatever changed in between: pods bound, deleted, relabeled, moved to another
// namespace or terminating, status updates, node labels, nodes added and removed,
// many changes on one node between reads (its pod log restarts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ClusterState } from '../../../cluster/state.js';
import { compileNode, LABEL_HOSTNAME, LABEL_ZONE } from '../../../model/node.js';
import { bindPod, compilePod, type Pod } from '../../../model/pod.js';
import { Rand } from '../../../model/rand.js';
import { compileLabelSelector, type LabelSelectorSpec } from '../../../model/selector.js';
import type { SpreadConstraint } from './constraints.js';
import { countMatchingPods } from './constraints.js';
import { domainCounts } from './domain-counts.js';
import { matchQuery, nodeMatchCount } from './match-counts.js';
import { keptMatches } from './match-index.js';

const RACK = 'example.com/rack';

const SELECTORS: LabelSelectorSpec[] = [
  { matchLabels: { app: 'a0' } },
  { matchExpressions: [{ key: 'app', operator: 'In', values: ['a0', 'a1'] }] },
  { matchLabels: { app: 'a1', tier: 't0' } },
  // Without an In requirement: checked against every change.
  { matchExpressions: [{ key: 'tier', operator: 'Exists', values: [] }] },
  { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['a0'] }] },
];

const constraint = (topologyKey: string, selector: LabelSelectorSpec): SpreadConstraint => ({
  maxSkew: 1,
  topologyKey,
  selector: compileLabelSelector(selector),
  minDomains: 1,
  honorNodeAffinity: false,
  honorNodeTaints: false,
});

/** Constraint sets as PreScore (system defaults, missing keys read as '') and PreFilter (every key required) ask them. */
const SETS: { keys: string[]; requireAll: boolean }[] = [
  { keys: [LABEL_HOSTNAME, LABEL_ZONE], requireAll: false },
  { keys: [RACK], requireAll: true },
  { keys: [LABEL_ZONE, RACK], requireAll: true },
];

function node(i: number, zone: string, rack: string | undefined) {
  return compileNode(
    { metadata: { name: `n${i}`, labels: { [LABEL_HOSTNAME]: `n${i}`, [LABEL_ZONE]: zone, ...(rack === undefined ? {} : { [RACK]: rack }) } }, status: { allocatable: { cpu: '8', memory: '8Gi', pods: '500' } } },
    i,
  );
}

function pod(name: string, rand: Rand, nodeName: string): Pod {
  const labels: Record<string, string> = { app: `a${rand.intn(3)}` };
  if (rand.intn(2) === 0) labels['tier'] = `t${rand.intn(2)}`;
  const terminating = rand.intn(8) === 0;
  const manifest = {
    metadata: { name, namespace: rand.intn(4) === 0 ? 'other' : 'default', labels, ...(terminating ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
    spec: { containers: [{ name: 'c' }] },
  };
  return bindPod(compilePod(manifest, { order: 0 }), nodeName);
}

/** What domainCounts must answer, counted from scratch. */
function fresh(cluster: ClusterState, c: SpreadConstraint, keys: readonly string[], requireAll: boolean, namespace: string): [string, number][] {
  const totals = new Map<string, number>();
  for (const info of cluster.nodeInfos()) {
    const labels = info.node.labels;
    if (requireAll && !keys.every((k) => Object.hasOwn(labels, k))) continue;
    const domain = labels[c.topologyKey] ?? '';
    totals.set(domain, (totals.get(domain) ?? 0) + countMatchingPods(info.pods, c.selector, namespace));
  }
  return [...totals];
}

/** A pod of app `app` in the default namespace, not terminating. */
const labeled = (name: string, app: string, nodeName: string): Pod => ({ ...pod(name, new Rand(1), nodeName), labels: { app }, namespace: 'default', terminating: false });

/** Six nodes in three zones and two racks with 60 random pods. */
function sixNodes(rand: Rand): ClusterState {
  const cluster = new ClusterState();
  for (let i = 0; i < 6; i++) cluster.addNode(node(i, `z${i % 3}`, `r${i % 2}`));
  for (let i = 0; i < 60; i++) cluster.addPod(pod(`p${i}`, rand, `n${i % 6}`));
  return cluster;
}

function twelveNodes(): ClusterState {
  const cluster = new ClusterState();
  for (let i = 0; i < 12; i++) cluster.addNode(node(i, `z${i % 3}`, 'r0'));
  return cluster;
}

describe('MatchIndex', () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: kept counts and domain totals equal fresh counts after every kind of change`, () => {
      const rand = new Rand(seed);
      const cluster = new ClusterState();
      let nodes = 0;
      const removed: number[] = [];
      const addNode = () => {
        // Now and then a removed node comes back under its name.
        const i = removed.length > 0 && rand.intn(2) === 0 ? removed.splice(rand.intn(removed.length), 1)[0]! : nodes++;
        cluster.addNode(node(i, `z${i % 3}`, rand.intn(4) === 0 ? undefined : `r${rand.intn(3)}`));
      };
      for (let i = 0; i < 8; i++) addNode();
      let pods = 0;
      const names = () => cluster.nodeInfos().map((n) => n.node.name);
      const bound = () => [...cluster.pods()];
      for (let step = 0; step < 1500; step++) {
        const op = rand.intn(100);
        const all = bound();
        if (op < 40 || all.length === 0) {
          const on = names();
          cluster.addPod(pod(`p${pods++}`, rand, on[rand.intn(on.length)]!));
        } else if (op < 55) {
          cluster.removePod(all[rand.intn(all.length)]!.key);
        } else if (op < 70) {
          // Relabeled, moved to another namespace or terminating: a new pod object under the same key.
          const old = all[rand.intn(all.length)]!;
          const next = pod(old.name, rand, old.nodeName);
          cluster.updatePod({ ...next, key: old.key, namespace: rand.intn(2) === 0 ? old.namespace : next.namespace });
        } else if (op < 80) {
          // A status update: the same labels object, namespace and terminating state.
          const old = all[rand.intn(all.length)]!;
          cluster.updatePod({ ...old, phase: 'Running' });
        } else if (op < 86) {
          // The node's rack (not its zone) changes or goes: the node list stays, its domain moves.
          const info = cluster.nodeInfos()[rand.intn(cluster.numNodes)]!;
          const n = info.node;
          const labels: Record<string, string> = { ...n.labels };
          if (rand.intn(3) === 0) delete labels[RACK];
          else labels[RACK] = `r${rand.intn(4)}`;
          cluster.updateNode({ ...n, labels });
        } else if (op < 89) {
          // A taint-like replacement with equal labels.
          const info = cluster.nodeInfos()[rand.intn(cluster.numNodes)]!;
          cluster.updateNode({ ...info.node, labels: { ...info.node.labels } });
        } else if (op < 92) {
          addNode();
        } else if (op < 94 && cluster.numNodes > 3) {
          const on = names();
          const name = on[rand.intn(on.length)]!;
          for (const p of cluster.removeNode(name)) cluster.removePod(p.key);
          removed.push(Number(name.slice(1)));
        } else if (op < 97) {
          // Many changes on one node between reads: its pod log restarts.
          const on = names()[0]!;
          for (let j = 0; j < 80; j++) {
            const p = pod(`burst${pods++}`, rand, on);
            cluster.addPod(p);
            if (j % 4 !== 0) cluster.removePod(p.key);
          }
        }
        // Read only now and then, so that catching up spans many changes.
        if (rand.intn(3) !== 0) continue;
        // A question never asked before, counted from the pods then on the nodes.
        const asNew: LabelSelectorSpec = { matchExpressions: [{ key: 'app', operator: 'In', values: [`a${rand.intn(3)}`, 'a1'] }, { key: 'step', operator: 'NotIn', values: [`${step}`] }] };
        for (const spec of [...SELECTORS, asNew]) {
          const namespace = rand.intn(3) === 0 ? 'other' : 'default';
          for (const { keys, requireAll } of SETS) {
            const constraints = keys.map((k) => constraint(k, spec));
            const c = constraints[rand.intn(constraints.length)]!;
            assert.deepEqual([...domainCounts(cluster, constraints, c, namespace, requireAll)], fresh(cluster, c, keys, requireAll, namespace), `step ${step}, ${JSON.stringify(spec)} in ${namespace} by ${c.topologyKey} over ${keys}`);
          }
          for (const info of cluster.nodeInfos()) {
            const selector = compileLabelSelector(spec);
            assert.equal(nodeMatchCount(info, matchQuery(selector, namespace)), countMatchingPods(info.pods, selector, namespace), `step ${step}, ${info.node.name}`);
          }
        }
      }
    });
  }

  it('a fork and the state it came from each keep counts of their own, though they share nodes until the fork changes one', () => {
    // Found merging the fork (day25) with this index: a node the fork copied before changing it,
    // and a shared node whose counts the fork's index took over, were left uncounted.
    const rand = new Rand(7);
    const cluster = sixNodes(rand);
    const specs = SELECTORS.map((spec) => constraint(LABEL_ZONE, spec));
    const agree = (state: ClusterState, what: string) => {
      for (const c of specs) assert.deepEqual([...domainCounts(state, [c], c, 'default')], fresh(state, c, [LABEL_ZONE], true, 'default'), what);
    };
    agree(cluster, 'before the fork');
    for (let round = 0; round < 3; round++) {
      const fork = cluster.fork();
      agree(fork, `round ${round}: the fork as it came`);
      const pods = [...fork.pods()];
      fork.removePod(pods[rand.intn(pods.length)]!.key);
      fork.addPod(pod(`fork${round}`, rand, `n${rand.intn(6)}`));
      agree(fork, `round ${round}: the fork changed`);
      for (const p of fork.removeNode(`n${round}`)) fork.removePod(p.key);
      agree(fork, `round ${round}: a node gone from the fork`);
      // The fork is dropped; the state it came from changes on.
      const all = [...cluster.pods()];
      cluster.removePod(all[rand.intn(all.length)]!.key);
      cluster.addPod(pod(`after${round}`, rand, `n${rand.intn(6)}`));
      agree(cluster, `round ${round}: the state the fork came from, changed after it`);
    }
  });

  it('a fork reads the counts the original keeps on the nodes they share, and takes none of them over', () => {
    // A removal simulation forks the cluster once per candidate: an index of the fork's own
    // filed every pod again and took the shared nodes over, which the original's index then counted afresh.
    const rand = new Rand(3);
    const cluster = sixNodes(rand);
    const c = constraint(LABEL_ZONE, SELECTORS[0]!);
    const { index } = keptMatches(cluster, matchQuery(c.selector, 'default'));
    const fork = cluster.fork();
    fork.addPod(pod('moved', rand, 'n1'));
    assert.deepEqual([...domainCounts(fork, [c], c, 'default')], fresh(fork, c, [LABEL_ZONE], true, 'default'));
    for (const info of fork.nodeInfos()) if (info.node.name !== 'n1') assert.equal(info.matchCounts.keeper, index, `${info.node.name} is still kept by the original's index`);
    // A question first asked on the fork is kept by the original's index too.
    const other = constraint(LABEL_ZONE, SELECTORS[2]!);
    assert.deepEqual([...domainCounts(fork, [other], other, 'default')], fresh(fork, other, [LABEL_ZONE], true, 'default'));
    assert.notEqual(index.keptCount(cluster.nodeInfo('n0')!, matchQuery(other.selector, 'default').key), undefined);
  });

  it('a copy of the cluster keeps counts of its own', () => {
    const cluster = new ClusterState();
    cluster.addNode(node(0, 'z0', 'r0'));
    const web = constraint(LABEL_ZONE, { matchLabels: { app: 'a0' } });
    const rand = new Rand(1);
    const p = { ...pod('p', rand, 'n0'), labels: { app: 'a0' }, namespace: 'default', terminating: false };
    cluster.addPod(p);
    assert.deepEqual([...domainCounts(cluster, [web], web, 'default')], [['z0', 1]]);
    const copy = cluster.clone();
    copy.removePod(p.key);
    assert.deepEqual([...domainCounts(copy, [web], web, 'default')], [['z0', 0]]);
    assert.deepEqual([...domainCounts(cluster, [web], web, 'default')], [['z0', 1]]);
    assert.equal(nodeMatchCount(cluster.nodeInfo('n0')!, matchQuery(web.selector, 'default')), 1);
  });

  it('a clone takes its counts from the index of the state it was cloned from, shared until either side changes them', () => {
    const rand = new Rand(5);
    const cluster = sixNodes(rand);
    const c = constraint(LABEL_ZONE, SELECTORS[0]!);
    const q = () => matchQuery(c.selector, 'default');
    const base = keptMatches(cluster, q()).kept;
    const copy = cluster.clone();
    // Asked on the copy first: the base's index answers, and both read one count table.
    const other = constraint(LABEL_ZONE, SELECTORS[2]!);
    const inherited = keptMatches(copy, matchQuery(other.selector, 'default')).kept;
    assert.equal(inherited.perNode, keptMatches(cluster, matchQuery(other.selector, 'default')).kept.perNode);
    assert.equal(keptMatches(copy, q()).kept.perNode, base.perNode);
    assert.deepEqual([...domainCounts(copy, [c], c, 'default')], fresh(copy, c, [LABEL_ZONE], true, 'default'));
    // The copy's change is its own: the base's table and totals stay as they were.
    const before = fresh(cluster, c, [LABEL_ZONE], true, 'default');
    copy.addPod({ ...pod('extra', rand, 'n0'), labels: { app: 'a0' }, namespace: 'default', terminating: false });
    assert.deepEqual([...domainCounts(copy, [c], c, 'default')], fresh(copy, c, [LABEL_ZONE], true, 'default'));
    assert.notEqual(keptMatches(copy, q()).kept.perNode, base.perNode);
    assert.deepEqual([...domainCounts(cluster, [c], c, 'default')], before);
    assert.equal(nodeMatchCount(cluster.nodeInfo('n0')!, q()), countMatchingPods(cluster.nodeInfo('n0')!.pods, c.selector, 'default'));
  });

  it('a clone counts afresh, for questions it takes from its source later, a node whose pod changes it could not read (its pod log restarted)', () => {
    const cluster = twelveNodes();
    for (let i = 0; i < 24; i++) cluster.addPod(labeled(`p${i}`, 'a0', `n${i % 12}`));
    const a0 = constraint(LABEL_ZONE, { matchLabels: { app: 'a0' } });
    const a1 = constraint(LABEL_ZONE, { matchLabels: { app: 'a1' } });
    // 200 changes on n0 without a read in between: the log restarts and the index misses some.
    const burst = (state: ClusterState) => {
      for (let j = 0; j < 200; j++) {
        const p = labeled(`burst${j}`, 'a1', 'n0');
        state.addPod(p);
        if (j % 4 !== 0) state.removePod(p.key);
      }
    };
    const copy = cluster.clone();
    assert.deepEqual([...domainCounts(copy, [a0], a0, 'default')], fresh(copy, a0, [LABEL_ZONE], true, 'default'));
    burst(copy);
    assert.deepEqual([...domainCounts(copy, [a1], a1, 'default')], fresh(copy, a1, [LABEL_ZONE], true, 'default'));
    // The same before the clone's first question.
    const other = cluster.clone();
    burst(other);
    assert.deepEqual([...domainCounts(other, [a1], a1, 'default')], fresh(other, a1, [LABEL_ZONE], true, 'default'));
    assert.deepEqual([...domainCounts(cluster, [a1], a1, 'default')], [['z0', 0], ['z1', 0], ['z2', 0]]);
  });

  it('a node removed and added again in a clone is counted afresh, even when its new pod log starts where the original one ended', () => {
    const cluster = twelveNodes();
    for (let i = 0; i < 65; i++) cluster.addPod(labeled(`p${i}`, 'a0', 'n0'));
    const a0 = constraint(LABEL_ZONE, { matchLabels: { app: 'a0' } });
    const copy = cluster.clone();
    for (const p of copy.removeNode('n0')) copy.removePod(p.key);
    const again = copy.addNode(cluster.nodeInfo('n0')!.node);
    // Pods come and go on the new n0 until its log restarts at the position the original's ended.
    for (let j = 0; again.podLogStart !== cluster.nodeInfo('n0')!.podLogEnd; j++) {
      assert.ok(j < 1000, 'the new log never restarted there');
      const p = labeled(`churn${j}`, 'a1', 'n0');
      copy.addPod(p);
      copy.removePod(p.key);
    }
    copy.addPod(labeled('back', 'a0', 'n0'));
    assert.deepEqual([...domainCounts(copy, [a0], a0, 'default')], fresh(copy, a0, [LABEL_ZONE], true, 'default'));
    assert.deepEqual([...domainCounts(cluster, [a0], a0, 'default')], fresh(cluster, a0, [LABEL_ZONE], true, 'default'));
  });

  for (const [seed, baseChanges] of [[11, true], [12, true], [13, false], [14, false], [15, false]] as const) {
    it(`seed ${seed}: clones, their clones and the base${baseChanges ? ' (changing too)' : ''} each answer as counted from scratch, whatever the others change`, () => {
      const rand = new Rand(seed);
      const base = new ClusterState();
      // Enough nodes that a clone reads its source's counts for a while (not once a quarter of its nodes are opaque).
      for (let i = 0; i < 40; i++) base.addNode(node(i, `z${i % 3}`, rand.intn(4) === 0 ? undefined : `r${rand.intn(3)}`));
      let pods = 0;
      for (let i = 0; i < 200; i++) base.addPod(pod(`p${pods++}`, rand, `n${rand.intn(40)}`));
      let nodes = 40;
      const change = (state: ClusterState) => {
        const op = rand.intn(11);
        const all = [...state.pods()];
        const names = state.nodeInfos().map((n) => n.node.name);
        if (op === 10) {
          // Many changes on one node: its pod log restarts, and then the node may go.
          const on = names[rand.intn(names.length)]!;
          for (let j = 0; j < 80; j++) {
            const p = pod(`burst${pods++}`, rand, on);
            state.addPod(p);
            if (j % 4 !== 0) state.removePod(p.key);
          }
          if (rand.intn(2) === 0 && state.numNodes > 4) for (const p of state.removeNode(on)) state.removePod(p.key);
        } else if (op < 4 || all.length === 0) state.addPod(pod(`p${pods++}`, rand, names[rand.intn(names.length)]!));
        else if (op < 6) state.removePod(all[rand.intn(all.length)]!.key);
        else if (op < 7) {
          const old = all[rand.intn(all.length)]!;
          state.updatePod({ ...pod(old.name, rand, old.nodeName), key: old.key });
        } else if (op < 8) {
          const n = state.nodeInfos()[rand.intn(state.numNodes)]!.node;
          state.updateNode({ ...n, labels: { ...n.labels, [RACK]: `r${rand.intn(4)}` } });
        } else if (op < 9 && state.numNodes > 4) {
          for (const p of state.removeNode(names[rand.intn(names.length)]!)) state.removePod(p.key);
        } else {
          const i = nodes++;
          state.addNode(node(i, `z${i % 3}`, `r${rand.intn(3)}`));
        }
      };
      const agree = (state: ClusterState, what: string) => {
        const asNew: LabelSelectorSpec = { matchExpressions: [{ key: 'app', operator: 'In', values: [`a${rand.intn(3)}`] }, { key: 'step', operator: 'NotIn', values: [`${rand.intn(1000)}`] }] };
        for (const spec of [...SELECTORS, asNew]) {
          for (const { keys, requireAll } of SETS) {
            const constraints = keys.map((k) => constraint(k, spec));
            const c = constraints[rand.intn(constraints.length)]!;
            assert.deepEqual([...domainCounts(state, constraints, c, 'default', requireAll)], fresh(state, c, keys, requireAll, 'default'), `${what}: ${JSON.stringify(spec)} by ${c.topologyKey} over ${keys}`);
          }
          const selector = compileLabelSelector(spec);
          for (const info of state.nodeInfos()) assert.equal(nodeMatchCount(info, matchQuery(selector, 'default')), countMatchingPods(info.pods, selector, 'default'), `${what}: ${info.node.name}`);
        }
      };
      if (rand.intn(2) === 0) agree(base, 'the base before any copy');
      const states: { state: ClusterState; name: string }[] = [{ state: base, name: 'base' }];
      for (let step = 0; step < 60; step++) {
        const op = rand.intn(10);
        const { state, name } = states[rand.intn(states.length)]!;
        if (op < 3 && states.length < 8) {
          // A clone of the base or of another clone, changed or not before it is first asked.
          const copy = state.clone();
          states.push({ state: copy, name: `${name}>${step}` });
          for (let j = rand.intn(3); j > 0; j--) change(copy);
        } else if (op < 5 && state === base && baseChanges) {
          // The base itself changes now and then: its clones must not read it any more.
          change(base);
        } else if (state !== base) {
          for (let j = rand.intn(4); j > 0; j--) change(state);
        }
        // Every state answers right, the untouched ones included.
        for (const s of states) if (rand.intn(2) === 0) agree(s.state, `step ${step}, ${s.name}`);
      }
      for (const s of states) agree(s.state, `at the end, ${s.name}`);
    });
  }
});
