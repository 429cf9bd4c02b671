import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { NodeInfo } from '../../../cluster/node-info.js';
import { compileNode } from '../../../model/node.js';
import { compilePod } from '../../../model/pod.js';
import { compileLabelSelector } from '../../../model/selector.js';
import { matchQuery, nodeMatchCount } from './match-counts.js';

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
    assert.equal(nodeMatchCount(info, matchQuery(web(), 'default')), 1);
    assert.equal(nodeMatchCount(info, matchQuery(web(), 'other')), 1);
  });

  it('is recomputed after the node gains or loses a pod', () => {
    const info = new NodeInfo(compileNode({ metadata: { name: 'n' } }, 0));
    const sel = web();
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 0);
    const p = pod('a', { app: 'web' });
    info.addPod(p);
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 1);
    info.removePod(p);
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 0);
  });

  it('selectors with different requirements are counted separately; equal ones share an entry', () => {
    const info = new NodeInfo(compileNode({ metadata: { name: 'n' } }, 0));
    info.addPod(pod('a', { app: 'web', tier: 'x' }));
    assert.equal(nodeMatchCount(info, matchQuery(web(), 'default')), 1);
    assert.equal(nodeMatchCount(info, matchQuery(compileLabelSelector({ matchLabels: { app: 'web', tier: 'y' } }), 'default')), 0);
    assert.equal(nodeMatchCount(info, matchQuery(compileLabelSelector({ matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }), 'default')), 0);
    assert.equal(nodeMatchCount(info, matchQuery(web(), 'default')), 1);
  });

  it('a cloned NodeInfo changed after cloning does not reuse the original counts', () => {
    const info = new NodeInfo(compileNode({ metadata: { name: 'n' } }, 0));
    const sel = web();
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 0);
    const copy = info.clone();
    copy.addPod(pod('a', { app: 'web' }));
    assert.equal(nodeMatchCount(copy, matchQuery(sel, 'default')), 1);
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 0);
  });

  it('catches up with pods replaced on the node: new labels count by the new labels, a status update changes nothing', () => {
    const info = new NodeInfo(compileNode({ metadata: { name: 'n' } }, 0));
    const sel = web();
    const a = pod('a', { app: 'web' });
    info.addPod(a);
    info.addPod(pod('b', { app: 'web' }));
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 2);
    info.removePod(a);
    info.addPod(pod('a', { app: 'db' }));
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 1);
    const b = info.pods.find((p) => p.name === 'b')!;
    info.removePod(b);
    info.addPod({ ...b, phase: 'Running' });
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 1);
    info.removePod(b);
    info.addPod({ ...b, terminating: true });
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 0);
  });

  it("a count read between a pod's removal and its return sees both", () => {
    const info = new NodeInfo(compileNode({ metadata: { name: 'n' } }, 0));
    const sel = web();
    const a = pod('a', { app: 'web' });
    info.addPod(a);
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 1);
    info.removePod(a);
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 0);
    info.addPod({ ...a, phase: 'Running' });
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 1);
  });

  it("recounts when the node's log restarted past the last read", () => {
    const info = new NodeInfo(compileNode({ metadata: { name: 'n' } }, 0));
    const sel = web();
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), 0);
    for (let i = 0; i < 200; i++) {
      const p = pod(`p${i}`, { app: i % 2 === 0 ? 'web' : 'db' });
      info.addPod(p);
      if (i % 10 !== 0) info.removePod(p);
    }
    assert.ok(info.podLogStart > 0);
    assert.equal(nodeMatchCount(info, matchQuery(sel, 'default')), info.pods.filter((p) => p.labels['app'] === 'web').length);
  });

  it('stays right when question numbers are handed out afresh (more questions than numbers)', () => {
    const info = new NodeInfo(compileNode({ metadata: { name: 'n' } }, 0));
    for (let j = 0; j < 5; j++) info.addPod(pod(`p${j}`, { app: `a${j}` }));
    // Question i matches the pods a0..a(i % 5): i % 5 + 1 of them; an unmatched value keeps every question distinct.
    const question = (i: number) =>
      matchQuery(compileLabelSelector({ matchExpressions: [{ key: 'app', operator: 'In', values: [...Array.from({ length: (i % 5) + 1 }, (_, j) => `a${j}`), `z${i}`] }] }), 'default');
    for (let i = 0; i < 2500; i++) assert.equal(nodeMatchCount(info, question(i)), (i % 5) + 1, `question ${i}`);
    const kept = question(4);
    assert.equal(nodeMatchCount(info, kept), 5);
    info.addPod(pod('p5', { app: 'a0' }));
    for (let i = 2500; i < 3700; i++) assert.equal(nodeMatchCount(info, question(i)), (i % 5) + 2, `question ${i}`);
    // Questions matching nothing until a later numbering has given `kept`'s old number to one of them.
    for (let i = 0; ; i++) {
      const q = matchQuery(compileLabelSelector({ matchLabels: { app: `none${i}` } }), 'default');
      assert.equal(nodeMatchCount(info, q), 0);
      if (q.epoch !== kept.epoch && q.index >= kept.index) break;
    }
    // A question built before is numbered again, not read at its old number.
    assert.equal(nodeMatchCount(info, kept), 6);
  });
});

describe('nodeMatchCount on a NodeInfo copy', () => {
  const web = () => compileLabelSelector({ matchLabels: { app: 'web' } });

  it('keeps the counts that were up to date (read without counting again) and drops the stale ones', () => {
    const info = new NodeInfo(compileNode({ metadata: { name: 'n' } }, 0));
    info.addPod(pod('a', { app: 'web' }));
    const q = matchQuery(web(), 'default');
    const stale = matchQuery(compileLabelSelector({ matchLabels: { app: 'db' } }), 'default');
    assert.equal(nodeMatchCount(info, stale), 0);
    info.addPod(pod('b', { app: 'db' }));
    assert.equal(nodeMatchCount(info, q), 1);
    const copy = info.clone();
    assert.equal(copy.matchCounts.positions[q.index], copy.podLogStart);
    assert.equal(copy.matchCounts.positions[stale.index], -1);
    assert.equal(nodeMatchCount(copy, q), 1);
    assert.equal(nodeMatchCount(copy, stale), 1);
    copy.addPod(pod('c', { app: 'web' }));
    assert.equal(nodeMatchCount(copy, q), 2);
    assert.equal(nodeMatchCount(info, q), 1);
  });
});
