// NodeClaims through the loader: what Karpenter's cluster state reads of them, and bad
// values reported at their file:line:column and field.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDiagnostic } from './diagnostics.js';
import { loadSources } from './load.js';

const lines = (...ls: string[]) => ls.join('\n') + '\n';

const claim = (extra: string[]) =>
  lines(
    'apiVersion: karpenter.sh/v1',
    'kind: NodeClaim',
    'metadata:',
    '  name: default-x7k2p',
    '  labels: {karpenter.sh/nodepool: default, topology.kubernetes.io/zone: us-west-2a}',
    ...extra,
  );

describe('NodeClaims in the input', () => {
  test('an in-flight claim: labels, taints, startup taints, capacity, no Node yet', () => {
    const r = loadSources([
      {
        name: 'dump.yaml',
        text: claim([
          'spec:',
          '  taints: [{key: dedicated, value: ml, effect: NoSchedule}]',
          '  startupTaints: [{key: example.com/agent, effect: NoSchedule}]',
          'status:',
          '  providerID: aws:///us-west-2a/i-0abc',
          '  capacity: {cpu: "4", memory: 16Gi, pods: "58"}',
          '  allocatable: {cpu: 3920m, memory: 15Gi, pods: "58"}',
        ]),
      },
    ]);
    assert.ok(r.ok, r.ok ? '' : r.errors.map(formatDiagnostic).join('\n'));
    const [c] = r.input.nodeClaims ?? [];
    assert.equal(c?.name, 'default-x7k2p');
    assert.equal(c?.labels['karpenter.sh/nodepool'], 'default');
    assert.deepEqual(c?.taints, [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }]);
    assert.deepEqual(c?.startupTaints, [{ key: 'example.com/agent', value: '', effect: 'NoSchedule' }]);
    assert.deepEqual(c?.allocatable, { cpu: 3920, memory: 15 * 2 ** 30, pods: 58 });
    assert.equal(c?.nodeName, undefined);
    assert.equal(c?.providerID, 'aws:///us-west-2a/i-0abc');
    assert.equal(c?.deleting, false);
  });

  test('a claim being deleted, or whose instance is terminating, is deleting', () => {
    const deleted = loadSources([{ name: 'a.yaml', text: claim(['  deletionTimestamp: "2026-01-01T00:00:00Z"']) }]);
    const terminating = loadSources([{ name: 'b.yaml', text: claim(['status:', '  conditions: [{type: InstanceTerminating, status: "True"}]']) }]);
    assert.ok(deleted.ok && terminating.ok);
    assert.equal(deleted.input.nodeClaims?.[0]?.deleting, true);
    assert.equal(terminating.input.nodeClaims?.[0]?.deleting, true);
  });

  test('a bad quantity and a bad taint effect are errors at their field', () => {
    const r = loadSources([{ name: 'dump.yaml', text: claim(['spec:', '  taints: [{key: a, effect: Sometimes}]', 'status:', '  allocatable: {cpu: lots}']) }]);
    assert.equal(r.ok, false);
    const messages = r.ok ? [] : r.errors.map(formatDiagnostic);
    assert.ok(messages.some((m) => m.startsWith('dump.yaml:7:') && m.includes('spec.taints[0].effect') && m.includes('Unsupported value: "Sometimes"')), messages.join('\n'));
    const r2 = loadSources([{ name: 'dump.yaml', text: claim(['status:', '  allocatable: {cpu: lots}']) }]);
    const m2 = r2.ok ? [] : r2.errors.map(formatDiagnostic);
    assert.ok(m2.some((m) => m.startsWith('dump.yaml:7:') && m.includes('status.allocatable.cpu')), m2.join('\n'));
  });
});
