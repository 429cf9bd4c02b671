import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { indexedJobManifests, inputKey, jobNameProblem, reduceJobManifest, shardArgs, type ResultsClaim, type SweepJobOptions } from './indexed-job.js';

const options: SweepJobOptions & { readonly results: ResultsClaim } = {
  name: 'shop',
  namespace: 'sweeps',
  image: 'registry.example/berth:0.1.0',
  shards: 8,
  parallelism: 3,
  inputs: [
    { key: 'sweep.yaml', text: 'kind: Sweep\n' },
    { key: '000-web.yaml', text: 'kind: Deployment\n', flag: '-f' },
    { key: '001-dump.yaml', text: 'kind: List\n', flag: '--cluster' },
  ],
  fetchImage: 'busybox:1.37',
  flags: ['--region', 'us-west-2', '--provisioner', 'on'],
  results: { claim: 'shop-results', size: '2Gi' },
  cpu: '1',
  memory: '2Gi',
};

interface PodShape {
  readonly restartPolicy: string;
  readonly containers: readonly { readonly image: string; readonly args: readonly string[] }[];
  readonly initContainers?: readonly { readonly command: readonly string[] }[];
  readonly volumes: readonly unknown[];
}
type Obj = { kind: string; metadata: { name: string; namespace: string }; spec?: Record<string, unknown>; data?: Record<string, string> };
const podOf = (o: Obj) => (o.spec!['template'] as { spec: PodShape }).spec;

describe('indexedJobManifests', () => {
  const [configMap, claim, job] = indexedJobManifests(options) as Obj[];

  it('holds the inputs in a ConfigMap under their keys, and a ReadWriteMany claim for the results', () => {
    assert.equal(configMap!.kind, 'ConfigMap');
    assert.equal(configMap!.metadata.name, 'shop-input');
    assert.deepEqual(configMap!.data, { 'sweep.yaml': 'kind: Sweep\n', '000-web.yaml': 'kind: Deployment\n', '001-dump.yaml': 'kind: List\n' });
    assert.equal(claim!.kind, 'PersistentVolumeClaim');
    assert.deepEqual(claim!.spec, { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '2Gi' } } });
  });

  it('is an Indexed Job of one completion per shard, each pod running its shard from JOB_COMPLETION_INDEX', () => {
    assert.equal(job!.kind, 'Job');
    const spec = job!.spec!;
    assert.deepEqual([spec['completionMode'], spec['completions'], spec['parallelism']], ['Indexed', 8, 3]);
    const pod = podOf(job!);
    assert.equal(pod.restartPolicy, 'Never');
    const container = pod.containers[0]!;
    assert.equal(container.image, 'registry.example/berth:0.1.0');
    assert.deepEqual(container.args, ['sweep', '/input/sweep.yaml', '-f', '/input/000-web.yaml', '--cluster', '/input/001-dump.yaml', '--region', 'us-west-2', '--provisioner', 'on', '--shard', '$(JOB_COMPLETION_INDEX)/8', '--out', '/results', '--jobs', '1']);
    assert.deepEqual(pod.volumes, [{ name: 'input', configMap: { name: 'shop-input' } }, { name: 'results', persistentVolumeClaim: { claimName: 'shop-results' } }]);
    // Bad input (exit 2) fails its index at once instead of being retried.
    assert.deepEqual((spec['podFailurePolicy'] as { rules: unknown[] }).rules[0], { action: 'FailIndex', onExitCodes: { containerName: 'shard', operator: 'In', values: [2] } });
  });

  it('fetches the inputs from a URL with init containers instead of a ConfigMap, and uses an existing claim', () => {
    const objects = indexedJobManifests({ ...options, inputUrl: 'https://files.example/sweep/', results: { claim: 'mine' } }) as Obj[];
    assert.deepEqual(objects.map((o) => o.kind), ['Job']);
    const pod = podOf(objects[0]!);
    assert.deepEqual(pod.initContainers?.map((c) => c.command), [
      ['wget', '-q', '-O', '/input/sweep.yaml', 'https://files.example/sweep/sweep.yaml'],
      ['wget', '-q', '-O', '/input/000-web.yaml', 'https://files.example/sweep/000-web.yaml'],
      ['wget', '-q', '-O', '/input/001-dump.yaml', 'https://files.example/sweep/001-dump.yaml'],
    ]);
    assert.deepEqual(pod.volumes, [{ name: 'input', emptyDir: {} }, { name: 'results', persistentVolumeClaim: { claimName: 'mine' } }]);
  });

  it('with results URLs, holds them in a Secret mounted read-only, and each pod PUTs to its own line', () => {
    const urls = ['https://b.example/s0?sig=a', 'https://b.example/s1?sig=b'];
    const objects = indexedJobManifests({ ...options, shards: 2, results: { urls } }) as (Obj & { stringData?: Record<string, string> })[];
    assert.deepEqual(objects.map((o) => o.kind), ['ConfigMap', 'Secret', 'Job']);
    assert.equal(objects[1]!.metadata.name, 'shop-results-url');
    assert.deepEqual(objects[1]!.stringData, { urls: 'https://b.example/s0?sig=a\nhttps://b.example/s1?sig=b\n' });
    const pod = podOf(objects[2]!) as PodShape & { containers: { volumeMounts: unknown[] }[] };
    assert.deepEqual(pod.containers[0]!.args.slice(-6), ['--shard', '$(JOB_COMPLETION_INDEX)/2', '--results-url', '@/results-url/urls', '--jobs', '1']);
    assert.deepEqual(pod.containers[0]!.volumeMounts[1], { name: 'results-url', mountPath: '/results-url', readOnly: true });
    assert.deepEqual(pod.volumes[1], { name: 'results-url', secret: { secretName: 'shop-results-url' } });
  });

  it('reduces on the same claim into results.jsonl and summary.txt', () => {
    const reduce = reduceJobManifest(options) as Obj;
    assert.equal(reduce.metadata.name, 'shop-reduce');
    const pod = podOf(reduce);
    assert.deepEqual(pod.containers[0]!.args, ['sweep', 'reduce', '/results', '--out', '/results']);
    assert.deepEqual(pod.volumes, [{ name: 'results', persistentVolumeClaim: { claimName: 'shop-results' } }]);
  });
});

describe('names', () => {
  it('keys inputs in their order, with characters a ConfigMap key allows', () => {
    assert.equal(inputKey(3, 'dumps/prod cluster.yaml'), '003-prod_cluster.yaml');
    assert.equal(inputKey(0, '<stdin>'), '000-_stdin_');
  });

  it('takes only a DNS label short enough for the names made from it', () => {
    assert.equal(jobNameProblem('shop-2'), undefined);
    assert.match(jobNameProblem('Shop')!, /not a DNS label/);
    assert.match(jobNameProblem('a'.repeat(53))!, /longer than 52/);
  });

  it('gives the shard command for any index, as run on one machine', () => {
    assert.deepEqual(shardArgs(options, '5').slice(-6), ['--shard', '5/8', '--out', '/results', '--jobs', '1']);
  });
});
