// `berth sweep --emit indexed-job|reduce-job`: the Kubernetes objects that run a
// sweep's shards past one machine. An Indexed Job (batch/v1, one completion per
// shard) whose pod i runs `berth sweep ... --shard i/N` (i from the
// JOB_COMPLETION_INDEX the Job controller sets), reading the input from a
// ConfigMap (or fetched from an HTTP URL by init containers) and writing its
// shard file to a PersistentVolumeClaim (or PUT to its object-storage URL, the
// URLs held in a Secret); then a one-pod Job that merges the shards on the claim
// (`berth sweep reduce`). The image is the repository's Dockerfile,
// whose entrypoint is `node dist/cli/main.js`, so the containers give only args.

/** Where the pods see the input files and the results volume. */
export const INPUT_DIR = '/input';
export const RESULTS_DIR = '/results';
/** Where the shard pods see the Secret of their results URLs: a file of them, line i for shard i. */
const RESULTS_URL_DIR = '/results-url';
export const RESULTS_URLS_FILE = `${RESULTS_URL_DIR}/urls`;
/** A ConfigMap holds at most 1 MiB of data (the API server's limit). */
export const CONFIGMAP_MAX_BYTES = 1024 * 1024;
/** The names made from a sweep's name (its Job, -input, -results, -reduce) stay within a DNS label. */
const MAX_NAME = 52;

/** One input file: its key in the ConfigMap (and file name under INPUT_DIR), its text, and the flag that passes it. */
export interface JobInput {
  readonly key: string;
  readonly text: string;
  /** The flag that names it in the shard command; undefined: the matrix, the command's argument. */
  readonly flag?: '-f' | '--cluster' | '--prices';
}

export interface SweepJobOptions {
  readonly name: string;
  readonly namespace: string;
  readonly image: string;
  readonly shards: number;
  /** Pods at once (default: every shard). */
  readonly parallelism?: number;
  readonly inputs: readonly JobInput[];
  /** Fetch the inputs from `<inputUrl>/<key>` with `fetchImage`'s wget instead of a ConfigMap. */
  readonly inputUrl?: string;
  readonly fetchImage: string;
  /** The command's other flags (settings such as --region), passed as given. */
  readonly flags: readonly string[];
  /** The claim the shards and the reducer write to (with `size`, emitted too: ReadWriteMany), or each shard's URL to PUT its file to. */
  readonly results: ResultsClaim | ResultsUrls;
  readonly cpu: string;
  readonly memory: string;
}

export interface ResultsClaim {
  readonly claim: string;
  readonly size?: string;
  readonly storageClass?: string;
}
export interface ResultsUrls {
  /** Shard i's URL at i. */
  readonly urls: readonly string[];
}
const isClaim = (r: ResultsClaim | ResultsUrls): r is ResultsClaim => 'claim' in r;

type Manifest = Record<string, unknown>;

/** Why `name` cannot name the objects, or undefined. */
export function jobNameProblem(name: string): string | undefined {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) return `${JSON.stringify(name)} is not a DNS label (lowercase letters, digits and "-", starting and ending with a letter or digit)`;
  if (name.length > MAX_NAME) return `${JSON.stringify(name)} is longer than ${MAX_NAME} characters (the objects add -results and -reduce, and a pod adds its index)`;
  return undefined;
}

/** A ConfigMap key (and file name) for input `i` read from `source`: its order first, so the keys sort as the inputs were given. */
export function inputKey(i: number, source: string): string {
  const base = source.split('/').filter(Boolean).pop() ?? 'input';
  return `${String(i).padStart(3, '0')}-${base.replace(/[^-._a-zA-Z0-9]/g, '_')}`.slice(0, 200);
}

const labels = (o: SweepJobOptions, component: string) => ({ 'app.kubernetes.io/name': 'berth', 'app.kubernetes.io/component': component, 'berth.dev/sweep': o.name });

/** The shard command's args (after the image's `node dist/cli/main.js`); `index` is the shard, `$(JOB_COMPLETION_INDEX)` in the Job. */
export function shardArgs(o: Pick<SweepJobOptions, 'inputs' | 'flags' | 'shards' | 'results'>, index: string): string[] {
  const matrix = o.inputs.find((i) => i.flag === undefined);
  if (!matrix) throw new Error('sweep job: no matrix among the inputs');
  const files = o.inputs.flatMap((i) => (i.flag ? [i.flag, `${INPUT_DIR}/${i.key}`] : []));
  // One worker: a pod gets one CPU; more shards, not threads, is how the Job scales.
  const out = isClaim(o.results) ? ['--out', RESULTS_DIR] : ['--results-url', `@${RESULTS_URLS_FILE}`];
  return ['sweep', `${INPUT_DIR}/${matrix.key}`, ...files, ...o.flags, '--shard', `${index}/${o.shards}`, ...out, '--jobs', '1'];
}

/** Pod settings both Jobs share: non-root (the image's user), nothing writable but the results volume. */
function podSecurity(): Manifest {
  return { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } };
}
const containerSecurity = { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } };
const claimVolume = (claim: ResultsClaim) => ({ name: 'results', persistentVolumeClaim: { claimName: claim.claim } });
const urlsSecret = (o: SweepJobOptions) => `${o.name}-results-url`;

/** The ConfigMap of the inputs (unless fetched), the results claim (when sized) or the Secret of the results URLs, and the Indexed Job, in the order to create them. */
export function indexedJobManifests(o: SweepJobOptions): Manifest[] {
  const metadata = (name: string, component: string) => ({ name, namespace: o.namespace, labels: labels(o, component) });
  const out: Manifest[] = [];
  if (o.inputUrl === undefined) out.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata(`${o.name}-input`, 'sweep-input'), data: Object.fromEntries(o.inputs.map((i) => [i.key, i.text])) });
  const results = o.results;
  if (!isClaim(results)) {
    // A Secret, not the pod spec: a signed URL's query string is a credential.
    out.push({ apiVersion: 'v1', kind: 'Secret', metadata: metadata(urlsSecret(o), 'sweep-results'), type: 'Opaque', stringData: { urls: results.urls.map((u) => `${u}\n`).join('') } });
  } else if (results.size !== undefined) {
    out.push({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: metadata(results.claim, 'sweep-results'),
      // Every shard's pod writes its own file at once, from any node.
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: results.size } }, ...(results.storageClass ? { storageClassName: results.storageClass } : {}) },
    });
  }
  const url = o.inputUrl?.replace(/\/+$/, '');
  const fetch = url === undefined ? [] : o.inputs.map((i, n) => ({ name: `fetch-${n}`, image: o.fetchImage, command: ['wget', '-q', '-O', `${INPUT_DIR}/${i.key}`, `${url}/${i.key}`], volumeMounts: [{ name: 'input', mountPath: INPUT_DIR }], securityContext: containerSecurity }));
  out.push({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata(o.name, 'sweep-shard'),
    spec: {
      completionMode: 'Indexed',
      completions: o.shards,
      parallelism: Math.min(o.parallelism ?? o.shards, o.shards),
      backoffLimitPerIndex: 2,
      // Exit 2 is bad input or usage: the same on every retry.
      podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { containerName: 'shard', operator: 'In', values: [2] } }] },
      template: {
        metadata: { labels: labels(o, 'sweep-shard') },
        spec: {
          restartPolicy: 'Never',
          securityContext: podSecurity(),
          ...(fetch.length > 0 ? { initContainers: fetch } : {}),
          containers: [
            {
              name: 'shard',
              image: o.image,
              // The kubelet expands $(JOB_COMPLETION_INDEX) from the variable the Job controller adds to each pod.
              args: shardArgs(o, '$(JOB_COMPLETION_INDEX)'),
              resources: { requests: { cpu: o.cpu, memory: o.memory }, limits: { memory: o.memory } },
              volumeMounts: [
                { name: 'input', mountPath: INPUT_DIR, readOnly: url === undefined },
                isClaim(results) ? { name: 'results', mountPath: RESULTS_DIR } : { name: 'results-url', mountPath: RESULTS_URL_DIR, readOnly: true },
              ],
              securityContext: containerSecurity,
            },
          ],
          volumes: [
            url === undefined ? { name: 'input', configMap: { name: `${o.name}-input` } } : { name: 'input', emptyDir: {} },
            isClaim(results) ? claimVolume(results) : { name: 'results-url', secret: { secretName: urlsSecret(o) } },
          ],
        },
      },
    },
  });
  return out;
}

/** The Job that merges the shards on the results claim into results.jsonl and summary.txt there, once the Indexed Job is complete. */
export function reduceJobManifest(o: SweepJobOptions & { readonly results: ResultsClaim }): Manifest {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: `${o.name}-reduce`, namespace: o.namespace, labels: labels(o, 'sweep-reduce') },
    spec: {
      backoffLimit: 2,
      template: {
        metadata: { labels: labels(o, 'sweep-reduce') },
        spec: {
          restartPolicy: 'Never',
          securityContext: podSecurity(),
          containers: [
            {
              name: 'reduce',
              image: o.image,
              args: ['sweep', 'reduce', RESULTS_DIR, '--out', RESULTS_DIR],
              resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: o.memory } },
              volumeMounts: [{ name: 'results', mountPath: RESULTS_DIR }],
              securityContext: containerSecurity,
            },
          ],
          volumes: [claimVolume(o.results)],
        },
      },
    },
  };
}
