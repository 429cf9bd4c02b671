// `berth serve`: the built playground (web/dist) over node:http, loopback by default.

import { createServer, type IncomingMessage, type Server } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
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

/** Types worth compressing (images are compressed already). */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg']);

/** Vite names built assets after a hash of their content: a name never changes meaning, so a browser may keep it for good. */
const HASHED_ASSET = /^\/assets\/.+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;
const FOREVER = 'public, max-age=31536000, immutable';
/** The page, the service worker and the manifest name the current assets: asked again (a 304 when unchanged) on every visit. */
const REVALIDATE = 'no-cache';

type Encoding = 'br' | 'gzip' | 'identity';

/** The best encoding the client accepts: brotli, then gzip (a q=0 refuses one). */
function encodingFor(req: IncomingMessage): Encoding {
  const accepted = new Map(
    String(req.headers['accept-encoding'] ?? '')
      .split(',')
      .map((part) => {
        const [name = '', ...params] = part.trim().split(';');
        const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
        return [name.trim().toLowerCase(), q === undefined ? 1 : Number(q)] as const;
      }),
  );
  if ((accepted.get('br') ?? 0) > 0) return 'br';
  if ((accepted.get('gzip') ?? 0) > 0) return 'gzip';
  return 'identity';
}

function compress(body: Buffer, encoding: Encoding): Buffer {
  if (encoding === 'br') return brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
  if (encoding === 'gzip') return gzipSync(body, { level: 9 });
  return body;
}

export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/**
 * A static file server confined to `root`; unknown paths get 404, never a file
 * outside it. Text is sent brotli- or gzip-compressed as the client accepts (each
 * file compressed once per version); hashed assets may be cached for good, the rest
 * is revalidated by ETag.
 */
export function createStaticServer(root: string): Server {
  const base = resolve(root);
  const compressed = new Map<string, { etag: string; body: Buffer }>();
  return createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const file = normalize(join(base, path.endsWith('/') ? `${path}index.html` : path));
      if (file !== base && !file.startsWith(base + sep)) {
        res.writeHead(403).end();
        return;
      }
      try {
        const info = await stat(file);
        const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
        const ext = extname(file);
        const encoding = COMPRESSIBLE.has(ext) ? encodingFor(req) : 'identity';
        const headers: Record<string, string> = {
          'content-type': TYPES[ext] ?? 'application/octet-stream',
          'cache-control': HASHED_ASSET.test(path) ? FOREVER : REVALIDATE,
          etag,
          ...(COMPRESSIBLE.has(ext) && { vary: 'accept-encoding' }),
          ...(encoding !== 'identity' && { 'content-encoding': encoding }),
        };
        if (req.headers['if-none-match'] === etag) {
          res.writeHead(304, headers).end();
          return;
        }
        const key = `${encoding}:${file}`;
        let entry = compressed.get(key);
        if (entry?.etag !== etag) compressed.set(key, (entry = { etag, body: compress(await readFile(file), encoding) }));
        res.writeHead(200, { ...headers, 'content-length': String(entry.body.length) }).end(req.method === 'HEAD' ? undefined : entry.body);
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
