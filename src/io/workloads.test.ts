import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PodSpecManifest } from '../model/manifest.js';
import { daemonNodeAffinity, daemonPodTolerations, hasOwnReplicaSet, OwnedPods, type OwnedPodRef } from './workloads.js';

const spec = (extra: Partial<PodSpecManifest> = {}): PodSpecManifest => ({ containers: [{ name: 'c' }], ...extra });
const keys = (ts: ReturnType<typeof daemonPodTolerations>) => ts.map((t) => `${t.key}/${t.operator ?? ''}/${t.effect ?? ''}${t.tolerationSeconds !== undefined ? `/${t.tolerationSeconds}` : ''}`);

describe('daemonPodTolerations', () => {
  const defaults = [
    'node.kubernetes.io/not-ready/Exists/NoExecute',
    'node.kubernetes.io/unreachable/Exists/NoExecute',
    'node.kubernetes.io/disk-pressure/Exists/NoSchedule',
    'node.kubernetes.io/memory-pressure/Exists/NoSchedule',
    'node.kubernetes.io/pid-pressure/Exists/NoSchedule',
    'node.kubernetes.io/unschedulable/Exists/NoSchedule',
  ];
  const cases = [
    { name: 'the defaults, in order', spec: spec(), want: defaults },
    { name: 'hostNetwork adds network-unavailable', spec: spec({ hostNetwork: true }), want: [...defaults, 'node.kubernetes.io/network-unavailable/Exists/NoSchedule'] },
    { name: "the template's own come first", spec: spec({ tolerations: [{ key: 'gpu', operator: 'Exists' }] }), want: ['gpu/Exists/', ...defaults] },
    {
      name: 'a matching toleration is replaced in place (its tolerationSeconds dropped)',
      spec: spec({ tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }] }),
      want: ['a/Exists/', 'node.kubernetes.io/unreachable/Exists/NoExecute', ...defaults.filter((d) => !d.includes('unreachable'))],
    },
    {
      name: 'a toleration with another operator is not a match',
      spec: spec({ tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Equal', value: '', effect: 'NoExecute' }] }),
      want: ['node.kubernetes.io/not-ready/Equal/NoExecute', ...defaults],
    },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(keys(daemonPodTolerations(c.spec)), c.want));

  test('the template is not modified', () => {
    const s = spec({ tolerations: [{ key: 'a', operator: 'Exists' }] });
    daemonPodTolerations(s);
    assert.equal(s.tolerations!.length, 1);
  });
});

describe('daemonNodeAffinity', () => {
  const pinned = { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] };
  test('no affinity', () => assert.deepEqual(daemonNodeAffinity(undefined, 'n1'), { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: pinned } }));
  test('keeps preferred terms and pod affinity, replaces required terms', () => {
    const preferred = [{ weight: 1, preference: { matchExpressions: [{ key: 'a', operator: 'Exists' as const, values: [] }] } }];
    const podAntiAffinity = { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone' }] };
    const got = daemonNodeAffinity(
      { podAntiAffinity, nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'b', operator: 'Exists', values: [] }] }] } } },
      'n1',
    );
    assert.deepEqual(got, { podAntiAffinity, nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred, requiredDuringSchedulingIgnoredDuringExecution: pinned } });
  });
});

describe('OwnedPods', () => {
  const pod = (ns: string, refs: [string, string][], labels: Record<string, string> = {}): OwnedPodRef => ({ namespace: ns, labels, ownerReferences: refs.map(([kind, name]) => ({ kind, name })) });
  const rsOf = (name: string, deployment: string) => ({ namespace: 'ns', name, ownerReferences: [{ kind: 'Deployment', name: deployment }] });
  const cases = [
    { name: 'direct owner', kind: 'StatefulSet' as const, pods: [pod('ns', [['StatefulSet', 'w']])], rs: [], want: true },
    { name: 'other namespace', kind: 'StatefulSet' as const, pods: [pod('x', [['StatefulSet', 'w']])], rs: [], want: false },
    { name: 'deployment via its ReplicaSet in the input', kind: 'Deployment' as const, pods: [pod('ns', [['ReplicaSet', 'w-old']])], rs: [rsOf('w-old', 'w')], want: true },
    { name: 'deployment via a ReplicaSet of another deployment', kind: 'Deployment' as const, pods: [pod('ns', [['ReplicaSet', 'w-old']])], rs: [rsOf('w-old', 'v')], want: false },
    { name: 'deployment via pod-template-hash', kind: 'Deployment' as const, pods: [pod('ns', [['ReplicaSet', 'w-h1']], { 'pod-template-hash': 'h1' })], rs: [], want: true },
    { name: 'deployment: a ReplicaSet name that only looks right', kind: 'Deployment' as const, pods: [pod('ns', [['ReplicaSet', 'w-h1']])], rs: [], want: false },
    { name: 'deployment: pods owned by the Deployment itself do not count', kind: 'Deployment' as const, pods: [pod('ns', [['Deployment', 'w']])], rs: [], want: false },
  ];
  for (const c of cases) test(c.name, () => assert.equal(new OwnedPods(c.pods, c.rs).has({ kind: c.kind, namespace: 'ns', name: 'w' }), c.want));

  test("a Deployment's ReplicaSets named by its pods' pod-template-hash: once per pod, in pod order, in its namespace only", () => {
    const owned = new OwnedPods(
      [
        pod('ns', [['ReplicaSet', 'w-h2']], { 'pod-template-hash': 'h2' }),
        pod('ns', [['ReplicaSet', 'w-h1'], ['ReplicaSet', 'w-h1']], { 'pod-template-hash': 'h1' }),
        pod('ns', [['ReplicaSet', 'w-x-h1']], { 'pod-template-hash': 'h1' }),
        pod('other', [['ReplicaSet', 'w-h3']], { 'pod-template-hash': 'h3' }),
        pod('ns', [['ReplicaSet', 'w-h4']]),
      ],
      [],
    );
    assert.deepEqual(owned.hashedReplicaSets('ns', 'w'), [{ rsName: 'w-h2', hash: 'h2' }, { rsName: 'w-h1', hash: 'h1' }]);
    assert.deepEqual(owned.hashedReplicaSets('ns', 'w-x'), [{ rsName: 'w-x-h1', hash: 'h1' }]);
    assert.deepEqual(owned.hashedReplicaSets('other', 'w'), [{ rsName: 'w-h3', hash: 'h3' }]);
  });

  test('hasOwnReplicaSet', () => {
    assert.equal(hasOwnReplicaSet({ namespace: 'ns', name: 'w' }, [rsOf('w-1', 'w')]), true);
    assert.equal(hasOwnReplicaSet({ namespace: 'other', name: 'w' }, [rsOf('w-1', 'w')]), false);
  });
});
