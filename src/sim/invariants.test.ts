import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileNode } from '../model/node.js';
import { compilePod } from '../model/pod.js';
import type { PodSpecManifest } from '../model/manifest.js';
import { watchInvariants } from './invariants.js';
import { createSimulation } from './simulation.js';
import { clusterWithNodes, pod } from './fixtures.test-support.js';

// Each check must fire when the simulator breaks its rule; here the rule is broken
// by hand (binding without the scheduler), which the simulator itself never does.

function zonedNode(name: string, zone: string, taints: { key: string; value: string; effect: 'NoSchedule' }[] = []) {
  return compileNode({ metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } }, spec: { taints }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: 110 } } }, 0);
}

function specPod(name: string, spec: Omit<PodSpecManifest, 'containers'>, labels: Record<string, string> = { app: 'web' }) {
  return compilePod({ metadata: { name, namespace: 'default', labels }, spec: { ...spec, containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] } }, { order: 0 });
}

function setup(nodes: ReturnType<typeof zonedNode>[]) {
  const sim = createSimulation(clusterWithNodes([]));
  for (const n of nodes) sim.world.addNode(n);
  return { sim, violations: watchInvariants(sim) };
}

describe('invariant checker', () => {
  it('reports an overcommitted node', () => {
    const sim = createSimulation(clusterWithNodes([{ name: 'a', cpu: '1' }]));
    const violations = watchInvariants(sim);
    sim.world.createPod(pod('p1', { cpu: '600m', nodeName: 'a' }));
    assert.equal(violations.length, 0);
    sim.world.createPod(pod('p2', { cpu: '600m', nodeName: 'a' }));
    assert.deepEqual(violations.map((v) => [v.invariant, v.detail]), [['node overcommitted', 'a cpu: 1200 requested > 1000 allocatable']]);
  });

  it('reports a binding against required anti-affinity, from either side', () => {
    const { sim, violations } = setup([zonedNode('a', 'z1')]);
    const anti = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } }] } } };
    sim.world.createPod(specPod('w1', anti));
    sim.world.createPod(specPod('plain', {}));
    sim.world.bindPod('default/w1', 'a');
    sim.world.bindPod('default/plain', 'a');
    assert.deepEqual(violations.map((v) => v.invariant), ['pod affinity']);
    assert.match(violations[0]!.detail, /of default\/w1 on a matches default\/plain/);
  });

  it('reports a binding without a matching pod for required affinity, but lets the first of a self-matching group through', () => {
    const { sim, violations } = setup([zonedNode('a', 'z1')]);
    const aff = (app: string) => ({ affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: { app } } }] } } });
    sim.world.createPod(specPod('first', aff('web')));
    sim.world.bindPod('default/first', 'a');
    sim.world.createPod(specPod('lonely', aff('db')));
    sim.world.bindPod('default/lonely', 'a');
    assert.deepEqual(violations.map((v) => v.detail), ['required affinity (topology.kubernetes.io/zone) of default/lonely not satisfied on a']);
  });

  it('reports an untolerated taint, a node affinity mismatch and a cordoned node', () => {
    const { sim, violations } = setup([zonedNode('t', 'z1', [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]), zonedNode('u', 'z2')]);
    sim.world.createPod(specPod('p1', {}));
    sim.world.bindPod('default/p1', 't');
    sim.world.createPod(specPod('p2', { nodeSelector: { 'topology.kubernetes.io/zone': 'z1' } }));
    sim.world.bindPod('default/p2', 'u');
    sim.world.updateNode({ ...sim.world.cluster.nodeInfo('u')!.node, unschedulable: true }, 'Cordoned');
    sim.world.createPod(specPod('p3', {}));
    sim.world.bindPod('default/p3', 'u');
    assert.deepEqual(violations.map((v) => v.invariant), ['toleration', 'node affinity', 'unschedulable node']);
  });

  it('reports a DoNotSchedule spread beyond maxSkew at bind time, counting only matching, live pods', () => {
    const { sim, violations } = setup([zonedNode('a', 'z1'), zonedNode('b', 'z2')]);
    const spread = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app: 'web' } } }] };
    sim.world.createPod(specPod('other', {}, { app: 'db' }));
    sim.world.bindPod('default/other', 'a');
    sim.world.createPod(specPod('w1', spread));
    sim.world.bindPod('default/w1', 'a');
    assert.equal(violations.length, 0);
    sim.world.createPod(specPod('w2', spread));
    sim.world.bindPod('default/w2', 'a');
    assert.deepEqual(violations.map((v) => v.detail), ['default/w2: topology.kubernetes.io/zone=z1: skew 2 > maxSkew 1 (counts {"z1":1,"z2":0})']);
  });

  it('reports an eviction that leaves a budget short, and not one that keeps it', () => {
    const sim = createSimulation(clusterWithNodes([{ name: 'a' }, { name: 'b' }]), { pods: { defaults: { startDelayMs: 1000, readyDelayMs: 1000 } } });
    let desired = 1;
    const violations = watchInvariants(sim, { pdbs: [{ name: 'web', namespace: 'default', matches: (p) => p.labels['app'] === 'web', desiredHealthy: () => desired }] });
    for (const n of ['w1', 'w2']) sim.world.createPod(pod(n, { labels: { app: 'web' }, cpu: '100m' }));
    sim.engine.run(30_000);
    sim.engine.at(30_000, 'evict', () => sim.disruption.drainNode(sim.world.cluster.getPod('default/w1')!.nodeName));
    sim.engine.run(31_000);
    assert.equal(violations.length, 0);
    desired = 2;
    sim.engine.at(32_000, 'evict', () => sim.disruption.drainNode(sim.world.cluster.getPod('default/w2')!.nodeName));
    sim.engine.run(33_000);
    assert.deepEqual(violations.map((v) => v.invariant), ['PDB violated by eviction']);
  });
});
