import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Pod } from '../model/pod.js';
import { createSimulation, type Simulation } from './simulation.js';
import { app, clusterWithNodes, node, pod, rolloutTemplate, type AppOptions } from './fixtures.test-support.js';

/** A scenario with two Deployments, a rollout, a scale-up and a preemption. */
function scenario(seed: number): Simulation {
  const cluster = clusterWithNodes([{ name: 'a', cpu: '2', zone: 'z1' }, { name: 'b', cpu: '2', zone: 'z2' }, { name: 'c', cpu: '2', zone: 'z1' }]);
  const sim = createSimulation(cluster, { seed });
  const web: AppOptions = { replicas: 3, cpu: '500m', antiAffinity: true, strategy: { type: 'RollingUpdate', maxSurge: 0, maxUnavailable: 1 } };
  sim.deployments.add(app('web', web));
  sim.deployments.add(app('api', { replicas: 4, cpu: '300m' }));
  sim.engine.at(30_000, 'rollout', () => {
    const t = rolloutTemplate('web', { ...web, image: 'v2' });
    sim.deployments.setTemplate('default/web', t.template, t.templatePod);
  });
  sim.engine.at(45_000, 'scale', () => sim.deployments.scaleDeployment('default/api', 8));
  sim.engine.at(60_000, 'vip', () => sim.world.createPod(pod('vip', { cpu: '1500m', priority: 1000 })));
  sim.engine.at(90_000, 'node', () => sim.world.addNode(node('d', '2')));
  sim.engine.run(600_000);
  return sim;
}

describe('determinism', () => {
  it('the same scenario and seed give a byte-identical event log', () => {
    const a = JSON.stringify(scenario(7).engine.log);
    const b = JSON.stringify(scenario(7).engine.log);
    assert.ok(a.length > 1000);
    assert.equal(a, b);
  });

  it('another seed changes only generated names and tie-breaks, not the amount of work', () => {
    const a = scenario(7).engine.log;
    const b = scenario(8).engine.log;
    assert.notEqual(JSON.stringify(a), JSON.stringify(b));
    const count = (log: typeof a, type: string) => log.filter((r) => r.type === type).length;
    assert.equal(count(a, 'ReplicaSetCreated'), count(b, 'ReplicaSetCreated'));
  });
});

interface Violation {
  readonly what: string;
}

/** Checks at every binding: no overcommitted node, no required anti-affinity broken either way. */
function watchInvariants(sim: Simulation, violations: Violation[]): void {
  const boundUids = new Set<string>();
  const antiViolated = (a: Pod, b: Pod) =>
    a.requiredAntiAffinity.some((t) => t.topologyKey === 'kubernetes.io/hostname' && t.namespaces.has(b.namespace) && t.selector.matches(b.labels));
  sim.world.onChange((c) => {
    if (c.kind !== 'podUpdated' || c.old.nodeName || !c.pod.nodeName) return;
    const p = c.pod;
    if (boundUids.has(p.uid)) violations.push({ what: `pod ${p.key} bound twice` });
    boundUids.add(p.uid);
    const info = sim.world.cluster.nodeInfo(p.nodeName)!;
    for (const [r, used] of Object.entries(info.requested)) {
      const cap = info.node.allocatable[r] ?? 0;
      if (used > cap) violations.push({ what: `node ${p.nodeName} overcommitted on ${r}: ${used} > ${cap}` });
    }
    if (info.pods.length > (info.node.allocatable['pods'] ?? 0)) violations.push({ what: `node ${p.nodeName} has too many pods` });
    for (const other of info.pods) {
      if (other.key === p.key) continue;
      if (antiViolated(p, other) || antiViolated(other, p)) violations.push({ what: `anti-affinity broken by ${p.key} with ${other.key} on ${p.nodeName}` });
    }
  });
}

const op = fc.oneof(
  fc.record({ kind: fc.constant('scale' as const), at: fc.integer({ min: 0, max: 120 }), app: fc.nat(2), replicas: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ kind: fc.constant('rollout' as const), at: fc.integer({ min: 0, max: 120 }), app: fc.nat(2) }),
  fc.record({ kind: fc.constant('addNode' as const), at: fc.integer({ min: 0, max: 120 }), cpu: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('vip' as const), at: fc.integer({ min: 0, max: 120 }), cpuMilli: fc.integer({ min: 100, max: 2000 }) }),
  fc.record({ kind: fc.constant('failNode' as const), at: fc.integer({ min: 0, max: 120 }), node: fc.nat(3), recoverAfter: fc.option(fc.integer({ min: 10, max: 600 }), { nil: undefined }) }),
);

const appArb = fc.record({
  replicas: fc.integer({ min: 0, max: 5 }),
  cpuMilli: fc.integer({ min: 100, max: 1500 }),
  antiAffinity: fc.boolean(),
  strategy: fc.constantFrom<AppOptions['strategy']>(
    { type: 'RollingUpdate', maxSurge: 1, maxUnavailable: 0 },
    { type: 'RollingUpdate', maxSurge: 0, maxUnavailable: 1 },
    { type: 'RollingUpdate', maxSurge: '25%', maxUnavailable: '25%' },
    { type: 'Recreate' },
  ),
});

describe('invariants over small random runs', () => {
  it('never overcommits a node, never binds against required anti-affinity, never binds a pod twice, keeps replica counts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }),
        fc.array(appArb, { minLength: 1, maxLength: 3 }),
        fc.array(op, { maxLength: 6 }),
        fc.nat(1000),
        (nodeCpus, apps, ops, seed) => {
          const cluster = clusterWithNodes(nodeCpus.map((cpu, i) => ({ name: `n${i}`, cpu: String(cpu) })));
          const sim = createSimulation(cluster, { seed });
          const violations: Violation[] = [];
          watchInvariants(sim, violations);
          const opts = apps.map((a) => ({ replicas: a.replicas, cpu: `${a.cpuMilli}m`, antiAffinity: a.antiAffinity, strategy: a.strategy, grace: 5 }) satisfies AppOptions);
          opts.forEach((o, i) => sim.deployments.add(app(`app${i}`, o)));
          const version = opts.map(() => 1);
          let extra = 0;
          for (const o of ops) {
            sim.engine.at(o.at * 1000, o.kind, () => {
              if (o.kind === 'addNode') sim.world.addNode(node(`extra${extra++}`, String(o.cpu)));
              else if (o.kind === 'vip') sim.world.createPod(pod(`vip${extra++}`, { cpu: `${o.cpuMilli}m`, priority: 100, grace: 5 }));
              else if (o.kind === 'failNode') {
                const name = `n${o.node % nodeCpus.length}`;
                sim.world.setKubeletRunning(name, false);
                if (o.recoverAfter !== undefined) sim.engine.after(o.recoverAfter * 1000, 'recover', () => sim.world.setKubeletRunning(name, true));
              }
              else {
                const i = o.app % opts.length;
                if (o.kind === 'scale') sim.deployments.scaleDeployment(`default/app${i}`, o.replicas);
                else {
                  const t = rolloutTemplate(`app${i}`, { ...opts[i]!, image: `v${++version[i]!}` });
                  sim.deployments.setTemplate(`default/app${i}`, t.template, t.templatePod);
                }
              }
            });
          }
          sim.engine.run(900_000);
          assert.deepEqual(violations, []);
          // No pod lost or duplicated: every ReplicaSet ends with exactly spec.replicas active pods, and keys are unique.
          for (const rs of sim.replicaSets.objects.values()) {
            assert.equal(sim.replicaSets.podsOf(rs).filter((p) => !p.terminating).length, rs.replicas, `replicas of ${rs.key}`);
          }
          const keys = [...sim.world.cluster.pods()].map((p) => p.key);
          assert.equal(new Set(keys).size, keys.length);
          // Each Deployment's ReplicaSets add up to its replicas once nothing moves (surge pods are never left behind).
          for (const d of sim.deployments.objects.values()) {
            const total = sim.deployments.replicaSetsOf(d).reduce((s, rs) => s + rs.replicas, 0);
            assert.ok(total <= d.replicas + 2, `${d.key}: ${total} pods for ${d.replicas} replicas`);
          }
        },
      ),
      { numRuns: 40, seed: 42 },
    );
  });
});
