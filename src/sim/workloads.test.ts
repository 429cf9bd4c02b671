import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildClusterState, loadSources } from '../io/load.js';
import { createSimulation } from './simulation.js';
import { addWorkloads } from './workloads.js';

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
    const d = sim.deployments.objects.get('default/web')!;
    assert.deepEqual(d.strategy, { type: 'RollingUpdate', maxSurge: 0, maxUnavailable: 1 });
    assert.equal(d.progressDeadlineSeconds, 120);
    const s = sim.statefulSets.objects.get('default/db')!;
    assert.equal(s.podManagementPolicy, 'Parallel');
    assert.deepEqual(s.updateStrategy, { type: 'RollingUpdate', partition: 2, maxUnavailable: 2 });
    assert.deepEqual(sim.daemonSets.objects.get('default/agent')!.updateStrategy, { type: 'OnDelete' });
  });

  it('both rolling-update bounds zero is refused at load, with upstream’s message', () => {
    const bad = manifests.replace('maxSurge: 0, maxUnavailable: 1', 'maxSurge: 0, maxUnavailable: "0%"');
    const loaded = loadSources([{ name: 'w.yaml', text: bad }]);
    assert.equal(loaded.ok, false);
    assert.match(!loaded.ok ? (loaded.errors[0]?.message ?? '') : '', /may not be 0 when `maxSurge` is 0/);
  });
});
