import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { NodeInfo } from '../../../cluster/node-info.js';
import { compileNode } from '../../../model/node.js';
import { compilePod } from '../../../model/pod.js';
import { compileLabelSelector } from '../../../model/selector.js';
import { nodeMatchCount } from './match-counts.js';

const pod = (name: string, labels: Record<string, string>, namespace = 'default', terminating = false) =>
  compilePod({ metadata: { name, namespace, labels, ...(terminating ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) }, spec: { nodeName: 'n', containers: [{ name: 'c' }] } }, { order: 0 });

describe('nodeMatchCount', () => {
  const web = () => compileLabelSelector({ matchLabels: { app: 'web' } });

  it('counts matching, non-terminating pods of the namespace', () => {
    const info = new NodeInfo(compileNode({ metadata: { name: 'n' } }, 0));
    info.addPod(pod('a', { app: 'web' }));
    info.addPod(pod('b', { app: 'web' }, 'other'));
    info.addPod(pod('c', { app: 'web' }, 'default', true));
    info.addPod(pod('d', { app: 'db' }));
    assert.equal(nodeMatchCount(info, web(), 'default'), 1);
    assert.equal(nodeMatchCount(info, web(), 'other'), 1);
  });

  it('is recomputed after the node gains or loses a pod', () => {
    const info = new NodeInfo(compileNode({ metadata: { name: 'n' } }, 0));
    const sel = web();
    assert.equal(nodeMatchCount(info, sel, 'default'), 0);
    const p = pod('a', { app: 'web' });
    info.addPod(p);
    assert.equal(nodeMatchCount(info, sel, 'default'), 1);
    info.removePod(p);
    assert.equal(nodeMatchCount(info, sel, 'default'), 0);
  });

  it('selectors with different requirements are counted separately; equal ones share an entry', () => {
    const info = new NodeInfo(compileNode({ metadata: { name: 'n' } }, 0));
    info.addPod(pod('a', { app: 'web', tier: 'x' }));
    assert.equal(nodeMatchCount(info, web(), 'default'), 1);
    assert.equal(nodeMatchCount(info, compileLabelSelector({ matchLabels: { app: 'web', tier: 'y' } }), 'default'), 0);
    assert.equal(nodeMatchCount(info, compileLabelSelector({ matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }), 'default'), 0);
    assert.equal(nodeMatchCount(info, web(), 'default'), 1);
  });

  it('a cloned NodeInfo changed after cloning does not reuse the original counts', () => {
    const info = new NodeInfo(compileNode({ metadata: { name: 'n' } }, 0));
    const sel = web();
    assert.equal(nodeMatchCount(info, sel, 'default'), 0);
    const copy = info.clone();
    copy.addPod(pod('a', { app: 'web' }));
    assert.equal(nodeMatchCount(copy, sel, 'default'), 1);
    assert.equal(nodeMatchCount(info, sel, 'default'), 0);
  });
});
