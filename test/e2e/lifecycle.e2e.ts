// The node lifecycle an operator sees, on the test cluster: kwok nodes that register
// NotReady with startup taints and become Ready after kwok's stage delay; claims
// Launched → Registered → Initialized (Events, printer columns); termination as
// Karpenter does it (`kubectl delete nodeclaim` and `kubectl delete node` both
// taint, drain through the Eviction API under a PDB, then delete); and the image's
// entrypoint (compiled dist/, run by node as a non-root user with the Deployment's
// args) handing the lease over on SIGTERM.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import {
  allRunning, apply, controller, controllerLog, deployment, e2eFile, kube, kwokNodes, leaseHolder, list, LOGS, manifests, nodeClaims, pods, RUN, scenario, stopController, waitFor,
  type ControllerProcess,
} from './harness.js';
import type { KubeObject } from '../../src/live/objects.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const timings = e2eFile('lifecycle');

interface Condition { type: string; status: string; lastTransitionTime?: string }
const conditions = (o: KubeObject | undefined): Condition[] => ((o?.status ?? {}) as { conditions?: Condition[] }).conditions ?? [];
const condition = (o: KubeObject | undefined, type: string) => conditions(o).find((c) => c.type === type);
const taintKeys = (n: KubeObject | undefined) => (((n?.spec ?? {}) as { taints?: { key: string }[] }).taints ?? []).map((t) => t.key);

/** What the node lifecycle controller's MarkPodsNotReady writes: the pod's Ready condition False. */
async function markPodNotReady(namespace: string, name: string): Promise<void> {
  const core = kube().config.makeApiClient(CoreV1Api);
  const pod = (await kube().read('v1', 'Pod', name, namespace))!;
  const status = pod.status as { conditions: Condition[] };
  const conditions = status.conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: new Date().toISOString() } : c));
  const written = await core.replaceNamespacedPodStatus({ name, namespace, body: { ...pod, status: { ...status, conditions } } as never });
  assert.equal(written.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
}

/** GET as the API server's Table (what kubectl prints). */
async function table(path: string): Promise<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }> {
  return await getJson(path, 'application/json;as=Table;v=v1;g=meta.k8s.io');
}

async function getJson<T>(path: string, accept = 'application/json'): Promise<T> {
  const opts: https.RequestOptions = {};
  await kube().config.applyToHTTPSOptions(opts);
  const url = new URL(path, kube().config.getCurrentCluster()!.server);
  return await new Promise((resolve, reject) => {
    https.get(url, { ...opts, headers: { accept } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body) as never) : reject(new Error(`GET ${path}: ${res.statusCode} ${body}`))));
    }).on('error', reject);
  });
}

async function events(namespace: string, kind: string, name: string): Promise<string[]> {
  return (await list('v1', 'Event', namespace))
    .filter((e) => (e as { involvedObject?: { kind?: string; name?: string } }).involvedObject?.kind === kind && (e as { involvedObject?: { name?: string } }).involvedObject?.name === name)
    .map((e) => (e as { reason?: string }).reason ?? '');
}

test('kwok nodes register NotReady with startup taints, Ready after the stage delay; claims go Launched → Registered → Initialized with Events and kubectl columns', async () => {
  const ns = 'e2e-lifecycle';
  await scenario(ns, [['startup', {}]], async () => {
    // The NodePool with a startup taint, as a CNI agent's.
    const pool = (await kube().read('karpenter.sh/v1', 'NodePool', 'startup'))!;
    const spec = pool.spec as { template: { spec: Record<string, unknown> } };
    await kube().update('karpenter.sh/v1', 'NodePool', 'startup', (p) => ({ ...p, spec: { ...spec, template: { ...spec.template, spec: { ...spec.template.spec, startupTaints: [{ key: 'example.com/agent-not-ready', effect: 'NoSchedule' }] } } } }));
    await controller();
    const t0 = Date.now();
    await apply(deployment(ns, 'web', 1));
    const registering = await waitFor('a node registered', async () => (await kwokNodes())[0], 60_000);
    const name = registering.metadata!.name!;
    assert.equal(condition(registering, 'Ready')?.status, 'False', 'registers NotReady');
    assert.ok(taintKeys(registering).includes('example.com/agent-not-ready'), 'with its startup taint');
    const claim = await waitFor('Registered', async () => {
      const c = await kube().read('berth.dev/v1alpha1', 'NodeClaim', name);
      return condition(c, 'Registered')?.status === 'True' && c;
    }, 30_000);
    assert.equal(condition(claim, 'Initialized'), undefined, 'not Initialized while NotReady');
    const ready = await waitFor('Ready', async () => {
      const n = await kube().read('v1', 'Node', name);
      return condition(n, 'Ready')?.status === 'True' && !taintKeys(n).includes('example.com/agent-not-ready') && n;
    }, 60_000);
    timings.registeredToReady = Date.parse(condition(ready, 'Ready')!.lastTransitionTime!) - Date.parse(condition(registering, 'Ready')!.lastTransitionTime!);
    const [running] = await allRunning(ns, 'web', 1);
    timings.createToRunning = Date.now() - t0;
    const podObject = (await kube().read('v1', 'Pod', running!.name, ns))!;
    const scheduled = condition(podObject, 'PodScheduled')!;
    assert.ok(Date.parse(scheduled.lastTransitionTime!) >= Date.parse(condition(ready, 'Ready')!.lastTransitionTime!) - 1000, 'the pod was bound only once its node was Ready and untainted');
    // kube-controller-manager marks a pod not Ready when its last look at the node (up to
    // 5 s old) said NotReady; the kubelet's status sync (kwok's stage pod-ready-again)
    // makes it Ready again, or a rollout would wait on it forever (CI stop 38).
    await markPodNotReady(ns, running!.name);
    await waitFor('the pod marked not Ready is Ready again', async () => condition(await kube().read('v1', 'Pod', running!.name, ns), 'Ready')?.status === 'True', 15_000);
    await waitFor('Initialized', async () => condition(await kube().read('berth.dev/v1alpha1', 'NodeClaim', name), 'Initialized')?.status === 'True', 30_000);
    const node = (await kube().read('v1', 'Node', name))!;
    assert.deepEqual([node.metadata?.labels?.['karpenter.sh/registered'], node.metadata?.labels?.['karpenter.sh/initialized']], ['true', 'true']);
    assert.ok(node.metadata?.finalizers?.includes('berth.dev/termination'));
    await waitFor('Launched, Registered, Initialized Events', async () => {
      const reasons = await events('default', 'NodeClaim', name);
      return ['Launched', 'Registered', 'Initialized'].every((r) => reasons.includes(r));
    }, 15_000);
    const t = await table('/apis/berth.dev/v1alpha1/nodeclaims');
    const columns = t.columnDefinitions.map((c) => c.name);
    for (const c of ['NodePool', 'Type', 'Zone', 'Capacity', 'Price', 'Node', 'Launched', 'Registered', 'Age']) assert.ok(columns.includes(c), `column ${c}`);
    const row = Object.fromEntries(columns.map((c, i) => [c, t.rows[0]!.cells[i]]));
    assert.equal(row.Node, name);
    assert.match(String(row.Price), /^\d+\.\d{4}$/);
    console.log(`kubectl get nodeclaims -o wide: ${columns.map((c) => `${c}=${String(row[c])}`).join(' ')}`);
    // The binaries carry their version (build.sh's -ldflags): what `kubectl version` prints for the server.
    assert.equal((await getJson<{ gitVersion: string }>('/version')).gitVersion, 'v1.37.2');
  });
});

test('termination: deleting a NodeClaim, then a Node, taints and drains through the Eviction API under a PDB, then deletes; nothing is re-created under the same name', async () => {
  const ns = 'e2e-termination';
  await scenario(ns, [['default', { zones: ['us-west-2a'] }]], async () => {
    const c = await controller(['--orphan-grace', '5s']);
    await apply(deployment(ns, 'web', 2));
    // maxUnavailable 1 of 2: each eviction waits until the evicted pod's replacement runs on a new node.
    await apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: ns }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } } });
    const first = await allRunning(ns, 'web', 2);
    const nodeA = first[0]!.node;
    assert.equal(first[1]!.node, nodeA, 'both pods on one node');
    await waitFor('the PDB allows 1', async () => ((await kube().read('policy/v1', 'PodDisruptionBudget', 'web', ns))?.status as { disruptionsAllowed?: number } | undefined)?.disruptionsAllowed === 1, 30_000);

    // 1. kubectl delete nodeclaim
    const t1 = Date.now();
    await kube().delete('berth.dev/v1alpha1', 'NodeClaim', nodeA);
    const tainted = await waitFor('node A tainted', async () => {
      const n = await kube().read('v1', 'Node', nodeA);
      return taintKeys(n).includes('karpenter.sh/disrupted') && n;
    }, 15_000);
    assert.ok(tainted.metadata?.deletionTimestamp, 'the claim deleted its Node, which waits on the finalizer');
    timings.claimDeleteToTainted = Date.now() - t1;
    await waitFor('node A gone', async () => !(await kube().read('v1', 'Node', nodeA)), 180_000);
    timings.claimDeleteDrain = Date.now() - t1;
    await waitFor('claim A gone after its node', async () => !(await kube().read('berth.dev/v1alpha1', 'NodeClaim', nodeA)), 15_000);
    const second = await allRunning(ns, 'web', 2);
    timings.claimDeleteToAllRunning = Date.now() - t1;
    const log = controllerLog(c);
    const evicted = log.filter((l) => l.msg === 'evicted pod' && l.node === nodeA);
    assert.equal(evicted.length, 2, 'both pods left through the Eviction API');
    assert.ok(log.some((l) => l.msg === 'eviction refused (429: a PodDisruptionBudget allows none now); retrying with backoff' && l.node === nodeA), 'the PDB held the second eviction back');
    assert.ok(!log.some((l) => l.msg === 'deleting pod to meet the node termination time'), 'no pod deleted directly');
    assert.deepEqual((await events('default', 'NodeClaim', nodeA)).filter((r) => r === 'Terminating'), ['Terminating']);
    assert.ok((await events('default', 'Node', nodeA)).includes('Terminating'));

    // 2. kubectl delete node, of a node whose claim is young
    const nodeB = second[0]!.node;
    const t2 = Date.now();
    await kube().delete('v1', 'Node', nodeB);
    await waitFor('node B gone', async () => !(await kube().read('v1', 'Node', nodeB)), 180_000);
    timings.nodeDeleteDrain = Date.now() - t2;
    await waitFor('deleting the Node deleted its claim', async () => !(await kube().read('berth.dev/v1alpha1', 'NodeClaim', nodeB)), 15_000);
    const third = await allRunning(ns, 'web', 2);
    timings.nodeDeleteToAllRunning = Date.now() - t2;
    assert.ok(third.every((p) => p.node !== nodeA && p.node !== nodeB));
    await new Promise((r) => setTimeout(r, 3_000));
    const names = (await kwokNodes()).map((n) => n.metadata!.name!);
    assert.ok(!names.includes(nodeA) && !names.includes(nodeB), 'not re-created');
    assert.equal((await nodeClaims()).length, names.length, 'one claim per node');
    assert.ok(controllerLog(c).filter((l) => l.msg === 'evicted pod' && l.node === nodeB).length >= 1);
    assert.deepEqual((await pods(ns, 'app=web')).length, 2);
  });
});

/** A kubeconfig with the berth identity's certificates inlined, readable by the image's non-root user. */
function portableKubeconfig(): string {
  const b64 = (f: string) => readFileSync(join(RUN, 'pki', f)).toString('base64');
  const server = kube().config.getCurrentCluster()!.server;
  const file = join(LOGS, 'image.kubeconfig');
  writeFileSync(file, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server, 'certificate-authority-data': b64('ca.crt') } }],
    users: [{ name: 'u', user: { 'client-certificate-data': b64('berth.crt'), 'client-key-data': b64('berth.key') } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
  }), { mode: 0o644 });
  return file;
}

/** dist/ compiled from the current sources (npm run build, as the image's first stage does), built again when a source is newer. */
function built(): string {
  const main = join(ROOT, 'dist', 'cli', 'main.js');
  const stale = !existsSync(main) || spawnSync('find', [join(ROOT, 'src'), '-newer', main, '-name', '*.ts'], { encoding: 'utf8' }).stdout.trim() !== '';
  if (stale) assert.equal(spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' }).status, 0, 'npm run build');
  return main;
}

/** The image's entrypoint with the Deployment's args, as uid 65532 with nowhere to write. */
function imageReplica(main: string, podName: string, kubeconfig: string): ControllerProcess {
  const container = ((manifests('deploy/deployment.yaml').find((o) => o.kind === 'Deployment')!.spec as { template: { spec: { containers: { args: string[] }[] } } }).template.spec.containers[0]!);
  const args = container.args.map((a) => a.replace('$(POD_NAME)', podName));
  const log = join(LOGS, `${podName}.log`);
  writeFileSync(log, '');
  // Only what differs outside a pod: the kubeconfig (in a pod: the service account) and a free port (two replicas on one host).
  const child = spawn(process.execPath, [main, ...args, '--kubeconfig', kubeconfig, '--port', '0'], {
    cwd: '/', uid: 65532, gid: 65532, env: { PATH: process.env.PATH, POD_NAME: podName, HOME: '/nonexistent', TMPDIR: '/nonexistent' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(log, { flags: 'a' });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  return { identity: podName, child, log, exited: new Promise((r) => child.once('exit', (code) => r(code))) };
}

async function get(port: number, path: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return res.status;
}

test('the image: compiled entrypoint as non-root with the Deployment\'s args; manifests pass server-side dry-run; SIGTERM hands the lease over', async () => {
  for (const o of manifests('deploy/deployment.yaml')) await kube().api.create(o as never, undefined, 'All');
  const main = built();
  const kubeconfig = portableKubeconfig();
  const a = imageReplica(main, 'berth-controller-a', kubeconfig);
  const ready = (c: ControllerProcess) => waitFor(`${c.identity} serving`, async () => controllerLog(c).find((l) => l.msg === 'serving /livez /readyz /metrics'), 60_000);
  const portA = Number((await ready(a)).port);
  await waitFor('a leads', async () => (await leaseHolder()) === 'berth-controller-a', 30_000);
  const b = imageReplica(main, 'berth-controller-b', kubeconfig);
  const portB = Number((await ready(b)).port);
  try {
    await waitFor('b names the leader', async () => controllerLog(b).some((l) => l.msg === 'standing by; current leader' && l.leader === 'berth-controller-a'), 30_000);
    await waitFor('both ready', async () => (await get(portA, '/readyz')) === 200 && (await get(portB, '/readyz')) === 200, 30_000);
    assert.equal(await get(portA, '/livez'), 200);
    const metrics = await (await fetch(`http://127.0.0.1:${portA}/metrics`)).text();
    assert.match(metrics, /berth_build_info\{version="0\.1\.0",nodeversion="v\d+/);
    assert.match(metrics, /^berth_leader 1$/m);
    const line = controllerLog(a).find((l) => l.msg === 'became leader') as Record<string, unknown>;
    assert.equal(line.level, 'info', 'level names');
    assert.match(String(line.time), /^\d{4}-\d\d-\d\dT/, 'ISO times');
    const t0 = Date.now();
    a.child.kill('SIGTERM');
    assert.equal(await a.exited, 0, 'the controller itself handled SIGTERM and exited 0');
    timings.sigtermExit = Date.now() - t0;
    await waitFor('b leads', async () => (await leaseHolder()) === 'berth-controller-b' && controllerLog(b).some((l) => l.msg === 'became leader'), 30_000);
    timings.sigtermHandover = Date.now() - t0;
    assert.ok(controllerLog(a).some((l) => l.msg === 'stopped'));
  } finally {
    await stopController(a);
    await stopController(b);
  }
});
