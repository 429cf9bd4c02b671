// VolumeBinding, translated from kube-scheduler's volume_binding_test.go
// (TestVolumeBinding), plus Reserve/PreBind: a claim bound for one pod is not
// offered to the next.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildPlugin, mkNode, mkPod } from '../../../test/fixtures/plugin-harness.js';
import { boundPVC, mkClass, mkPV, mkPVC, storageCluster } from '../../../test/fixtures/volumes.js';
import type { StorageInput } from '../../cluster/volumes.js';
import type { Node } from '../../model/node.js';
import { CycleState } from '../framework.js';
import { Code } from '../status.js';
import { ERR_REASON_BIND_CONFLICT, ERR_REASON_NODE_CONFLICT, ERR_REASON_PV_NOT_EXIST, newVolumeBinding, type VolumeBindingPlugin } from './volume-binding.js';

const HOST = 'kubernetes.io/hostname';
// Upstream's waitSC has no provisioner (the API would refuse it; the plugin treats it as unprovisionable).
const waitSC = { ...mkClass('wait-sc', { volumeBindingMode: 'WaitForFirstConsumer' }), provisioner: '' };
const immediateSC = mkClass('immediate-sc', { volumeBindingMode: 'Immediate' });
const podWith = (...claims: string[]) => mkPod('pod-a', { volumes: claims.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } })) });
const onHost = (name: string, capacity: string, host: string) => mkPV(name, { storageClassName: 'wait-sc', capacity: { storage: capacity }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: HOST, operator: 'In', values: [host] }] }] } } }, {}, 'Available');

function run(pod: ReturnType<typeof podWith>, nodes: Node[], storage: StorageInput) {
  const cluster = storageCluster(nodes, [], { storageClasses: [waitSC, immediateSC], ...storage });
  const { plugin } = buildPlugin<VolumeBindingPlugin>(newVolumeBinding, {}, cluster);
  const state = new CycleState();
  const pre = plugin.preFilter(state, pod, cluster.nodeInfos()).status;
  const filters = pre.isSuccess() ? cluster.nodeInfos().map((n) => plugin.filter(state, pod, n)) : [];
  const scores = pre.isSuccess() ? cluster.nodeInfos().map((n) => plugin.score(state, pod, n)) : [];
  return { pre, filters: filters.map((s) => ({ code: s.code, reasons: [...s.reasons] })), scores, plugin, state, cluster };
}

const ok: { code: Code; reasons: string[] } = { code: Code.Success, reasons: [] };

describe('VolumeBinding (volume_binding_test.go TestVolumeBinding)', () => {
  it('upstream: "pod has not pvcs"', () => assert.equal(run(mkPod('pod-a'), [mkNode('node-a')], {}).pre.code, Code.Skip));
  it('upstream: "all bound"', () => {
    const r = run(podWith('pvc-a'), [mkNode('node-a')], { persistentVolumeClaims: [boundPVC('pvc-a', 'pv-a')], persistentVolumes: [mkPV('pv-a', { storageClassName: 'wait-sc' })] });
    assert.deepEqual(r.filters, [ok]);
  });
  it('upstream: "PVC does not exist"', () => assert.deepEqual([...run(podWith('pvc-a'), [mkNode('node-a')], {}).pre.reasons], ['persistentvolumeclaim "pvc-a" not found']));
  it('upstream: "Part of PVCs do not exist"', () => {
    const r = run(podWith('pvc-a', 'pvc-b'), [mkNode('node-a')], { persistentVolumeClaims: [boundPVC('pvc-a', 'pv-a')] });
    assert.deepEqual([r.pre.code, ...r.pre.reasons], [Code.UnschedulableAndUnresolvable, 'persistentvolumeclaim "pvc-b" not found']);
  });
  it('upstream: "immediate claims not bound"', () => {
    const r = run(podWith('pvc-a'), [mkNode('node-a')], { persistentVolumeClaims: [mkPVC('pvc-a', { storageClassName: 'immediate-sc' })] });
    assert.deepEqual([r.pre.code, ...r.pre.reasons], [Code.UnschedulableAndUnresolvable, 'pod has unbound immediate PersistentVolumeClaims']);
  });
  it('upstream: "unbound claims no matches"', () => {
    const r = run(podWith('pvc-a'), [mkNode('node-a')], { persistentVolumeClaims: [mkPVC('pvc-a', { storageClassName: 'wait-sc' })] });
    assert.deepEqual(r.filters, [{ code: Code.UnschedulableAndUnresolvable, reasons: [ERR_REASON_BIND_CONFLICT] }]);
  });
  it('upstream: "bound and unbound unsatisfied"', () => {
    const pv = mkPV('pv-a', { storageClassName: 'wait-sc', nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] }] } } }, {}, 'Available');
    const r = run(podWith('pvc-a', 'pvc-b'), [mkNode('node-a', { labels: { foo: 'barbar' } })], { persistentVolumes: [pv], persistentVolumeClaims: [boundPVC('pvc-a', 'pv-a', { storageClassName: 'wait-sc' }), mkPVC('pvc-b', { storageClassName: 'wait-sc' })] });
    assert.deepEqual(r.filters, [{ code: Code.UnschedulableAndUnresolvable, reasons: [ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT] }]);
  });
  it('upstream: "pv not found"', () => {
    const r = run(podWith('pvc-a'), [mkNode('node-a')], { persistentVolumeClaims: [boundPVC('pvc-a', 'pv-a', { storageClassName: 'wait-sc' })] });
    assert.deepEqual(r.filters, [{ code: Code.UnschedulableAndUnresolvable, reasons: [ERR_REASON_PV_NOT_EXIST] }]);
  });
  it('upstream: "pv not found claim lost"', () => {
    const lost = mkPVC('pvc-a', { storageClassName: 'wait-sc', volumeName: 'pv-a' }, { annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } }, 'Lost');
    assert.deepEqual([...run(podWith('pvc-a'), [mkNode('node-a')], { persistentVolumeClaims: [lost] }).pre.reasons], ['persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"']);
  });
  it('upstream: "local volumes with close capacity are preferred"', () => {
    const r = run(podWith('pvc-a'), [mkNode('node-a'), mkNode('node-b'), mkNode('node-c')], {
      persistentVolumeClaims: [mkPVC('pvc-a', { storageClassName: 'wait-sc', resources: { requests: { storage: '50Gi' } } })],
      persistentVolumes: [onHost('pv-a-0', '200Gi', 'node-a'), onHost('pv-a-1', '200Gi', 'node-a'), onHost('pv-b-0', '100Gi', 'node-b'), onHost('pv-b-1', '100Gi', 'node-b')],
    });
    assert.deepEqual(r.filters, [ok, ok, { code: Code.UnschedulableAndUnresolvable, reasons: [ERR_REASON_BIND_CONFLICT] }]);
    assert.deepEqual(r.scores, [75, 50, 0]);
    const all: number[] = [];
    r.plugin.scoreAll!(r.state, podWith('pvc-a'), r.cluster.nodeInfos(), all, 0);
    assert.deepEqual(all, r.scores, 'scoreAll gives what score gives node by node');
  });
});

describe('VolumeBinding Reserve and PreBind', () => {
  it('a volume bound for one pod is not offered to the next; its claim is then bound', () => {
    const claims = [mkPVC('pvc-a', { storageClassName: 'wait-sc' }), mkPVC('pvc-b', { storageClassName: 'wait-sc' })];
    const r = run(podWith('pvc-a'), [mkNode('node-a')], { persistentVolumeClaims: claims, persistentVolumes: [onHost('pv-a-0', '10Gi', 'node-a')] });
    assert.deepEqual(r.filters, [ok]);
    assert.equal(r.plugin.reserve(r.state, podWith('pvc-a'), 'node-a').code, Code.Success);
    assert.equal(r.cluster.volumes.persistentVolume('pv-a-0')?.claimRef?.name, 'pvc-a');
    assert.equal(r.plugin.preBind(r.state, podWith('pvc-a'), 'node-a').code, Code.Success);
    const bound = r.cluster.volumes.claim('default', 'pvc-a')!;
    assert.deepEqual([bound.volumeName, bound.bindCompleted], ['pv-a-0', true]);

    const next = mkPod('pod-b', { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'pvc-b' } }] });
    const state = new CycleState();
    r.plugin.preFilter(state, next, r.cluster.nodeInfos());
    assert.deepEqual([...r.plugin.filter(state, next, r.cluster.nodeInfo('node-a')!).reasons], [ERR_REASON_BIND_CONFLICT]);
  });

  it('a provisioned claim gets the selected node; a second pod using it must go there', () => {
    const sc = mkClass('gp3', { volumeBindingMode: 'WaitForFirstConsumer' });
    const r = run(podWith('data'), [mkNode('node-a'), mkNode('node-b')], { storageClasses: [sc], persistentVolumeClaims: [mkPVC('data', { storageClassName: 'gp3' })] });
    assert.deepEqual(r.filters, [ok, ok]);
    r.plugin.reserve(r.state, podWith('data'), 'node-b');
    assert.equal(r.cluster.volumes.claim('default', 'data')?.annotations['volume.kubernetes.io/selected-node'], 'node-b');
    const state = new CycleState();
    r.plugin.preFilter(state, podWith('data'), r.cluster.nodeInfos());
    assert.deepEqual(r.cluster.nodeInfos().map((n) => r.plugin.filter(state, podWith('data'), n).code), [Code.UnschedulableAndUnresolvable, Code.Success]);
  });
});

describe('VolumeBinding with the StorageCapacityScoring gate off (volume_binding.go New: no scorer)', () => {
  const features = { StorageCapacityScoring: false };
  it('PreScore skips and Score is 0 even for static bindings', () => {
    const cluster = storageCluster([mkNode('n1', { labels: { [HOST]: 'n1' } })], [], { storageClasses: [waitSC], persistentVolumes: [onHost('pv1', '10Gi', 'n1')], persistentVolumeClaims: [mkPVC('c1', { storageClassName: 'wait-sc', resources: { requests: { storage: '5Gi' } } })] });
    const gated = newVolumeBinding({ handle: buildPlugin(newVolumeBinding, {}, cluster).handle, args: {}, features }) as VolumeBindingPlugin;
    const on = buildPlugin<VolumeBindingPlugin>(newVolumeBinding, {}, cluster).plugin;
    const pod = podWith('c1');
    const [node] = cluster.nodeInfos();
    for (const [p, want] of [[gated, { skip: true, zero: true }], [on, { skip: false, zero: false }]] as const) {
      const state = new CycleState();
      assert.ok(p.preFilter(state, pod, cluster.nodeInfos()).status.isSuccess());
      assert.ok(p.filter(state, pod, node!).isSuccess());
      assert.equal(p.preScore(state, pod, cluster.nodeInfos()).isSkip(), want.skip);
      assert.equal(p.score(state, pod, node!) === 0, want.zero);
    }
  });
  it('a configured shape is refused', () => {
    assert.throws(() => newVolumeBinding({ handle: buildPlugin(newVolumeBinding).handle, args: { shape: [{ utilization: 0, score: 0 }] }, features }), /unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring/);
  });
});
