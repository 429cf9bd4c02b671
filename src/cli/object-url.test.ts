import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CliError } from './common.js';
import { getText, putText, redactUrl, shardUrls } from './object-url.js';

/** A bucket on loopback: PUT stores, GET answers what was stored; /denied answers as S3 does to a bad signature. */
function bucket() {
  const objects = new Map<string, Buffer>();
  const seen: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];
  /** /flakyN/…: the first N requests for each path answer 503 SlowDown, as S3 does under load. */
  const failures = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers });
      const path = new URL(req.url!, 'http://x').pathname;
      const flaky = /^\/flaky(\d+)\//.exec(path);
      if (flaky && (failures.get(path) ?? 0) < Number(flaky[1])) {
        failures.set(path, (failures.get(path) ?? 0) + 1);
        res.writeHead(503, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0"?><Error><Code>SlowDown</Code></Error>');
      } else if (path.startsWith('/denied')) {
        res.writeHead(403, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0"?><Error><Code>SignatureDoesNotMatch</Code><StringToSign>${req.url}</StringToSign></Error>`);
      } else if (req.method === 'PUT') {
        objects.set(path, Buffer.concat(chunks));
        res.writeHead(201).end();
      } else if (objects.has(path)) res.writeHead(200).end(objects.get(path));
      else res.writeHead(404).end();
    });
  });
  return { server, objects, seen };
}

describe('object-storage URLs', () => {
  const b = bucket();
  let base = '';
  before(async () => {
    await new Promise<void>((resolve) => b.server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(b.server.address() as AddressInfo).port}`;
  });
  after(() => b.server.close());

  it('PUTs the bytes as a block blob with no Content-Type a signature could refuse, and GETs them back', async () => {
    const text = '{"berthSweep":1}\n{"cell":0,"note":"é"}\n';
    await putText(`${base}/b/shard-00000-of-00001.jsonl?X-Amz-Signature=s3cr3t`, text);
    const put = b.seen.at(-1)!;
    assert.equal(put.method, 'PUT');
    assert.equal(put.url, '/b/shard-00000-of-00001.jsonl?X-Amz-Signature=s3cr3t');
    assert.equal(put.headers['x-ms-blob-type'], 'BlockBlob');
    assert.equal(put.headers['content-type'], undefined);
    assert.equal(put.headers['content-length'], String(Buffer.byteLength(text)));
    assert.equal(await getText(`${base}/b/shard-00000-of-00001.jsonl?sig=other`), text);
  });

  it('names the status, the store\'s error code and the URL without its query string', async () => {
    const denied = await putText(`${base}/denied/x.jsonl?sig=s3cr3t`, 'x').catch((e: unknown) => e);
    assert.ok(denied instanceof CliError);
    assert.equal(denied.message, `berth: PUT ${base}/denied/x.jsonl?… failed: 403 Forbidden (SignatureDoesNotMatch)`);
    assert.equal(denied.exitCode, 1, 'a store failure may pass: the Job retries the pod');
    const missing = await getText(`${base}/b/none.jsonl?sig=s3cr3t`).catch((e: unknown) => e);
    assert.equal((missing as Error).message, `berth: GET ${base}/b/none.jsonl?… failed: 404 Not Found`);
  });

  it('tries a PUT and a GET again after a store\'s transient failure, and fails naming the last one when it lasts', async () => {
    const noWait = [0, 0, 0];
    await putText(`${base}/flaky2/b/s.jsonl?sig=s3cr3t`, 'x\n', noWait);
    assert.deepEqual(b.seen.slice(-3).map((r) => `${r.method} ${r.url}`), Array(3).fill('PUT /flaky2/b/s.jsonl?sig=s3cr3t'));
    assert.equal(b.objects.get('/flaky2/b/s.jsonl')?.toString(), 'x\n', 'the third try stored the bytes');
    const lasting = await putText(`${base}/flaky9/b/s.jsonl?sig=s3cr3t`, 'x', noWait).catch((e: unknown) => e);
    assert.equal((lasting as Error).message, `berth: PUT ${base}/flaky9/b/s.jsonl?… failed: 503 Service Unavailable (SlowDown), after 4 tries`);
    const before = b.seen.length;
    await assert.rejects(getText(`${base}/denied/x?sig=s3cr3t`, noWait), { message: `berth: GET ${base}/denied/x?… failed: 403 Forbidden (SignatureDoesNotMatch)` });
    assert.equal(b.seen.length - before, 1, 'a refusal is not tried again');
  });

  it('says a store that does not answer is unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const e = await getText(`http://127.0.0.1:${port}/b/x?sig=s3cr3t`).catch((err: unknown) => err);
    assert.equal((e as Error).message, `berth: GET http://127.0.0.1:${port}/b/x?… failed: ECONNREFUSED`);
  });

  it('never shows a user, a password or a query string', () => {
    assert.equal(redactUrl('https://me:pw@acct.blob.core.windows.net/c/{shard}?sv=2024&sig=abc'), 'https://acct.blob.core.windows.net/c/{shard}?…');
    assert.equal(redactUrl('https://storage.googleapis.com/b/o'), 'https://storage.googleapis.com/b/o');
  });

  it('gives every shard its own URL: a template, or one line per shard', async () => {
    const name = (i: number) => `shard-${i}`;
    assert.deepEqual(await shardUrls('https://s/b/{shard}?sig=1', 2, name), ['https://s/b/shard-0?sig=1', 'https://s/b/shard-1?sig=1']);
    const dir = mkdtempSync(join(tmpdir(), 'berth-urls-'));
    try {
      const file = join(dir, 'urls');
      writeFileSync(file, 'https://s/b/zero?sig=a\n\nhttps://s/b/one?sig=b\n');
      assert.deepEqual(await shardUrls(`@${file}`, 2, name), ['https://s/b/zero?sig=a', 'https://s/b/one?sig=b']);
      await assert.rejects(shardUrls(`@${file}`, 3, name), { message: `berth: ${file}: 3 shards need 3 URLs (one per line, line i for shard i) or one with {shard} in it; it has 2` });
      await assert.rejects(shardUrls('https://s/b/all?sig=1', 2, name), { message: 'berth: --results-url: 2 shards need 2 URLs (one per line, line i for shard i) or one with {shard} in it; https://s/b/all?… has no {shard}' });
      writeFileSync(file, 'https://s/b/zero\ns3://b/one\n');
      await assert.rejects(shardUrls(`@${file}`, 2, name), { message: `berth: ${file}:2: not an http:// or https:// URL` });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
