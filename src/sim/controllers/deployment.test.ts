import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IntOrString } from '../../model/manifest.js';
import { createSimulation, type Simulation } from '../simulation.js';
import { app, clusterWithNodes, node, rolloutTemplate, type AppOptions } from '../fixtures.test-support.js';

const ROLLOUT_AT = 60_000;

function setup(nodes: number, o: AppOptions, seed = 1): Simulation {
  const cluster = clusterWithNodes(Array.from({ length: nodes }, (_, i) => ({ name: `n${i}` })));
  const sim = createSimulation(cluster, { seed });
  sim.deployments.add(app('web', o));
  sim.engine.run(ROLLOUT_AT - 1);
  sim.engine.at(ROLLOUT_AT, 'rollout', () => {
    const t = rolloutTemplate('web', { ...o, image: 'v2' });
    sim.deployments.setTemplate('default/web', t.template, t.templatePod);
  });
  return sim;
}

/** ReplicaSet sizes after each instant that changed one, as "+seconds old/new". */
function steps(sim: Simulation): string[] {
  const sizes = new Map<string, number>();
  const out: string[] = [];
  let newRS = '';
  for (const r of sim.engine.log) {
    if (r.type !== 'ScalingReplicaSet' || r.t < ROLLOUT_AT) {
      if (r.type === 'ScalingReplicaSet') sizes.set(String(r['replicaSet']), Number(r['to']));
      continue;
    }
    if (!sizes.has(String(r['replicaSet']))) newRS = String(r['replicaSet']);
    sizes.set(String(r['replicaSet']), Number(r['to']));
    const old = [...sizes].filter(([k]) => k !== newRS).reduce((s, [, v]) => s + v, 0);
    const line = `+${(r.t - ROLLOUT_AT) / 1000}s ${old}/${sizes.get(newRS) ?? 0}`;
    if (out.length > 0 && out[out.length - 1]!.startsWith(`+${(r.t - ROLLOUT_AT) / 1000}s `)) out[out.length - 1] = line;
    else out.push(line);
  }
  return out;
}

const rolling = (maxSurge: IntOrString, maxUnavailable: IntOrString) => ({ type: 'RollingUpdate' as const, maxSurge, maxUnavailable });

describe('Deployment rolling update step sequence (old/new ReplicaSet sizes)', () => {
  // Pods start 1 s after binding and are ready 1 s later, so each step waits 2 s for availability.
  const cases: { name: string; replicas: number; maxSurge: IntOrString; maxUnavailable: IntOrString; want: string[] }[] = [
    { name: '3 replicas, surge 1, unavailable 0', replicas: 3, maxSurge: 1, maxUnavailable: 0, want: ["+0s 3/1","+2s 2/2","+4s 1/3","+6s 0/3"] },
    { name: '3 replicas, surge 0, unavailable 1', replicas: 3, maxSurge: 0, maxUnavailable: 1, want: ["+0s 2/1","+2s 1/2","+4s 0/3"] },
    { name: '4 replicas, 25%/25% (surge 1, unavailable 1)', replicas: 4, maxSurge: '25%', maxUnavailable: '25%', want: ["+0s 3/2","+2s 1/4","+4s 0/4"] },
    { name: '10 replicas, 30%/30% (surge rounds up to 3, unavailable down to 3)', replicas: 10, maxSurge: '30%', maxUnavailable: '30%', want: ["+0s 7/6","+2s 1/10","+4s 0/10"] },
    { name: '5 replicas, 0%/10% (both resolve to 0: one may be unavailable)', replicas: 5, maxSurge: '0%', maxUnavailable: '10%', want: ["+0s 4/1","+2s 3/2","+4s 2/3","+6s 1/4","+8s 0/5"] },
    { name: '3 replicas, 2/2', replicas: 3, maxSurge: 2, maxUnavailable: 2, want: ["+0s 1/3","+2s 0/3"] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const sim = setup(4, { replicas: c.replicas, strategy: rolling(c.maxSurge, c.maxUnavailable) });
      sim.engine.run(300_000);
      assert.deepEqual(steps(sim), c.want);
    });
  }
});

describe('Deployment rollout with required hostname anti-affinity on 2 nodes (2 replicas)', () => {
  const o = (maxSurge: IntOrString, maxUnavailable: IntOrString): AppOptions => ({ replicas: 2, antiAffinity: true, strategy: rolling(maxSurge, maxUnavailable), progressDeadlineSeconds: 60 });

  it('maxSurge 1 / maxUnavailable 0 gets stuck: the surge pod stays Pending and the deadline passes', () => {
    const sim = setup(2, o(1, 0));
    sim.engine.run(ROLLOUT_AT + 600_000);
    assert.deepEqual(steps(sim), ['+0s 2/1']);
    const pending = sim.world.cluster.pendingPods();
    assert.equal(pending.length, 1);
    assert.match(pending[0]!.name, /^web-/);
    const failed = sim.engine.log.filter((r) => r.type === 'FailedScheduling');
    assert.equal(failed[0]!['message'], "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.");
    const d = sim.deployments.objects.get('default/web')!;
    const progressing = sim.deployments.condition(d, 'Progressing')!;
    assert.deepEqual([progressing.status, progressing.reason], ['False', 'ProgressDeadlineExceeded']);
    // Last progress at the rollout (the surge pod was created); the deadline is 60 s, checked 1 s after it passes.
    const timedOut = sim.engine.log.find((r) => r.type === 'DeploymentCondition' && r['reason'] === 'ProgressDeadlineExceeded')!;
    assert.equal(timedOut.t, ROLLOUT_AT + 61_000);
    assert.equal(timedOut['message'], `ReplicaSet ${JSON.stringify(d.name + '-' + String(pending[0]!.labels['pod-template-hash']))} has timed out progressing.`);
  });

  it('maxSurge 0 / maxUnavailable 1 completes: each new pod waits for the old one to terminate (30 s grace)', () => {
    const sim = setup(2, o(0, 1));
    sim.engine.run(ROLLOUT_AT + 600_000);
    assert.deepEqual(steps(sim), ['+0s 1/1', '+32s 0/2']);
    const d = sim.deployments.objects.get('default/web')!;
    const progressing = sim.deployments.condition(d, 'Progressing')!;
    assert.deepEqual([progressing.status, progressing.reason], ['True', 'NewReplicaSetAvailable']);
    assert.equal(sim.world.cluster.pendingPods().length, 0);
    assert.deepEqual([d.status.replicas, d.status.updatedReplicas, d.status.availableReplicas], [2, 2, 2]);
  });
});

describe('Deployment strategy validation', () => {
  const cases: { name: string; maxSurge: IntOrString; maxUnavailable: IntOrString; error?: RegExp }[] = [
    { name: 'both 0 rejected', maxSurge: 0, maxUnavailable: 0, error: /maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0/ },
    { name: '0% and 0 rejected', maxSurge: '0%', maxUnavailable: 0, error: /may not be 0 when `maxSurge` is 0/ },
    { name: 'maxUnavailable over 100% rejected', maxSurge: 1, maxUnavailable: '101%', error: /must not be greater than 100%/ },
    { name: 'percentages rounding to 0 accepted', maxSurge: '1%', maxUnavailable: '1%' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cluster = clusterWithNodes([{ name: 'n0' }]);
      const sim = createSimulation(cluster);
      const add = () => sim.deployments.add(app('web', { replicas: 1, strategy: rolling(c.maxSurge, c.maxUnavailable) }));
      if (c.error) assert.throws(add, c.error);
      else assert.doesNotThrow(add);
    });
  }
});

describe('Deployment Recreate strategy', () => {
  it('scales every old ReplicaSet to 0 and creates the new one only after the old pods are gone', () => {
    const sim = setup(3, { replicas: 3, strategy: { type: 'Recreate' }, grace: 10 });
    sim.engine.run(ROLLOUT_AT + 120_000);
    assert.deepEqual(steps(sim), ['+0s 0/0', '+10s 0/3']);
    const created = sim.engine.log.filter((r) => r.type === 'ReplicaSetCreated').map((r) => r.t);
    assert.deepEqual(created, [0, ROLLOUT_AT + 10_000]);
  });

  it('waits for ever behind an old pod that cannot finish terminating, and its conditions name the Deployment while it has no new ReplicaSet', () => {
    // Found by the invariant run: the old pod's kubelet is down, so it stays Terminating and Recreate never creates the new ReplicaSet (as upstream).
    const o: AppOptions = { replicas: 1, strategy: { type: 'Recreate' }, grace: 10 };
    const sim = createSimulation(clusterWithNodes([{ name: 'n0' }]), { seed: 1 });
    sim.deployments.add(app('web', o));
    sim.engine.at(0, 'fail', () => sim.world.setKubeletRunning('n0', false));
    sim.engine.at(0, 'rollout', () => {
      const t = rolloutTemplate('web', { ...o, image: 'v2' });
      sim.deployments.setTemplate('default/web', t.template, t.templatePod);
    });
    sim.engine.run(15 * 60_000);
    const messages = sim.engine.log.filter((r) => r.type === 'DeploymentCondition' && r['condition'] === 'Progressing').map((r) => `${r.t / 1000}s ${String(r['message'])}`);
    assert.deepEqual(messages, ['0s Created new replica set "web-7b6c9dbb9"', '0s Deployment "web" is progressing.', '601s Deployment "web" has timed out progressing.']);
    assert.equal(sim.engine.log.filter((r) => r.type === 'ReplicaSetCreated').length, 1);
  });
});

describe('Deployment proportional scaling mid-rollout', () => {
  it('spreads added replicas over the active ReplicaSets in proportion to their size', () => {
    // New pods never become ready, so the rollout holds at old 7 / new 6 (10 replicas, surge 3, unavailable 3).
    const cluster = clusterWithNodes(Array.from({ length: 4 }, (_, i) => ({ name: `n${i}` })));
    const o: AppOptions = { replicas: 10, strategy: rolling('30%', '30%') };
    const sim = createSimulation(cluster, { seed: 1, pods: { timingFor: (p) => (p.images.includes('v2') ? { readyDelayMs: 1e9 } : undefined) } });
    sim.deployments.add(app('web', o));
    sim.engine.run(ROLLOUT_AT - 1);
    const t = rolloutTemplate('web', { ...o, image: 'v2' });
    sim.engine.at(ROLLOUT_AT, 'rollout', () => sim.deployments.setTemplate('default/web', t.template, t.templatePod));
    sim.engine.at(ROLLOUT_AT + 10_000, 'scale', () => sim.deployments.scaleDeployment('default/web', 20));
    sim.engine.run(ROLLOUT_AT + 60_000);
    // allowed 20 + 6 = 26, 13 to add: old round(7*26/13)-7 = 7, new round(6*26/13)-6 = 6.
    assert.deepEqual(steps(sim), ['+0s 7/6', '+10s 14/12']);
  });

  it('scaling a settled Deployment scales only its active ReplicaSet', () => {
    const sim = setup(4, { replicas: 3 });
    sim.engine.run(ROLLOUT_AT + 60_000);
    sim.deployments.scaleDeployment('default/web', 5);
    sim.engine.run(ROLLOUT_AT + 120_000);
    assert.deepEqual(steps(sim).slice(-1), ['+60s 0/5']);
  });
});

describe('sync errors', () => {
  it('scaling down mid-rollout while old pods are still available: upstream’s cleanup error is retried, not fatal', () => {
    // Found by the simulation property test: the old ReplicaSet's available count exceeds its new spec for a moment.
    const sim = createSimulation(clusterWithNodes([{ name: 'n0', cpu: '3' }]), { seed: 0 });
    const o = { replicas: 5, cpu: '501m', strategy: { type: 'RollingUpdate' as const, maxSurge: 1, maxUnavailable: 0 }, grace: 5 };
    sim.deployments.add(app('app0', o));
    sim.engine.at(0, 'node', () => sim.world.addNode(node('extra0', '1')));
    sim.engine.at(0, 'rollout', () => {
      const t = rolloutTemplate('app0', { ...o, image: 'v2' });
      sim.deployments.setTemplate('default/app0', t.template, t.templatePod);
    });
    sim.engine.at(10_000, 'scale', () => sim.deployments.scaleDeployment('default/app0', 1));
    sim.engine.run(900_000);
    assert.ok(sim.engine.log.some((r) => r.type === 'DeploymentSyncError'));
    const d = sim.deployments.objects.get('default/app0')!;
    assert.deepEqual([d.status.replicas, d.status.updatedReplicas, d.status.availableReplicas], [1, 1, 1]);
  });
});

describe('Deployment rolling update: the ReplicaSet status race (SimulationOptions.statusRace)', () => {
  type Guide = (tos: readonly number[], canWait: boolean) => number | 'wait' | undefined;
  // 3 replicas, maxSurge 2, maxUnavailable 0. `delays` of 0: the two surge pods turn ready
  // one event after the other in one instant and the first scale-down sees one of them;
  // the default 1 s + 1 s: both turn ready before the Deployment's sync and it sees both.
  const run = (statusRace?: Guide, delays = 0) => {
    const cluster = clusterWithNodes(Array.from({ length: 4 }, (_, i) => ({ name: `n${i}` })));
    const asked: string[] = [];
    const guide = statusRace && ((_d: string, _rs: string, from: number, tos: readonly number[], canWait: boolean) => (asked.push(`${from}->${tos.join('|')}${canWait ? ' or wait' : ''}`), statusRace(tos, canWait)));
    const pods = { defaults: { startDelayMs: delays, readyDelayMs: delays } };
    const sim = createSimulation(cluster, { seed: 1, pods, ...(guide ? { statusRace: guide } : {}) });
    const o = { replicas: 3, strategy: rolling(2, 0) };
    sim.deployments.add(app('web', o));
    sim.engine.at(ROLLOUT_AT, 'rollout', () => {
      const t = rolloutTemplate('web', { ...o, image: 'v2' });
      sim.deployments.setTemplate('default/web', t.template, t.templatePod);
    });
    sim.engine.run(ROLLOUT_AT + 10_000);
    const old = sim.engine.log.filter((r) => r.type === 'ScalingReplicaSet' && r.t >= ROLLOUT_AT && Number(r['from']) > Number(r['to'])).map((r) => `${String(r['from'])}->${String(r['to'])}`);
    return { old, asked };
  };

  it('by default the first scale-down counts the surge pods ready so far', () => {
    assert.deepEqual(run().old, ['3->2', '2->1', '1->0']);
    assert.deepEqual(run(undefined, 1000).old, ['3->1', '1->0']);
  });
  it('waiting past the events queued at the instant counts both surge pods: 3 -> 1 -> 0', () => {
    const { old, asked } = run((_tos, canWait) => (canWait ? 'wait' : undefined));
    assert.deepEqual(old, ['3->1', '1->0']);
    // Waiting is offered only while more events are queued at the instant; after it, counting one of the two is.
    assert.deepEqual(asked, ['3->2 or wait', '3->1|2', '1->0']);
  });
  it('counting one of two pods that became available together: 3 -> 2 -> 1 -> 0', () => {
    const { old, asked } = run((tos) => tos[tos.length - 1], 1000);
    assert.deepEqual(old, ['3->2', '2->1', '1->0']);
    assert.deepEqual(asked[0], '3->1|2');
  });
  it('a size the race cannot give is ignored, and so is a guide that keeps the simulator\'s own', () => {
    assert.deepEqual(run(() => 0, 1000).old, ['3->1', '1->0']);
    assert.deepEqual(run(() => undefined).old, ['3->2', '2->1', '1->0']);
  });
});
