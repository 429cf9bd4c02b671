// buildClusterState (state.ts): a ClusterState from loaded model objects.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileNode } from '../model/node.js';
import { compilePdb } from '../model/pdb.js';
import { compilePod } from '../model/pod.js';
import { compileLabelSelector } from '../model/selector.js';
import { buildClusterState } from './state.js';

const node = (name: string, zone: string) => compileNode({ metadata: { name, labels: { 'topology.kubernetes.io/zone': zone } }, status: { allocatable: { cpu: '2', pods: '10' } } }, 0);
const pod = (name: string, nodeName = '', phase?: string) =>
  compilePod({ metadata: { name }, spec: { nodeName, containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] }, ...(phase ? { status: { phase } } : {}) }, { order: 0 });

describe('buildClusterState', () => {
  test('nodes, pods, namespaces, PDBs and owner selectors', () => {
    const selector = compileLabelSelector({ matchLabels: { app: 'web' } });
    const owner = { namespace: 'default', name: 'web', uid: 'u', selector };
    const state = buildClusterState({
      nodes: [node('a1', 'a'), node('a2', 'a'), node('b1', 'b')],
      pods: [pod('bound', 'a2'), pod('pending')],
      namespaces: [{ name: 'shop', labels: { team: 'x' } }],
      pdbs: [compilePdb({ metadata: { name: 'p' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } })],
      services: [owner],
      replicationControllers: [owner],
      replicaSets: [owner, owner],
      statefulSets: [],
    });
    assert.deepEqual(state.nodeInfos().map((n) => n.node.name), ['a1', 'b1', 'a2']);
    assert.equal(state.nodeInfo('a2')!.requested['cpu'], 100);
    assert.deepEqual(state.pendingPods().map((p) => p.name), ['pending']);
    assert.deepEqual(state.namespaceLabels('shop'), { team: 'x', 'kubernetes.io/metadata.name': 'shop' });
    assert.deepEqual(state.pdbs.map((p) => p.key), ['default/p']);
    assert.deepEqual([state.services.length, state.replicationControllers.length, state.replicaSets.length, state.statefulSets.length], [1, 1, 2, 0]);
  });

  test('a pod bound to an unknown node is stored but counted on no node', () => {
    const state = buildClusterState({ nodes: [node('a1', 'a')], pods: [pod('lost', 'gone')] });
    assert.equal(state.getPod('default/lost')?.nodeName, 'gone');
    assert.equal(state.nodeInfo('a1')!.pods.length, 0);
    assert.deepEqual(state.pendingPods(), []);
  });

  test('Succeeded and Failed pods are left out, as the scheduler never sees them', () => {
    const state = buildClusterState({ nodes: [node('a1', 'a')], pods: [pod('done', 'a1', 'Succeeded'), pod('crashed', 'a1', 'Failed'), pod('running', 'a1', 'Running')] });
    assert.deepEqual([...state.pods()].map((p) => p.name), ['running']);
    assert.equal(state.nodeInfo('a1')!.requested['cpu'], 100);
  });
});
