import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadSources } from '../io/load.js';
import { runScenarioText } from '../sim/fixtures.test-support.js';
import { podGroups } from './pod-groups.js';
import { allowEveryZone, confiningClasses, describeVolumeBound, volumeBoundReplicas } from './volume-bound.js';

const node = (name: string, zone: string) => `
    - apiVersion: v1
      kind: Node
      metadata: {name: ${name}, labels: {kubernetes.io/hostname: ${name}, topology.kubernetes.io/zone: ${zone}}}
      status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}`;

// Static volumes in us-west-2a and 2b, each pre-bound to one ordinal's claim; the pods are pinned with the volumes' zones.
const objects = `${node('a1', 'us-west-2a')}${node('b1', 'us-west-2b')}
    - apiVersion: storage.k8s.io/v1
      kind: StorageClass
      metadata: {name: pinned}
      provisioner: ebs.csi.aws.com
      allowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [us-west-2a]}]}]
    - apiVersion: v1
      kind: PersistentVolume
      metadata: {name: pv-0}
      spec:
        capacity: {storage: 1Gi}
        accessModes: [ReadWriteOnce]
        storageClassName: pinned
        claimRef: {namespace: default, name: data-db-0}
        csi: {driver: ebs.csi.aws.com, volumeHandle: vol-0}
        nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-west-2a]}]}]}}
    - apiVersion: apps/v1
      kind: StatefulSet
      metadata: {name: db}
      spec:
        replicas: 1
        selector: {matchLabels: {app: db}}
        template:
          metadata: {labels: {app: db}}
          spec:
            nodeSelector: {topology.kubernetes.io/zone: us-west-2a}
            containers: [{name: c, resources: {requests: {cpu: 100m}}}]
        volumeClaimTemplates:
        - metadata: {name: data}
          spec: {accessModes: [ReadWriteOnce], storageClassName: pinned, volumeName: pv-0, resources: {requests: {storage: 1Gi}}}`;

const scenario = `
apiVersion: berth.dev/v1alpha1
kind: Scenario
metadata: {name: volume-bound}
spec:
  objects:
  - apiVersion: v1
    kind: List
    items:${objects}
  steps:
  - at: 1m
    failZone: {zone: us-west-2a}
`;

describe('volume-bound replicas', () => {
  it('names the replica on the lost zone whose volume no surviving node reaches, and where the volume is', () => {
    const run = runScenarioText('t.yaml', scenario, { untilMs: 5 * 60_000 });
    const loaded = loadSources([{ name: 't.yaml', text: scenario }]);
    assert.ok(loaded.ok);
    const group = podGroups(loaded.input).find((g) => g.name === 'db')!;
    const lost = run.sim.world.cluster.nodeInfos().filter((i) => i.node.name === 'a1').map((i) => i.node);
    const bound = volumeBoundReplicas(run, group, lost);
    assert.deepEqual(bound, [{ pod: 'default/db-0', claim: 'data-db-0', volume: 'pv-0', storageClass: 'pinned', where: 'zone us-west-2a' }]);
    assert.equal(describeVolumeBound(bound, 1, 'zone us-west-2a'), '1 of 1 replica(s) cannot return outside zone us-west-2a: their volumes are there — default/db-0 (claim data-db-0 → PersistentVolume pv-0 in zone us-west-2a)');
    // Losing the other zone strands nothing.
    const other = run.sim.world.cluster.nodeInfos().filter((i) => i.node.name === 'b1').map((i) => i.node);
    assert.deepEqual(volumeBoundReplicas(run, group, other), []);
    // The class confines its volumes to the lost zone; the remedy lets it use every zone.
    assert.deepEqual(confiningClasses(loaded.input, bound, 'us-west-2a'), ['pinned']);
    assert.deepEqual(confiningClasses(loaded.input, bound, 'us-west-2b'), []);
    const fixed = allowEveryZone(['pinned']).apply(loaded.input);
    assert.deepEqual(fixed.storage.storageClasses.map((c) => c.allowedTopologies), [[]]);
  });
});
