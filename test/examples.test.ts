// The bundled examples give kube-scheduler's answers (the incidents the README describes).

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import type { ScheduleReport } from '../src/scheduler/run.js';

function schedule(file: string): ScheduleReport {
  const out = execFileSync(process.execPath, ['bin/berth.js', 'schedule', '-f', file, '-o', 'json'], { encoding: 'utf8' });
  return JSON.parse(out) as ScheduleReport;
}

const nodesOf = (r: ScheduleReport) => Object.fromEntries(r.placements.map((p) => [p.pod, p.node]));

describe('examples', () => {
  it('apiserver 1→3 with hostname+zone maxSkew 1 spread on one node: both new replicas stack on it', () => {
    const r = schedule('examples/apiserver-spread-only.yaml');
    assert.deepEqual(nodesOf(r), { 'kube-system/apiserver-1': 'cp-1', 'kube-system/apiserver-2': 'cp-1' });
    assert.deepEqual(r.unschedulable, []);
  });

  it('apiserver with minDomains: 3 on one node: the new replicas stay pending with the upstream message', () => {
    const r = schedule('examples/apiserver-min-domains.yaml');
    assert.deepEqual(r.placements, []);
    const msg = "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";
    assert.deepEqual(r.unschedulable, [
      { pod: 'kube-system/apiserver-1', message: msg },
      { pod: 'kube-system/apiserver-2', message: msg },
    ]);
  });

  it('apiserver with required hostname anti-affinity on 3 nodes: the new replicas land on the two other nodes', () => {
    const r = schedule('examples/apiserver-anti-affinity.yaml');
    const placed = nodesOf(r);
    assert.equal(r.unschedulable.length, 0);
    assert.deepEqual(new Set(Object.values(placed)), new Set(['cp-2', 'cp-3']));
  });

  it('kube-dns with required anti-affinity on one node: one replica stays pending', () => {
    const r = schedule('examples/kube-dns-required.yaml');
    assert.equal(r.placements.length, 1);
    assert.equal(r.placements[0]!.node, 'node-1');
    assert.equal(r.unschedulable.length, 1);
    assert.match(r.unschedulable[0]!.message, /^0\/1 nodes are available: 1 node\(s\) didn't match pod anti-affinity rules\. preemption: /);
  });

  it('kube-dns with preferred anti-affinity on one node: both replicas on the node', () => {
    const r = schedule('examples/kube-dns-preferred.yaml');
    assert.deepEqual(Object.values(nodesOf(r)), ['node-1', 'node-1']);
    assert.deepEqual(r.unschedulable, []);
  });

  it('rolling update with required anti-affinity on 2 nodes: the surge pod fits nowhere', () => {
    const r = schedule('examples/rolling-update-deadlock.yaml');
    assert.deepEqual(r.placements, []);
    assert.deepEqual(r.unschedulable, [
      {
        pod: 'default/web-7f9b8c5d4-surge',
        message: "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
      },
    ]);
  });

  it('explain shows every node x plugin: the surge pod is rejected by InterPodAffinity on both nodes', () => {
    const out = execFileSync(process.execPath, ['bin/berth.js', 'explain', 'default/web-7f9b8c5d4-surge', '-f', 'examples/rolling-update-deadlock.yaml', '-o', 'json'], { encoding: 'utf8' });
    const e = JSON.parse(out) as { nodes: { node: string; rejectedBy: string; filters: { plugin: string; code: string; reasons: string[] }[] }[]; selected: string | null };
    assert.equal(e.selected, null);
    assert.deepEqual(e.nodes.map((n) => [n.node, n.rejectedBy]), [['node-a', 'InterPodAffinity'], ['node-b', 'InterPodAffinity']]);
    const ipa = e.nodes[0]!.filters.find((f) => f.plugin === 'InterPodAffinity')!;
    assert.deepEqual([ipa.code, ipa.reasons], ['Unschedulable', ["node(s) didn't match pod anti-affinity rules"]]);
  });

  it('explain scores the feasible nodes and marks the one chosen', () => {
    const out = execFileSync(process.execPath, ['bin/berth.js', 'explain', 'kube-system/apiserver-1', '-f', 'examples/apiserver-anti-affinity.yaml', '-o', 'json'], { encoding: 'utf8' });
    const e = JSON.parse(out) as { nodes: { node: string; feasible: boolean; total: number | null }[]; selected: string };
    assert.deepEqual(e.nodes.map((n) => n.feasible), [false, true, true]);
    assert.equal(e.selected, 'cp-2');
    assert.ok(e.nodes[1]!.total! > 0);
  });

  it('provision launches one node for the kube-dns replica that fits nowhere, and one for the surge pod', () => {
    const run = (file: string) =>
      JSON.parse(execFileSync(process.execPath, ['bin/berth.js', 'provision', '-f', file, '-f', 'examples/nodepools/default.yaml', '-o', 'json'], { encoding: 'utf8' })) as {
        nodeClaims: { nodePool: string; pods: string[] }[];
        unschedulable: unknown[];
      };
    for (const file of ['examples/kube-dns-required.yaml', 'examples/rolling-update-deadlock.yaml']) {
      const plan = run(file);
      assert.equal(plan.nodeClaims.length, 1, file);
      assert.equal(plan.nodeClaims[0]!.nodePool, 'default');
      assert.deepEqual(plan.unschedulable, []);
    }
  });

  it('an in-flight NodeClaim takes the pending pod in provision (no second node) while schedule leaves it pending', () => {
    const plan = JSON.parse(execFileSync(process.execPath, ['bin/berth.js', 'provision', '-f', 'examples/in-flight-nodeclaim.yaml', '-f', 'examples/nodepools/default.yaml', '-o', 'json'], { encoding: 'utf8' })) as {
      nodeClaims: unknown[];
      placements: { pod: string; node: string }[];
    };
    assert.deepEqual(plan.nodeClaims, []);
    assert.deepEqual(plan.placements, [{ pod: 'default/web-2', node: 'default-x7k2p' }]);
    const scheduled = execFileSync(process.execPath, ['bin/berth.js', 'schedule', '-f', 'examples/in-flight-nodeclaim.yaml'], { encoding: 'utf8' });
    assert.match(scheduled, /default\/web-2\s+Pending/);
  });

  it('--config with a MostAllocated profile packs pods onto one node; the default profile spreads them', () => {
    const run = (...extra: string[]) => nodesOf(JSON.parse(execFileSync(process.execPath, ['bin/berth.js', 'schedule', '-f', 'test/fixtures/two-nodes-three-pods.yaml', '-o', 'json', ...extra], { encoding: 'utf8' })) as ScheduleReport);
    assert.deepEqual(run(), { 'default/p1': 'a', 'default/p2': 'b', 'default/p3': 'a' });
    assert.deepEqual(run('--config', 'examples/scheduler-config/bin-packing.yaml'), { 'default/p1': 'a', 'default/p2': 'a', 'default/p3': 'a' });
  });

  it('an invalid plugin arg in --config is reported at its line and exits 2', () => {
    const res = spawnSync(process.execPath, ['bin/berth.js', 'schedule', '-f', 'test/fixtures/two-nodes-three-pods.yaml', '--config', 'test/fixtures/bad-scheduler-config.yaml'], { encoding: 'utf8' });
    assert.equal(res.status, 2);
    assert.match(res.stderr, /bad-scheduler-config\.yaml:6:5: KubeSchedulerConfiguration: profiles\[0\]\.pluginConfig\[0\]\.args: initializing plugin "NodeResourcesFit": scoringStrategy\.type: Unsupported value: "Fancy"/);
  });

  it('reports input errors with file:line:column and exits 2 without a stack trace', () => {
    const res = spawnSync(process.execPath, ['bin/berth.js', 'schedule', '-f', 'test/fixtures/invalid-quantity.yaml'], { encoding: 'utf8' });
    assert.equal(res.status, 2);
    assert.match(res.stderr, /invalid-quantity\.yaml:\d+:\d+: Pod default\/bad: spec\.containers\[0\]\.resources\.requests\.cpu: /);
    assert.doesNotMatch(res.stderr, /\n\s+at /);
  });

  it('deschedule: one pass of the policy over seed 002 evicts one kube-dns replica, predicted on node-3', () => {
    const out = execFileSync(process.execPath, ['bin/berth.js', 'deschedule', '-f', 'examples/descheduler/kube-dns-stacked.yaml', '--policy', 'examples/descheduler/policy.yaml', '-o', 'json'], { encoding: 'utf8' });
    const r = JSON.parse(out) as { evictions: { pod: string; node: string; strategy: string; predictedNode: string }[] };
    assert.deepEqual(
      r.evictions.map((e) => [e.pod, e.node, e.strategy, e.predictedNode]),
      [['kube-system/kube-dns-b', 'node-1', 'RemoveDuplicates', 'node-3']],
    );
  });

  it('deschedule: an unknown field in the policy is reported at its line and exits 2', () => {
    const res = spawnSync(process.execPath, ['bin/berth.js', 'deschedule', '-f', 'examples/descheduler/kube-dns-stacked.yaml', '--policy', 'test/fixtures/bad-descheduler-policy.yaml'], { encoding: 'utf8' });
    assert.equal(res.status, 2);
    assert.match(res.stderr, /bad-descheduler-policy\.yaml:7:\d+: DeschedulerPolicy: profiles\[0\]\.pluginConfig\[0\]\.args: Unrecognized key: "exclude"/);
    assert.doesNotMatch(res.stderr, /\n\s+at /);
  });
});
