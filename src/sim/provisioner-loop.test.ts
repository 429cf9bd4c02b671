import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileNodePool } from '../model/nodepool.js';
import { compileCSINode } from '../model/volumes.js';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import { applyAction } from './faults.js';
import { createSimulation } from './simulation.js';
import { app, clusterWithNodes } from './fixtures.test-support.js';

const pool = compileNodePool({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'default' },
  spec: {
    template: {
      spec: {
        requirements: [
          { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m'] },
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
        ],
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      },
    },
  },
} as Parameters<typeof compileNodePool>[0]);

function simWith(seed = 1) {
  return createSimulation(clusterWithNodes([{ name: 'a', cpu: '1' }]), { seed, provisioner: { pools: [pool], instanceTypes: bundledInstanceTypes() } });
}

describe('provisioner loop', () => {
  it('one batch, claims launched once, pods bound after registration and readiness', () => {
    const sim = simWith();
    sim.deployments.add(app('web', { replicas: 3, cpu: '500m', antiAffinity: true }));
    sim.engine.run(10 * 60_000);
    const launched = sim.engine.log.filter((r) => r.type === 'NodeClaimLaunched');
    assert.equal(launched.length, 2, 'a fits one replica; two more nodes, and no second launch while they boot');
    assert.equal(sim.engine.log.filter((r) => r.type === 'ProvisioningPlanned' && (r['nodeClaims'] as number) > 0).length, 1);
    const bound = sim.engine.log.filter((r) => r.type === 'Scheduled').map((r) => r['node']);
    assert.equal(new Set(bound).size, 3);
    // Batch closes 1 s after the last unschedulable pod; launch 15 s + register 15 s + ready 10 s.
    const firstBindOnNew = sim.engine.log.find((r) => r.type === 'Scheduled' && r['node'] !== 'a')!;
    assert.ok(firstBindOnNew.t >= launched[0]!.t + 40_000, `bound at ${firstBindOnNew.t}`);
  });

  it('insufficient capacity for the chosen offering: the next plan falls back to another offering', () => {
    const sim = simWith();
    const first = sim.engine;
    sim.cloud.addIceWindow({ zone: 'us-west-2a', from: 0, until: 60 * 60_000 });
    sim.cloud.addIceWindow({ zone: 'us-west-2b', from: 0, until: 60 * 60_000 });
    sim.deployments.add(app('web', { replicas: 2, cpu: '800m' }));
    first.run(10 * 60_000);
    const ice = first.log.filter((r) => r.type === 'InsufficientCapacity');
    const launched = first.log.filter((r) => r.type === 'NodeClaimLaunched');
    assert.ok(ice.length >= 1);
    assert.ok(launched.length >= 1 && launched.every((r) => r['zone'] !== 'us-west-2a' && r['zone'] !== 'us-west-2b'));
    assert.equal([...sim.world.cluster.pods()].filter((p) => !p.nodeName).length, 0);
  });

  it('a failed zone is down for launches too: replacements launch only in the other zones, and the zone takes launches again once it returns', () => {
    const sim = createSimulation(
      clusterWithNodes([
        { name: 'a', cpu: '1', zone: 'us-west-2a' },
        { name: 'b', cpu: '1', zone: 'us-west-2b' },
      ]),
      { seed: 1, provisioner: { pools: [pool], instanceTypes: bundledInstanceTypes() } },
    );
    sim.deployments.add(app('web', { replicas: 2, cpu: '800m' }));
    sim.engine.run(60_000);
    applyAction(sim, { type: 'failZone', zone: 'us-west-2a' });
    sim.engine.run(20 * 60_000);
    const launched = sim.engine.log.filter((r) => r.type === 'NodeClaimLaunched');
    assert.ok(launched.length >= 1, 'the lost replica gets a node');
    assert.ok(launched.every((r) => r['zone'] !== 'us-west-2a'), JSON.stringify(launched.map((r) => r['zone'])));
    applyAction(sim, { type: 'recoverZone', zone: 'us-west-2a' });
    sim.cloud.addIceWindow({ zone: 'us-west-2b', from: sim.engine.now, until: Infinity });
    sim.cloud.addIceWindow({ zone: 'us-west-2c', from: sim.engine.now, until: Infinity });
    sim.cloud.addIceWindow({ zone: 'us-west-2d', from: sim.engine.now, until: Infinity });
    sim.deployments.scaleDeployment('default/web', 4);
    sim.engine.run(40 * 60_000);
    assert.ok(sim.engine.log.some((r) => r.type === 'NodeClaimLaunched' && r['zone'] === 'us-west-2a' && r.t > 20 * 60_000));
  });

  it('disabled: nothing is launched and the pods stay pending', () => {
    const sim = simWith();
    sim.provisioner!.setEnabled(false);
    sim.deployments.add(app('web', { replicas: 3, cpu: '800m' }));
    sim.engine.run(5 * 60_000);
    assert.equal(sim.engine.log.filter((r) => r.type === 'NodeClaimLaunched').length, 0);
    assert.equal([...sim.world.cluster.pods()].filter((p) => !p.nodeName).length, 2);
  });

  it('a launched node gets the CSINode the EBS CSI driver registers when the cluster runs it: the instance type\'s attach limit and the zone label under its topology key', () => {
    const cluster = clusterWithNodes([{ name: 'a', cpu: '1' }]);
    cluster.volumes.setCSINode(compileCSINode({ metadata: { name: 'a' }, spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: 'i-a', topologyKeys: ['topology.ebs.csi.aws.com/zone'] }] } }));
    const sim = createSimulation(cluster, { seed: 1, provisioner: { pools: [pool], instanceTypes: bundledInstanceTypes() } });
    sim.deployments.add(app('web', { replicas: 1, cpu: '2' }));
    sim.engine.run(10 * 60_000);
    const launched = sim.engine.log.find((r) => r.type === 'NodeClaimLaunched')!;
    const name = launched['nodeClaim'] as string;
    const it = bundledInstanceTypes().find((t) => t.name === launched['instanceType'])!;
    const csi = sim.world.cluster.volumes.csiNode(name)!;
    assert.equal(csi.drivers[0]!.allocatableCount, it.ebsVolumeLimit);
    assert.equal(sim.world.cluster.nodeInfo(name)!.node.labels['topology.ebs.csi.aws.com/zone'], launched['zone']);
  });

  it('no CSINode for launched nodes when no node shows the EBS CSI driver', () => {
    const sim = simWith();
    sim.deployments.add(app('web', { replicas: 1, cpu: '2' }));
    sim.engine.run(10 * 60_000);
    const name = sim.engine.log.find((r) => r.type === 'NodeClaimLaunched')!['nodeClaim'] as string;
    assert.equal(sim.world.cluster.volumes.csiNode(name), undefined);
  });
});
