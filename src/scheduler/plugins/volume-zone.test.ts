// VolumeZone, translated from kube-scheduler's volume_zone_test.go (TestSingleZone,
// TestWithBinding): PV zone/region labels against node labels, beta and GA.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildPlugin, mkNode, mkPod } from '../../../test/fixtures/plugin-harness.js';
import { mkClass, mkPV, mkPVC, storageCluster } from '../../../test/fixtures/volumes.js';
import { CycleState, type FilterPlugin, type PreFilterPlugin } from '../framework.js';
import { Code } from '../status.js';
import { ERR_REASON_VOLUME_ZONE_CONFLICT, newVolumeZone } from './volume-zone.js';

const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const BETA_REGION = 'failure-domain.beta.kubernetes.io/region';
const ZONE = 'topology.kubernetes.io/zone';
const REGION = 'topology.kubernetes.io/region';

const pvs = [
  mkPV('Vol_1', {}, { [BETA_ZONE]: 'us-west1-a' }),
  mkPV('Vol_2', {}, { [BETA_REGION]: 'us-west1', uselessLabel: 'none' }),
  mkPV('Vol_Stable_1', {}, { [ZONE]: 'us-west1-a' }),
  mkPV('Vol_Stable_2', {}, { [REGION]: 'us-west1', uselessLabel: 'none' }),
  mkPV('Vol_Stable_3', {}, { [ZONE]: 'us-west1-a', [REGION]: 'us-west1-a' }),
];
const claims = [
  mkPVC('PVC_1', { volumeName: 'Vol_1' }),
  mkPVC('PVC_2', { volumeName: 'Vol_2' }),
  mkPVC('PVC_4', { volumeName: 'Vol_not_exist' }),
  mkPVC('PVC_Stable_1', { volumeName: 'Vol_Stable_1' }),
  mkPVC('PVC_Stable_2', { volumeName: 'Vol_Stable_2' }),
  mkPVC('PVC_Stable_3', { volumeName: 'Vol_Stable_3' }),
  mkPVC('PVC_EmptySC', { storageClassName: '' }),
  mkPVC('PVC_NoSC', { storageClassName: 'Class_0' }),
  mkPVC('PVC_NoModeSC', { storageClassName: 'Class_Immediate' }),
  mkPVC('PVC_WaitSC', { storageClassName: 'Class_Wait' }),
];
const classes = [mkClass('Class_Immediate', { volumeBindingMode: 'Immediate' }), mkClass('Class_Wait', { volumeBindingMode: 'WaitForFirstConsumer' })];

const podWith = (claim?: string) => mkPod('pod_1', claim ? { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: claim } }] } : {});

function run(claim: string | undefined, nodeLabels: Record<string, string>) {
  const node = mkNode('host1', { labels: nodeLabels });
  const cluster = storageCluster([node], [], { persistentVolumes: pvs, persistentVolumeClaims: claims, storageClasses: classes });
  const { plugin } = buildPlugin<PreFilterPlugin & FilterPlugin>(newVolumeZone, {}, cluster);
  const state = new CycleState();
  const pod = podWith(claim);
  const pre = plugin.preFilter(state, pod, cluster.nodeInfos()).status;
  if (!pre.isSuccess()) return { pre };
  return { pre, filter: plugin.filter(state, pod, cluster.nodeInfo('host1')!) };
}

const conflict = { code: Code.UnschedulableAndUnresolvable, reasons: [ERR_REASON_VOLUME_ZONE_CONFLICT] };

describe('VolumeZone (volume_zone_test.go TestSingleZone)', () => {
  const cases: { name: string; claim?: string; labels: Record<string, string>; want?: typeof conflict }[] = [
    { name: 'node without labels', claim: 'PVC_1', labels: {} },
    { name: 'beta zone label matched', claim: 'PVC_1', labels: { [BETA_ZONE]: 'us-west1-a', uselessLabel: 'none' } },
    { name: 'beta region label matched', claim: 'PVC_2', labels: { [BETA_REGION]: 'us-west1', uselessLabel: 'none' } },
    { name: "beta region label doesn't match", claim: 'PVC_2', labels: { [BETA_REGION]: 'no_us-west1', uselessLabel: 'none' }, want: conflict },
    { name: "beta zone label doesn't match", claim: 'PVC_1', labels: { [BETA_ZONE]: 'no_us-west1-a', uselessLabel: 'none' }, want: conflict },
    { name: 'zone label matched', claim: 'PVC_Stable_1', labels: { [ZONE]: 'us-west1-a', uselessLabel: 'none' } },
    { name: 'region label matched', claim: 'PVC_Stable_2', labels: { [REGION]: 'us-west1', uselessLabel: 'none' } },
    { name: "region label doesn't match", claim: 'PVC_Stable_2', labels: { [REGION]: 'no_us-west1', uselessLabel: 'none' }, want: conflict },
    { name: "zone label doesn't match", claim: 'PVC_Stable_1', labels: { [ZONE]: 'no_us-west1-a', uselessLabel: 'none' }, want: conflict },
    { name: 'pv with zone and region, node with only zone', claim: 'PVC_Stable_3', labels: { [ZONE]: 'us-west1-a' }, want: conflict },
    { name: 'pv with zone,node with beta zone', claim: 'PVC_Stable_1', labels: { [BETA_ZONE]: 'us-west1-a' }, want: conflict },
    { name: 'pv with beta label,node with ga label, matched', claim: 'PVC_1', labels: { [ZONE]: 'us-west1-a' } },
    { name: "pv with beta label,node with ga label, don't match", claim: 'PVC_1', labels: { [ZONE]: 'us-west1-b' }, want: conflict },
  ];
  it('upstream: "pod without volume" skips', () => {
    assert.equal(run(undefined, { [BETA_ZONE]: 'us-west1-a' }).pre.code, Code.Skip);
  });
  for (const c of cases) {
    it(`upstream: ${JSON.stringify(c.name)}`, () => {
      const r = run(c.claim, c.labels);
      assert.equal(r.pre.code, Code.Success);
      assert.deepEqual({ code: r.filter!.code, reasons: [...r.filter!.reasons] }, c.want ?? { code: Code.Success, reasons: [] });
    });
  }
});

describe('VolumeZone (volume_zone_test.go TestWithBinding)', () => {
  const pre = (claim: string) => run(claim, { [BETA_ZONE]: 'us-west1-a' }).pre;
  it('upstream: "label zone failure domain matched"', () => assert.equal(run('PVC_1', { [BETA_ZONE]: 'us-west1-a' }).filter?.code, Code.Success));
  it('upstream: "unbound volume empty storage class"', () => assert.deepEqual([...pre('PVC_EmptySC').reasons], ['PersistentVolumeClaim had no pv name and storageClass name']));
  it('upstream: "unbound volume no storage class"', () => assert.deepEqual([...pre('PVC_NoSC').reasons], ['storageclass.storage.k8s.io "Class_0" not found']));
  it('upstream: "unbound volume immediate binding mode"', () => assert.deepEqual([...pre('PVC_NoModeSC').reasons], ['PersistentVolume had no name']));
  it('upstream: "unbound volume wait binding mode" skips', () => assert.equal(pre('PVC_WaitSC').code, Code.Skip));
  it('a claim bound to a missing PV: the lister\'s NotFound', () => assert.deepEqual([...pre('PVC_4').reasons], ['persistentvolume "Vol_not_exist" not found']));
  it('a missing claim: the lister\'s NotFound', () => assert.deepEqual([...pre('nope').reasons], ['persistentvolumeclaim "nope" not found']));
});
