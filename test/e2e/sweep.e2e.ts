// `berth sweep --emit indexed-job|reduce-job` against the real API server: the
// ConfigMap, results claim (or results-URL Secret), Indexed Job and reducer Job pass
// server-side dry-run and are created; the Job controller gives each pod its
// JOB_COMPLETION_INDEX; each created pod's args, expanded as the kubelet expands them
// (conformance/oracle-kubelet-expansion: the kubelet's own $(VAR) expansion and
// downward-API reader), name its shard; and those args, run here for every pod on the
// input as the server stored it, then the reducer's, give the single-machine run's bytes.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { berth, CLUSTER, e2eFile, kube, list, namespace, run, RUN, waitFor, cleanUp } from './harness.js';

const timings = e2eFile('sweep');
const KUBECONFIG = join(RUN, 'kubeconfig');
const kubectl = (...args: string[]) => run(join(CLUSTER, '.bin', 'kubectl'), ['--kubeconfig', KUBECONFIG, ...args]);

const MATRIX = `apiVersion: berth.dev/v1alpha1
kind: Sweep
metadata: {name: shop}
spec:
  scenarios: [{nodeLoss: {}}, {zoneLoss: {}}]
`;
const CLUSTER_DUMP = 'examples/preview/cluster.yaml';
const SHARDS = 3;

const EXPANSION = join('conformance', 'oracle-kubelet-expansion');

/** Each pod's container args as the kubelet would start them, by the kubelet's own code (built on first use, seconds once the cluster's modules are cached). */
function kubeletArgs(podList: string): Map<string, { env: Record<string, string>; args: string[] }> {
  if (!existsSync(join(EXPANSION, 'oracle'))) {
    const built = run(join(EXPANSION, 'build.sh'), []);
    assert.equal(built.status, 0, built.stderr);
  }
  const r = spawnSync(join(EXPANSION, 'oracle'), [], { input: podList, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { pod: string; container: string; env: Record<string, string>; args: string[] });
  return new Map(lines.filter((l) => l.container === 'shard').map((l) => [l.pod, l]));
}

type Container = { args: string[]; env?: { name: string }[] };
type PodSpec = { containers: Container[] };

test('the emitted Indexed Job is accepted by the API server, and its shards run here reduce to the one-machine run', async () => {
  const ns = 'e2e-sweep';
  const dir = mkdtempSync(join(tmpdir(), 'berth-sweep-e2e-'));
  const matrix = join(dir, 'sweep.yaml');
  writeFileSync(matrix, MATRIX);
  try {
    await namespace(ns);
    const emit = (what: string, ...extra: string[]) => {
      const r = berth('sweep', matrix, '--cluster', CLUSTER_DUMP, '--emit', what, '--shards', String(SHARDS), '--image', 'registry.example/berth:e2e', '--job-namespace', ns, ...extra);
      assert.equal(r.status, 0, r.stderr);
      const file = join(dir, `${what}${extra.length > 0 ? '-bucket' : ''}.yaml`);
      writeFileSync(file, r.stdout);
      return file;
    };
    const jobFile = emit('indexed-job');
    const reduceFile = emit('reduce-job');
    const toBucket = emit('indexed-job', '--results-url', 'https://bucket.example/run-1/{shard}?sig=s3cr3t', '--name', 'shop-bucket');

    let t = Date.now();
    for (const f of [jobFile, reduceFile, toBucket]) {
      const dry = kubectl('create', '--dry-run=server', '-f', f);
      assert.equal(dry.status, 0, dry.stderr);
      if (f === toBucket) assert.match(dry.stdout, /configmap\/shop-bucket-input created \(server dry run\)\nsecret\/shop-bucket-results-url created \(server dry run\)\njob\.batch\/shop-bucket created \(server dry run\)/);
    }
    assert.deepEqual(await list('batch/v1', 'Job', ns), [], 'a dry run creates nothing');
    const created = kubectl('create', '-f', jobFile);
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /configmap\/shop-input created\npersistentvolumeclaim\/shop-results created\njob\.batch\/shop created/);
    timings['dry-run + create'] = Date.now() - t;

    const job = await kube().read('batch/v1', 'Job', 'shop', ns);
    const spec = job!.spec as { completionMode: string; completions: number; template: { spec: PodSpec } };
    assert.deepEqual([spec.completionMode, spec.completions], ['Indexed', SHARDS]);
    // The Job controller makes one pod per index, each with the variable the kubelet expands in its args.
    t = Date.now();
    const pods = await waitFor(`${SHARDS} shard pods`, async () => {
      const ps = await list('v1', 'Pod', ns, 'job-name=shop');
      return ps.length === SHARDS && ps;
    });
    const indexes = pods.map((p) => p.metadata!.annotations!['batch.kubernetes.io/job-completion-index']).sort();
    assert.deepEqual(indexes, ['0', '1', '2']);
    for (const p of pods) assert.ok((p.spec as PodSpec).containers[0]!.env?.some((e) => e.name === 'JOB_COMPLETION_INDEX'), `${p.metadata!.name} has JOB_COMPLETION_INDEX`);
    timings['pods created'] = Date.now() - t;

    // What each pod would run: its stored spec, its env resolved and its args expanded by the kubelet's code.
    t = Date.now();
    const got = kubectl('-n', ns, 'get', 'pods', '-l', 'job-name=shop', '-o', 'json');
    assert.equal(got.status, 0, got.stderr);
    const started = kubeletArgs(got.stdout);
    const template = spec.template.spec.containers[0]!.args;
    const shardAt = template.indexOf('--shard');
    const shardArgs: string[][] = [];
    for (const p of pods) {
      const index = p.metadata!.annotations!['batch.kubernetes.io/job-completion-index']!;
      const s = started.get(p.metadata!.name!);
      assert.ok(s, `the kubelet view of ${p.metadata!.name}`);
      assert.equal(s.env['JOB_COMPLETION_INDEX'], index, 'the env var comes from the completion-index annotation');
      // Only the shard argument differs from the template, and it names this pod's index.
      assert.deepEqual(s.args, template.map((a, i) => (i === shardAt + 1 ? `${index}/${SHARDS}` : a)), p.metadata!.name);
      shardArgs[Number(index)] = s.args;
    }
    timings['kubelet expansion'] = Date.now() - t;

    // The input as the API server stores it, and the commands as the Job and the reducer Job say.
    const input = join(dir, 'input');
    const results = join(dir, 'results');
    mkdirSync(input);
    const configMap = await kube().read('v1', 'ConfigMap', 'shop-input', ns);
    for (const [key, text] of Object.entries((configMap as { data?: Record<string, string> } | undefined)?.data ?? {})) writeFileSync(join(input, key), text);
    const local = (args: string[]) => args.map((a) => a.replace(/^\/input\//, `${input}/`).replace(/^\/results$/, results));
    t = Date.now();
    for (const args of shardArgs) {
      const r = berth(...local(args));
      assert.equal(r.status, 0, r.stderr);
    }
    const reducer = kubectl('create', '--dry-run=client', '-o', 'json', '-f', reduceFile);
    assert.equal(reducer.status, 0, reducer.stderr);
    const reduce = berth(...local((JSON.parse(reducer.stdout) as { spec: { template: { spec: PodSpec } } }).spec.template.spec.containers[0]!.args));
    assert.equal(reduce.status, 0, reduce.stderr);

    const single = join(dir, 'single');
    const one = berth('sweep', matrix, '--cluster', CLUSTER_DUMP, '--out', single);
    assert.equal(one.status, 0, one.stderr);
    timings['shards + reduce + one run'] = Date.now() - t;
    for (const f of ['results.jsonl', 'summary.txt']) assert.equal(readFileSync(join(results, f), 'utf8'), readFileSync(join(single, f), 'utf8'), f);
    assert.equal(reduce.stdout, one.stdout);
  } finally {
    // The Job first, while its namespace is active: its controller takes its tracking
    // finalizer off the pods then (in a terminating namespace it keeps failing to make
    // replacements for them, and they stay).
    kubectl('-n', ns, 'delete', 'job', 'shop', '--ignore-not-found');
    await waitFor('shard pods gone', async () => (await list('v1', 'Pod', ns, 'job-name=shop')).length === 0, 60_000).catch(() => undefined);
    await cleanUp(ns);
  }
});
