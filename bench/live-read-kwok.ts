// Reading a large cluster from a real API server (issue 24's "5,000 nodes / 100,000
// pods (kwok) under a minute"). Setup, not measured: the test cluster
// (test/cluster/cluster.sh); one kwok node a zone, made Ready by kwok (the
// controller-manager lifts its not-ready taint); then the scheduler, the
// controller-manager and kwok are stopped so that the state stands still; 20
// namespaces (with their default ServiceAccount) of 25 ReplicaSets each, and each
// ReplicaSet's first pod, bound with nodeName and given its Running status. All
// these go through the API server (admission, defaults, managed fields). The other
// 4,997 nodes and 99,500 pods are copies of them (own name, uid, node, IP and zone
// label) written straight into etcd in transactions, which the API server reads as it
// reads its own writes (JSON is one of its storage decoders), so the objects it serves
// are the same. Through the API server alone the setup took 4,267 s on this shared
// machine (kwok and the controller-manager at nice 19 made 2.5 nodes a second Ready);
// this way about 6 minutes.
// Measured, each in its own niced process under GNU time (wall, CPU, peak
// RSS): bench/live-read.ts --kubeconfig (list and load phases timed inside), then
// each whole command given (default `check --kubeconfig`).
//   BERTH_CLUSTER_PORT_BASE=18800 BERTH_CLUSTER_RUN=$PWD/test/cluster/.run-bench \
//     npx tsx bench/live-read-kwok.ts [--nodes 5000] [--pods 100000] [--command "schedule --kubeconfig"]... [--keep] [--no-setup]
// The cluster is taken down at the end unless --keep (then `cluster.sh down` with the
// same env); --no-setup measures the cluster a --keep run left.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLUSTER_SH = join(ROOT, 'test', 'cluster', 'cluster.sh');
const RUN = process.env.BERTH_CLUSTER_RUN ?? join(ROOT, 'test', 'cluster', '.run');
const PORT_BASE = Number(process.env.BERTH_CLUSTER_PORT_BASE ?? 16400);
const API = `127.0.0.1:${PORT_BASE + 43}`;
const ETCD_PORT = PORT_BASE + 79;
const KUBECONFIG = join(RUN, 'kubeconfig');

const args = process.argv.slice(2);
const flag = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i < 0 ? dflt : Number(args[i + 1]);
};
const NODES = flag('--nodes', 5000);
const PODS = flag('--pods', 100_000);
const NAMESPACES = 20;
const SETS_PER_NAMESPACE = 25;
const PARALLEL = 48;
const commands = args.flatMap((a, i) => (a === '--command' ? [args[i + 1]!] : []));
if (commands.length === 0) commands.push('check --kubeconfig');

// kwok renews each node's lease every quarter of its duration: 600 s keeps 5,000 leases from
// loading the API server, and the controller-manager's grace period must outlast it.
const clusterEnv = { BERTH_KWOK_LEASE_SECONDS: '600', BERTH_KCM_FLAGS: '--node-monitor-grace-period=900s', ...process.env };

function cluster(...a: string[]): void {
  const r = spawnSync(CLUSTER_SH, a, { stdio: ['ignore', 'inherit', 'inherit'], env: clusterEnv });
  if (r.status !== 0) throw new Error(`cluster.sh ${a.join(' ')} failed (${r.status})`);
}

let agent: https.Agent | undefined;
const etcdAgent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const connect = () => new https.Agent({
  keepAlive: true,
  maxSockets: PARALLEL,
  ca: readFileSync(join(RUN, 'pki', 'ca.crt')),
  cert: readFileSync(join(RUN, 'pki', 'admin.crt')),
  key: readFileSync(join(RUN, 'pki', 'admin.key')),
});

interface ApiObject {
  items?: ApiObject[];
  metadata?: { name?: string; uid?: string };
  spec?: { taints?: { key: string }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

function request(method: string, path: string, body: unknown, contentType = 'application/json'): Promise<ApiObject> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? '' : JSON.stringify(body);
    const req = https.request({ host: API.split(':')[0], port: Number(API.split(':')[1]), path, method, agent: agent!, headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(data) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`));
        else resolve(JSON.parse(text));
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Runs make(i) for i < n, PARALLEL at a time, printing progress. */
async function inParallel(what: string, n: number, make: (i: number) => Promise<unknown>): Promise<void> {
  const started = performance.now();
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await make(i);
      if (++done % 10_000 === 0) process.stderr.write(`  ${what}: ${done}/${n}\n`);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  console.log(`setup: ${n} ${what} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

const zones = ['us-west-2a', 'us-west-2b', 'us-west-2c'];
const ZONE_LABEL = 'topology.kubernetes.io/zone';
const node = (i: number) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: `node-${i}`,
    annotations: { 'kwok.x-k8s.io/node': 'fake' },
    labels: { 'kubernetes.io/hostname': `node-${i}`, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', [ZONE_LABEL]: zones[i % 3]!, 'node.kubernetes.io/instance-type': 'm5.8xlarge', type: 'kwok' },
  },
  spec: { taints: [{ key: 'kwok.x-k8s.io/node', value: 'fake', effect: 'NoSchedule' }] },
  status: { capacity: { cpu: '32', memory: '128Gi', pods: '110' }, allocatable: { cpu: '31', memory: '120Gi', pods: '110' } },
});

const podTemplate = (app: string) => ({
  metadata: { labels: { app } },
  spec: {
    tolerations: [{ key: 'kwok.x-k8s.io/node', operator: 'Exists', effect: 'NoSchedule' }],
    containers: [{ name: 'main', image: 'registry.example/app:1', ports: [{ containerPort: 8080 }], resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } } }],
  },
});

const isReady = (n: ApiObject) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && !n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/not-ready');

async function setup(): Promise<void> {
  cluster('up');
  agent = connect();
  cluster('stop', 'kube-scheduler');
  // One node a zone is made through the API server, made Ready by kwok and untainted by the
  // controller-manager; the other nodes are copies of it written into etcd (kwok and the
  // controller-manager at nice 19 made 2.5 nodes a second Ready on this shared machine).
  const templateCount = Math.min(NODES, zones.length);
  await inParallel('nodes', templateCount, (i) => request('POST', '/api/v1/nodes', node(i)));
  let templateNodes: ApiObject[];
  for (;;) {
    templateNodes = (await request('GET', '/api/v1/nodes', undefined)).items ?? [];
    if (templateNodes.filter(isReady).length === templateCount) break;
    await new Promise((r) => setTimeout(r, 2000));
  }
  // From here the state stands still: no controller acts on the ReplicaSets, no kwok on the pods (their status is written below).
  cluster('stop', 'kube-controller-manager');
  cluster('stop', 'kwok');
  for (let n = 0; n < NAMESPACES; n++) {
    await request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `bench-${n}` } });
    // The controller-manager, which would make it, is stopped; pod admission needs it.
    await request('POST', `/api/v1/namespaces/bench-${n}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  }
  const sets = NAMESPACES * SETS_PER_NAMESPACE;
  const perSet = Math.ceil(PODS / sets);
  // Each ReplicaSet's first pod is made through the API server (admission, defaults,
  // managed fields, a status write); the others are copies of it written straight into
  // etcd, as the API server would store them, with their own name, uid, node and IP.
  const templates: ApiObject[] = [];
  await inParallel('ReplicaSets and their first pods', sets, async (s) => {
    const ns = `bench-${s % NAMESPACES}`;
    const app = `app-${s}`;
    const rs = await request('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: app, labels: { app } },
      spec: { replicas: perSet, selector: { matchLabels: { app } }, template: podTemplate(app) },
    });
    const t = podTemplate(app);
    const name = `${app}-${s}`;
    await request('POST', `/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, ...t.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: app, uid: rs.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }] },
      spec: { ...t.spec, nodeName: `node-${s % NODES}` },
    });
    const now = new Date().toISOString();
    templates[s] = await request('PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, { status: { phase: 'Running', podIP: podIP(s), podIPs: [{ ip: podIP(s) }], startTime: now, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } }, 'application/merge-patch+json');
  });
  const nodeCopy = (i: number) => {
    const o = copyOf(templateNodes.find((n) => n.metadata?.name === `node-${i % templateCount}`)!, 'Node', `node-${i}`);
    (o.metadata.labels as Record<string, string>)['kubernetes.io/hostname'] = `node-${i}`;
    return { key: `/registry/minions/node-${i}`, value: JSON.stringify(o) };
  };
  const podCopy = (i: number) => {
    const o = copyOf(templates[i % sets]!, 'Pod', `app-${i % sets}-${i}`);
    o.spec.nodeName = `node-${i % NODES}`;
    // Admission (PodTopologyLabels) copied the template's node's zone onto it.
    const labels = o.metadata.labels as Record<string, string>;
    if (labels[ZONE_LABEL] !== undefined) labels[ZONE_LABEL] = zones[i % NODES % 3]!;
    Object.assign(o.status, { podIP: podIP(i), podIPs: [{ ip: podIP(i) }] });
    return { key: `/registry/pods/${o.metadata.namespace as string}/${o.metadata.name as string}`, value: JSON.stringify(o) };
  };
  await writeCopies('nodes', templateCount, NODES, nodeCopy);
  await writeCopies('pods', sets, PODS, podCopy);
}

/**
 * A copy of a core/v1 object as the API server stores it: typed (a list's items are not,
 * and the API server cannot decode an untyped object from etcd), its own name and uid,
 * no resourceVersion (etcd's revision is the object's).
 */
function copyOf(o: ApiObject, kind: 'Node' | 'Pod', name: string) {
  const c = { ...structuredClone(o), apiVersion: 'v1', kind } as ApiObject & { metadata: Record<string, unknown>; spec: Record<string, unknown>; status: Record<string, unknown> };
  delete c.metadata.resourceVersion;
  Object.assign(c.metadata, { name, uid: randomUUID() });
  return c;
}

/**
 * Writes the copies from..to-1 into etcd through its JSON gateway, at most 128
 * operations a transaction (etcd's --max-txn-ops default), then waits until the API
 * server's watch cache, which sees them through its etcd watch, lists them all.
 */
async function writeCopies(what: 'nodes' | 'pods', from: number, to: number, copy: (i: number) => { key: string; value: string }): Promise<void> {
  const started = performance.now();
  const TXN = 128;
  const count = to - from;
  await inParallel(`transactions of ${what} copies`, Math.ceil(count / TXN), (t) => etcdPut(Array.from({ length: Math.min(TXN, count - t * TXN) }, (_, j) => copy(from + t * TXN + j))));
  console.log(`setup: ${count} ${what} copies in etcd in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  for (let waited = 0; ; waited += 2) {
    const listed = (await request('GET', `/api/v1/${what}?limit=1`, undefined)) as ApiObject & { metadata?: { remainingItemCount?: number } };
    const listedCount = 1 + (listed.metadata?.remainingItemCount ?? 0);
    if (listedCount >= to) break;
    if (waited > 300) throw new Error(`the API server lists ${listedCount} ${what}, not ${to}, 300 s after they were written to etcd`);
    process.stderr.write(`  the API server lists ${listedCount}/${to} ${what}\n`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

const podIP = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

function etcdPut(kvs: { key: string; value: string }[]): Promise<void> {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const body = JSON.stringify({ success: kvs.map((kv) => ({ requestPut: { key: b64(kv.key), value: b64(kv.value) } })) });
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: ETCD_PORT, path: '/v3/kv/txn', method: 'POST', agent: etcdAgent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ((res.statusCode ?? 0) >= 300 ? reject(new Error(`etcd txn: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`)) : resolve()));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One measured process: its output, then GNU time's wall, CPU and peak RSS. */
function measure(title: string, argv: string[]): void {
  console.log(`\n$ nice ${argv.join(' ')}`);
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e s wall, %U+%S CPU s, peak RSS %M KB', 'nice', ...argv], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=8192' } });
  const out = r.stdout.trim().split('\n');
  console.log(out.length > 12 ? [...out.slice(0, 6), `  ... (${out.length - 12} lines)`, ...out.slice(-6)].join('\n') : out.join('\n'));
  const time = r.stderr.split('\n').find((l) => l.startsWith('TIME '));
  if (r.status !== 0) console.log(`${title} exited ${r.status}: ${r.stderr.split('\n').filter((l) => !l.startsWith('TIME ')).slice(-5).join('\n')}`);
  const m = time?.match(/TIME ([\d.]+) s wall, ([\d.]+)\+([\d.]+) CPU s, peak RSS (\d+) KB/);
  if (m) console.log(`${title}: ${m[1]} s wall, ${(Number(m[2]) + Number(m[3])).toFixed(1)} CPU s, peak RSS ${(Number(m[4]) / 1024).toFixed(0)} MB`);
}

try {
  if (!args.includes('--no-setup')) await setup();
  const tsx = [process.execPath, '--import', 'tsx'];
  measure('read + load', [...tsx, 'bench/live-read.ts', '--kubeconfig', KUBECONFIG]);
  for (const c of commands) measure(`berth ${c}`, [...tsx, 'src/cli/main.ts', ...c.split(' ').flatMap((a) => (a === '--kubeconfig' ? [a, KUBECONFIG] : [a]))]);
} finally {
  agent?.destroy();
  etcdAgent.destroy();
  if (!args.includes('--keep')) cluster('down');
}
