// /livez and /healthz (the process serves), /readyz (informers synced) and /metrics.

import { createServer, type Server } from 'node:http';
import type { Metrics } from './metrics.js';

export function startServer(port: number, host: string, metrics: Metrics, ready: () => boolean): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/livez' || path === '/healthz') return void res.writeHead(200).end('ok\n');
    if (path === '/readyz') {
      const ok = ready();
      return void res.writeHead(ok ? 200 : 503).end(ok ? 'ok\n' : 'informers not synced\n');
    }
    if (path === '/metrics') {
      void metrics.registry.metrics().then((text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text));
      return;
    }
    res.writeHead(404).end('not found\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
