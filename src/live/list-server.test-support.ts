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
 * continued request of a path in `expireOnce` is 410 Gone. With `holdPages`, a page
 * that has a next one sends its metadata at once and the rest only when the next
 * page is asked for (or after a second), and `events` records each request and
 * each page's end: a reader that asks for the next page as soon as it knows the
 * token shows in the order.
 */
export class ListServer {
  readonly requests: string[] = [];
  readonly events: string[] = [];
  holdPages = false;
  private release: (() => void) | undefined;
  readonly forbidden = new Set<string>();
  readonly expireOnce = new Set<string>();
  private readonly server: Server;

  constructor(readonly collections: Map<string, { rv: string; items: object[] }>) {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      this.requests.push(`${url.pathname}${url.search}`);
      this.events.push(`request ${url.pathname} ${url.searchParams.get('continue') ?? 0}`);
      this.release?.();
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
      const metadata = { resourceVersion: c.rv, ...(next ? { continue: next } : {}) };
      const page = items.slice(from, from + limit);
      if (!this.holdPages || !next) {
        reply(200, { metadata, items: page });
        this.events.push(`end ${url.pathname} ${from}`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"kind":"List","apiVersion":"v1","metadata":${JSON.stringify(metadata)},"items":[`);
      const timer = setTimeout(() => this.release?.(), 1000);
      this.release = () => {
        clearTimeout(timer);
        this.release = undefined;
        res.end(`${page.map((o) => JSON.stringify(o)).join(',')}]}`);
        this.events.push(`end ${url.pathname} ${from}`);
      };
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

