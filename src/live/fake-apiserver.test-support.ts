// Fakes for the live layer's unit tests. FakeApiServer: a minimal API server on
// loopback (discovery, list and watch of pods) with faults a test switches on —
// lists that fail, and watches answered with 410 Gone (as a real API server does
// once the requested resourceVersion is older than its watch cache), either as an
// ERROR event on an open stream or as the HTTP status of the watch request.
// MemoryKube: a Kube whose read/create/replace/delete go to an in-memory store
// that checks resourceVersions as the API server does (409 on a stale write), with
// a hook for another writer to slip in between a read and the next write.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { Kube } from './kube.js';
import type { KubeObject } from './objects.js';

/** A kubeconfig for an unauthenticated API server on 127.0.0.1:port. */
export function loopbackConfig(port: number): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'fake' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
    currentContext: 'fake',
  });
  return kc;
}

export type WatchFault = 'none' | 'gone-event' | 'gone-status' | 'unavailable';

export class FakeApiServer {
  private readonly server: Server;
  private readonly pods = new Map<string, KubeObject>();
  private readonly history: { rv: number; type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject }[] = [];
  private readonly watchers = new Set<{ rv: number; res: ServerResponse }>();
  private rv = 1;
  /** Lists still to answer with 500. */
  failLists = 0;
  /** Statuses the next lists answer with, in order, each with Retry-After: 0 (a 504 as an API server whose watch cache lags the resourceVersion asked for). */
  retryAfterLists: number[] = [];
  watchFault: WatchFault = 'none';
  readonly calls = { list: 0, watch: 0, gone: 0 };

  constructor() {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  async listen(): Promise<KubeConfig> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return loopbackConfig((this.server.address() as AddressInfo).port);
  }

  async close(): Promise<void> {
    this.dropWatches();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Ends every open watch stream, as an API server restart or a load balancer does. */
  dropWatches(): void {
    for (const w of this.watchers) w.res.end();
    this.watchers.clear();
  }

  put(name: string): void {
    const type = this.pods.has(name) ? 'MODIFIED' : 'ADDED';
    const object: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: String(++this.rv) } };
    this.pods.set(name, object);
    this.emit(type, object);
  }

  remove(name: string): void {
    const old = this.pods.get(name);
    if (!old) return;
    this.pods.delete(name);
    this.emit('DELETED', { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.rv) } });
  }

  private emit(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void {
    this.history.push({ rv: this.rv, type, object });
    for (const w of this.watchers) w.res.write(`${JSON.stringify({ type, object })}\n`);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/api/v1') {
      json(200, { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'pods', namespaced: true, kind: 'Pod', verbs: ['list', 'watch'] }] });
    } else if (url.pathname === '/api/v1/pods' && url.searchParams.get('watch') === 'true') {
      this.watch(Number(url.searchParams.get('resourceVersion') ?? '0'), res);
    } else if (url.pathname === '/api/v1/pods') {
      this.calls.list++;
      const retryAfter = this.retryAfterLists.shift();
      if (retryAfter !== undefined) {
        res.writeHead(retryAfter, { 'content-type': 'application/json', 'retry-after': '0' });
        const message = retryAfter === 504 ? 'Too large resource version: 120, current: 119' : 'try again';
        res.end(JSON.stringify({ kind: 'Status', status: 'Failure', code: retryAfter, message, details: { retryAfterSeconds: 1 } }));
      } else if (this.failLists > 0) {
        this.failLists--;
        json(500, { kind: 'Status', status: 'Failure', code: 500, message: 'etcdserver: request timed out' });
      } else json(200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) }, items: [...this.pods.values()] });
    } else json(404, { kind: 'Status', code: 404 });
  }

  private watch(rv: number, res: ServerResponse): void {
    this.calls.watch++;
    const gone = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: `too old resource version: ${rv}` };
    if (this.watchFault === 'unavailable') {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', status: 'Failure', code: 503, reason: 'ServiceUnavailable' }));
      return;
    }
    if (this.watchFault === 'gone-status') {
      this.calls.gone++;
      res.writeHead(410, { 'content-type': 'application/json' });
      res.end(JSON.stringify(gone));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    if (this.watchFault === 'gone-event') {
      this.calls.gone++;
      res.end(`${JSON.stringify({ type: 'ERROR', object: gone })}\n`);
      return;
    }
    for (const e of this.history) if (e.rv > rv) res.write(`${JSON.stringify({ type: e.type, object: e.object })}\n`);
    this.watchers.add({ rv, res });
  }
}

function conflict(message: string): Error {
  return Object.assign(new Error(message), { code: 409 });
}

export class MemoryKube extends Kube {
  writes = 0;
  /** Each read takes the next of these and applies it to the stored object right after reading (another writer's update). */
  interfere: ((o: KubeObject) => KubeObject)[] = [];
  /** While set, every call fails with this error (the API server unreachable). */
  down: Error | undefined;

  constructor(private readonly store = { objects: new Map<string, KubeObject>(), rv: 1 }) {
    super(loopbackConfig(1)); // never contacted: every call below is served from memory
  }

  get objects(): Map<string, KubeObject> {
    return this.store.objects;
  }

  /** Another client of the same store, with its own `down` switch (a network partition). */
  view(): MemoryKube {
    return new MemoryKube(this.store);
  }

  private key(apiVersion: string | undefined, kind: string | undefined, name: string | undefined, namespace?: string): string {
    return `${apiVersion}/${kind}/${namespace ?? ''}/${name}`;
  }

  private stamp<T extends KubeObject>(o: T): T {
    return { ...o, metadata: { ...o.metadata, resourceVersion: String(++this.store.rv) } };
  }

  override async read(apiVersion: string, kind: string, name: string, namespace?: string): Promise<KubeObject | undefined> {
    if (this.down) throw this.down;
    const k = this.key(apiVersion, kind, name, namespace);
    const stored = this.objects.get(k);
    if (!stored) return undefined;
    const other = this.interfere.shift();
    if (other) this.objects.set(k, this.stamp(other(stored)));
    return structuredClone(stored);
  }

  override async create<T extends KubeObject>(o: T): Promise<T> {
    if (this.down) throw this.down;
    const k = this.key(o.apiVersion, o.kind, o.metadata?.name, o.metadata?.namespace);
    if (this.objects.has(k)) throw conflict(`${o.kind} ${o.metadata?.name} already exists`);
    this.writes++;
    const stored = this.stamp(o);
    this.objects.set(k, stored);
    return structuredClone(stored);
  }

  override async replace<T extends KubeObject>(o: T): Promise<T> {
    if (this.down) throw this.down;
    const k = this.key(o.apiVersion, o.kind, o.metadata?.name, o.metadata?.namespace);
    this.writes++;
    if (o.metadata?.resourceVersion !== this.objects.get(k)?.metadata?.resourceVersion) throw conflict('Operation cannot be fulfilled: the object has been modified; please apply your changes to the latest version and try again');
    const stored = this.stamp(o);
    this.objects.set(k, stored);
    return structuredClone(stored);
  }

  override async delete(apiVersion: string, kind: string, name: string, namespace?: string): Promise<void> {
    if (this.down) throw this.down;
    this.objects.delete(this.key(apiVersion, kind, name, namespace));
  }
}
