import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ClusterState } from '../../../cluster/state.js';
import { compileNode } from '../../../model/node.js';
import { bindPod, compilePod } from '../../../model/pod.js';
import { compileLabelSelector } from '../../../model/selector.js';
import type { SpreadConstraint } from './constraints.js';
import { domainCounts } from './domain-counts.js';

const zone = (name: string, z: string | undefined, order: number) =>
  compileNode({ metadata: { name, labels: z === undefined ? {} : { 'topology.kubernetes.io/zone': z } } }, order);
const pod = (name: string, node: string, labels: Record<string, string>) =>
  bindPod(compilePod({ metadata: { name, labels }, spec: { containers: [{ name: 'c' }] } }, { order: 0 }), node);
const byZone: SpreadConstraint = {
  maxSkew: 1,
  topologyKey: 'topology.kubernetes.io/zone',
  selector: compileLabelSelector({ matchLabels: { app: 'web' } }),
  minDomains: 1,
  honorNodeAffinity: true,
  honorNodeTaints: false,
};
const counts = (c: ClusterState) => [...domainCounts(c, [byZone], byZone, 'default')];

describe('domainCounts', () => {
  it('counts matching pods per domain, every domain of a keyed node present, nodes without the key left out', () => {
    const c = new ClusterState();
    c.addNode(zone('a1', 'a', 0));
    c.addNode(zone('b1', 'b', 1));
    c.addNode(zone('none', undefined, 2));
    c.addPod(pod('p1', 'a1', { app: 'web' }));
    c.addPod(pod('p2', 'none', { app: 'web' }));
    c.addPod(pod('p3', 'b1', { app: 'db' }));
    assert.deepEqual(counts(c), [
      ['a', 1],
      ['b', 0],
    ]);
  });

  it('follows pods added and removed between reads, and rebuilds when the node list changes', () => {
    const c = new ClusterState();
    c.addNode(zone('a1', 'a', 0));
    c.addNode(zone('b1', 'b', 1));
    assert.deepEqual(counts(c), [
      ['a', 0],
      ['b', 0],
    ]);
    c.addPod(pod('p1', 'b1', { app: 'web' }));
    c.addPod(pod('p2', 'b1', { app: 'web' }));
    assert.deepEqual(counts(c), [
      ['a', 0],
      ['b', 2],
    ]);
    c.removePod('default/p1');
    assert.deepEqual(counts(c), [
      ['a', 0],
      ['b', 1],
    ]);
    c.addNode(zone('c1', 'c', 2));
    c.addPod(pod('p3', 'c1', { app: 'web' }));
    assert.deepEqual(counts(c), [
      ['a', 0],
      ['b', 1],
      ['c', 1],
    ]);
  });
});
