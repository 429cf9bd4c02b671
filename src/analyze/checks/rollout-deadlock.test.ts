import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnalysisContext } from '../check.js';
import type { Finding } from '../finding.js';
import { contextOf, fileText, inputOf, nodesYaml, REQUIRED_HOSTNAME_ANTI, webDeployment } from '../test-input.js';
import { isRollable, rolloutDeadlock, rolloutSummary, simulateRollout, stuckRollout } from './rollout-deadlock.js';

const check = (ctx: AnalysisContext) => rolloutDeadlock.run(ctx);

/** StatefulSet db with required hostname anti-affinity; with `cordon`, its pods already run on node-1 and node-2 (as a dump has them). */
function statefulSet(replicas: number, opts: { cordon: boolean }): string {
  const sts = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: ${replicas}
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: db}}}]}}
      containers: [{name: db, image: "db:1", resources: {requests: {cpu: 500m}}}]
`;
  if (!opts.cordon) return sts;
  const pods = Array.from(
    { length: replicas },
    (_, i) => `---
apiVersion: v1
kind: Pod
metadata: {name: db-${i}, namespace: default, labels: {app: db, controller-revision-hash: db-5d8f7c9b6d}, ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, controller: true}]}
spec:
  nodeName: node-${i + 1}
  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: db}}}]}}
  containers: [{name: db, image: "db:1", resources: {requests: {cpu: 500m}}}]
status: {phase: Running}
`,
  );
  return sts + pods.join('');
}

/** DaemonSet agent with a host port and the given update strategy, its pods not yet created. */
const daemonSet = (updateStrategy: string) => `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  updateStrategy: ${updateStrategy}
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "agent:1", ports: [{containerPort: 9100, hostPort: 9100}], resources: {requests: {cpu: 100m}}}]
`;

/** Each remedy of the finding, applied alone, leaves no rollout-deadlock finding. */
function assertEveryFixRechecksClean(ctx: AnalysisContext, f: Finding): void {
  assert.ok(f.remedies && f.remedies.length > 0);
  assert.deepEqual(f.remedies.map((r) => r.description), f.fix);
  for (const r of f.remedies) assert.deepEqual(check({ ...ctx, input: r.apply(ctx.input) }), [], r.description);
}

describe('rollout-deadlock', () => {
  it('2 replicas with required hostname anti-affinity on 2 nodes: the surge pod fits nowhere; the fixes are ranked and each re-checks clean', () => {
    const ctx = contextOf(inputOf(nodesYaml(2), webDeployment({ replicas: 2, affinity: REQUIRED_HOSTNAME_ANTI })));
    const findings = check(ctx);
    assert.equal(findings.length, 1);
    const f = findings[0]!;
    assert.equal(f.severity, 'error');
    assert.equal(f.object, 'Deployment/default/web');
    assert.match(f.message, /never completes \(stuck at 1\/2 replicas updated\): pod default\/web-\S+ of the new template cannot be scheduled \(0\/2 nodes are available: 2 node\(s\) didn't match pod anti-affinity rules\.\); required kubernetes.io\/hostname anti-affinity with 2 replicas \+ 1 surge pod\(s\) on 2 eligible node\(s\)$/);
    assert.ok(f.evidence.some((e) => e.includes('template change of Deployment/default/web (maxSurge 1, maxUnavailable 0, 2 replicas)')), f.evidence.join('\n'));
    assert.ok(f.evidence.some((e) => e.includes('Progressing=False (ProgressDeadlineExceeded)')), f.evidence.join('\n'));
    assert.equal(f.fix.length, 4);
    assert.match(f.fix[0]!, /maxSurge: 0, maxUnavailable: 1/);
    assert.match(f.fix[1]!, /^add one node like node-1 in zone us-west-2/);
    assert.match(f.fix[2]!, /preferred instead of required/);
    assert.match(f.fix[3]!, /topologySpreadConstraints on kubernetes.io\/hostname \(maxSkew: 1, whenUnsatisfiable: DoNotSchedule\)/);
    assertEveryFixRechecksClean(ctx, f);
  });

  it('the same Deployment on 3 nodes rolls out: no finding', () => {
    assert.deepEqual(check(contextOf(inputOf(nodesYaml(3), webDeployment({ replicas: 2, affinity: REQUIRED_HOSTNAME_ANTI })))), []);
  });

  it('a completed rollout keeps its progress but lets its simulation go; a stuck one keeps it for the finding', () => {
    const rollout = (nodes: number) => {
      const ctx = contextOf(inputOf(nodesYaml(nodes), webDeployment({ replicas: 2, affinity: REQUIRED_HOSTNAME_ANTI })));
      const w = ctx.input.workloads.find((x) => x.key === 'default/web')!;
      assert.ok(isRollable(w));
      return simulateRollout(ctx, w)!;
    };
    const done = rollout(3);
    assert.equal(done.progress.complete, true);
    assert.equal(done.run, undefined);
    const stuck = rollout(2);
    assert.equal(stuck.progress.complete, false);
    assert.ok(stuck.run);
  });

  it('a rollout that completes is simulated until it does, not for the rest of the watch (a Deployment only once a sync after the change says so)', () => {
    const cases = [
      inputOf(nodesYaml(3), webDeployment({ replicas: 2, affinity: REQUIRED_HOSTNAME_ANTI })),
      inputOf(nodesYaml(3), statefulSet(3, { cordon: false })),
      inputOf(nodesYaml(3), daemonSet('{type: RollingUpdate}')),
    ];
    for (const input of cases) {
      const ctx = contextOf(input);
      const w = ctx.input.workloads.find(isRollable)!;
      const r = simulateRollout(ctx, w)!;
      assert.equal(r.progress.complete, true, w.kind);
      assert.equal(r.progress.updated, r.progress.desired, w.kind);
      assert.ok(r.run === undefined && r.endedAt !== undefined && r.endedAt > 60_000 && r.endedAt < 5 * 60_000, `${w.kind}: completed at ${r.run === undefined ? r.endedAt : '-'}`);
    }
  });

  it('a rollout still progressing when the longest watch ends is slow, not stuck: no finding, and its simulation is let go', () => {
    // One node at a time, each old pod taking 500 s to terminate: 100 nodes take over 12 hours.
    const slow = daemonSet('{type: RollingUpdate}').replace('      containers:', '      terminationGracePeriodSeconds: 500\n      containers:');
    const ctx = contextOf(inputOf(nodesYaml(100), slow));
    const w = ctx.input.workloads.find(isRollable)!;
    const r = simulateRollout(ctx, w)!;
    assert.equal(r.progress.complete, false);
    assert.ok(r.progress.updated > 60, `${r.progress.updated} updated`);
    assert.ok(r.run === undefined && r.endedAt === 60_000 + 12 * 3600_000);
    assert.deepEqual(check(ctx), []);
  });

  it("a stuck rollout's simulation goes to stuckRollout's caller and the memo lets it go; asked again, it is simulated again, alike", () => {
    const ctx = contextOf(inputOf(nodesYaml(2), webDeployment({ replicas: 2, affinity: REQUIRED_HOSTNAME_ANTI })));
    const w = ctx.input.workloads.find((x) => x.key === 'default/web')!;
    assert.ok(isRollable(w));
    const first = stuckRollout(ctx, w);
    assert.ok(first?.run);
    const kept = simulateRollout(ctx, w)!;
    assert.equal(kept.run, undefined, 'the memo keeps the progress, not the simulation');
    assert.equal(kept.progress, first.progress);
    const again = stuckRollout(ctx, w);
    assert.ok(again?.run && again.run !== first.run);
    assert.deepEqual(again.run.events, first.run.events);
  });

  it("a rollout's outcome one worker of a pool simulated, another reads instead of simulating it again", () => {
    const log = new Map<string, unknown>();
    const worker = () => {
      const ctx = contextOf(inputOf(nodesYaml(2), webDeployment({ replicas: 2, affinity: REQUIRED_HOSTNAME_ANTI })));
      const w = ctx.input.workloads.find((x) => x.key === 'default/web')!;
      assert.ok(isRollable(w));
      return { ctx: { ...ctx, exchange: { input: ctx.input, instanceTypes: ctx.instanceTypes, get: (k: string) => log.get(k), set: (k: string, v: unknown) => log.set(k, v) } }, w };
    };
    const a = worker();
    assert.deepEqual(rolloutSummary(a.ctx, a.w), { complete: false, updated: 1, desired: 2, available: 2 });
    assert.ok(stuckRollout(a.ctx, a.w));
    // What the first gave, changed to a completed rollout: the second takes it as given, simulates nothing and finds no stuck rollout.
    assert.equal(log.size, 1);
    for (const k of log.keys()) log.set(k, { complete: true, updated: 2, desired: 2, available: 2 });
    const b = worker();
    assert.deepEqual(rolloutSummary(b.ctx, b.w), { complete: true, updated: 2, desired: 2, available: 2 });
    assert.equal(stuckRollout(b.ctx, b.w), undefined);
  });

  it('with maxSurge 0 / maxUnavailable 1 written, no finding', () => {
    const w = webDeployment({ replicas: 2, affinity: REQUIRED_HOSTNAME_ANTI, strategy: '{type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' });
    assert.deepEqual(check(contextOf(inputOf(nodesYaml(2), w))), []);
  });

  it('a workload that cannot run all its replicas even without a rollout is left to the other checks', () => {
    assert.deepEqual(check(contextOf(inputOf(nodesYaml(1), webDeployment({ replicas: 2, affinity: REQUIRED_HOSTNAME_ANTI })))), []);
  });

  it('with the provisioner on and a NodePool at its limit, raising the limit is offered and proven', () => {
    const pool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  limits: {cpu: "1"}
`;
    const ctx = contextOf(inputOf(nodesYaml(2), webDeployment({ replicas: 2, affinity: REQUIRED_HOSTNAME_ANTI }), pool), true);
    const [f] = check(ctx);
    assert.ok(f);
    assert.ok(f.fix.includes('raise the limits of NodePool default (now cpu: 1000) so the provisioner can add a node'), f.fix.join('\n'));
    assertEveryFixRechecksClean(ctx, f);
    assert.deepEqual(check(contextOf(inputOf(nodesYaml(2), webDeployment({ replicas: 2, affinity: REQUIRED_HOSTNAME_ANTI }), pool.replace('cpu: "1"', 'cpu: "100"')), true)), []);
  });

  it('a DaemonSet with a host port and maxSurge 1 cannot start its surge pod next to the old one', () => {
    const ctx = contextOf(inputOf(nodesYaml(2), daemonSet('{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}')));
    const [f, ...rest] = check(ctx);
    assert.equal(rest.length, 0);
    assert.ok(f);
    assert.equal(f.object, 'DaemonSet/kube-system/agent');
    assert.match(f.message, /didn't have free ports for the requested pod ports/);
    assert.match(f.fix[0]!, /spec.updateStrategy.rollingUpdate to maxSurge: 0, maxUnavailable: 1/);
    assertEveryFixRechecksClean(ctx, f);
  });

  it('a StatefulSet replaces pods delete-first: with required anti-affinity on as many nodes as replicas it rolls out', () => {
    assert.deepEqual(check(contextOf(inputOf(nodesYaml(3), statefulSet(3, { cordon: false })))), []);
  });

  it('a StatefulSet whose pod sits on a cordoned node: the recreated pod fits nowhere; adding a node is proven', () => {
    const ctx = contextOf(inputOf(nodesYaml(2).replace('metadata: {name: node-1,', 'spec: {unschedulable: true}\nmetadata: {name: node-1,'), statefulSet(2, { cordon: true })));
    const [f, ...rest] = check(ctx);
    assert.equal(rest.length, 0);
    assert.ok(f);
    assert.equal(f.object, 'StatefulSet/default/db');
    assert.match(f.message, /pod default\/db-0 of the new template cannot be scheduled \(0\/2 nodes are available: 1 node\(s\) didn't match pod anti-affinity rules, 1 node\(s\) were unschedulable\.\)/);
    assert.match(f.fix[0]!, /^add one node like node-\d in zone/);
    assertEveryFixRechecksClean(ctx, f);
  });

  it('examples/rolling-update-deadlock.yaml: the rollout in progress is stuck on the surge pod; the first fix re-checks clean', () => {
    const ctx = contextOf(inputOf(fileText('examples/rolling-update-deadlock.yaml')));
    const [f, ...rest] = check(ctx);
    assert.equal(rest.length, 0);
    assert.ok(f);
    assert.match(f.message, /^the rollout of Deployment\/default\/web to its template is stuck .*pod default\/web-7f9b8c5d4-surge of the new template cannot be scheduled/);
    assert.match(f.fix[0]!, /maxSurge: 0, maxUnavailable: 1/);
    assert.deepEqual(check({ ...ctx, input: f.remedies![0]!.apply(ctx.input) }), []);
  });
});
