// A list-only API server on loopback for the snapshot reader's tests and the
// live-read benchmark: collections by URL path, served in pages.

import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { loopbackConfig } from './fake-apiserver.test-support.js';
import { Kube } from './kube.js';

/**
 * A list-only API server: collections by URL path, served in pages of `limit` with
 * a continue token (the index of the next item) at the collection's revision.
 * Paths not in `collections` are 404 (not served); `forbidden` ones 403; the first
 * continued request of a path in `expireOnce` is 410 Gone.
 */
export class ListServer {
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

  /** Starts the server; a kubeconfig file for it (in `dir`), as `--kubeconfig` takes one. */
  async kubeconfig(dir: string): Promise<string> {
    const server = (await this.kube()).config.getCurrentCluster()!.server;
    const file = join(dir, 'kubeconfig');
    writeFileSync(file, `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server}", insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: ctx, context: {cluster: c, user: u}}]\ncurrent-context: ctx\n`);
    return file;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

