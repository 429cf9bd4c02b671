import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadSources } from '../io/load.js';
import { stringify } from 'yaml';
import { placeholderManifests, capacityBufferManifests, sharedPlacement, sizeHeadroom, withObjects, withoutPlaceholders } from './headroom.js';
import { contextFor, deploymentYaml, listYaml, loadInput, nodeYaml } from './test-input.js';

// Three zones, one 1-CPU node each, full: web's six 500m replicas, two per node.
const full = () => loadInput({ text: listYaml(nodeYaml('n1', 'us-west-2a', '1'), nodeYaml('n2', 'us-west-2b', '1'), nodeYaml('n3', 'us-west-2c', '1'), deploymentYaml('web', 6)) });

describe('sizeHeadroom', () => {
  it('static nodes: a node loss needs one spare node anywhere, a zone loss one outside the lost zone, so two zones keep one each', () => {
    const r = sizeHeadroom(contextFor(full(), { provisioner: false }), { recoveryS: 420 });
    assert.equal(r.mode, 'nodes');
    assert.deepEqual(r.zones.map((z) => `${z.zone}:${z.count}`), ['us-west-2a:0', 'us-west-2b:1', 'us-west-2c:1']);
    assert.deepEqual(r.unit, { cpu: 1000, memory: 16 * 2 ** 30 });
    assert.equal(r.met, true, JSON.stringify(r.stillSlow));
    // Without headroom the two lost replicas never come back; with it they are back within the target.
    assert.ok(r.evidence.length > 0);
    for (const e of r.evidence) {
      assert.equal(e.withoutS, null);
      assert.equal(e.lost, 2);
      assert.ok(typeof e.withS === 'number' && e.withS <= 420, JSON.stringify(e));
    }
    assert.deepEqual(r.manifests.map((m) => (m['metadata'] as { name: string }).name), ['headroom-us-west-2b-1', 'headroom-us-west-2c-1']);
    assert.deepEqual(r.verified, { node: 5, zone: 3 });
  });

  it('with the provisioner: placeholder pods turn a recovery that waits for a node launch into one that preempts them', () => {
    // One 500m replica per full 500m node: a lost replica waits for a launched node (about 6.5 min) unless a placeholder holds room.
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'us-west-2a', '0.5'), nodeYaml('n2', 'us-west-2b', '0.5'), nodeYaml('n3', 'us-west-2c', '0.5'), deploymentYaml('web', 3)) }, { file: 'examples/nodepools/default.yaml' });
    const r = sizeHeadroom(contextFor(input, { provisioner: true }), { recoveryS: 360 });
    assert.equal(r.mode, 'placeholders');
    assert.deepEqual(r.unit, { cpu: 500, memory: 256 * 2 ** 20 });
    // As with spare nodes, one zone's placeholder is lost with its zone: two zones keep one.
    assert.deepEqual(r.zones.map((z) => `${z.zone}:${z.count}`), ['us-west-2a:0', 'us-west-2b:1', 'us-west-2c:1']);
    assert.equal(r.met, true, JSON.stringify(r.stillSlow));
    assert.equal(r.evidence.length, 6);
    for (const e of r.evidence) assert.ok(e.withoutS! > 360 && typeof e.withS === 'number' && e.withS <= 360, JSON.stringify(e));
    assert.deepEqual(r.manifests.map((m) => String(m['kind'])), ['Namespace', 'PriorityClass', 'Deployment', 'Deployment']);
  });

  it('nothing to add when every loss is already within the target', () => {
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'us-west-2a'), nodeYaml('n2', 'us-west-2b'), nodeYaml('n3', 'us-west-2c'), deploymentYaml('web', 3)) });
    const r = sizeHeadroom(contextFor(input, { provisioner: false }), { recoveryS: 600 });
    assert.deepEqual(r.evidence, []);
    assert.equal(r.met, true);
    assert.equal(r.probes, 0);
    assert.deepEqual(r.manifests, []);
    assert.ok(r.zones.every((z) => z.count === 0));
  });

  it('a target below the eviction delay cannot be met: those losses are set aside, no headroom is proposed for them, and they stay in stillSlow', () => {
    const r = sizeHeadroom(contextFor(full(), { provisioner: false }), { recoveryS: 60 });
    assert.equal(r.met, false);
    assert.deepEqual(r.zones.map((z) => z.count), [0, 0, 0]);
    assert.ok(r.stillSlow.length > 0 && r.stillSlow.every((e) => e.withS === null || e.withS! > 60));
  });
});

describe('placeholder manifests', () => {
  const counts = new Map([['us-west-2a', 2], ['us-west-2b', 0]]);
  const unit = { cpu: 500, memory: 256 * 2 ** 20 };
  it('load through strict validation and add one Deployment per zone with placeholders, below every pod naming no class', () => {
    const objects = placeholderManifests(unit, counts);
    const r = loadSources([{ name: 'headroom.yaml', text: objects.map((o) => stringify(o)).join('---\n') }], { validate: 'strict' });
    assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
    assert.deepEqual(r.input.workloads.map((w) => `${w.kind}/${w.key} ${w.replicas} ${w.templatePod.priority} ${w.templatePod.nodeSelector['topology.kubernetes.io/zone']}`), ['Deployment/berth-headroom/headroom-us-west-2a 2 -10 us-west-2a']);
    assert.equal(r.input.workloads[0]!.templatePod.resources.requests['cpu'], 500);
    const merged = withObjects(full(), objects);
    assert.equal(merged.workloads.length, 2);
    assert.ok(merged.namespaces.some((n) => n.name === 'berth-headroom'));
    // Read back from a cluster where they run, they are left out: sizing starts from none.
    const again = withoutPlaceholders(merged);
    assert.deepEqual([again.workloads.length, again.pods.length, again.replicaSets.length], [1, 6, 1]);
  });
  it('placeholders go where every slow workload may: the nodeSelector entries and tolerations they all share, the zone aside', () => {
    const spec = (pool: string, extra: string) => `        nodeSelector: {pool: ${pool}, disk: ssd, topology.kubernetes.io/zone: us-west-2a}
        tolerations: [{key: dedicated, operator: Equal, value: web, effect: NoSchedule}${extra}]`;
    const input = loadInput({ text: listYaml(deploymentYaml('a', 1, spec('p1', '')), deploymentYaml('b', 1, spec('p2', ', {key: gpu, operator: Exists}'))) });
    const where = sharedPlacement(input, ['Deployment/default/a', 'Deployment/default/b']);
    assert.deepEqual(where, { nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }] });
    const spec0 = ((placeholderManifests(unit, counts, where)[2]!['spec'] as { template: { spec: Record<string, unknown> } }).template.spec);
    assert.deepEqual([spec0['nodeSelector'], spec0['tolerations']], [{ disk: 'ssd', 'topology.kubernetes.io/zone': 'us-west-2a' }, where.tolerations]);
  });
  it('the CapacityBuffer form: a PodTemplate and a buffer per zone, at autoscaling.x-k8s.io/v1beta1', () => {
    const objects = capacityBufferManifests(unit, counts);
    assert.deepEqual(objects.map((o) => `${String(o['apiVersion'])} ${String(o['kind'])}`), ['v1 Namespace', 'scheduling.k8s.io/v1 PriorityClass', 'v1 PodTemplate', 'autoscaling.x-k8s.io/v1beta1 CapacityBuffer']);
    assert.deepEqual(objects[3]!['spec'], { podTemplateRef: { name: 'headroom-us-west-2a' }, replicas: 2 });
  });
});
