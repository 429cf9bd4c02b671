// The default profile's queueing hints, translated from upstream's per-plugin hint
// tables (each case named after upstream's), plus the event extraction.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterState } from '../cluster/state.js';
import type { PodAffinityTermManifest, PodSpecManifest, TaintManifest } from '../model/manifest.js';
import { compileNode, type Node } from '../model/node.js';
import { compilePod, type Pod } from '../model/pod.js';
import { assignedPodUpdateEvents, nodeUpdateEvents, worthRequeuing, type HintEvent } from './queueing-hints.js';

const cluster = new ClusterState();

function mkPod(name: string, o: { labels?: Record<string, string>; node?: string; cpu?: string; spec?: Partial<PodSpecManifest> } = {}): Pod {
  return compilePod(
    {
      metadata: { name, namespace: 'default', labels: o.labels ?? {} },
      spec: { containers: [{ name: 'c', resources: { requests: { cpu: o.cpu ?? '1' } } }], ...(o.node ? { nodeName: o.node } : {}), ...o.spec },
    },
    { order: 0 },
  );
}

function mkNode(name: string, o: { labels?: Record<string, string>; cpu?: string; unschedulable?: boolean; taints?: TaintManifest[] } = {}): Node {
  return compileNode(
    {
      metadata: { name, labels: o.labels ?? {} },
      spec: { ...(o.unschedulable ? { unschedulable: true } : {}), ...(o.taints ? { taints: o.taints } : {}) },
      status: { allocatable: { cpu: o.cpu ?? '4', memory: '8Gi', pods: 110 } },
    },
    0,
  );
}

const hint = (plugin: string, pod: Pod, e: HintEvent) => worthRequeuing(pod, new Set([plugin]), e, cluster);
const term = (key: string, values: string[], topologyKey: string): PodAffinityTermManifest[] => [{ labelSelector: { matchExpressions: [{ key, operator: 'In', values }] }, topologyKey }];
const affinityPod = mkPod('p', { spec: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: term('service', ['securityscan', 'value2'], 'region') } } } });
const antiPod = mkPod('p', { spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: term('service', ['securityscan', 'value2'], 'region') } } } });

describe('InterPodAffinity hints (interpodaffinity Test_isSchedulableAfterAssignedPodChange)', () => {
  const cases: [string, Pod, HintEvent, boolean][] = [
    ['add a pod which matches the pod affinity', affinityPod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('other', { node: 'fake-node', labels: { service: 'securityscan' } }) }, true],
    ["add a pod which doesn't match the pod affinity", affinityPod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('other', { node: 'fake-node', labels: { aaa: 'a' } }) }, false],
    ...assignedPodUpdateEvents(mkPod('other', { node: 'fake-node', labels: { aaa: 'a' } }), mkPod('other', { node: 'fake-node', labels: { service: 'securityscan' } })).map(
      (e): [string, Pod, HintEvent, boolean] => ['update a pod from non-match to match pod affinity', affinityPod, e, true],
    ),
    ...assignedPodUpdateEvents(mkPod('other', { node: 'fake-node', labels: { service: 'securityscan' } }), mkPod('other', { node: 'fake-node', labels: { service: 'aaaa' } })).map(
      (e): [string, Pod, HintEvent, boolean] => ['modify pod label to change it from satisfying pod anti-affinity to not satisfying anti-affinity', antiPod, e, true],
    ),
    ["delete a pod which doesn't match pod's anti-affinity", antiPod, { resource: 'AssignedPod', action: 'Delete', old: mkPod('other', { node: 'fake-node', labels: { aaa: 'a' } }) }, false],
    ["delete a pod which matches pod's anti-affinity", antiPod, { resource: 'AssignedPod', action: 'Delete', old: mkPod('other', { node: 'fake-node', labels: { service: 'securityscan' } }) }, true],
    // berth's own: adding a pod never helps a pod rejected by its anti-affinity (upstream's Add branch reads only affinity terms).
    ['add a pod matching the anti-affinity', antiPod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('other', { node: 'fake-node', labels: { service: 'securityscan' } }) }, false],
  ];
  for (const [name, pod, e, want] of cases) it(name, () => assert.equal(hint('InterPodAffinity', pod, e), want));
});

describe('NodeUnschedulable hints (nodeunschedulable TestIsSchedulableAfterNodeChange)', () => {
  const pod = mkPod('p');
  it('skip-queue-on-unschedulable-node-added', () => assert.equal(hint('NodeUnschedulable', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { unschedulable: true }) }), false));
  it('queue-on-schedulable-node-added', () => assert.equal(hint('NodeUnschedulable', pod, { resource: 'Node', action: 'Add', node: mkNode('n') }), true));
  it('queue-on-unschedulable-field-change', () => {
    const events = nodeUpdateEvents(mkNode('n', { unschedulable: true }), mkNode('n'));
    assert.equal(events.some((e) => hint('NodeUnschedulable', pod, e)), true);
  });
  it('a cordon moves nothing NodeUnschedulable rejected', () => {
    const events = nodeUpdateEvents(mkNode('n'), mkNode('n', { unschedulable: true }));
    assert.deepEqual(events.map((e) => e.resource === 'Node' && e.action), ['UpdateNodeTaint']);
    assert.equal(events.some((e) => hint('NodeUnschedulable', pod, e)), false);
  });
});

describe('TaintToleration hints (tainttoleration TestIsSchedulableAfterNodeChange)', () => {
  const pod = mkPod('p', { spec: { tolerations: [{ key: 'toleratedTaint', operator: 'Exists', effect: 'NoSchedule' }] } });
  const taint = (key: string): TaintManifest[] => [{ key, value: 'v', effect: 'NoSchedule' }];
  it('skip-queue-on-untoleratedtaint-node-added', () => assert.equal(hint('TaintToleration', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { taints: taint('untoleratedTaint') }) }), false));
  it('queue-on-toleratedtaint-node-added', () => assert.equal(hint('TaintToleration', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { taints: taint('toleratedTaint') }) }), true));
  it('skip-unrelated-change', () => {
    const [e] = nodeUpdateEvents(mkNode('n', { taints: taint('untoleratedTaint') }), mkNode('n', { taints: [...taint('untoleratedTaint'), ...taint('toleratedTaint')] }));
    assert.equal(hint('TaintToleration', pod, e!), false);
  });
  it('queue-on-taint-change', () => {
    const [e] = nodeUpdateEvents(mkNode('n', { taints: taint('untoleratedTaint') }), mkNode('n', { taints: taint('toleratedTaint') }));
    assert.equal(hint('TaintToleration', pod, e!), true);
  });
});

describe('NodeResourcesFit hints (noderesources Test_isSchedulableAfterAssignedPodDelete, Test_isSchedulableAfterNodeChange)', () => {
  const pod = mkPod('p', { cpu: '2' });
  it('backoff-wrong-old-object is not possible here; a deleted scheduled pod queues', () => assert.equal(hint('NodeResourcesFit', pod, { resource: 'AssignedPod', action: 'Delete', old: mkPod('o', { node: 'n' }) }), true));
  it('an added scheduled pod does not queue (no Add registration)', () => assert.equal(hint('NodeResourcesFit', pod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('o', { node: 'n' }) }), false));
  it('queue-node-add-when-pod-fits', () => assert.equal(hint('NodeResourcesFit', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { cpu: '4' }) }), true));
  it("skip-node-add-when-pod-doesn't-fit", () => assert.equal(hint('NodeResourcesFit', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { cpu: '1' }) }), false));
  it('queue-on-allocatable-increase', () => {
    const events = nodeUpdateEvents(mkNode('n', { cpu: '1' }), mkNode('n', { cpu: '4' }));
    assert.equal(events.some((e) => hint('NodeResourcesFit', pod, e)), true);
  });
  it('skip-on-allocatable-decrease', () => {
    const events = nodeUpdateEvents(mkNode('n', { cpu: '8' }), mkNode('n', { cpu: '4' }));
    assert.equal(events.some((e) => hint('NodeResourcesFit', pod, e)), false);
  });
});

describe('PodTopologySpread hints (podtopologyspread Test_isSchedulableAfterNodeChange, Test_isSchedulableAfterAssignedPodChange)', () => {
  const pod = mkPod('p', {
    labels: { foo: '' },
    spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchExpressions: [{ key: 'foo', operator: 'Exists', values: [] }] } }] },
  });
  it('add pod with labels match topologySpreadConstraints selector', () => assert.equal(hint('PodTopologySpread', pod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('o', { node: 'n', labels: { foo: '' } }) }), true));
  it("add pod with labels don't match topologySpreadConstraints selector", () => assert.equal(hint('PodTopologySpread', pod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('o', { node: 'n', labels: { bar: '' } }) }), false));
  it('delete pod with labels that match topologySpreadConstraints selector', () => assert.equal(hint('PodTopologySpread', pod, { resource: 'AssignedPod', action: 'Delete', old: mkPod('o', { node: 'n', labels: { foo: '' } }) }), true));
  it("node updates label which isn't related to topologySpreadConstraints", () => {
    const [e] = nodeUpdateEvents(mkNode('n', { labels: { zone: 'zone1' } }), mkNode('n', { labels: { zone: 'zone1', foo: 'bar' } }));
    assert.equal(hint('PodTopologySpread', pod, e!), false);
  });
  it('node updates topology key label value', () => {
    const [e] = nodeUpdateEvents(mkNode('n', { labels: { zone: 'zone1' } }), mkNode('n', { labels: { zone: 'zone2' } }));
    assert.equal(hint('PodTopologySpread', pod, e!), true);
  });
  it('node taint changed', () => {
    const [e] = nodeUpdateEvents(mkNode('n', { labels: { zone: 'zone1' } }), mkNode('n', { labels: { zone: 'zone1' }, taints: [{ key: 'k', effect: 'NoSchedule' }] }));
    assert.equal(hint('PodTopologySpread', pod, e!), true);
  });
  it('node that does not match topology spread constraints is added', () => assert.equal(hint('PodTopologySpread', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { labels: { foo: 'bar' } }) }), false));
});

describe('worthRequeuing', () => {
  const pod = mkPod('p');
  it('a pod no plugin rejected (an error, or no node at all) moves on any event', () => assert.equal(worthRequeuing(pod, new Set(), { resource: 'AssignedPod', action: 'Add', pod: mkPod('o', { node: 'n' }) }, cluster), true));
  it('a plugin not in the default profile moves on any event but the generic update', () => {
    const add: HintEvent = { resource: 'AssignedPod', action: 'Add', pod: mkPod('o', { node: 'n' }) };
    assert.equal(worthRequeuing(pod, new Set(['example.com/Custom']), add, cluster), true);
    const [update] = assignedPodUpdateEvents(mkPod('o', { node: 'n' }), { ...mkPod('o', { node: 'n' }), phase: 'Running' });
    assert.equal(worthRequeuing(pod, new Set(['example.com/Custom']), update!, cluster), false);
  });
  it('a plugin that did not register for the event moves nothing (NodeAffinity on a deletion, VolumeBinding on a pod added)', () => {
    assert.equal(hint('NodeAffinity', pod, { resource: 'AssignedPod', action: 'Delete', old: mkPod('o', { node: 'n' }) }), false);
    assert.equal(hint('VolumeBinding', pod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('o', { node: 'n' }) }), false);
    assert.equal(hint('NodeName', pod, { resource: 'Node', action: 'Delete', old: mkNode('n') }), false);
  });
  it('a registration without a hint always moves the pod (VolumeBinding on a claim update, NodeName and NodePorts on a node added)', () => {
    assert.equal(hint('VolumeBinding', pod, { resource: 'PersistentVolumeClaim', action: 'Update' }), true);
    assert.equal(hint('NodeName', pod, { resource: 'Node', action: 'Add', node: mkNode('n') }), true);
    assert.equal(hint('NodePorts', pod, { resource: 'Node', action: 'Add', node: mkNode('n') }), true);
  });
  it('storage objects: each volume plugin only for the events it registered', () => {
    assert.equal(hint('VolumeRestrictions', pod, { resource: 'PersistentVolumeClaim', action: 'Add' }), true);
    assert.equal(hint('VolumeRestrictions', pod, { resource: 'PersistentVolumeClaim', action: 'Update' }), false);
    assert.equal(hint('VolumeZone', pod, { resource: 'StorageClass', action: 'Update' }), false);
    assert.equal(hint('VolumeBinding', pod, { resource: 'PersistentVolume', action: 'Delete' }), false);
    assert.equal(hint('NodeResourcesFit', pod, { resource: 'PersistentVolume', action: 'Add' }), false);
  });
  it('any rejecting plugin whose hint says Queue moves the pod', () =>
    assert.equal(worthRequeuing(pod, new Set(['InterPodAffinity', 'NodeResourcesFit']), { resource: 'AssignedPod', action: 'Delete', old: mkPod('o', { node: 'n' }) }, cluster), true));
});

describe('NodeAffinity hints (nodeaffinity Test_isSchedulableAfterNodeChange)', () => {
  // The two "scheduler-enforced" cases set the profile's addedAffinity to the pod's own term,
  // which the hint here does not read; the pod's term alone gives upstream's answers. The
  // wrong-object cases cannot be built here.
  const pod = mkPod('p', { spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] }] } } } } });
  const update = (old: Node, now: Node) => nodeUpdateEvents(old, now);
  const onUpdate = (old: Node, now: Node) => update(old, now).some((e) => hint('NodeAffinity', pod, e));
  it('skip-queue-on-add', () => assert.equal(hint('NodeAffinity', pod, { resource: 'Node', action: 'Add', node: mkNode('n') }), false));
  it('queue-on-add', () => assert.equal(hint('NodeAffinity', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { labels: { foo: 'bar' } }) }), true));
  it('skip-unrelated-changes', () => assert.equal(onUpdate(mkNode('n'), mkNode('n', { cpu: '8' })), false));
  it('skip-unrelated-changes-on-labels', () => assert.equal(onUpdate(mkNode('n'), mkNode('n', { labels: { k: 'v' } })), false));
  it('skip-labels-changes-on-node-from-suitable-to-unsuitable', () => assert.equal(onUpdate(mkNode('n', { labels: { foo: 'bar' } }), mkNode('n', { labels: { k: 'v' } })), false));
  it('queue-on-labels-change-makes-pod-schedulable', () => assert.equal(onUpdate(mkNode('n'), mkNode('n', { labels: { foo: 'bar' } })), true));
  it('skip-unrelated-change-that-keeps-pod-schedulable', () => assert.equal(onUpdate(mkNode('n', { labels: { foo: 'bar' } }), mkNode('n', { cpu: '8', labels: { foo: 'bar' } })), false));
  it('skip-queue-on-add-scheduler-enforced-node-affinity', () => assert.equal(hint('NodeAffinity', pod, { resource: 'Node', action: 'Add', node: mkNode('n') }), false));
  it('queue-on-add-scheduler-enforced-node-affinity', () => assert.equal(hint('NodeAffinity', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { labels: { foo: 'bar' } }) }), true));
  it('a nodeSelector counts too (GetRequiredNodeAffinity)', () => {
    const selecting = mkPod('p', { spec: { nodeSelector: { disk: 'ssd' } } });
    assert.equal(hint('NodeAffinity', selecting, { resource: 'Node', action: 'Add', node: mkNode('n', { labels: { disk: 'hdd' } }) }), false);
    assert.equal(hint('NodeAffinity', selecting, { resource: 'Node', action: 'Add', node: mkNode('n', { labels: { disk: 'ssd' } }) }), true);
  });
});

describe('NodePorts hints (nodeports Test_isSchedulableAfterAssignedPodDeleted)', () => {
  // skip-queue-on-unscheduled has no counterpart: AssignedPod events here come only from bound pods.
  const withPort = (name: string, port: number | undefined, node?: string) =>
    mkPod(name, { ...(node ? { node } : {}), spec: { containers: [{ name: 'c', ...(port ? { ports: [{ containerPort: port, hostPort: port }] } : {}) }] } });
  const deleted = (old: Pod): HintEvent => ({ resource: 'AssignedPod', action: 'Delete', old });
  const pod = withPort('p', 8080);
  it('skip-queue-on-non-hostport', () => assert.equal(hint('NodePorts', pod, deleted(withPort('o', undefined, 'fake-node'))), false));
  it('skip-queue-on-unrelated-hostport', () => assert.equal(hint('NodePorts', pod, deleted(withPort('o', 8081, 'fake-node'))), false));
  it('queue-on-released-hostport', () => assert.equal(hint('NodePorts', pod, deleted(withPort('o', 8080, 'fake-node'))), true));
});

describe('VolumeRestrictions hints (volumerestrictions Test_isSchedulableAfterAssignedPodDeleted)', () => {
  type Vol = NonNullable<PodSpecManifest['volumes']>[number];
  const withVolume = (name: string, v: Omit<Vol, 'name'>) => mkPod(name, { node: 'n', spec: { volumes: [{ name: 'v', ...v } as Vol] } });
  const deleted = (old: Pod): HintEvent => ({ resource: 'AssignedPod', action: 'Delete', old });
  const gce = (pdName: string) => ({ gcePersistentDisk: { pdName } });
  const aws = (volumeID: string) => ({ awsElasticBlockStore: { volumeID } });
  const rbd = (monitors: string[]) => ({ rbd: { monitors, pool: 'foo', image: 'bar', fsType: 'ext4' } });
  const iscsi = (iqn: string) => ({ iscsi: { targetPortal: '127.0.0.1:3260', iqn, fsType: 'ext4', lun: 0 } });
  const claim = (claimName: string) => ({ persistentVolumeClaim: { claimName } });
  const cases: [string, Omit<Vol, 'name'>, Omit<Vol, 'name'>, boolean][] = [
    ['queue-new-object-gcedisk-conflict', gce('foo'), gce('foo'), true],
    ['skip-new-object-gcedisk-no-conflict', gce('foo'), gce('bar'), false],
    ['queue-new-object-awsdisk-conflict', aws('foo'), aws('foo'), true],
    ['skip-new-object-awsdisk-no-conflict', aws('foo'), aws('bar'), false],
    ['queue-new-object-rbddisk-conflict', rbd(['a', 'b']), rbd(['a', 'b']), true],
    ['skip-new-object-rbddisk-no-conflict', rbd(['a', 'b']), rbd(['c', 'd']), false],
    ['queue-new-object-iscsidisk-conflict', iscsi('iqn.2016-12.server:storage.target01'), iscsi('iqn.2016-12.server:storage.target01'), true],
    ['skip-new-object-iscsidisk-no-conflict', iscsi('iqn.2016-12.server:storage.target01'), iscsi('iqn.2017-12.server:storage.target01'), false],
    ['queue-has-same-claim', claim('claim-rwop'), claim('claim-rwop'), true],
    ['skip-no-same-claim', claim('claim-1-rwop'), claim('claim-2-rwop'), false],
  ];
  for (const [name, mine, theirs, want] of cases) {
    it(name, () => assert.equal(hint('VolumeRestrictions', withVolume('pod1', mine), deleted(withVolume('pod2', theirs))), want));
  }
  it('a pod of another namespace never queues', () => {
    const other = { ...withVolume('pod2', gce('foo')), namespace: 'other' };
    assert.equal(hint('VolumeRestrictions', withVolume('pod1', gce('foo')), deleted(other)), false);
  });
});

describe('NodeVolumeLimits hints (nodevolumelimits TestCSILimitsQHint)', () => {
  // "a deleted pod is not scheduled" has no counterpart: AssignedPod events come only from bound pods.
  const pod = mkPod('p', { spec: { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'csi-ebs.csi.aws.com-2' } }] } });
  const deleted = (spec: Partial<PodSpecManifest>): HintEvent => ({ resource: 'AssignedPod', action: 'Delete', old: mkPod('o', { node: 'csiNode', spec }) });
  it('return a Queue when a deleted pod has a PVC', () => assert.equal(hint('NodeVolumeLimits', pod, deleted({ volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'placeholder' } }] })), true));
  it('return a Queue when a deleted pod has a inline migratable volume', () => assert.equal(hint('NodeVolumeLimits', pod, deleted({ volumes: [{ name: 'v', awsElasticBlockStore: { volumeID: '' } }] })), true));
  it("return a QueueSkip when a deleted pod doesn't have any volume", () => assert.equal(hint('NodeVolumeLimits', pod, deleted({})), false));
});
