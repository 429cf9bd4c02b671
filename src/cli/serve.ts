// `berth serve`: the built playground (web/dist) over node:http, loopback by default.

import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CliError } from './common.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/** A static file server confined to `root`; unknown paths get 404, never a file outside it. */
export function createStaticServer(root: string): Server {
  const base = resolve(root);
  return createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const file = normalize(join(base, path.endsWith('/') ? `${path}index.html` : path));
      if (file !== base && !file.startsWith(base + sep)) {
        res.writeHead(403).end();
        return;
      }
      try {
        const body = await readFile(file);
        res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
      } catch {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      }
    })();
  });
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`berth: --port ${value}: must be an integer from 0 to 65535`);
  return n;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the playground (built by npm run web:build) on this machine')
    .option('--port <n>', 'port', parsePort, 8080)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--root <dir>', 'folder to serve', DEFAULT_WEB_ROOT)
    .action(async (opts: { port: number; host: string; root: string }) => {
      try {
        await readFile(join(opts.root, 'index.html'));
      } catch {
        throw new CliError(`berth: ${opts.root} has no index.html: run npm run web:build first`);
      }
      const server = createStaticServer(opts.root);
      await new Promise<void>((ok, fail) => server.once('error', fail).listen(opts.port, opts.host, ok));
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : opts.port;
      process.stdout.write(`berth playground on http://${opts.host}:${port}/\n`);
      await new Promise<void>(() => {});
    });
}
