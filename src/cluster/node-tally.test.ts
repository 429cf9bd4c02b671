// A tally must equal the sum of every node's contribution counted now, on the
// state it was built for, its clones and their clones, whichever of them changes
// (a clone starts from its source's tally and shares its contributions).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { compileNode } from '../model/node.js';
import { bindPod, compilePod } from '../model/pod.js';
import { Rand } from '../model/rand.js';
import type { NodeInfo } from './node-info.js';
import { clusterTally, type TallySpec } from './node-tally.js';
import { ClusterState } from './state.js';

const ZONE = 'topology.kubernetes.io/zone';

const node = (i: number, zone: string) => compileNode({ metadata: { name: `n${i}`, labels: { [ZONE]: zone } }, status: { allocatable: { cpu: '8', memory: '8Gi', pods: '100' } } }, i);
const pod = (name: string, app: string, nodeName: string) => bindPod(compilePod({ metadata: { name, labels: { app } }, spec: { containers: [{ name: 'c' }] } }, { order: 0 }), nodeName);

/** Pods of app `a0` per zone; counts the contributions it works out. */
function byZone(counter: { calls: number }): TallySpec<Map<string, number>, [string, number]> {
  return {
    totals: new Map(),
    contribution: (info: NodeInfo) => {
      counter.calls++;
      return [info.node.labels[ZONE]!, info.pods.filter((p) => p.labels['app'] === 'a0').length];
    },
    apply: (totals, [zone, n], sign) => void totals.set(zone, (totals.get(zone) ?? 0) + sign * n),
    copy: (totals) => new Map(totals),
  };
}

function fromScratch(state: ClusterState): Map<string, number> {
  const totals = new Map<string, number>();
  for (const info of state.nodeInfos()) {
    const zone = info.node.labels[ZONE]!;
    totals.set(zone, (totals.get(zone) ?? 0) + info.pods.filter((p) => p.labels['app'] === 'a0').length);
  }
  return totals;
}

const sorted = (m: ReadonlyMap<string, number>) => [...m].filter(([, n]) => n !== 0).sort();

describe('clusterTally on clones', () => {
  /** 20 nodes in 3 zones with 60 pods, and the tally asked with a count of the contributions worked out. */
  function built() {
    const base = new ClusterState();
    for (let i = 0; i < 20; i++) base.addNode(node(i, `z${i % 3}`));
    for (let i = 0; i < 60; i++) base.addPod(pod(`p${i}`, `a${i % 2}`, `n${i % 20}`));
    const counter = { calls: 0 };
    return { base, counter, ask: (s: ClusterState) => clusterTally(s, 'a0 by zone', () => byZone(counter)) };
  }

  it('a clone starts from the tally of the state it was cloned from: only the nodes it changed are counted again', () => {
    const { base, counter, ask } = built();
    assert.deepEqual(sorted(ask(base)), sorted(fromScratch(base)));
    assert.equal(counter.calls, 20);
    const copy = base.clone();
    copy.addPod(pod('extra', 'a0', 'n3'));
    counter.calls = 0;
    assert.deepEqual(sorted(ask(copy)), sorted(fromScratch(copy)));
    assert.equal(counter.calls, 1);
    // The copy's change stays its own; a sibling made before starts from the base too.
    const sibling = base.clone();
    assert.deepEqual(sorted(ask(sibling)), sorted(fromScratch(base)));
    assert.deepEqual(sorted(ask(base)), sorted(fromScratch(base)));
    assert.notDeepEqual(sorted(ask(copy)), sorted(ask(base)));
  });

  it('a clone that lost and gained nodes counts only the nodes it added or changed', () => {
    const { base, counter, ask } = built();
    ask(base);
    const copy = base.clone();
    for (const p of copy.removeNode('n4')) copy.removePod(p.key);
    copy.addNode(node(20, 'z1'));
    copy.addPod(pod('extra', 'a0', 'n20'));
    copy.addPod(pod('more', 'a0', 'n7'));
    counter.calls = 0;
    assert.deepEqual(sorted(ask(copy)), sorted(fromScratch(copy)));
    assert.equal(counter.calls, 2);
    assert.deepEqual(sorted(ask(base)), sorted(fromScratch(base)));
  });

  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: the base, its clones and their clones each equal a count from scratch, whatever the others change`, () => {
      const rand = new Rand(seed);
      const base = new ClusterState();
      let nodes = 0;
      for (; nodes < 8; nodes++) base.addNode(node(nodes, `z${nodes % 3}`));
      let pods = 0;
      for (; pods < 40; pods++) base.addPod(pod(`p${pods}`, `a${rand.intn(2)}`, `n${rand.intn(8)}`));
      const counter = { calls: 0 };
      const change = (s: ClusterState) => {
        const op = rand.intn(10);
        const all = [...s.pods()];
        const names = s.nodeInfos().map((n) => n.node.name);
        if (op < 4 || all.length === 0) s.addPod(pod(`p${pods++}`, `a${rand.intn(2)}`, names[rand.intn(names.length)]!));
        else if (op < 7) s.removePod(all[rand.intn(all.length)]!.key);
        else if (op < 8) {
          const n = s.nodeInfos()[rand.intn(s.numNodes)]!.node;
          s.updateNode({ ...n, labels: { ...n.labels, [ZONE]: `z${rand.intn(3)}` } });
        } else if (op < 9 && s.numNodes > 3) {
          for (const p of s.removeNode(names[rand.intn(names.length)]!)) s.removePod(p.key);
        } else s.addNode(node(nodes++, `z${rand.intn(3)}`));
      };
      const states: ClusterState[] = [base];
      for (let step = 0; step < 80; step++) {
        const s = states[rand.intn(states.length)]!;
        const op = rand.intn(10);
        if (op < 3 && states.length < 8) {
          const copy = s.clone();
          states.push(copy);
          for (let j = rand.intn(3); j > 0; j--) change(copy);
        } else if (op < 4 || s !== base) change(s);
        for (const t of states) if (rand.intn(2) === 0) assert.deepEqual(sorted(clusterTally(t, 'a0 by zone', () => byZone(counter))), sorted(fromScratch(t)), `step ${step}`);
      }
      for (const t of states) assert.deepEqual(sorted(clusterTally(t, 'a0 by zone', () => byZone(counter))), sorted(fromScratch(t)));
    });
  }
});
