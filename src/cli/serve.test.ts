import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createStaticServer } from './serve.js';

const root = mkdtempSync(join(tmpdir(), 'berth-serve-'));
const script = `export const engine = "${'schedule '.repeat(2000)}";\n`;
mkdirSync(join(root, 'assets'));
writeFileSync(join(root, 'index.html'), '<!doctype html><title>berth</title>');
writeFileSync(join(root, 'assets', 'worker-DQUwnGQP.js'), script);
writeFileSync(join(root, 'icon.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));

const server = createStaticServer(root);
let port = 0;
before(async () => {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((ok, fail) => {
    request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', fail)
      .end();
  });
}

test('a hashed asset: brotli when accepted, else gzip, else as is; cached for good', async () => {
  const br = await get('/assets/worker-DQUwnGQP.js', { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(brotliDecompressSync(br.body).toString(), script);
  assert.ok(br.body.length < script.length / 10, `${br.body.length} bytes for ${script.length}`);
  assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal(br.headers['vary'], 'accept-encoding');
  assert.equal(br.headers['content-type'], 'text/javascript; charset=utf-8');

  const gz = await get('/assets/worker-DQUwnGQP.js', { 'accept-encoding': 'gzip, br;q=0' });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gz.body).toString(), script);

  const plain = await get('/assets/worker-DQUwnGQP.js');
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.body.toString(), script);
});

test('the page is revalidated: no-cache with an ETag, 304 when unchanged', async () => {
  const page = await get('/', { 'accept-encoding': 'gzip' });
  assert.equal(page.headers['cache-control'], 'no-cache');
  assert.equal(gunzipSync(page.body).toString(), '<!doctype html><title>berth</title>');
  const etag = String(page.headers['etag']);
  assert.match(etag, /^W\/"/);
  const again = await get('/', { 'accept-encoding': 'gzip', 'if-none-match': etag });
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);
});

test('an image is sent as is; a path outside the root or unknown is refused', async () => {
  const png = await get('/icon.png', { 'accept-encoding': 'br' });
  assert.equal(png.headers['content-encoding'], undefined);
  assert.equal(png.body.length, 4);
  assert.equal((await get('/nope.js')).status, 404);
  assert.equal((await get('/..%2f..%2fetc%2fpasswd')).status, 403);
});
