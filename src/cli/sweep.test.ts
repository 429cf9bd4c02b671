import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';

function cli(args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, ['bin/berth.js', ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
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
});
