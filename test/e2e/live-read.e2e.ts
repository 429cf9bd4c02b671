// `--kubeconfig`: berth reading the real API server, read-only, compared with a
// real `kubectl get -o yaml` dump of the same state (check and preview); and the
// read-only role of deploy/readonly-rbac.yaml: enough to read, not to write.

import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Kube, statusCode } from '../../src/live/kube.js';
import { SNAPSHOT_KINDS } from '../../src/live/snapshot.js';
import { allRunning, apply, berth, CLUSTER, deployment, e2eFile, kube, manifests, run, RUN, scenario, waitFor } from './harness.js';

e2eFile('live-read');

const KUBECONFIG = join(RUN, 'kubeconfig');

/** Two kwok nodes in two zones, as kwok's fake kubelet keeps them Ready. */
async function nodes(): Promise<void> {
  for (const [name, zone] of [['live-a', 'us-west-2a'], ['live-b', 'us-west-2b']] as const) {
    await apply({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, annotations: { 'kwok.x-k8s.io/node': 'fake' }, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone, 'berth.dev/nodeclaim': name, type: 'kwok' } },
      spec: {},
      status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' }, capacity: { cpu: '4', memory: '16Gi', pods: '110' } },
    });
  }
}

test('check and preview --kubeconfig answer as --cluster does on a kubectl dump of the same state, and --save-snapshot replays it', async () => {
  const ns = 'e2e-live-read';
  await scenario(ns, [], async () => {
    await nodes();
    // The kube-dns incident: 2 replicas, preferred anti-affinity, and a PDB.
    await apply(deployment(ns, 'dns', 2, {
      affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'dns' } } } }] } },
    }));
    await apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'dns', namespace: ns }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'dns' } } } });
    await allRunning(ns, 'dns', 2);
    const dir = mkdtempSync(join(tmpdir(), 'berth-live-'));

    // kubectl lists the same kinds, in the same order, as berth's snapshot (those this server serves).
    const collection = (k: (typeof SNAPSHOT_KINDS)[number]) => `${k.apiVersion.includes('/') ? '/apis' : '/api'}/${k.apiVersion}/${k.resource}?limit=1`;
    const served = (await Promise.all(SNAPSHOT_KINDS.map(async (k) => ((await kube().getListPage(collection(k)).page.then(() => true, (e: unknown) => statusCode(e) !== 404)) ? [k] : [])))).flat();
    const types = served.map((k) => (k.apiVersion.includes('/') ? `${k.resource}.${k.apiVersion.split('/')[0]}` : k.resource)).join(',');
    const dump = run(join(CLUSTER, '.bin', 'kubectl'), ['--kubeconfig', KUBECONFIG, 'get', types, '-A', '-o', 'yaml']);
    assert.equal(dump.status, 0, dump.stderr);
    writeFileSync(join(dir, 'dump.yaml'), dump.stdout);

    // One snapshot time for every run: a live read counts ages from now, a dump from its newest timestamp.
    const now = new Date().toISOString();
    const snapshot = join(dir, 'snapshot.yaml');
    const live = berth('check', '--kubeconfig', KUBECONFIG, '--now', now, '--save-snapshot', snapshot, '-o', 'json');
    const offline = berth('check', '--cluster', join(dir, 'dump.yaml'), '--now', now, '-o', 'json');
    const replay = berth('check', '--cluster', snapshot, '--now', now, '-o', 'json');
    assert.ok(live.status === 0 || live.status === 1, live.stderr);
    assert.match(live.stderr, /read https:\/\/127\.0\.0\.1:\d+ \(context [^)]+\): .*2 Node.*Deployment/);
    const findings = JSON.parse(live.stdout) as { checks?: unknown }[];
    assert.ok(JSON.stringify(findings).includes(`Deployment/${ns}/dns`), 'the Deployment is analysed');
    assert.equal(live.stdout, offline.stdout, 'live read and kubectl dump give the same findings');
    assert.equal(live.stdout, replay.stdout, 'the saved snapshot replays the live run');
    assert.match(readFileSync(snapshot, 'utf8'), /^# {3}Node 2 at resourceVersion \d+$/m);

    // preview reads the same way; at a fixed snapshot time the live and offline answers are the same.
    const livePreview = berth('preview', '--kubeconfig', KUBECONFIG, '--now', now, '--until', '10m', '-o', 'json');
    const dumpPreview = berth('preview', '--cluster', join(dir, 'dump.yaml'), '--now', now, '--until', '10m', '-o', 'json');
    assert.equal(livePreview.status, 0, livePreview.stderr);
    assert.equal(livePreview.stdout, dumpPreview.stdout);

    // -n narrows the workloads under review, not the cluster they run on.
    const other = berth('check', '--kubeconfig', KUBECONFIG, '-n', 'kube-system', '-o', 'json');
    assert.ok(!other.stdout.includes(`Deployment/${ns}/dns`), other.stdout);
  });
});

test('the read-only role of deploy/readonly-rbac.yaml reads everything berth needs and can write nothing', async () => {
  for (const o of manifests('deploy/readonly-rbac.yaml')) await apply(o);
  // The ServiceAccount's token, from the TokenRequest subresource (as `kubectl create token` gets it).
  const token = await waitFor('a token for berth-system/berth-readonly', async () => {
    const tr = (await postJson('/api/v1/namespaces/berth-system/serviceaccounts/berth-readonly/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } })) as { status?: { token?: string } };
    return tr.status?.token;
  });
  const admin = kube().config;
  const cluster = admin.getCurrentCluster()!;
  const kubeconfig = join(mkdtempSync(join(tmpdir(), 'berth-ro-')), 'kubeconfig');
  writeFileSync(kubeconfig, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'e2e', cluster: { server: cluster.server, 'certificate-authority-data': Buffer.from(readFileSync(cluster.caFile!)).toString('base64') } }],
    users: [{ name: 'readonly', user: { token } }],
    contexts: [{ name: 'readonly', context: { cluster: 'e2e', user: 'readonly' } }],
    'current-context': 'readonly',
  }));
  const r = berth('schedule', '--kubeconfig', kubeconfig, '-o', 'json');
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /forbidden/);
  const ro = Kube.fromFile(kubeconfig);
  for (const attempt of [
    () => ro.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'nope', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'x' }] } } as never),
    () => ro.delete('v1', 'Namespace', 'default'),
    () => ro.read('v1', 'Secret', 'anything', 'default'),
  ]) {
    await assert.rejects(attempt(), (e: unknown) => statusCode(e) === 403);
  }
});

async function postJson(path: string, body: object): Promise<unknown> {
  const opts: https.RequestOptions = {};
  await kube().config.applyToHTTPSOptions(opts);
  const url = new URL(path, kube().config.getCurrentCluster()!.server);
  return await new Promise((resolve, reject) => {
    const req = https.request(url, { ...opts, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) : reject(new Error(`POST ${path}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
