import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDurationMs } from './scheduler-loop.js';
import { createSimulation, type SimulationOptions } from './simulation.js';
import { compilePod, type Pod } from '../model/pod.js';
import { clusterWithNodes, node, pod } from './fixtures.test-support.js';
import type { ClusterState } from '../cluster/state.js';

describe('backoffDurationMs', () => {
  const cases: { name: string; attempts: number; want: number }[] = [
    { name: 'no attempt yet', attempts: 0, want: 0 },
    { name: 'first failure: initial 1 s', attempts: 1, want: 1000 },
    { name: 'doubles', attempts: 2, want: 2000 },
    { name: 'doubles again', attempts: 4, want: 8000 },
    { name: 'capped at 10 s', attempts: 5, want: 10_000 },
    { name: 'stays capped', attempts: 40, want: 10_000 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(backoffDurationMs(c.attempts), c.want));
});

/** A node with room whose NoSchedule taint no test pod tolerates. */
const tainted = (name: string, cpu: string) => ({ ...node(name, cpu), taints: [{ key: 'dedicated', value: '', effect: 'NoSchedule' as const }] });

const attemptsOf = (log: readonly { t: number; type: string; [k: string]: unknown }[], key: string) =>
  log.filter((r) => (r.type === 'FailedScheduling' || r.type === 'Scheduled') && r['pod'] === key).map((r) => `${r.type}@${r.t}`);

describe('SchedulerLoop requeueing', () => {
  const cases: { name: string; popFromBackoffQ: boolean; want: string[] }[] = [
    {
      // Fails at 0 (backoff expiry 1000, released when the 2000 window starts); a node
      // added at 200 (room enough, but tainted: NodeResourcesFit's hint queues the pod)
      // moves it to the backoffQ; second failure at 2000 backs off 2 s
      // (expiry 4000); the fitting node added at 2500 lets it in at 5000.
      name: 'without PopFromBackoffQ the pod waits out its backoff',
      popFromBackoffQ: false,
      want: ['FailedScheduling@0', 'FailedScheduling@2000', 'Scheduled@5000'],
    },
    {
      name: 'with PopFromBackoffQ (the default) an idle queue retries at once',
      popFromBackoffQ: true,
      want: ['FailedScheduling@0', 'FailedScheduling@200', 'Scheduled@2500'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cluster = clusterWithNodes([{ name: 'small', cpu: '1' }]);
      cluster.addPod(pod('big', { cpu: '2' }));
      const sim = createSimulation(cluster, { queue: { popFromBackoffQ: c.popFromBackoffQ } });
      sim.engine.at(200, 'add', () => sim.world.addNode(tainted('roomy-tainted', '4')));
      sim.engine.at(2500, 'add', () => sim.world.addNode(node('large', '4')));
      sim.engine.run(20_000);
      assert.deepEqual(attemptsOf(sim.engine.log, 'default/big'), c.want);
    });
  }

  it('an assigned pod that starts terminating moves nothing (upstream\'s generic Pod/Update event); its deletion does', () => {
    // Found by conformance/sim-vs-real: a pod Pending on topology spread was retried when
    // a pod it counted started terminating, where kube-scheduler waits for the deletion.
    const cluster = clusterWithNodes([{ name: 'small', cpu: '1' }]);
    cluster.addPod(pod('occupant', { cpu: '1', nodeName: 'small', grace: 30 }));
    cluster.addPod(pod('big', { cpu: '1' }));
    const sim = createSimulation(cluster);
    sim.engine.at(5_000, 'delete', () => sim.world.deletePod('default/occupant', 'Deleted'));
    sim.engine.run(60_000);
    assert.deepEqual(attemptsOf(sim.engine.log, 'default/big'), ['FailedScheduling@0', 'Scheduled@35000']);
  });

  it('cordoning a node requeues nothing; uncordoning it requeues a pod NodeUnschedulable rejected', () => {
    // Found by conformance/sim-vs-real: the FailedScheduling message of a pod rejected for
    // cpu was refreshed by a cordon, where kube-scheduler's hints leave the pod waiting.
    const cluster = clusterWithNodes([{ name: 'small', cpu: '1' }]);
    cluster.addNode({ ...node('cordoned', '4'), unschedulable: true });
    cluster.addPod(pod('big', { cpu: '2' }));
    const sim = createSimulation(cluster);
    const setCordon = (name: string, unschedulable: boolean) => sim.world.updateNode({ ...sim.world.cluster.nodeInfo(name)!.node, unschedulable }, 'Cordon');
    sim.engine.at(5_000, 'cordon', () => setCordon('small', true));
    sim.engine.at(6_000, 'uncordon', () => setCordon('small', false));
    sim.engine.at(8_000, 'uncordon', () => setCordon('cordoned', false));
    sim.engine.run(20_000);
    // Uncordoning `small` requeues it too: NodeUnschedulable's hint does not ask which node rejected the pod.
    assert.deepEqual(attemptsOf(sim.engine.log, 'default/big'), ['FailedScheduling@0', 'FailedScheduling@6000', 'Scheduled@8000']);
  });

  it('an added node the pod does not fit moves nothing (NodeResourcesFit hint); one it fits does', () => {
    const cluster = clusterWithNodes([{ name: 'small', cpu: '1' }]);
    cluster.addPod(pod('big', { cpu: '2' }));
    const sim = createSimulation(cluster);
    sim.engine.at(5_000, 'add', () => sim.world.addNode(node('small2', '1')));
    sim.engine.at(8_000, 'add', () => sim.world.addNode(node('large', '4')));
    sim.engine.run(20_000);
    assert.deepEqual(attemptsOf(sim.engine.log, 'default/big'), ['FailedScheduling@0', 'Scheduled@8000']);
  });

  it('a pod rejected for anti-affinity waits for a deletion of a pod it hates; others filling the node move nothing', () => {
    // Found by conformance/sim-vs-real (s2-54): the real pod kept its anti-affinity message
    // while other workloads filled the nodes; the simulator had retried it on every binding.
    const cluster = clusterWithNodes([{ name: 'a', cpu: '2' }]);
    const anti = compilePod(
      {
        metadata: { name: 'anti', namespace: 'default', labels: { app: 'x' } },
        spec: {
          affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'kubernetes.io/hostname' }] } },
          containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }],
        },
      },
      { order: 0 },
    );
    cluster.addPod(pod('first', { cpu: '1', nodeName: 'a', labels: { app: 'x' }, grace: 0 }));
    cluster.addPod(anti);
    const sim = createSimulation(cluster);
    sim.engine.at(3_000, 'fill', () => sim.world.createPod(pod('filler', { cpu: '1' })));
    sim.engine.at(6_000, 'delete', () => sim.world.deletePod('default/first', 'Deleted'));
    sim.engine.run(20_000);
    assert.deepEqual(attemptsOf(sim.engine.log, 'default/anti'), ['FailedScheduling@0', 'Scheduled@6000']);
  });

  it('cordoning a node requeues a pod PodTopologySpread rejected (the unschedulable taint kube-controller-manager adds)', () => {
    // Found by conformance/sim-vs-real (s1-76): the real pod's FailedScheduling message
    // was refreshed after the cordon and named the unschedulable node.
    const cluster = clusterWithNodes([{ name: 'a1', zone: 'a' }, { name: 'b1', zone: 'b', cpu: '1' }]);
    const spread = (name: string, nodeName?: string) =>
      compilePod(
        {
          metadata: { name, namespace: 'default', labels: { app: 's' } },
          spec: {
            ...(nodeName ? { nodeName } : {}),
            topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 's' } } }],
            containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }],
          },
        },
        { order: 0 },
      );
    // Zone a has two, zone b one and no room: s3 is rejected for spread on a1 and for cpu on b1.
    cluster.addPod(spread('s0', 'a1'));
    cluster.addPod(spread('s1', 'a1'));
    cluster.addPod(spread('s2', 'b1'));
    cluster.addPod(spread('s3'));
    const sim = createSimulation(cluster);
    sim.engine.at(5_000, 'cordon', () => sim.world.updateNode({ ...sim.world.cluster.nodeInfo('a1')!.node, unschedulable: true }, 'Cordon'));
    sim.engine.run(20_000);
    const attempts = attemptsOf(sim.engine.log, 'default/s3');
    assert.deepEqual(attempts, ['FailedScheduling@0', 'FailedScheduling@5000']);
  });

  it('a tieBreak guide picks among equally scored nodes only; heap always takes the same', () => {
    const placement = (tieBreak: SimulationOptions['tieBreak'], nodes = [{ name: 'a' }, { name: 'b' }, { name: 'c', cpu: '1' }]) => {
      const cluster = clusterWithNodes(nodes);
      cluster.addPod(pod('p', { cpu: '500m' }));
      const sim = createSimulation(cluster, { tieBreak });
      sim.engine.run(1_000);
      return sim.world.cluster.getPod('default/p')!.nodeName;
    };
    const offered: string[][] = [];
    assert.equal(placement('heap'), 'a');
    assert.equal(placement((_pod, tied) => (offered.push([...tied]), 'b')), 'b');
    // c scores lower (less room left): never offered, and refused when named.
    assert.deepEqual(offered, [['a', 'b']]);
    assert.equal(placement(() => 'c'), 'a');
  });

  it('reports the exact FailedScheduling message', () => {
    const cluster = clusterWithNodes([{ name: 'small', cpu: '1' }]);
    cluster.addPod(pod('big', { cpu: '2' }));
    const sim = createSimulation(cluster);
    sim.engine.run(0);
    const failed = sim.engine.log.find((r) => r.type === 'FailedScheduling')!;
    assert.equal(failed['message'], '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.');
  });

  it('retries an unschedulable pod without cluster events after more than 5 minutes, on the 30 s flush', () => {
    const cluster = clusterWithNodes([{ name: 'small', cpu: '1' }]);
    cluster.addPod(pod('big', { cpu: '2' }));
    const sim = createSimulation(cluster);
    sim.engine.run(700_000);
    assert.deepEqual(attemptsOf(sim.engine.log, 'default/big'), ['FailedScheduling@0', 'FailedScheduling@330000', 'FailedScheduling@660000']);
  });

  it('orders the activeQ by priority (PrioritySort), then arrival', () => {
    const cluster = clusterWithNodes([{ name: 'n', cpu: '4' }]);
    cluster.addPod(pod('low', { priority: 1 }));
    cluster.addPod(pod('high', { priority: 10 }));
    cluster.addPod(pod('low2', { priority: 1 }));
    const sim = createSimulation(cluster);
    sim.engine.run(0);
    assert.deepEqual(sim.engine.log.filter((r) => r.type === 'Scheduled').map((r) => r['pod']), ['default/high', 'default/low', 'default/low2']);
  });

  it('preempts: the victim terminates for its grace period, the preemptor is nominated and then bound', () => {
    const cluster = clusterWithNodes([{ name: 'n', cpu: '2' }]);
    cluster.addPod(pod('victim', { cpu: '2', priority: 1, nodeName: 'n', grace: 15 }));
    cluster.addPod(pod('vip', { cpu: '2', priority: 100 }));
    const sim = createSimulation(cluster);
    sim.engine.run(1000);
    assert.equal(sim.world.cluster.getPod('default/victim')!.terminating, true);
    assert.equal(sim.world.cluster.getPod('default/vip')!.nominatedNodeName, 'n');
    assert.equal(sim.scheduler.nominatedNodeOf(sim.world.cluster.getPod('default/vip')!), 'n');
    sim.engine.run(60_000);
    const types = sim.engine.log.filter((r) => r['pod'] === 'default/victim' || r['pod'] === 'default/vip').map((r) => `${r.type}:${String(r['pod']).slice(8)}@${r.t}`);
    assert.deepEqual(types.slice(0, 5), ['Preempted:victim@0', 'PodTerminating:victim@0', 'FailedScheduling:vip@0', 'PodDeleted:victim@15000', 'Scheduled:vip@15000']);
    assert.equal(sim.world.cluster.getPod('default/vip')!.nodeName, 'n');
  });

  it('does not preempt again while its victims are still terminating on the nominated node', () => {
    const cluster = clusterWithNodes([{ name: 'n', cpu: '2' }]);
    cluster.addPod(pod('victim', { cpu: '2', priority: 1, nodeName: 'n', grace: 15 }));
    cluster.addPod(pod('vip', { cpu: '2', priority: 100 }));
    const sim = createSimulation(cluster);
    // Room enough but tainted: NodeResourcesFit's hint queues vip, which fails again.
    sim.engine.at(5000, 'add', () => sim.world.addNode(tainted('tainted', '2')));
    sim.engine.run(10_000);
    const messages = sim.engine.log.filter((r) => r.type === 'FailedScheduling').map((r) => String(r['message']));
    assert.equal(messages.length, 2);
    assert.match(messages[0]!, /preemption: found a potential placement for pod on node n, preempting 1 victims$/);
    assert.match(messages[1]!, /preemption: not eligible due to a terminating pod on the nominated node\.$/);
    assert.equal(sim.engine.log.filter((r) => r.type === 'Preempted').length, 1);
  });
});

describe('SchedulerLoop nominations', () => {
  it("keeps the preemptor's room: a lower-priority pod may not take it while the victim terminates", () => {
    const cluster = clusterWithNodes([{ name: 'n', cpu: '3' }]);
    cluster.addPod(pod('victim', { cpu: '2', priority: 1, nodeName: 'n', grace: 15 }));
    cluster.addPod(pod('vip', { cpu: '3', priority: 100 }));
    const sim = createSimulation(cluster);
    // 1 cpu is free on n while the victim terminates: enough for `low`, were it not for vip's nomination.
    sim.engine.at(5000, 'create', () => sim.world.createPod(pod('low', { cpu: '1', priority: 1 })));
    sim.engine.run(60_000);
    assert.deepEqual(attemptsOf(sim.engine.log, 'default/vip'), ['FailedScheduling@0', 'Scheduled@15000']);
    assert.equal(sim.engine.log.some((r) => r.type === 'Scheduled' && r['pod'] === 'default/low'), false);
    const lowFailure = sim.engine.log.find((r) => r.type === 'FailedScheduling' && r['pod'] === 'default/low')!;
    assert.match(String(lowFailure['message']), /Insufficient cpu/);
  });

  it('clears the nomination when preemption no longer finds a node, so its room is free again', () => {
    const cluster = clusterWithNodes([{ name: 'n', cpu: '4' }]);
    cluster.addPod(pod('victim', { cpu: '3', priority: 1, nodeName: 'n', grace: 60 }));
    cluster.addPod(pod('vip', { cpu: '3', priority: 100 }));
    const sim = createSimulation(cluster);
    // n is tainted: vip (no toleration) cannot go there any more and nothing else can be preempted.
    sim.engine.at(5000, 'taint', () => {
      const n = sim.world.cluster.nodeInfo('n')!.node;
      sim.world.updateNode({ ...n, taints: [{ key: 'dedicated', value: '', effect: 'NoSchedule' }] }, 'Tainted');
    });
    const tolerant = compilePod(
      { metadata: { name: 'low', namespace: 'default' }, spec: { priority: 1, tolerations: [{ key: 'dedicated', operator: 'Exists' }], containers: [{ name: 'c', resources: { requests: { cpu: '3' } } }] } },
      { order: 0 },
    );
    sim.engine.at(70_000, 'create', () => sim.world.createPod(tolerant));
    // Adding a taint requeues nothing (TaintToleration's hint): vip keeps its nomination
    // until the victim is gone (60 s) and its next attempt finds no node.
    sim.engine.run(6000);
    assert.equal(sim.world.cluster.getPod('default/vip')!.nominatedNodeName, 'n');
    sim.engine.run(80_000);
    const vip = sim.world.cluster.getPod('default/vip')!;
    assert.equal(vip.nominatedNodeName, '');
    assert.equal(sim.scheduler.nominatedNodeOf(vip), '');
    assert.equal(sim.world.cluster.getPod('default/low')!.nodeName, 'n');
  });
});

describe('SchedulerLoop scheduling cycles', () => {
  it('schedules every pod already in the activeQ before anything reacts to the first binding at the same instant', () => {
    // Found by conformance/sim-vs-real (s1-32): kube-scheduler pops the next pod as soon as
    // a cycle ends, while a kubelet's start (and the ReplicaSet and Deployment syncs after
    // it) needs an API write and a watch event. With one cycle per queued event, the third
    // pod of a rollout was scheduled after the Deployment had scaled the old ReplicaSet down.
    const cluster = clusterWithNodes([{ name: 'n1', cpu: '8' }]);
    for (const name of ['a', 'b', 'c']) cluster.addPod(pod(name, { cpu: '1' }));
    const sim = createSimulation(cluster, { pods: { defaults: { startDelayMs: 0, readyDelayMs: 0 } } });
    sim.engine.run(1_000);
    const order = sim.engine.log.filter((r) => r.type === 'Scheduled' || r.type === 'PodRunning').map((r) => `${r.type} ${String(r['pod']).slice('default/'.length)}`);
    assert.deepEqual(order, ['Scheduled a', 'Scheduled b', 'Scheduled c', 'PodRunning a', 'PodRunning b', 'PodRunning c']);
  });

  it('an idle scheduler pops a pod moved to the backoffQ at once, before a pod created in reaction to the same removal', () => {
    // Found by conformance/sim-vs-real (s3-20, s3-33): with SchedulerPopFromBackoffQ the move
    // wakes the idle Pop, which takes the backoffQ's pod; a controller's replacement arrives an
    // API write and a watch event later. p failed at 0 (backing off until 1 s); at 0.5 s a is
    // deleted with no grace period, and a controller that syncs on a's changes (queued by the
    // first, as the workload controllers' are) creates r once a is gone, in the same instant:
    // p takes a's room, r stays Pending.
    const cluster = clusterWithNodes([{ name: 'n1', cpu: '2' }]);
    cluster.addPod({ ...pod('a', { nodeName: 'n1', grace: 0 }), phase: 'Running' });
    cluster.addPod({ ...pod('b', { nodeName: 'n1' }), phase: 'Running' });
    cluster.addPod(pod('p'));
    const sim = createSimulation(cluster);
    let queued = false;
    const sync = () => {
      queued = false;
      if (!sim.world.cluster.getPod('default/a') && !sim.world.cluster.getPod('default/r')) sim.world.createPod(pod('r'));
    };
    sim.world.onChange((c) => {
      if (!('pod' in c) || c.pod.name !== 'a' || queued) return;
      queued = true;
      sim.engine.at(sim.engine.now, 'sync', sync);
    });
    sim.engine.at(500, 'delete', () => sim.world.deletePod('default/a', 'Deleted'));
    sim.engine.run(900);
    assert.equal(sim.world.cluster.getPod('default/p')?.nodeName, 'n1');
    assert.equal(sim.world.cluster.getPod('default/r')?.nodeName, '');
  });
});

/**
 * A web pod: 1 cpu, no grace period, kept from the other web pods' nodes by required
 * anti-affinity per hostname, or with `spread` by a hostname spread (maxSkew 1, DoNotSchedule).
 */
const webPod = (name: string, nodeName?: string, spread = false) => {
  const web = { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' };
  return compilePod(
    {
      metadata: { name, namespace: 'default', labels: { app: 'web' } },
      spec: {
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }],
        ...(spread
          ? { topologySpreadConstraints: [{ ...web, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' as const }] }
          : { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [web] } } }),
        ...(nodeName ? { nodeName } : {}),
      },
    },
    { order: 0 },
  );
};

describe('SchedulerLoop removal race (QueueOptions.removalRace)', () => {
  // web-1 on n1 is deleted with no grace period and its replacement web-2 is created at the
  // same instant. With web-1 gone n1 scores best (most room); with web-1 still counted
  // (terminating), required anti-affinity keeps web-2 off n1 and n2 scores best; n3 fits
  // in both views but is never the best.
  const run = (removalRace?: (pod: string, own: string, others: readonly string[]) => string | undefined) => {
    const cluster = clusterWithNodes([{ name: 'n1', cpu: '16' }, { name: 'n2', cpu: '8' }, { name: 'n3', cpu: '4' }]);
    cluster.addPod({ ...webPod('web-1', 'n1'), phase: 'Running' });
    const offered: string[][] = [];
    const guide = removalRace && ((pod: { name: string }, own: string, others: readonly string[]) => (offered.push([pod.name, own, ...others]), removalRace(pod.name, own, others)));
    const sim = createSimulation(cluster, { queue: guide ? { removalRace: guide } : {} });
    sim.engine.at(1_000, 'replace', () => {
      sim.world.deletePod('default/web-1', 'Deleted');
      sim.world.createPod(webPod('web-2'));
    });
    sim.engine.run(5_000);
    const placed = sim.engine.log.find((r) => r.type === 'Scheduled' && r['pod'] === 'default/web-2')?.['node'];
    return { placed, offered };
  };

  it('without a guide the simulator keeps its own order (the old pod is gone first)', () => {
    assert.deepEqual(run(), { placed: 'n1', offered: [] });
  });

  it('the guide is offered the node of each view and can take the other one', () => {
    assert.deepEqual(run(() => 'n2'), { placed: 'n2', offered: [['web-2', 'n1', 'n2']] });
  });

  it('a node neither view picks is refused: a real placement there still disagrees', () => {
    assert.deepEqual(run(() => 'n3'), { placed: 'n1', offered: [['web-2', 'n1', 'n2']] });
  });

  it('a StatefulSet pod recreated under the same name races its predecessor too (s2-59)', () => {
    // web-1 is removed and a new web-1 created once it is gone, as the StatefulSet controller
    // does; the other view has the old web-1 back (terminating) in place of the unbound new one.
    const cluster = clusterWithNodes([{ name: 'n1', cpu: '16' }, { name: 'n2', cpu: '8' }]);
    cluster.addPod({ ...webPod('web-1', 'n1'), phase: 'Running' });
    const offered: string[][] = [];
    const sim = createSimulation(cluster, { queue: { removalRace: (p, own, others) => (offered.push([p.name, own, ...others]), others[0]) } });
    sim.engine.at(1_000, 'delete', () => {
      sim.world.deletePod('default/web-1', 'Deleted');
      sim.engine.at(1_000, 'recreate', () => sim.world.createPod({ ...webPod('web-1'), uid: sim.world.newUid() }));
    });
    sim.engine.run(5_000);
    assert.deepEqual(offered, [['web-1', 'n1', 'n2']]);
    assert.equal(sim.world.cluster.getPod('default/web-1')?.nodeName, 'n2');
  });

  /** A simulation whose removal-race guide records what it is offered ([pod, own, ...others]) and takes `pick`'s node. */
  const recorded = (cluster: ClusterState, pick: (others: readonly string[]) => string | undefined) => {
    const offered: string[][] = [];
    const sim = createSimulation(cluster, { queue: { removalRace: (p, own, others) => (offered.push([p.name, own, ...others]), pick(others)) } });
    return { sim, offered };
  };

  describe('a pod that arrived before the deletion may be scheduled before the scheduler hears of it (s1-32)', () => {
    // Spread per hostname (maxSkew 1, DoNotSchedule; terminating pods are not counted): old on n1
    // is deleted in the instant new arrives. Heard of, old is not counted and n1 scores best;
    // not yet heard of, old still counts and only n2 keeps the skew.
    const spreadPod = (name: string, nodeName?: string) => webPod(name, nodeName, true);
    const run = (newFirst: boolean) => {
      const cluster = clusterWithNodes([{ name: 'n1', cpu: '16' }, { name: 'n2', cpu: '8' }]);
      cluster.addPod({ ...spreadPod('old', 'n1'), phase: 'Running' });
      const { sim, offered } = recorded(cluster, (others) => others[0]);
      sim.engine.at(1_000, 'rollout', () => {
        if (newFirst) sim.world.createPod(spreadPod('new'));
        sim.world.deletePod('default/old', 'ScaledDown');
        if (!newFirst) sim.world.createPod(spreadPod('new'));
      });
      sim.engine.run(5_000);
      return { placed: sim.world.cluster.getPod('default/new')?.nodeName, offered };
    };

    it('created before the deletion: offered the view without it', () => {
      assert.deepEqual(run(true), { placed: 'n2', offered: [['new', 'n1', 'n2']] });
    });
    it('created after the deletion (a replacement): the scheduler has heard of it, nothing is offered', () => {
      assert.deepEqual(run(false), { placed: 'n1', offered: [] });
    });
  });

  describe('a pod moved back by one of a batch of removals is scheduled before the others reach the cache (s2-51)', () => {
    // web-3 is Pending on anti-affinity (web-1 on n1, web-2 on n2). At 5 s both are deleted with
    // no grace period in one instant (a ReplicaSet's scale-down). With both gone n1 scores best;
    // popped right after web-2's removal, with web-1 still there (terminating), only n2 fits.
    const run = (pendingFirst: boolean) => {
      const cluster = clusterWithNodes([{ name: 'n1', cpu: '16' }, { name: 'n2', cpu: '8' }]);
      cluster.addPod({ ...webPod('web-1', 'n1'), phase: 'Running' });
      cluster.addPod({ ...webPod('web-2', 'n2'), phase: 'Running' });
      if (pendingFirst) cluster.addPod(webPod('web-3'));
      const { sim, offered } = recorded(cluster, (others) => others[others.length - 1]);
      sim.engine.at(5_000, 'scale-down', () => {
        sim.world.deletePod('default/web-1', 'ScaledDown');
        sim.world.deletePod('default/web-2', 'ScaledDown');
        if (!pendingFirst) sim.world.createPod(webPod('web-3'));
      });
      sim.engine.run(6_000);
      return { placed: sim.world.cluster.getPod('default/web-3')?.nodeName, offered };
    };

    it('Pending before: offered the view of each removal alone', () => {
      assert.deepEqual(run(true), { placed: 'n2', offered: [['web-3', 'n1', 'n2']] });
    });
    it('created after the deletions (not moved back by either): nothing is offered', () => {
      assert.deepEqual(run(false), { placed: 'n1', offered: [] });
    });
  });
});

describe('SchedulerLoop pending messages (QueueOptions.pendingMessage)', () => {
  const lastMessage = (log: readonly { type: string; [k: string]: unknown }[], key: string) => log.filter((r) => r.type === 'FailedScheduling' && r['pod'] === key).pop()?.['message'] as string;

  describe('a pod tied by arrival is attempted before the latest of the pods bound with it (s1-35)', () => {
    // a, b and web-3 arrive together; n1 and n2 each have room for one pod and a web pod.
    // In arrival order web-3 fails on cpu everywhere; attempted before b was bound, one node
    // still has room and fails it on anti-affinity.
    const run = (pendingMessage?: (pod: Pod, message: string) => boolean) => {
      const cluster = clusterWithNodes([{ name: 'n1', cpu: '2' }, { name: 'n2', cpu: '2' }]);
      cluster.addPod({ ...webPod('web-1', 'n1'), phase: 'Running' });
      cluster.addPod({ ...webPod('web-2', 'n2'), phase: 'Running' });
      const sim = createSimulation(cluster, { queue: pendingMessage ? { pendingMessage } : {} });
      sim.engine.at(1_000, 'create', () => {
        for (const p of [pod('a'), pod('b'), webPod('web-3')]) sim.world.createPod(p);
      });
      sim.engine.run(1_500);
      return lastMessage(sim.engine.log, 'default/web-3');
    };

    it('without a guide the message of the arrival order', () => {
      assert.match(run(), /^0\/2 nodes are available: 2 Insufficient cpu\./);
    });
    it('the guide knowing the anti-affinity message: the earlier attempt', () => {
      assert.match(run((_p, m) => m.includes('anti-affinity')), /^0\/2 nodes are available: 1 Insufficient cpu, 1 node\(s\) didn't match pod anti-affinity rules\./);
    });
    it('a message the guide does not know either way keeps the arrival order', () => {
      assert.match(run(() => false), /^0\/2 nodes are available: 2 Insufficient cpu\./);
    });
  });

  describe('a pod moved back by a racing removal is attempted after the pods of that instant (s2-14)', () => {
    // web-4 is Pending (anti-affinity on n1 and n2, taint on n3). At 5 s web-3 leaves n3 with no
    // grace period, which moves web-4 back, and a arrives and takes n1's room. In the
    // simulator's order web-4 (queued first) fails as before; after a, on cpu at n1.
    const run = (pendingMessage?: (pod: Pod, message: string) => boolean) => {
      const cluster = clusterWithNodes([{ name: 'n1', cpu: '2' }, { name: 'n2', cpu: '2' }]);
      cluster.addNode(tainted('n3', '4'));
      cluster.addPod({ ...webPod('web-1', 'n1'), phase: 'Running' });
      cluster.addPod({ ...webPod('web-2', 'n2'), phase: 'Running' });
      cluster.addPod({ ...webPod('web-3', 'n3'), phase: 'Running' });
      cluster.addPod(webPod('web-4'));
      const sim = createSimulation(cluster, { queue: pendingMessage ? { pendingMessage } : {} });
      sim.engine.at(5_000, 'drain', () => {
        sim.world.deletePod('default/web-3', 'Deleted');
        sim.world.createPod(pod('a'));
      });
      sim.engine.run(5_500);
      return { message: lastMessage(sim.engine.log, 'default/web-4'), a: sim.world.cluster.getPod('default/a')?.nodeName };
    };

    it('without a guide it fails again as before', () => {
      const { message, a } = run();
      assert.equal(a, 'n1');
      assert.match(message, /^0\/3 nodes are available: 1 node\(s\) had untolerated taint\(s\), 2 node\(s\) didn't match pod anti-affinity rules\./);
    });
    it('the guide knowing the cpu message: attempted after a', () => {
      assert.match(run((_p, m) => m.includes('Insufficient cpu')).message, /^0\/3 nodes are available: 1 Insufficient cpu, 1 node\(s\) didn't match pod anti-affinity rules, 1 node\(s\) had untolerated taint\(s\)\./);
    });
    it('the guide knowing the message of the simulator\'s order keeps it', () => {
      assert.match(run((_p, m) => m.includes('2 node(s) didn\'t match')).message, /2 node\(s\) didn't match pod anti-affinity rules/);
    });
  });
});

describe('SchedulerLoop arrival ties (QueueOptions.arrivalTie)', () => {
  // a and b arrive in one instant, c a millisecond later; one node has room for one of them.
  const run = (arrivalTie?: (tied: string[]) => string | undefined, priorityOfB = 0) => {
    const cluster = clusterWithNodes([{ name: 'n1', cpu: '1' }]);
    const offered: string[][] = [];
    const guide = arrivalTie && ((tied: readonly Pod[]) => {
      const names = tied.map((p) => p.name);
      offered.push(names);
      const pick = arrivalTie(names);
      return tied.find((p) => p.name === pick);
    });
    const sim = createSimulation(cluster, { queue: guide ? { arrivalTie: guide } : {} });
    sim.engine.at(1_000, 'create', () => {
      sim.world.createPod(pod('a'));
      sim.world.createPod(pod('b', { priority: priorityOfB }));
    });
    sim.engine.at(1_001, 'create', () => sim.world.createPod(pod('c')));
    sim.engine.run(1_500);
    return { placed: sim.engine.log.find((r) => r.type === 'Scheduled')?.['pod'], offered };
  };

  it('without a guide the pod that arrived first goes first', () => {
    assert.deepEqual(run(), { placed: 'default/a', offered: [] });
  });
  it('the guide picks among the pods that arrived in the same instant', () => {
    assert.deepEqual(run(() => 'b'), { placed: 'default/b', offered: [['a', 'b']] });
  });
  it('a pod ahead by priority is not a tie', () => {
    assert.deepEqual(run(() => 'a', 10), { placed: 'default/b', offered: [] });
  });

  describe('a pod moved to the backoffQ in the instant another arrives is tied with it (s3-88)', () => {
    // p failed at 0 (backing off until 1 s). At 0.5 s a is deleted with no grace period and r
    // created: r arrives before a's removal moves p, so the activeQ is not empty and r goes
    // first; upstream the removal's event may reach kube-scheduler first and its idle Pop take p.
    const run = (arrivalTie?: (tied: string[]) => string | undefined) => {
      const cluster = clusterWithNodes([{ name: 'n1', cpu: '2' }]);
      cluster.addPod({ ...pod('a', { nodeName: 'n1', grace: 0 }), phase: 'Running' });
      cluster.addPod({ ...pod('b', { nodeName: 'n1' }), phase: 'Running' });
      cluster.addPod(pod('p'));
      const offered: string[][] = [];
      const guide = arrivalTie && ((tied: readonly Pod[]) => (offered.push(tied.map((x) => x.name)), tied.find((x) => x.name === arrivalTie(tied.map((y) => y.name)))));
      const sim = createSimulation(cluster, { queue: guide ? { arrivalTie: guide } : {} });
      sim.engine.at(500, 'rollout', () => {
        sim.world.deletePod('default/a', 'ScaledDown');
        sim.world.createPod(pod('r'));
      });
      sim.engine.run(900);
      return { placed: ['p', 'r'].filter((n) => sim.world.cluster.getPod(`default/${n}`)?.nodeName === 'n1'), offered };
    };
    it('without a guide the pod that arrived goes first', () => {
      assert.deepEqual(run(), { placed: ['r'], offered: [] });
    });
    it('the guide is offered both and can take the pod moved back', () => {
      assert.deepEqual(run(() => 'p'), { placed: ['p'], offered: [['r', 'p']] });
    });
  });
});

// Translations of kube-scheduler v1.37.2's pkg/scheduler/backend/queue/scheduling_queue_test.go
// cases for SchedulerPopFromBackoffQ, driven through the whole simulator: berth's queue has no
// Pop of its own to call, so each attempt the loop makes is read back from the event log.
describe('kube-scheduler scheduling_queue_test.go', () => {
  describe('TestPriorityQueue_Pop (individual pods; berth has no pod groups)', () => {
    // Upstream puts a medium-priority pod in the activeQ, a high-priority one in the backoffQ
    // and one in the unschedulable pool, then pops: the activeQ's pod comes first whatever the
    // priorities, the backoffQ's pod next only with the gate on, the unschedulable pod never.
    // Here `med` is created at 200 ms and, in the same instant but after it, a tainted node with
    // room arrives: NodeResourcesFit's hint moves `high` to the backoffQ, still backing off, and
    // NodeAffinity's hint leaves `unsched`, which selects a label the node lacks.
    const cases = [
      { name: 'PopFromBackoffQ enabled, pops from both activeQ and backoffQ', popFromBackoffQ: true, want: ['Scheduled med', 'FailedScheduling high'] },
      { name: 'PopFromBackoffQ disabled, pops only from activeQ', popFromBackoffQ: false, want: ['Scheduled med'] },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const cluster = clusterWithNodes([{ name: 'small', cpu: '1' }]);
        cluster.addPod(pod('high', { cpu: '2', priority: 1000 }));
        cluster.addPod(
          compilePod(
            { metadata: { name: 'unsched', namespace: 'default' }, spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } },
            { order: 0 },
          ),
        );
        const sim = createSimulation(cluster, { queue: { popFromBackoffQ: c.popFromBackoffQ } });
        sim.engine.at(200, 'add', () => {
          sim.world.createPod(pod('med', { cpu: '1', priority: 500 }));
          sim.world.addNode(tainted('roomy-tainted', '4'));
        });
        sim.engine.run(900);
        const at200 = sim.engine.log.filter((r) => r.t === 200 && (r.type === 'Scheduled' || r.type === 'FailedScheduling'));
        assert.deepEqual(
          at200.map((r) => `${r.type} ${String(r['pod']).slice('default/'.length)}`),
          c.want,
        );
        assert.equal(sim.schedulerLoop.queueOf('default/unsched'), 'unschedulable');
      });
    }
  });

  describe('TestBackOffFlow', () => {
    // Seven failed attempts of one pod, each followed at once by an event that moves it to the
    // backoffQ: the backoff from the attempt (rounded up to the 1 s ordering window with the gate
    // on; upstream's fake clock is not aligned to it, so its truncate-and-add-a-window is this
    // rounding up) is 1, 2, 4, 8, 10, 10, 10 s. With the gate off the pod leaves the backoffQ only once
    // its backoff is over (one window after its expiry); with it on, the idle Pop takes it at once.
    const wantBackoffMs = [1000, 2000, 4000, 8000, 10_000, 10_000, 10_000];
    for (const popFromBackoffQ of [true, false]) {
      it(`popFromBackoffQEnabled(${popFromBackoffQ})`, () => {
        const cluster = clusterWithNodes([{ name: 'small', cpu: '1' }]);
        cluster.addPod(pod('test-pod', { cpu: '2' }));
        const sim = createSimulation(cluster, { queue: { popFromBackoffQ } });
        const key = 'default/test-pod';
        const steps: { at: number; backoffMs: number; queue: string | undefined }[] = [];
        sim.schedulerLoop.onUnschedulable(() => {
          if (steps.length === wantBackoffMs.length) return;
          const at = sim.engine.now;
          sim.engine.at(at, 'move', () => {
            // The event: a node the pod would fit but for its taint (NodeResourcesFit's hint).
            sim.world.addNode(tainted(`tainted-${steps.length}`, '4'));
            const expiry = sim.schedulerLoop.backoffExpiry(key)!;
            const backoffMs = popFromBackoffQ ? Math.ceil((expiry - at) / 1000) * 1000 : expiry - at;
            steps.push({ at, backoffMs, queue: sim.schedulerLoop.queueOf(key) });
          });
        });
        sim.engine.run(120_000);
        assert.deepEqual(steps.map((s) => s.backoffMs), wantBackoffMs);
        assert.ok(steps.every((s) => s.queue === 'backoff'));
        const attempts = attemptsOf(sim.engine.log, key).map((a) => Number(a.slice(a.indexOf('@') + 1)));
        assert.equal(attempts.length, wantBackoffMs.length + 1);
        for (let i = 0; i < wantBackoffMs.length; i++) {
          // Upstream: still backing off after one window; out of the backoffQ a backoff later.
          const retry = attempts[i + 1]! - attempts[i]!;
          assert.equal(retry, popFromBackoffQ ? 0 : wantBackoffMs[i]! + 1000, `attempt ${i + 2}`);
        }
      });
    }
  });
});
