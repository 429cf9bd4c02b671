import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';

function cli(args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, ['bin/berth.js', ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** The CLI without blocking this process, so that a server in the test can answer it. */
function cliAsync(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/berth.js', ...args], { encoding: 'utf8' }, (e, out, err) => resolve({ code: e ? Number(e.code) : 0, out, err }));
  });
}

const CLUSTER = 'examples/preview/cluster.yaml';
const MATRIX = `apiVersion: berth.dev/v1alpha1
kind: Sweep
metadata: {name: shop}
spec:
  scenarios: [{baseline: {}}, {nodeLoss: {}}, {zoneLoss: {}}]
  parameters: [{replicas: {workload: Deployment/shop/web, values: [2, 4]}}]
`;

describe('berth sweep', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'berth-sweep-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  const matrix = join(tmp, 'sweep.yaml');
  writeFileSync(matrix, MATRIX);
  const files = (dir: string) => ({ results: readFileSync(join(dir, 'results.jsonl'), 'utf8'), summary: readFileSync(join(dir, 'summary.txt'), 'utf8') });

  it('writes the same results and summary from one run, from its shards reduced, and with two workers', () => {
    const one = cli(['sweep', matrix, '--cluster', CLUSTER, '--out', join(tmp, 'one'), '--jobs', '1']);
    assert.equal(one.code, 0, one.err);
    const single = files(join(tmp, 'one'));
    assert.equal(single.results.split('\n').filter(Boolean).length, 14);
    assert.equal(one.out, single.summary);
    assert.match(single.summary, /^sweep shop: 14 cell\(s\), \d+ simulated; input sha256:[0-9a-f]{64}\nSCENARIO +PARAMETERS +CELLS/);
    assert.match(single.summary, /\nzone-loss +replicas Deployment\/shop\/web=4 +2 /);

    for (const i of [2, 0, 1]) {
      const shard = cli(['sweep', matrix, '--cluster', CLUSTER, '--shard', `${i}/3`, '--out', join(tmp, 'shards'), '--jobs', '1']);
      assert.equal(shard.code, 0, shard.err);
    }
    assert.deepEqual(readdirSync(join(tmp, 'shards')), ['shard-00000-of-00003.jsonl', 'shard-00001-of-00003.jsonl', 'shard-00002-of-00003.jsonl']);
    const reduced = cli(['sweep', 'reduce', join(tmp, 'shards'), '--out', join(tmp, 'shards')]);
    assert.equal(reduced.code, 0, reduced.err);
    assert.deepEqual(files(join(tmp, 'shards')), single);
    assert.equal(reduced.out, one.out);

    const pooled = cli(['sweep', matrix, '--cluster', CLUSTER, '-o', 'jsonl', '--jobs', '2']);
    assert.equal(pooled.code, 0, pooled.err);
    assert.equal(pooled.out, single.results);
  });

  it('PUTs each shard to its object-storage URL and reduces them from there to the same bytes', async () => {
    // A bucket on loopback that takes PUTs only with the signature in the query string.
    const objects = new Map<string, Buffer>();
    const server = createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (url.searchParams.get('sig') !== 's3cr3t') res.writeHead(403).end();
        else if (req.method === 'PUT') {
          objects.set(url.pathname, Buffer.concat(chunks));
          res.writeHead(201).end();
        }
        else if (objects.has(url.pathname)) res.writeHead(200).end(objects.get(url.pathname));
        else res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const template = `${base}/bucket/run-1/{shard}?sig=s3cr3t`;
      const shards = await Promise.all([0, 1, 2].map((i) => cliAsync(['sweep', matrix, '--cluster', CLUSTER, '--shard', `${i}/3`, '--results-url', template, '--jobs', '1'])));
      for (const r of shards) assert.equal(r.code, 0, r.err);
      assert.match(shards[1]!.err, new RegExp(`written to ${base}/bucket/run-1/shard-00001-of-00003\\.jsonl\\?…\n$`));
      assert.deepEqual([...objects.keys()].sort(), [0, 1, 2].map((i) => `/bucket/run-1/shard-0000${i}-of-00003.jsonl`));
      // The shards as the directory run wrote them.
      for (const [key, bytes] of objects) assert.equal(bytes.toString('utf8'), readFileSync(join(tmp, 'shards', key.split('/').pop()!), 'utf8'));

      const reduced = await cliAsync(['sweep', 'reduce', '--shards', '3', template, '--out', join(tmp, 'from-urls')]);
      assert.equal(reduced.code, 0, reduced.err);
      assert.deepEqual(files(join(tmp, 'from-urls')), files(join(tmp, 'one')));
      assert.deepEqual(files(join(tmp, 'from-urls')), files(join(tmp, 'shards')));
      // One URL per line in a file (S3 and GCS sign each object's URL alone).
      const list = join(tmp, 'urls.txt');
      writeFileSync(list, [2, 0, 1].map((i) => `${base}/bucket/run-1/shard-0000${i}-of-00003.jsonl?sig=s3cr3t\n`).join(''));
      const fromList = await cliAsync(['sweep', 'reduce', `@${list}`, '-o', 'jsonl']);
      assert.equal(fromList.code, 0, fromList.err);
      assert.equal(fromList.out, files(join(tmp, 'one')).results);

      // Errors: the status and the URL, never its signature, never a stack trace; exit 1 (a Job retries).
      const missing = await cliAsync(['sweep', 'reduce', '--shards', '4', template]);
      assert.deepEqual([missing.code, missing.err], [1, `berth: GET ${base}/bucket/run-1/shard-00000-of-00004.jsonl?… failed: 404 Not Found\n`]);
      const denied = await cliAsync(['sweep', matrix, '--cluster', CLUSTER, '--shard', '0/3', '--results-url', `${base}/bucket/{shard}?sig=wrong`]);
      assert.deepEqual([denied.code, denied.err], [1, `berth: PUT ${base}/bucket/shard-00000-of-00003.jsonl?… failed: 403 Forbidden\n`]);
      const twoPlaces = await cliAsync(['sweep', matrix, '--cluster', CLUSTER, '--shard', '0/3', '--results-url', template, '--out', tmp]);
      assert.deepEqual([twoPlaces.code, twoPlaces.err], [2, 'berth: --results-url and --out are two places for the shard file: give one\n']);
      const shared = await cliAsync(['sweep', matrix, '--cluster', CLUSTER, '--shard', '0/3', '--results-url', `${base}/bucket/all?sig=1`]);
      assert.deepEqual([shared.code, shared.err], [2, `berth: --results-url: 3 shards need 3 URLs (one per line, line i for shard i) or one with {shard} in it; ${base}/bucket/all?… has no {shard}\n`]);
      const noCount = await cliAsync(['sweep', 'reduce', template]);
      assert.deepEqual([noCount.code, noCount.err], [2, `berth: sweep reduce: ${base}/bucket/run-1/{shard}?… has {shard} in it: pass --shards N\n`]);
    } finally {
      server.close();
    }
  });

  it('refuses a bad matrix at its line and field, a missing shard, and --emit without an image', () => {
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, MATRIX.replace('nodeLoss: {}', 'nodeLoss: {nodes: [nope]}'));
    const r = cli(['sweep', bad, '--cluster', CLUSTER]);
    assert.equal(r.code, 2);
    assert.match(r.err, /bad\.yaml:5:\d+.*spec\.scenarios\[1\]\.nodeLoss\.nodes\[0\].*Not found: "nope"/);
    // The shards of the test above.
    const partial = cli(['sweep', 'reduce', join(tmp, 'shards', 'shard-00001-of-00003.jsonl')]);
    assert.equal(partial.code, 2);
    assert.equal(partial.err, 'berth: sweep reduce: missing shard(s) 0, 2 of 3 (have 1)\n');
    const noImage = cli(['sweep', matrix, '--cluster', CLUSTER, '--emit', 'indexed-job', '--shards', '2']);
    assert.equal(noImage.code, 2);
    assert.match(noImage.err, /--emit needs --image/);
  });

  it('emits the input ConfigMap, the results claim and the Indexed Job as Kubernetes reads YAML', () => {
    const r = cli(['sweep', matrix, '--cluster', CLUSTER, '--emit', 'indexed-job', '--shards', '4', '--image', 'registry.example/berth:0.1.0']);
    assert.equal(r.code, 0, r.err);
    // YAML 1.1, as sigs.k8s.io/yaml reads it: "on" must stay a string.
    const docs = parseAllDocuments(r.out, { version: '1.1' }).map((d) => d.toJS() as { kind: string; data?: Record<string, string>; spec?: { template?: { spec: { containers: { args: unknown[] }[] } } } });
    assert.deepEqual(docs.map((d) => d.kind), ['ConfigMap', 'PersistentVolumeClaim', 'Job']);
    assert.deepEqual(docs[0]!.data, { 'sweep.yaml': MATRIX, '000-cluster.yaml': readFileSync(CLUSTER, 'utf8') });
    const args = docs[2]!.spec!.template!.spec.containers[0]!.args;
    assert.ok(args.every((a) => typeof a === 'string'), JSON.stringify(args));
    assert.deepEqual(args.slice(0, 8), ['sweep', '/input/sweep.yaml', '--cluster', '/input/000-cluster.yaml', '--region', 'us-west-2', '--provisioner', 'on']);
  });

  it('emits a Secret of the shards\' results URLs instead of a claim, and no reducer Job for them', () => {
    const r = cli(['sweep', matrix, '--cluster', CLUSTER, '--emit', 'indexed-job', '--shards', '2', '--image', 'registry.example/berth:0.1.0', '--results-url', 'https://acct.blob.core.windows.net/sweeps/{shard}?sv=2024&sig=abc']);
    assert.equal(r.code, 0, r.err);
    const docs = parseAllDocuments(r.out, { version: '1.1' }).map((d) => d.toJS() as { kind: string; stringData?: Record<string, string>; spec?: { template?: { spec: { containers: { args: string[] }[] } } } });
    assert.deepEqual(docs.map((d) => d.kind), ['ConfigMap', 'Secret', 'Job']);
    assert.deepEqual(docs[1]!.stringData, { urls: 'https://acct.blob.core.windows.net/sweeps/shard-00000-of-00002.jsonl?sv=2024&sig=abc\nhttps://acct.blob.core.windows.net/sweeps/shard-00001-of-00002.jsonl?sv=2024&sig=abc\n' });
    assert.ok(!JSON.stringify(docs[2]).includes('sig=abc'), 'the signature is only in the Secret');
    assert.deepEqual(docs[2]!.spec!.template!.spec.containers[0]!.args.slice(-6), ['--shard', '$(JOB_COMPLETION_INDEX)/2', '--results-url', '@/results-url/urls', '--jobs', '1']);
    const reduce = cli(['sweep', matrix, '--cluster', CLUSTER, '--emit', 'reduce-job', '--image', 'registry.example/berth:0.1.0', '--results-url', 'https://s/b/{shard}']);
    assert.equal(reduce.code, 2);
    assert.match(reduce.err, /^berth: --emit reduce-job merges shards on a claim; with --results-url, reduce where the shards can be read/);
  });
});
