import { test } from 'node:test';
import assert from 'node:assert/strict';
import { materialize } from './materialize.js';
import { WORKLOADS } from './workloads.js';

const workload = (name: string) => WORKLOADS.find((w) => w.name === name)!;

test('nodes are named, hostname-labelled and zoned round-robin as the oracle stamps them', () => {
  const m = materialize(workload('TopologySpreading').build({ nodes: 4, initPods: 2, measuredPods: 3 }));
  assert.deepEqual(
    m.nodes.map((n) => [n.name, n.labels['kubernetes.io/hostname'], n.labels['topology.kubernetes.io/zone']]),
    [
      ['node-0', 'node-0', 'moon-1'],
      ['node-1', 'node-1', 'moon-2'],
      ['node-2', 'node-2', 'moon-3'],
      ['node-3', 'node-3', 'moon-1'],
    ],
  );
  assert.equal(m.nodes[0]!.allocatable.cpu, 4000);
});

test('init pods come before measured pods, each pod compiled from its own copy of the template', () => {
  const m = materialize(workload('SchedulingPodAntiAffinity').build({ nodes: 2, initPods: 2, measuredPods: 3 }));
  assert.deepEqual(m.initPods.map((p) => p.key), ['sched-0/init-0', 'sched-0/init-1']);
  assert.deepEqual(m.measuredPods.map((p) => p.key), ['sched-1/measured-0', 'sched-1/measured-1', 'sched-1/measured-2']);
  assert.deepEqual(m.measuredPods.map((p) => p.creation), [2, 3, 4]);
  assert.notEqual(m.initPods[0]!.labels, m.initPods[1]!.labels);
  assert.equal(m.initPods[0]!.resources.requests.cpu, 100);
});

test('SchedulingDaemonset targets the one node named scheduler-perf-node among the others', () => {
  const m = materialize(workload('SchedulingDaemonset').build({ nodes: 3, initPods: 0, measuredPods: 1 }));
  assert.deepEqual(m.nodes.map((n) => n.name), ['scheduler-perf-node', 'node-0', 'node-1', 'node-2']);
  assert.equal(m.nodes[0]!.allocatable.pods, 90000);
});
