import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadSources, type LoadedInput } from '../io/load.js';
import { adoptInputPods } from './adopt.js';
import { runScenario } from './scenario.js';
import type { Action } from '../io/scenario-spec.js';

const DUMP = 'test/fixtures/kubectl-dump-workloads.yaml';

function load(text: string): LoadedInput {
  const r = loadSources([{ name: DUMP, text }]);
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  return r.input;
}

function run(input: LoadedInput, actions: Action[] = []) {
  return runScenario(
    input,
    { name: 't', seed: 0, untilMs: 5 * 60_000, provisioner: { enabled: false }, timing: {}, steps: actions.map((action) => ({ at: 60_000, action, source: 't' })), expect: [] },
    { instanceTypes: [] },
  );
}

const created = (r: ReturnType<typeof run>) => r.events.filter((e) => e.type === 'PodCreated').map((e) => e['pod'] as string);
const podsOnNodes = (r: ReturnType<typeof run>) => r.final.nodes.flatMap((n) => n.pods).sort();

describe('adoption of a dump\'s running pods', () => {
  it('the Deployment (ReplicaSet implied by its pods), StatefulSet and DaemonSet continue with the pods of the dump: nothing is created', () => {
    const r = run(load(readFileSync(DUMP, 'utf8')));
    assert.deepEqual(created(r), []);
    assert.deepEqual(podsOnNodes(r), ['default/db-0', 'default/db-1', 'default/web-6d4cf56db6-abcde', 'default/web-6d4cf56db6-fghij', 'kube-system/agent-x1x1x', 'kube-system/agent-y2y2y']);
    const d = r.sim.deployments.objects.get('default/web')!;
    assert.deepEqual([d.status.updatedReplicas, d.status.availableReplicas], [2, 2]);
    assert.equal(r.sim.statefulSets.objects.get('default/db')!.status.updatedReplicas, 2);
  });

  it('a rollout of each replaces exactly the adopted pods', () => {
    const r = run(load(readFileSync(DUMP, 'utf8')), [
      { type: 'rollout', kind: 'Deployment', name: 'default/web', image: 'nginx:1.28' },
      { type: 'rollout', kind: 'StatefulSet', name: 'default/db', image: 'postgres:18' },
      { type: 'rollout', kind: 'DaemonSet', name: 'kube-system/agent', image: 'agent:3' },
    ]);
    const pods = podsOnNodes(r);
    assert.equal(pods.length, 6);
    assert.ok(!pods.some((p) => p.startsWith('default/web-6d4cf56db6-')), pods.join(' '));
    assert.ok(!pods.includes('kube-system/agent-x1x1x') && !pods.includes('kube-system/agent-y2y2y'), pods.join(' '));
    assert.equal(created(r).filter((p) => p.startsWith('default/db-')).length, 2);
    assert.deepEqual(r.final.pending, []);
  });

  it('pods running an older template than the dump\'s Deployment are rolled at once', () => {
    const r = run(load(readFileSync(DUMP, 'utf8').replace('image: "nginx:1.27", resources', 'image: "nginx:1.28", resources')));
    const web = podsOnNodes(r).filter((p) => p.startsWith('default/web-'));
    assert.equal(web.length, 2);
    assert.ok(!web.some((p) => p.startsWith('default/web-6d4cf56db6-')), web.join(' '));
  });
});

describe('adoption with the ReplicaSet in the dump', () => {
  it('the ReplicaSet of the input owned by the Deployment becomes the Deployment\'s: its pods are kept, none is created', () => {
    const rs = `
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: web-6d4cf56db6
    namespace: default
    uid: 44444444-0000-0000-0000-000000000004
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: 11111111-0000-0000-0000-000000000001, controller: true}]
  spec:
    replicas: 2
    selector: {matchLabels: {app: web, pod-template-hash: 6d4cf56db6}}
    template:
      metadata: {labels: {app: web, pod-template-hash: 6d4cf56db6}}
      spec:
        containers: [{name: web, image: "nginx:1.27", resources: {requests: {cpu: 500m, memory: 512Mi}}}]
`;
    const input = load(readFileSync(DUMP, 'utf8') + rs);
    assert.deepEqual(input.workloads.find((w) => w.kind === 'ReplicaSet')?.owner, { kind: 'Deployment', name: 'web' });
    const r = run(input);
    assert.deepEqual(created(r), []);
    const d = r.sim.deployments.objects.get('default/web')!;
    assert.deepEqual(r.sim.deployments.replicaSetsOf(d).map((x) => x.name), ['web-6d4cf56db6']);
    assert.equal(r.sim.replicaSets.objects.size, 1);
  });
});

describe('adoption by Deployments whose names extend one another', () => {
  it('web and web-canary each adopt the pods of their own implied ReplicaSet, in any input order', () => {
    const deployment = (name: string) => `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: ${name}, namespace: default, uid: uid-${name}}
  spec:
    replicas: 1
    selector: {matchLabels: {app: ${name}}}
    template:
      metadata: {labels: {app: ${name}}}
      spec: {containers: [{name: c, image: "${name}:1", resources: {requests: {cpu: 100m}}}]}`;
    const pod = (name: string, hash: string) => `- apiVersion: v1
  kind: Pod
  metadata:
    name: ${name}-${hash}-x
    namespace: default
    uid: p-${name}
    labels: {app: ${name}, pod-template-hash: ${hash}}
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: ${name}-${hash}, uid: rs-${name}, controller: true}]
  spec: {nodeName: node-a, containers: [{name: c, image: "${name}:1", resources: {requests: {cpu: 100m}}}]}
  status: {phase: Running}`;
    const node = '- {apiVersion: v1, kind: Node, metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}, status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}}';
    for (const order of [['web', 'web-canary'], ['web-canary', 'web']]) {
      const input = load(['apiVersion: v1', 'kind: List', 'items:', node, ...order.map(deployment), pod('web-canary', 'c4c4c4c4c4'), pod('web', 'a1a1a1a1a1')].join('\n'));
      const a = adoptInputPods(input.workloads, input.pods);
      const owner = (key: string) => a.pods.find((p) => p.key === key)!.ownerReferences.find((r) => r.controller)!;
      assert.deepEqual([owner('default/web-a1a1a1a1a1-x').name, owner('default/web-canary-c4c4c4c4c4-x').name], ['web-a1a1a1a1a1', 'web-canary-c4c4c4c4c4']);
      assert.deepEqual(a.replicaSets.map((rs) => rs.name), order.map((n) => `${n}-${n === 'web' ? 'a1a1a1a1a1' : 'c4c4c4c4c4'}`));
      assert.deepEqual(created(run(input)), []);
    }
  });
});

describe('adoption of one input and of a copy a fix changed', () => {
  it('gives the same pod objects when the pods are adopted alike, so both runs copy one built cluster', () => {
    const input = load(readFileSync(DUMP, 'utf8'));
    const scaled: LoadedInput = { ...input, workloads: input.workloads.map((w) => (w.key === 'default/web' ? { ...w, replicas: 3 } : w)) };
    const a = adoptInputPods(input.workloads, input.pods);
    const b = adoptInputPods(scaled.workloads, scaled.pods);
    assert.ok(a.pods.some((p, i) => p !== input.pods[i]), 'some pod gets a new controller reference');
    assert.ok(a.pods.every((p, i) => p === b.pods[i]));
    const key = 'default/db-0';
    assert.equal(run(scaled).sim.world.cluster.getPod(key), run(input).sim.world.cluster.getPod(key));
    // The copy runs as on a cluster built for it alone: the scaled Deployment gets its third pod.
    assert.equal(run(scaled).events.filter((e) => e.type === 'PodCreated').length, 1);
  });

  it('works out who claims which pod once for inputs that differ only in templates and specs; the revisions follow each template', () => {
    const input = load(readFileSync(DUMP, 'utf8'));
    const web = input.workloads.find((w) => w.key === 'default/web')!;
    const newImage = { ...web, templatePod: { ...web.templatePod, images: ['nginx:1.28'] } };
    const changed: LoadedInput = { ...input, workloads: input.workloads.map((w) => (w === web ? newImage : w)) };
    const a = adoptInputPods(input.workloads, input.pods);
    const b = adoptInputPods(changed.workloads, input.pods);
    assert.equal(b.pods, a.pods, 'the same adopted pods, not worked out again');
    assert.equal(a.revisions.get('Deployment/default/web'), '6d4cf56db6');
    // No pod runs the changed template's image: its revision is none (the controller rolls the pods).
    assert.equal(b.revisions.get('Deployment/default/web'), undefined);
    assert.deepEqual(b.replicaSets.map((rs) => rs.template.images), [['nginx:1.27']]);
    assert.deepEqual(created(run(changed)).length, 2);
  });
});
