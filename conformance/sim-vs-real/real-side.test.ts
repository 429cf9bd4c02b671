import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../src/live/objects.js';
import { deploymentStatusesCurrent, failureMessage, nodesLostUnasked } from './real-side.js';

const pod = (conditions: unknown[]): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'w2-abc' }, spec: {}, status: { conditions } }) as KubeObject;

describe('failureMessage (the reason a Pending pod is reported with)', () => {
  it('is the PodScheduled=False condition, which kube-scheduler rewrites on every new message (its events may keep an older one)', () => {
    const msg = '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn\'t match pod anti-affinity rules. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.';
    assert.equal(failureMessage(pod([{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: msg }])), msg);
  });
  it('is nothing for a pod never tried or already scheduled', () => {
    assert.equal(failureMessage(pod([])), undefined);
    assert.equal(failureMessage(pod([{ type: 'PodScheduled', status: 'True' }])), undefined);
  });
});

describe('deploymentStatusesCurrent (a phase settles only with Deployment statuses that count the pods as they are)', () => {
  const owned = (kind: string, name: string, owner: string, extra: Partial<KubeObject['metadata']> = {}) => ({ metadata: { name, ownerReferences: [{ apiVersion: 'apps/v1', kind, name: owner, uid: owner, controller: true }], ...extra } });
  const rs = (name: string, revision: number): [string, KubeObject] => [`ReplicaSet/${name}`, { apiVersion: 'apps/v1', kind: 'ReplicaSet', ...owned('Deployment', name, 'w1', { annotations: { 'deployment.kubernetes.io/revision': String(revision) } }) } as KubeObject];
  const pod = (name: string, rsName: string, ready: boolean, terminating = false): [string, KubeObject] => [
    `Pod/${name}`,
    { apiVersion: 'v1', kind: 'Pod', ...owned('ReplicaSet', name, rsName, terminating ? { deletionTimestamp: '2026-12-05T00:00:00Z' } : {}), status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } } as KubeObject,
  ];
  const deployment = (status: Record<string, number>): [string, KubeObject] => ['Deployment/w1', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w1' }, status } as KubeObject];
  // A rollout half way: one old pod, one terminating, two new (one Ready).
  const pods = [rs('w1-old', 1), rs('w1-new', 2), pod('a', 'w1-old', true), pod('b', 'w1-old', true, true), pod('c', 'w1-new', true), pod('d', 'w1-new', false)];

  it('a status counting the active pods, the newest ReplicaSet\'s and the Ready ones is current', () => {
    assert.equal(deploymentStatusesCurrent({ objects: new Map([...pods, deployment({ replicas: 3, updatedReplicas: 2, readyReplicas: 2 })]) }), true);
  });
  it('a status behind its pods (the Deployment controller stalled) is not', () => {
    assert.equal(deploymentStatusesCurrent({ objects: new Map([...pods, deployment({ replicas: 3, updatedReplicas: 2, readyReplicas: 1 })]) }), false);
    assert.equal(deploymentStatusesCurrent({ objects: new Map([...pods, deployment({ replicas: 4, updatedReplicas: 2, readyReplicas: 2 })]) }), false);
  });
});

describe('nodesLostUnasked (a node NotReady that no failNode asked for is an infrastructure failure)', () => {
  it('names the nodes seen NotReady that the scenario did not fail', () => {
    assert.deepEqual(nodesLostUnasked(new Set(['node-3', 'node-1', 'node-2']), new Set(['node-2'])), ['node-1', 'node-3']);
  });
  it('is empty when only failed nodes went NotReady', () => {
    assert.deepEqual(nodesLostUnasked(new Set(['node-2']), new Set(['node-2'])), []);
  });
});
