import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import type { Kube } from './kube.js';
import { ListServer } from './list-server.test-support.js';
import { readSnapshot, SnapshotError, SNAPSHOT_KINDS } from './snapshot.js';

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

test("the next page is asked for as soon as a page's continue token has arrived, before the page's items", async () => {
  const pods = Array.from({ length: 5 }, (_, i) => pod(`p${i}`));
  const kube = await started({ '/api/v1/pods': { rv: '9', items: pods } });
  server!.holdPages = true;
  const snap = await readSnapshot(kube, { pageSize: 2 });
  assert.deepEqual(snap.list.items.map((o) => o.metadata?.name), pods.map((p) => p.metadata.name));
  assert.deepEqual(snap.kinds, [{ kind: 'Pod', resourceVersion: '9', count: 5 }]);
  const pages = server!.events.filter((e) => e.includes('/api/v1/pods ')).map((e) => e.replace('/api/v1/pods ', ''));
  assert.deepEqual(pages, ['request 0', 'request 2', 'end 0', 'request 4', 'end 2', 'end 4']);
});
