import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../src/live/objects.js';
import { failureMessage } from './real-side.js';

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
