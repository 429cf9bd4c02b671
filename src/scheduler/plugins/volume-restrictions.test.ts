// VolumeRestrictions, translated from kube-scheduler's volume_restrictions_test.go:
// TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts,
// TestISCSIDiskConflicts (the same four cases each) and TestAccessModeConflicts,
// plus the PreFilter extensions preemption uses.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildPlugin, mkNode, mkPod } from '../../../test/fixtures/plugin-harness.js';
import { mkPVC, storageCluster } from '../../../test/fixtures/volumes.js';
import type { PodVolumeManifest } from '../../model/volumes.js';
import { CycleState, type FilterPlugin, type PreFilterExtensions, type PreFilterPlugin } from '../framework.js';
import { Code } from '../status.js';
import { ERR_REASON_DISK_CONFLICT, ERR_REASON_RWOP_CONFLICT, newVolumeRestrictions } from './volume-restrictions.js';

type Plugin = PreFilterPlugin & FilterPlugin & { preFilterExtensions: PreFilterExtensions };
let n = 0;
const podWithVolumes = (volumes: PodVolumeManifest[], more: { nodeName?: string; name?: string } = {}) => mkPod(more.name ?? `p${n++}`, { volumes, ...(more.nodeName ? { nodeName: more.nodeName } : {}) });

function runDisk(pod: PodVolumeManifest[] | null, existing: PodVolumeManifest[] | null) {
  const node = mkNode('node-1');
  const pods = existing ? [podWithVolumes(existing, { nodeName: 'node-1' })] : [];
  const cluster = storageCluster([node], pods, {});
  const { plugin } = buildPlugin<Plugin>(newVolumeRestrictions, {}, cluster);
  const state = new CycleState();
  const p = podWithVolumes(pod ?? []);
  const pre = plugin.preFilter(state, p, cluster.nodeInfos()).status;
  return { pre: pre.code, filter: pre.isSuccess() ? plugin.filter(state, p, cluster.nodeInfo('node-1')!) : undefined };
}

const diskFamilies: { test: string; state: PodVolumeManifest; state2: PodVolumeManifest }[] = [
  { test: 'TestGCEDiskConflicts', state: { name: 'v', gcePersistentDisk: { pdName: 'foo' } }, state2: { name: 'v', gcePersistentDisk: { pdName: 'bar' } } },
  { test: 'TestAWSDiskConflicts', state: { name: 'v', awsElasticBlockStore: { volumeID: 'foo' } }, state2: { name: 'v', awsElasticBlockStore: { volumeID: 'bar' } } },
  { test: 'TestRBDDiskConflicts', state: { name: 'v', rbd: { monitors: ['a', 'b'], pool: 'foo', image: 'bar' } }, state2: { name: 'v', rbd: { monitors: ['c', 'd'], pool: 'foo', image: 'bar' } } },
  { test: 'TestISCSIDiskConflicts', state: { name: 'v', iscsi: { iqn: 'iqn.2016-12.server:storage.target01' } }, state2: { name: 'v', iscsi: { iqn: 'iqn.2017-12.server:storage.target01' } } },
];

for (const f of diskFamilies) {
  describe(`VolumeRestrictions (volume_restrictions_test.go ${f.test})`, () => {
    it('upstream: "nothing"', () => assert.deepEqual(runDisk(null, null), { pre: Code.Skip, filter: undefined }));
    it('upstream: "one state"', () => assert.deepEqual(runDisk(null, [f.state]), { pre: Code.Skip, filter: undefined }));
    it('upstream: "same state"', () => {
      const r = runDisk([f.state], [f.state]);
      assert.equal(r.pre, Code.Success);
      assert.deepEqual([r.filter?.code, r.filter?.reasons], [Code.Unschedulable, [ERR_REASON_DISK_CONFLICT]]);
    });
    it('upstream: "different state"', () => assert.equal(runDisk([f.state2], [f.state]).filter?.code, Code.Success));
  });
}

describe('VolumeRestrictions read-only disks', () => {
  it('two read-only mounts of one GCE PD do not conflict; EBS always does', () => {
    assert.equal(runDisk([{ name: 'v', gcePersistentDisk: { pdName: 'foo', readOnly: true } }], [{ name: 'v', gcePersistentDisk: { pdName: 'foo', readOnly: true } }]).filter?.code, Code.Success);
    assert.equal(runDisk([{ name: 'v', awsElasticBlockStore: { volumeID: 'foo', readOnly: true } }], [{ name: 'v', awsElasticBlockStore: { volumeID: 'foo', readOnly: true } }]).filter?.code, Code.Unschedulable);
  });
});

describe('VolumeRestrictions (volume_restrictions_test.go TestAccessModeConflicts)', () => {
  const rwop1 = mkPVC('claim-with-rwop-1', { accessModes: ['ReadWriteOncePod'] });
  const rwop2 = mkPVC('claim-with-rwop-2', { accessModes: ['ReadWriteOncePod'] });
  const rwx = mkPVC('claim-with-rwx', { accessModes: ['ReadWriteMany'] });
  const claimVol = (claimName: string): PodVolumeManifest => ({ name: claimName, persistentVolumeClaim: { claimName } });
  const onNode = (name: string, ...claims: string[]) => podWithVolumes(claims.map(claimVol), { name, nodeName: 'node-1' });

  function run(podClaims: string[], existing: ReturnType<typeof onNode>[], claims: ReturnType<typeof mkPVC>[]) {
    const cluster = storageCluster([mkNode('node-1')], existing, { persistentVolumeClaims: claims });
    const { plugin } = buildPlugin<Plugin>(newVolumeRestrictions, {}, cluster);
    const state = new CycleState();
    const pod = podWithVolumes(podClaims.map(claimVol));
    const pre = plugin.preFilter(state, pod, cluster.nodeInfos()).status;
    return { pre, state, pod, plugin, cluster, filter: pre.isSuccess() ? plugin.filter(state, pod, cluster.nodeInfo('node-1')!) : undefined };
  }

  it('upstream: "nothing"', () => assert.equal(run([], [], []).pre.code, Code.Skip));
  it('upstream: "failed to get PVC"', () => {
    const r = run(['claim-with-rwop-1'], [], []);
    assert.deepEqual([r.pre.code, r.pre.reasons], [Code.UnschedulableAndUnresolvable, ['persistentvolumeclaim "claim-with-rwop-1" not found']]);
  });
  it('upstream: "no access mode conflict"', () => assert.equal(run(['claim-with-rwop-1'], [onNode('pod-with-rwx', 'claim-with-rwx')], [rwop1, rwx]).pre.code, Code.Skip));
  it('upstream: "access mode conflict, unschedulable"', () => {
    const r = run(['claim-with-rwop-1'], [onNode('pod-with-one-pvc', 'claim-with-rwop-1'), onNode('pod-with-rwx', 'claim-with-rwx')], [rwop1, rwx]);
    assert.deepEqual([r.filter?.code, r.filter?.reasons], [Code.Unschedulable, [ERR_REASON_RWOP_CONFLICT]]);
  });
  it('upstream: "two conflicts, unschedulable"', () => {
    const r = run(['claim-with-rwop-1', 'claim-with-rwop-2'], [onNode('pod-with-two-pvcs', 'claim-with-rwop-1', 'claim-with-rwop-2'), onNode('pod-with-rwx', 'claim-with-rwx')], [rwop1, rwop2, rwx]);
    assert.deepEqual([r.filter?.code, r.filter?.reasons], [Code.Unschedulable, [ERR_REASON_RWOP_CONFLICT]]);
  });
  it('removing the pod that holds the claim (preemption) clears the conflict; adding it back restores it', () => {
    const holder = onNode('pod-with-one-pvc', 'claim-with-rwop-1');
    const r = run(['claim-with-rwop-1'], [holder], [rwop1]);
    const info = r.cluster.nodeInfo('node-1')!;
    assert.equal(r.plugin.preFilterExtensions.removePod(r.state, r.pod, holder, info).code, Code.Success);
    assert.equal(r.plugin.filter(r.state, r.pod, info).code, Code.Success);
    r.plugin.preFilterExtensions.addPod(r.state, r.pod, holder, info);
    assert.equal(r.plugin.filter(r.state, r.pod, info).code, Code.Unschedulable);
  });
});
