import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildClusterState, loadSources } from '../io/load.js';
import { createSimulation } from './simulation.js';
import { templateHash } from '../io/names.js';
import { addWorkloads } from './workloads.js';
import { runScenario } from './scenario.js';

const manifests = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}
  progressDeadlineSeconds: 120
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: web:v1}]}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  podManagementPolicy: Parallel
  updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 2, maxUnavailable: 2}}
  selector: {matchLabels: {app: db}}
  template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: db:v1}]}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  updateStrategy: {type: OnDelete}
  selector: {matchLabels: {app: agent}}
  template: {metadata: {labels: {app: agent}}, spec: {containers: [{name: c, image: agent:v1}]}}
`;

describe('addWorkloads', () => {
  it('hands each workload to its controller with the strategy fields as written', () => {
    const loaded = loadSources([{ name: 'w.yaml', text: manifests }]);
    assert.ok(loaded.ok);
    const sim = createSimulation(buildClusterState({ ...loaded.input, pods: [] }));
    addWorkloads(sim, loaded.input.workloads);
    const d = sim.deployments.deployments.get('default/web')!;
    assert.deepEqual(d.strategy, { type: 'RollingUpdate', maxSurge: 0, maxUnavailable: 1 });
    assert.equal(d.progressDeadlineSeconds, 120);
    const s = sim.statefulSets.statefulSets.get('default/db')!;
    assert.equal(s.podManagementPolicy, 'Parallel');
    assert.deepEqual(s.updateStrategy, { type: 'RollingUpdate', partition: 2, maxUnavailable: 2 });
    assert.deepEqual(sim.daemonSets.daemonSets.get('default/agent')!.updateStrategy, { type: 'OnDelete' });
  });

  it('both rolling-update bounds zero is refused at load, with upstream’s message', () => {
    const bad = manifests.replace('maxSurge: 0, maxUnavailable: 1', 'maxSurge: 0, maxUnavailable: "0%"');
    const loaded = loadSources([{ name: 'w.yaml', text: bad }]);
    assert.equal(loaded.ok, false);
    assert.match(!loaded.ok ? (loaded.errors[0]?.message ?? '') : '', /may not be 0 when `maxSurge` is 0/);
  });

  describe('a kubectl dump: the Deployment adopts its ReplicaSet and running pods', () => {
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'web:v1' }] } };
    const hash = templateHash(template);
    const node = '{apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}';
    const deployment = `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: default, uid: d1}, spec: {replicas: 2, selector: {matchLabels: {app: web}}, template: ${JSON.stringify(template)}}}`;
    const pods = (h: string) =>
      [0, 1].map((i) => `{apiVersion: v1, kind: Pod, metadata: {name: web-${h}-p${i}, namespace: default, labels: {app: web, pod-template-hash: "${h}"}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-${h}, uid: rs-uid, controller: true}]}, spec: {nodeName: n1, containers: [{name: c, image: web:v1}]}, status: {phase: Running}}`);
    const replicaSet = `{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: web-${hash}, namespace: default, uid: rs-uid, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true}]}, spec: {replicas: 2, selector: {matchLabels: {app: web, pod-template-hash: "${hash}"}}, template: {metadata: {labels: {app: web, pod-template-hash: "${hash}"}}, spec: {containers: [{name: c, image: web:v1}]}}}}`;
    const run = (items: string[]) => {
      const loaded = loadSources([{ name: 'dump.yaml', text: `apiVersion: v1\nkind: List\nitems:\n${items.map((i) => `- ${i}`).join('\n')}\n` }]);
      assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.errors));
      return runScenario(loaded.input, { name: 'dump', seed: 1, untilMs: 60_000, provisioner: { enabled: false }, timing: {}, steps: [], expect: [] }, { instanceTypes: [] });
    };
    const cases = [
      { name: 'pods of the current template, without the ReplicaSet object', items: [node, deployment, ...pods(hash)], created: 0 },
      { name: 'pods and the ReplicaSet object', items: [node, deployment, replicaSet, ...pods(hash)], created: 0 },
      { name: 'pods of an older template roll over to the current one', items: [node, deployment, ...pods('oldhash')], created: 2 },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const r = run(c.items);
        assert.equal(r.events.filter((e) => e.type === 'PodCreated').length, c.created);
        const d = r.sim.deployments.deployments.get('default/web')!;
        assert.equal(d.status.availableReplicas, 2);
        assert.deepEqual(r.final.nodes[0]!.pods.map((p) => p.includes(hash)), [true, true]);
      });
    }
  });
});
