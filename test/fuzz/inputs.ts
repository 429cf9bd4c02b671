// Bad-input generators for the CLI fuzzer: valid manifests and scenarios as seeds,
// then the damage real users and broken tools do to them — malformed YAML, wrong
// types, huge and negative numbers, invalid quantities, unknown operators, empty
// selectors, duplicate names, missing namespaces, owner-reference cycles, very large
// files, deep nesting and binary garbage.

import fc from 'fast-check';
import { stringify } from 'yaml';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

/** One CLI invocation: the files it reads (names relative to a fresh folder) and its arguments, where `{dir}` stands for the folder. */
export interface FuzzCase {
  readonly command: 'schedule' | 'explain' | 'provision' | 'simulate' | 'check';
  readonly args: readonly string[];
  readonly files: readonly { readonly name: string; readonly text: string }[];
  /** What was done to the input, for reports. */
  readonly damage: string;
}

const labelsOf = (app: string): Obj => ({ app });

function node(name: string, zone: string, cpu: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } },
    spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] },
    status: { allocatable: { cpu, memory: '8Gi', pods: '110' } },
  };
}

function podSpec(app: string): Obj {
  return {
    affinity: {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a', 'b'] }] }] } },
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: labelsOf(app) } }] },
    },
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: [app] }] } }],
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }],
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    priority: 10,
    containers: [{ name: 'c', image: 'nginx:1', ports: [{ containerPort: 80, hostPort: 8080 }], resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1' } } }],
  };
}

function pod(name: string, app: string, ns?: string): Obj {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(ns ? { namespace: ns } : {}), labels: labelsOf(app), uid: `uid-${name}` }, spec: podSpec(app) };
}

function workload(kind: 'Deployment' | 'StatefulSet' | 'ReplicaSet' | 'DaemonSet', name: string): Obj {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name, namespace: 'default' },
    spec: {
      ...(kind === 'DaemonSet' ? {} : { replicas: 3 }),
      selector: { matchLabels: labelsOf(name) },
      ...(kind === 'Deployment' ? { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } } } : {}),
      template: { metadata: { labels: labelsOf(name) }, spec: podSpec(name) },
    },
  };
}

function nodePool(name: string): Obj {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      weight: 10,
      template: {
        spec: {
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand', 'spot'] },
            { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['5'], minValues: 1 },
          ],
          taints: [{ key: 'pool', value: name, effect: 'PreferNoSchedule' }],
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          expireAfter: '720h',
        },
      },
      limits: { cpu: '100', memory: '400Gi' },
      disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '10%' }, { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }] },
    },
  };
}

function pdb(name: string): Obj {
  return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: 'default' }, spec: { minAvailable: 2, selector: { matchLabels: labelsOf(name) } } };
}

function scenario(objects: Obj[]): Obj {
  return {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'Scenario',
    metadata: { name: 'fuzz' },
    spec: {
      seed: 3,
      until: '20m',
      timing: { podStart: '2s', nodeLaunch: '10s' },
      objects,
      steps: [
        { at: '30s', scale: { deployment: 'default/web', replicas: 5 } },
        { after: 'previous+30s', failNode: { node: 'n1' } },
        { at: '2m', rollout: { deployment: 'default/web', image: 'nginx:2' } },
        { at: '3m', drain: { node: 'n2' } },
        { at: '4m', recoverNode: { node: 'n1' } },
        { at: '5m', insufficientCapacity: { instanceType: 'm6i.large', zone: 'a', for: '2m' } },
      ],
      expect: [{ allScheduled: {} }, { distinctNodes: { selector: { matchLabels: { app: 'web' } } } }, { availableReplicas: { deployment: 'default/web', min: 1, throughout: true } }],
    },
  };
}

/**
 * A catalog of four types in the nodes' zones: the NodePool plans against it instead of
 * the bundled 158 (`check` on one input ran 3.5 s of CPU with the bundled catalog, 0.5 s
 * with this one), and its fields take damage like any other object's.
 */
function catalog(): Obj {
  const type = (name: string, cpu: string, memory: string, generation: string, offerings: Json[], extra: Obj = {}): Obj => ({ name, cpu, memory, labels: { 'karpenter.k8s.aws/instance-generation': generation }, offerings, ...extra });
  return {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'InstanceTypeCatalog',
    metadata: { name: 'fuzz' },
    spec: {
      instanceTypes: [
        type('m6.large', '2', '8Gi', '6', [{ zone: 'a', capacityType: 'on-demand', price: 0.1 }, { zone: 'b', capacityType: 'spot', price: 0.04 }]),
        type('m7.xlarge', '4', '16Gi', '7', [{ zone: 'a', capacityType: 'spot', price: 0.08 }, { zone: 'b', capacityType: 'on-demand', price: 0.2, available: false }], { arch: 'arm64', pods: 58 }),
        type('c7.2xlarge', '8', '16Gi', '7', [{ zone: 'b', capacityType: 'on-demand', price: 0.3 }], { overhead: { kubeReserved: { cpu: '100m', memory: '512Mi' } } }),
        type('c5.4xlarge', '16', '32Gi', '5', [{ zone: 'a', capacityType: 'on-demand', price: 0.6 }]),
      ],
    },
  };
}

/** A valid cluster the damage is applied to; with `bundledCatalog`, the NodePool plans against the bundled catalog. */
function baseObjects(bundledCatalog: boolean): Obj[] {
  const objs = [node('n1', 'a', '4'), node('n2', 'b', '4'), node('n3', 'a', '2'), pod('p1', 'db', 'default'), pod('p2', 'db'), workload('Deployment', 'web'), workload('StatefulSet', 'db'), workload('DaemonSet', 'agent'), pdb('web'), nodePool('general')];
  return bundledCatalog ? objs : [...objs, catalog()];
}

// ---- damage to values -------------------------------------------------------------

const hugeNumbers: Json[] = [1e308, -1e308, 2 ** 53 + 2, 2147483648, 100_001, -1, -0.5, 0, 2 ** 63, 1e21, 4294967296, '1e1000', '99999999999999999999999', 'NaN', '.inf', '-.inf', 0.1];
const badQuantities: Json[] = ['-1', '-100m', '1.5.5', 'abc', '1Ki1', '0.0000000001m', '1e', '1E1000', '9999999999999999999Ei', '', ' 1', '1 ', '+-1', '0x10', '1_000', '∞', '１'];
const wrongTypes: Json[] = [null, true, 'string', 42, -3.5, [], [1, 'two'], {}, { nested: { deeper: [null] } }];
const badNames: Json[] = ['', 'UPPER', 'a'.repeat(300), 'with space', '-leading', 'dot.', 'ünïcode', '../../etc/passwd', 'a/b'];
const badKeys: Json[] = ['Unknown', 'in', 'NotAnOperator', '', 'Gt', 'Lt', 'DoesNotExist', 'Exists'];
const badDurations: Json[] = ['-1s', '1y', 'forever', '0s', '99999999999h', '1e9h', '', 5, 'previous-30s', 'previous+', '1h1h'];

const replacement = fc.oneof(
  fc.constantFrom(...hugeNumbers),
  fc.constantFrom(...badQuantities),
  fc.constantFrom(...wrongTypes),
  fc.constantFrom(...badNames),
  fc.constantFrom(...badKeys),
  fc.constantFrom(...badDurations),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
);

/** Every [parent, key] in a tree, in document order. */
function slots(root: Json): [Obj | Json[], string | number][] {
  const out: [Obj | Json[], string | number][] = [];
  const stack: Json[] = [root];
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    if (Array.isArray(v)) {
      v.forEach((c, i) => out.push([v as Json[], i]) && stack.push(c));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, c] of Object.entries(v)) {
        out.push([v, k]);
        stack.push(c);
      }
    }
  }
  return out;
}

type Edit = { kind: 'replace'; at: number; value: Json } | { kind: 'delete'; at: number } | { kind: 'rename'; at: number; key: string } | { kind: 'empty'; at: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: replacement }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rename' as const), at: fc.nat(), key: fc.constantFrom('metadata', 'spec', 'labels', 'unknownField', 'selector', 'nodeName', 'Spec') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('empty' as const), at: fc.nat() }) },
);

function applyEdit(root: Json, e: Edit): string {
  const all = slots(root);
  if (all.length === 0) return 'none';
  const [parent, key] = all[e.at % all.length]!;
  const get = () => (parent as Record<string | number, Json>)[key];
  const set = (v: Json) => ((parent as Record<string | number, Json>)[key] = v);
  switch (e.kind) {
    case 'replace':
      set(e.value);
      return `replace ${key}`;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
      return `delete ${key}`;
    case 'rename':
      if (!Array.isArray(parent)) {
        const v = get();
        delete parent[key as string];
        parent[e.key] = v ?? null;
      }
      return `rename ${key}`;
    case 'empty': {
      const v = get();
      set(Array.isArray(v) ? [] : v !== null && typeof v === 'object' ? {} : '');
      return `empty ${key}`;
    }
  }
}

// ---- damage to documents ------------------------------------------------------------

/** Structural damage that needs whole objects: duplicates, missing namespaces, owner cycles. */
const structural = fc.constantFrom(
  (objs: Obj[]) => (objs.push(structuredClone(objs[3]!)), 'duplicate pod'),
  (objs: Obj[]) => (objs.push(structuredClone(objs[0]!)), 'duplicate node'),
  (objs: Obj[]) => (objs.push(structuredClone(objs[5]!)), 'duplicate deployment'),
  (objs: Obj[]) => (objs.push(structuredClone(objs[9]!)), 'duplicate nodepool'),
  (objs: Obj[]) => {
    for (const o of objs) delete ((o['metadata'] ?? {}) as Obj)['namespace'];
    return 'no namespaces';
  },
  (objs: Obj[]) => {
    const a = pod('cyc-a', 'x', 'default');
    const b = pod('cyc-b', 'x', 'default');
    (a['metadata'] as Obj)['ownerReferences'] = [{ apiVersion: 'v1', kind: 'Pod', name: 'cyc-b', uid: 'uid-cyc-b', controller: true }];
    (b['metadata'] as Obj)['ownerReferences'] = [{ apiVersion: 'v1', kind: 'Pod', name: 'cyc-a', uid: 'uid-cyc-a', controller: true }];
    objs.push(a, b);
    return 'owner cycle between pods';
  },
  (objs: Obj[]) => {
    const rs = workload('ReplicaSet', 'rs');
    (rs['metadata'] as Obj)['uid'] = 'uid-rs';
    (rs['metadata'] as Obj)['ownerReferences'] = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'uid-rs', controller: true }];
    objs.push(rs);
    return 'replicaset owning itself';
  },
  (objs: Obj[]) => {
    const p = pod('orphan', 'web', 'default');
    (p['metadata'] as Obj)['ownerReferences'] = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'gone', uid: 'uid-gone', controller: true }, { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'gone2', uid: 'uid-gone2', controller: true }];
    objs.push(p);
    return 'two controllers';
  },
  (objs: Obj[]) => (objs.push({ apiVersion: 'v1', kind: 'List', items: [objs[0]!, { apiVersion: 'v1', kind: 'List', items: [objs[3]!] }] }), 'nested List'),
  (objs: Obj[]) => (objs.push({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }), 'unknown kind'),
);

type Serializer = (objs: Json[]) => { ext: string; text: string };
const serializers: fc.Arbitrary<Serializer> = fc.constantFrom<Serializer>(
  (objs) => ({ ext: 'yaml', text: objs.map((o) => stringify(o, { aliasDuplicateObjects: false })).join('---\n') }),
  (objs) => ({ ext: 'json', text: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs }) }),
  (objs) => ({ ext: 'yaml', text: objs.map((o) => stringify(o, { collectionStyle: 'flow', aliasDuplicateObjects: false })).join('\n---\n') }),
);

/** Damage to the text itself. */
type TextDamage = (text: string) => string;
const deep = (n: number, open: string, close: string) => `${open.repeat(n)}${close.repeat(n)}`;
const textDamage: fc.Arbitrary<{ name: string; apply: TextDamage }> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ name: 'none', apply: (t: string) => t }) },
  { weight: 2, arbitrary: fc.nat().map((at) => ({ name: 'truncated', apply: (t: string) => t.slice(0, at % (t.length + 1)) })) },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.nat(), fc.constantFrom(':', '- ', '{', '}', '[', ']', '"', "'", '\t', '\n  ', '&a', '*a', '!!binary', '? ', '|', '>', '#', '---\n', '...\n', '%YAML 1.2\n', '<<: *x\n', '\\', '\r')).map(([at, s]) => ({
      name: `inserted ${JSON.stringify(s)}`,
      apply: (t: string) => t.slice(0, at % (t.length + 1)) + s + t.slice(at % (t.length + 1)),
    })),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }).map((g) => ({ name: 'unicode garbage', apply: () => g })) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 2000 }).map((b) => ({ name: 'binary garbage', apply: () => Buffer.from(b).toString('latin1') })) },
  { weight: 1, arbitrary: fc.constantFrom(300, 10_000).map((n) => ({ name: `nested ${n} deep`, apply: (t: string) => `${t}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: deep}\nspec: {containers: ${deep(n, '[', ']')}}\n` })) },
  { weight: 1, arbitrary: fc.constant({ name: 'nested 1000 block', apply: (t: string) => `${t}\n---\n${Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')} x\n` }) },
  { weight: 1, arbitrary: fc.constant({ name: 'alias bomb', apply: (t: string) => `${t}\n---\na: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n` }) },
);

/** Rare, expensive: a 10 MB file (one huge value, a huge comment, or a very long line). */
const hugeDamage = fc.constantFrom<{ name: string; apply: TextDamage }>(
  { name: '10 MB annotation', apply: (t) => `${t}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: big, annotations: {a: "${'x'.repeat(10 * 2 ** 20)}"}}\nspec: {containers: [{name: c, image: i}]}\n` },
  { name: '10 MB comment', apply: (t) => `${'# filler\n'.repeat((10 * 2 ** 20) / 9)}${t}` },
  { name: '10 MB label value', apply: (t) => `${t}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: big, labels: {a: ${'v'.repeat(10 * 2 ** 20)}}}\n` },
  { name: '10 MB of pods', apply: (t) => `${t}\n${Array.from({ length: 40_000 }, (_, i) => `---\n{apiVersion: v1, kind: Pod, metadata: {name: p${i}, namespace: ns${i % 7}, labels: {app: a${i % 13}}}, spec: {nodeName: n1, containers: [{name: c, image: ${'i'.repeat(200)}, resources: {requests: {cpu: 1m}}}]}}\n`).join('')}` },
);

const commands = fc.constantFrom<FuzzCase['command']>('schedule', 'explain', 'provision', 'simulate', 'check');

/** A fuzz case; `huge` lets the rare 10 MB inputs in. */
export function fuzzCase(opts: { huge: boolean }): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      command: commands,
      edits: fc.array(edit, { maxLength: 4 }),
      structural: fc.option(structural, { freq: 3, nil: undefined }),
      serialize: serializers,
      damage: opts.huge ? fc.oneof({ weight: 1000, arbitrary: textDamage }, { weight: 1, arbitrary: hugeDamage }) : textDamage,
      explainPod: fc.constantFrom('p1', 'default/p2', 'missing', 'kube-system/p1', 'default/web-0'),
      // One input in ten plans against the bundled catalog (the rest against a small one, far cheaper to plan with).
      bundledCatalog: fc.nat(9).map((n) => n === 0),
    })
    .map(({ command, edits, structural: s, serialize, damage, explainPod, bundledCatalog }) => {
      const objs = baseObjects(bundledCatalog);
      const done: string[] = [];
      if (s) done.push(s(objs));
      const root: Json = command === 'simulate' ? scenario(objs) : objs;
      for (const e of edits) done.push(applyEdit(root, e));
      const { ext, text } = command === 'simulate' ? { ext: 'yaml', text: stringify(root, { aliasDuplicateObjects: false }) } : serialize(root as Json[]);
      const damaged = damage.apply(text);
      done.push(damage.name);
      const name = `input.${ext}`;
      // check on one thread: the fuzzer's own worker is the unit its budget stops.
      const args = command === 'simulate' ? [`{dir}/${name}`] : command === 'explain' ? [explainPod, '-f', `{dir}/${name}`] : command === 'check' ? ['-f', `{dir}/${name}`, '--jobs', '1'] : ['-f', `{dir}/${name}`];
      return { command, args, files: [{ name, text: damaged }], damage: done.filter((d) => d !== 'none').join(', ') || 'none' };
    });
}
