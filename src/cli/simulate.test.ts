import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ListServer } from '../live/list-server.test-support.js';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const READ_AT = '2026-11-20T12:00:00Z';

// The live cluster: a NodePool whose nodes expire after an hour (and are never consolidated), and its node, 50 minutes old when read.
const pool = {
  metadata: { name: 'default' },
  spec: { disruption: { consolidateAfter: 'Never' }, template: { spec: { expireAfter: '1h', requirements: [{ key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm'] }], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } } },
};
const node = {
  metadata: { name: 'n1', creationTimestamp: '2026-11-20T11:10:00Z', labels: { 'karpenter.sh/nodepool': 'default', 'node.kubernetes.io/instance-type': 'm5.large', 'topology.kubernetes.io/zone': 'us-west-2a', 'karpenter.sh/capacity-type': 'on-demand', 'karpenter.k8s.aws/instance-category': 'm' } },
  status: { allocatable: { cpu: '2', memory: '8Gi', pods: '29' }, capacity: { cpu: '2', memory: '8Gi', pods: '29' }, conditions: [{ type: 'Ready', status: 'True' }] },
};

const server = new ListServer(new Map([
  ['/apis/karpenter.sh/v1/nodepools', { rv: '1', items: [pool] }],
  ['/api/v1/nodes', { rv: '2', items: [node] }],
]));
after(async () => await server.close());

function berth(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', MAIN, ...args], { maxBuffer: 64 * 1024 * 1024 }, (e, stdout, stderr) => resolve({ code: e ? Number(e.code ?? 1) : 0, stdout, stderr }));
  });
}

test('simulate --kubeconfig: the live cluster is the initial state, its ages counted from when it was read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-simulate-live-'));
  const kubeconfig = await server.kubeconfig(dir);
  // The scenario brings a workload of its own; the node it runs on comes from the cluster.
  const scenario = join(dir, 'scenario.yaml');
  writeFileSync(scenario, `apiVersion: berth.dev/v1alpha1
kind: Scenario
metadata: {name: live}
spec:
  until: 20m
  disruption: {enabled: true}
  objects:
  - apiVersion: v1
    kind: Pod
    metadata: {name: p}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]
  expect:
  - at: 1m
    nodeCount: {min: 1, max: 1}
  - disruptions: {reason: Expired, min: 1, max: 1}
`);
  const r = await berth('simulate', scenario, '--kubeconfig', kubeconfig, '--now', READ_AT, '-o', 'json');
  assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`);
  const out = JSON.parse(r.stdout) as { events: { t: string; type: string; node?: string }[]; expectations: { passed: boolean }[] };
  // n1 is 50 minutes old at simulated time 0: it expires 10 minutes in.
  const expired = out.events.find((e) => e.type === 'NodeExpired');
  assert.deepEqual([expired?.t, expired?.node], ['10m00s', 'n1'], JSON.stringify(out.events.slice(0, 20)));
});

test('simulate: --save-snapshot needs --kubeconfig', async () => {
  const r = await berth('simulate', 'examples/scenarios/kube-dns-required.yaml', '--save-snapshot', '/tmp/x.json');
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--save-snapshot needs --kubeconfig/);
});

const SPREAD = fileURLToPath(new URL('../../test/fixtures/what-if/spread-fixed-point.yaml', import.meta.url));

test('simulate --optimize cost: past Karpenter\'s fixed point (twelve m5.large) the cost step packs the spread onto one m5.2xlarge a zone', async () => {
  const faithful = await berth('simulate', SPREAD, '-o', 'json');
  const optimized = await berth('simulate', SPREAD, '--optimize', 'cost', '-o', 'json');
  assert.equal(faithful.code, 0, faithful.stderr);
  assert.equal(optimized.code, 0, optimized.stderr);
  type Final = { final: { nodes: unknown[]; costPerHour: number }; events: { type: string; optimize?: string }[] };
  const f = JSON.parse(faithful.stdout) as Final;
  const o = JSON.parse(optimized.stdout) as Final;
  assert.deepEqual([f.final.nodes.length, f.final.costPerHour], [12, 1.152]);
  assert.deepEqual([o.final.nodes.length, o.final.costPerHour], [2, 0.768]);
  assert.ok(o.events.some((e) => e.type === 'DisruptionProposed' && e.optimize === 'cost'));
  assert.ok(!f.events.some((e) => e.type === 'DisruptionProposed'));
});

test('simulate --optimize: only cost, and only with the scenario\'s disruption loop', async () => {
  const bad = await berth('simulate', SPREAD, '--optimize', 'nodes');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /option '--optimize <objective>' argument 'nodes' is invalid\. must be cost/);
  const dir = mkdtempSync(join(tmpdir(), 'berth-simulate-optimize-'));
  const scenario = join(dir, 'no-disruption.yaml');
  writeFileSync(scenario, 'apiVersion: berth.dev/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nspec: {until: 1m}\n');
  const off = await berth('simulate', scenario, '--optimize', 'cost');
  assert.equal(off.code, 2);
  assert.match(off.stderr, /--optimize cost needs the scenario's disruption loop \(spec\.disruption in .*no-disruption\.yaml\)/);
});
