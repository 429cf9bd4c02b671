// The e2e harness: the test cluster (test/cluster/cluster.sh), an admin client,
// berth controller processes run with the least-privilege identity of
// deploy/rbac.yaml, and polling helpers. Tests run one at a time (one cluster).

import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import https from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { Kube, statusCode } from '../../src/live/kube.js';
import type { KubeObject } from '../../src/live/objects.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLUSTER = join(ROOT, 'test', 'cluster');
export const RUN = join(CLUSTER, '.run');
export const LOGS = join(RUN, 'e2e-logs');

export function cluster(...args: string[]): void {
  const r = spawnSync(join(CLUSTER, 'cluster.sh'), args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`cluster.sh ${args.join(' ')} failed (${r.status})`);
}

/** A command run to its end, from the repository's root. */
export function run(cmd: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The berth CLI, as `berth ...args`. */
export const berth = (...args: string[]) => run(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args]);

let admin: Kube | undefined;
export function kube(): Kube {
  admin ??= Kube.fromFile(join(RUN, 'kubeconfig'));
  return admin;
}

export function manifests(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(join(ROOT, file), 'utf8')).map((d) => d.toJS() as KubeObject).filter((o) => o !== null);
}

/** Creates or replaces. */
export async function apply(o: KubeObject): Promise<KubeObject> {
  try {
    return await kube().create(o);
  } catch (e) {
    if (statusCode(e) !== 409) throw e;
    const current = await kube().read(o.apiVersion!, o.kind!, o.metadata!.name!, o.metadata?.namespace);
    return await kube().replace({ ...o, metadata: { ...o.metadata, resourceVersion: current?.metadata?.resourceVersion } });
  }
}

export async function list(apiVersion: string, kind: string, namespace?: string, labelSelector?: string): Promise<KubeObject[]> {
  const r = await kube().api.list(apiVersion, kind, namespace, undefined, undefined, undefined, undefined, labelSelector);
  return r.items as KubeObject[];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` returns a value (not undefined/false), or fails with `what`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    await sleep(250);
  }
}

/**
 * POSTs JSON as written. client-node's typed serializer keeps only the fields its
 * model names, which drops a CRD schema's x-kubernetes-* keys.
 */
async function postRaw(path: string, o: KubeObject): Promise<void> {
  const opts: https.RequestOptions = {};
  await kube().config.applyToHTTPSOptions(opts);
  const url = new URL(path, kube().config.getCurrentCluster()!.server);
  await new Promise<void>((resolve, reject) => {
    const req = https.request(url, { ...opts, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 201 || res.statusCode === 409 ? resolve() : reject(new Error(`POST ${path}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(JSON.stringify(o));
  });
}

/** Installs the CRDs and RBAC of deploy/ and waits until the CRDs are served. */
export async function installBerth(): Promise<void> {
  for (const f of ['deploy/crd.yaml', 'deploy/nodepool-crd.yaml']) for (const o of manifests(f)) await postRaw('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', o);
  for (const o of [...manifests('deploy/rbac.yaml'), ...manifests('deploy/kwok/rbac.yaml')]) await apply(o);
  await waitFor('CRDs established', async () => {
    const crds = await Promise.all(['nodeclaims.berth.dev', 'nodepools.karpenter.sh'].map((n) => kube().read('apiextensions.k8s.io/v1', 'CustomResourceDefinition', n)));
    return crds.every((c) => ((c?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((x) => x.type === 'Established' && x.status === 'True'));
  });
}

export interface ControllerProcess {
  readonly identity: string;
  readonly child: ChildProcess;
  readonly log: string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

let controllers = 0;
const logged = new Set<string>();
/** `berth controller` as the berth-controller service account (client certificate from cluster.sh). */
export async function startController(extra: string[] = [], identity = `e2e-${++controllers}`): Promise<ControllerProcess> {
  await mkdir(LOGS, { recursive: true });
  const log = join(LOGS, `${identity}.log`);
  // A log starts empty in each test run (emptied now, not when the stream opens, so
  // nothing reads a previous run's lines); a replica started again in the same run appends.
  if (!logged.has(identity)) writeFileSync(log, '');
  logged.add(identity);
  const out = createWriteStream(log, { flags: 'a' });
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'controller', '--kubeconfig', join(RUN, 'berth.kubeconfig'),
    '--identity', identity, '--port', '0', '--bind-address', '127.0.0.1', '--batch-idle', '500ms', '--batch-max', '3s', '--resync', '2s',
    '--lease-duration', '4s', '--renew-deadline', '3s', '--retry-period', '1s', ...extra], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { identity, child, log, exited };
}

export async function stopController(c: ControllerProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill(signal);
  return await c.exited;
}

export function controllerLog(c: ControllerProcess): { msg: string; [k: string]: unknown }[] {
  return readFileSync(c.log, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string });
}

export async function leaseHolder(): Promise<string> {
  const lease = await kube().read('coordination.k8s.io/v1', 'Lease', 'berth-controller', 'berth-system');
  return (lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity ?? '';
}

export async function kwokNodes(): Promise<KubeObject[]> {
  return await list('v1', 'Node', undefined, 'berth.dev/nodeclaim');
}

export async function nodeClaims(): Promise<KubeObject[]> {
  return await list('berth.dev/v1alpha1', 'NodeClaim');
}

interface PodView {
  name: string;
  node: string;
  phase: string;
}
export async function pods(namespace: string, labelSelector: string): Promise<PodView[]> {
  return (await list('v1', 'Pod', namespace, labelSelector))
    .filter((p) => !p.metadata?.deletionTimestamp)
    .map((p) => ({ name: p.metadata!.name!, node: (p.spec as { nodeName?: string }).nodeName ?? '', phase: (p.status as { phase?: string }).phase ?? '' }));
}

/** Takes berth's termination finalizer off what is left, as an operator does once the controller is gone. */
async function dropFinalizers(): Promise<void> {
  const k = kube();
  const drop = (o: KubeObject) => (o.metadata?.finalizers?.includes('berth.dev/termination') ? { ...o, metadata: { ...o.metadata, finalizers: o.metadata.finalizers.filter((f) => f !== 'berth.dev/termination') } } : undefined);
  for (const c of await nodeClaims()) await k.update('berth.dev/v1alpha1', 'NodeClaim', c.metadata!.name!, drop);
  for (const n of await kwokNodes()) await k.update('v1', 'Node', n.metadata!.name!, drop);
}

/** Removes what a test created: its namespace, NodePools, NodeClaims and berth's nodes; waits until they are gone. */
export async function cleanUp(namespace: string): Promise<void> {
  const k = kube();
  await k.delete('v1', 'Namespace', namespace);
  // Pods first, while their nodes are there for kwok to finish them: a pod whose
  // node is gone waits for kube-controller-manager's pod GC (40 s and more).
  await waitFor(`pods of ${namespace} gone`, async () => (await list('v1', 'Pod', namespace)).length === 0, 120_000);
  for (const np of await list('karpenter.sh/v1', 'NodePool')) await k.delete('karpenter.sh/v1', 'NodePool', np.metadata!.name!);
  for (const c of await nodeClaims()) await k.delete('berth.dev/v1alpha1', 'NodeClaim', c.metadata!.name!);
  for (const n of await kwokNodes()) await k.delete('v1', 'Node', n.metadata!.name!);
  await dropFinalizers();
  await waitFor('clean cluster', async () => (await kwokNodes()).length === 0 && (await nodeClaims()).length === 0 && !(await k.read('v1', 'Namespace', namespace)), 120_000);
}

export function nodePool(name: string, spec: { zones?: string[]; arch?: string; limits?: Record<string, string>; disruption?: Record<string, unknown> } = {}): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: {
        spec: {
          requirements: [
            { key: 'kubernetes.io/arch', operator: 'In', values: [spec.arch ?? 'amd64'] },
            { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm'] },
            { key: 'topology.kubernetes.io/zone', operator: 'In', values: spec.zones ?? ['us-west-2a'] },
          ],
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        },
      },
      ...(spec.limits ? { limits: spec.limits } : {}),
      ...(spec.disruption ? { disruption: spec.disruption } : {}),
    },
  };
}

/** A Deployment whose pods tolerate nothing special and request 500m / 256Mi. */
export function deployment(namespace: string, name: string, replicas: number, podSpec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '500m', memory: '256Mi' } } }], ...podSpec },
      },
    },
  };
}

export async function namespace(name: string): Promise<void> {
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  // Pods wait for the namespace's default ServiceAccount (kube-controller-manager creates it).
  await waitFor(`ServiceAccount ${name}/default`, async () => Boolean(await kube().read('v1', 'ServiceAccount', 'default', name)));
}

/**
 * A test file's hooks: the cluster up and berth installed before its tests; its
 * controllers stopped and its timings printed after them.
 */
export function e2eFile(label: string): Record<string, number> {
  const timings: Record<string, number> = {};
  before(async () => {
    cluster('up');
    await installBerth();
  });
  after(async () => {
    await stopAll();
    if (Object.keys(timings).length > 0) console.log(`${label} timings (ms): ${JSON.stringify(timings)}`);
  });
  return timings;
}

/** Controllers a test file started, stopped together when a scenario ends. */
let running: ControllerProcess[] = [];

/** Starts a controller and waits until it serves (leading or standing by). */
export async function controller(extra: string[] = [], identity?: string): Promise<ControllerProcess> {
  const c = await startController(extra, identity);
  running.push(c);
  // The first start compiles the CLI (tsx): over 30 s on a busy machine.
  await waitFor(`${c.identity} leads or stands by`, async () => controllerLog(c).some((l) => l.msg === 'serving /livez /readyz /metrics'), 60_000);
  return c;
}

export async function stopAll(): Promise<void> {
  await Promise.all(running.map((c) => stopController(c)));
  running = [];
}

export async function allRunning(ns: string, app: string, n: number): Promise<PodView[]> {
  return await waitFor(`${n} ${app} pods Running`, async () => {
    const ps = await pods(ns, `app=${app}`);
    return ps.length === n && ps.every((p) => p.phase === 'Running') ? ps : undefined;
  }, 120_000);
}

/** Runs `body` in a fresh namespace with the given NodePools, then removes everything it made. */
export async function scenario(ns: string, pools: Parameters<typeof nodePool>[], body: () => Promise<void>): Promise<void> {
  try {
    await namespace(ns);
    for (const args of pools) await apply(nodePool(...args));
    await body();
  } catch (e) {
    // CI keeps only the test output: what the controllers said is the evidence of a failure.
    for (const c of running) console.error(`--- last lines of ${c.identity}'s log ---\n${tailOf(c.log, 80)}`);
    console.error(`--- cluster at the failure ---\n${await clusterSummary(ns).catch((err: unknown) => String(err))}`);
    throw e;
  } finally {
    await stopAll();
    await cleanUp(ns);
  }
}

/** One line per pod of the namespace, node and NodeClaim: enough to tell a stuck rollout from a stuck decision. */
async function clusterSummary(ns: string): Promise<string> {
  const line = (kind: string, o: KubeObject, rest: unknown) => `${kind} ${o.metadata?.name ?? ''}${o.metadata?.deletionTimestamp ? ' (deleting)' : ''} ${JSON.stringify(rest)}`;
  const podLines = (await list('v1', 'Pod', ns)).map((p) => line('Pod', p, { node: (p.spec as { nodeName?: string }).nodeName, status: p.status }));
  const nodeLines = (await list('v1', 'Node')).map((n) => line('Node', n, { labels: n.metadata?.labels, taints: (n.spec as { taints?: unknown }).taints, conditions: (n.status as { conditions?: unknown }).conditions }));
  const claimLines = (await nodeClaims()).map((c) => line('NodeClaim', c, { spec: c.spec, status: c.status }));
  return [...podLines, ...nodeLines, ...claimLines].join('\n');
}

function tailOf(file: string, lines: number): string {
  return readFileSync(file, 'utf8').split('\n').slice(-lines - 1).join('\n');
}

export async function scale(namespace: string, name: string, replicas: number): Promise<void> {
  const scaled = await kube().update('apps/v1', 'Deployment', name, (d) => ({ ...d, spec: { ...(d.spec as object), replicas } }), { namespace });
  if (!scaled) throw new Error(`Deployment ${namespace}/${name} not found`);
}

export interface ClaimView {
  name: string;
  instanceType: string;
  labels: Record<string, string>;
  /** condition type → status */
  conditions: Record<string, string>;
  providerID: string;
}
export async function claimViews(): Promise<ClaimView[]> {
  return (await nodeClaims()).map((c) => {
    const status = (c.status ?? {}) as { providerID?: string; conditions?: { type: string; status: string }[] };
    return {
      name: c.metadata!.name!,
      instanceType: (c.spec as { instanceType: string }).instanceType,
      labels: c.metadata?.labels ?? {},
      conditions: Object.fromEntries((status.conditions ?? []).map((x) => [x.type, x.status])),
      providerID: status.providerID ?? '',
    };
  });
}

/**
 * Nothing duplicated, nothing leaked: every berth node has its claim, every claim
 * its node, Launched and Registered; `n` of each.
 */
export async function claimsMatchNodes(n: number): Promise<void> {
  // Registered is recorded by the next reconcile pass after the node joins.
  const claims = await waitFor('claims Launched and Registered', async () => {
    const cs = await claimViews();
    return cs.every((c) => c.conditions.Launched === 'True' && c.conditions.Registered === 'True') && cs;
  }, 30_000).catch(async () => await claimViews());
  const nodes = (await kwokNodes()).map((x) => x.metadata!.labels!['berth.dev/nodeclaim']!);
  assert.deepEqual(nodes.sort(), claims.map((c) => c.name).sort(), 'one node per claim, one claim per node');
  assert.equal(claims.length, n, `${n} claims`);
  for (const c of claims) assert.deepEqual([c.name, c.conditions.Launched, c.conditions.Registered], [c.name, 'True', 'True']);
}
