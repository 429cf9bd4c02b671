import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { loopbackConfig } from './fake-apiserver.test-support.js';
import { Kube } from './kube.js';
import { readSnapshot, SnapshotError, SNAPSHOT_KINDS } from './snapshot.js';

/**
 * A list-only API server: collections by URL path, served in pages of `limit` with
 * a continue token (the index of the next item) at the collection's revision.
 * Paths not in `collections` are 404 (not served); `forbidden` ones 403; the first
 * continued request of a path in `expireOnce` is 410 Gone.
 */
class ListServer {
  readonly requests: string[] = [];
  readonly forbidden = new Set<string>();
  readonly expireOnce = new Set<string>();
  private readonly server: Server;

  constructor(readonly collections: Map<string, { rv: string; items: object[] }>) {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      this.requests.push(`${url.pathname}${url.search}`);
      const reply = (code: number, body: object) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (this.forbidden.has(url.pathname)) return reply(403, { kind: 'Status', message: 'forbidden' });
      const c = this.collections.get(url.pathname);
      if (!c) return reply(404, { kind: 'Status', message: 'the server could not find the requested resource' });
      const from = Number(url.searchParams.get('continue') ?? 0);
      if (from > 0 && this.expireOnce.delete(url.pathname)) return reply(410, { kind: 'Status', message: 'The provided continue parameter is too old' });
      const limit = Number(url.searchParams.get('limit'));
      const selector = url.searchParams.get('labelSelector');
      const items = selector ? c.items.filter((o) => JSON.stringify(o).includes(selector.replace('=', '":"'))) : c.items;
      const next = from + limit < items.length ? String(from + limit) : undefined;
      reply(200, { metadata: { resourceVersion: c.rv, ...(next ? { continue: next } : {}) }, items: items.slice(from, from + limit) });
    });
  }

  async kube(): Promise<Kube> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return new Kube(loopbackConfig((this.server.address() as AddressInfo).port));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let server: ListServer | undefined;
afterEach(async () => await server?.close());

const pod = (name: string, namespace = 'default', labels: Record<string, string> = {}) => ({ metadata: { name, namespace, labels, managedFields: [{ manager: 'kubectl' }] }, spec: { containers: [{ name: 'c', image: 'x' }] } });

function started(collections: Record<string, { rv: string; items: object[] }>): Promise<Kube> {
  server = new ListServer(new Map(Object.entries(collections)));
  return server.kube();
}

test('every kind is read in pages at its own revision, typed and without managedFields, as kubectl prints them', async () => {
  const pods = Array.from({ length: 5 }, (_, i) => pod(`p${i}`));
  const kube = await started({ '/api/v1/pods': { rv: '42', items: pods }, '/api/v1/nodes': { rv: '43', items: [{ metadata: { name: 'n1' } }] } });
  const progress: string[] = [];
  const snap = await readSnapshot(kube, { pageSize: 2, onPage: (kind, n) => progress.push(`${kind} ${n}`) });
  assert.deepEqual(
    snap.list.items.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata?.name}`),
    ['v1 Node n1', ...pods.map((p) => `v1 Pod ${p.metadata.name}`)],
  );
  assert.ok(snap.list.items.every((o) => !('managedFields' in (o.metadata ?? {}))));
  assert.deepEqual(snap.kinds, [
    { kind: 'Node', resourceVersion: '43', count: 1 },
    { kind: 'Pod', resourceVersion: '42', count: 5 },
  ]);
  assert.deepEqual(progress, ['Node 1', 'Pod 2', 'Pod 4', 'Pod 5']);
  assert.equal(server!.requests.filter((r) => r.startsWith('/api/v1/pods')).length, 3);
  // Everything else is not served by this server: named, not an error.
  assert.equal(snap.notServed.length, SNAPSHOT_KINDS.length - 2);
  assert.ok(snap.notServed.includes('NodePool.karpenter.sh/v1'));
});

test('a continue token that expired (410 Gone) starts that kind again, so no page is lost or doubled', async () => {
  const kube = await started({ '/api/v1/pods': { rv: '7', items: [pod('a'), pod('b'), pod('c')] } });
  server!.expireOnce.add('/api/v1/pods');
  const snap = await readSnapshot(kube, { pageSize: 2 });
  assert.deepEqual(snap.list.items.map((o) => o.metadata?.name), ['a', 'b', 'c']);
});

test('a kind the identity may not list is an error naming the resource and the role that grants it', async () => {
  const kube = await started({ '/api/v1/pods': { rv: '1', items: [] } });
  server!.forbidden.add('/apis/apps/v1/deployments');
  await assert.rejects(readSnapshot(kube), (e: unknown) => e instanceof SnapshotError && /cannot list deployments\.apps: forbidden .*readonly-rbac\.yaml/.test(e.message));
});

test('--namespace and --selector narrow the objects under review; nodes, every pod and DaemonSets are read whole', async () => {
  const kube = await started({
    '/api/v1/pods': { rv: '1', items: [pod('mine', 'shop', { app: 'web' }), pod('other', 'kube-system')] },
    '/apis/apps/v1/daemonsets': { rv: '1', items: [] },
    '/apis/apps/v1/namespaces/shop/deployments': { rv: '2', items: [{ metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } } }, { metadata: { name: 'db', namespace: 'shop' } }] },
  });
  const snap = await readSnapshot(kube, { namespace: 'shop', labelSelector: 'app=web' });
  assert.deepEqual(snap.list.items.map((o) => `${o.kind} ${o.metadata?.name}`), ['Pod mine', 'Pod other', 'Deployment web']);
  assert.ok(server!.requests.includes('/apis/apps/v1/namespaces/shop/deployments?limit=500&labelSelector=app%3Dweb'));
  assert.ok(server!.requests.includes('/api/v1/pods?limit=500'));
  assert.ok(server!.requests.includes('/apis/apps/v1/daemonsets?limit=500'));
});

test('deploy/readonly-rbac.yaml grants get and list on exactly the kinds the snapshot reads, and nothing else', () => {
  const docs = parseAllDocuments(readFileSync(new URL('../../deploy/readonly-rbac.yaml', import.meta.url), 'utf8')).map((d) => d.toJS() as { kind: string; rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[] });
  const role = docs.find((d) => d.kind === 'ClusterRole')!;
  const granted = role.rules!.flatMap((r) => {
    assert.deepEqual([...r.verbs].sort(), ['get', 'list'], `verbs of ${r.resources.join(',')}`);
    return r.apiGroups.flatMap((g) => r.resources.map((res) => `${res}.${g}`));
  });
  const group = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0] : '');
  assert.deepEqual(granted.sort(), SNAPSHOT_KINDS.map((k) => `${k.resource}.${group(k.apiVersion)}`).sort());
});
