// NodePools, provider NodeClasses and InstanceTypeCatalogs through the loader:
// what lands in the input, and every error with its file:line:column and field.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { formatDiagnostic } from './diagnostics.js';
import { loadSources, type LoadedInput } from './load.js';

/** Lines joined with newlines: line N of the text is argument N. */
const lines = (...ls: string[]) => ls.join('\n') + '\n';

function loaded(text: string, name = 'np.yaml'): { input: LoadedInput; warnings: string[] } {
  const r = loadSources([{ name, text }]);
  if (!r.ok) assert.fail(`unexpected errors:\n${r.errors.map(formatDiagnostic).join('\n')}`);
  return { input: r.input, warnings: r.warnings.map(formatDiagnostic) };
}

function errors(text: string): string[] {
  const r = loadSources([{ name: 'np.yaml', text }]);
  assert.equal(r.ok, false, 'expected the load to fail');
  return r.ok ? [] : r.errors.map(formatDiagnostic);
}

/** A NodePool document (12 lines, 13 with a weight), then `spec` lines appended under spec.template.spec. */
const nodePool = (name: string, opts: { weight?: number; spec?: string[] } = {}) =>
  lines(
    'apiVersion: karpenter.sh/v1',
    'kind: NodePool',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    ...(opts.weight !== undefined ? [`  weight: ${opts.weight}`] : []),
    '  template:',
    '    spec:',
    '      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}',
    '      requirements:',
    '        - key: karpenter.sh/capacity-type',
    '          operator: In',
    '          values: ["spot", "on-demand"]',
    ...(opts.spec ?? []),
  );

const EC2_NODE_CLASS = lines(
  'apiVersion: karpenter.k8s.aws/v1',
  'kind: EC2NodeClass',
  'metadata:',
  '  name: default',
  'spec:',
  '  role: KarpenterNodeRole-my-cluster',
  '  amiSelectorTerms: [{alias: al2023@latest}]',
  '  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]',
  '  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]',
);

describe('NodePools', () => {
  test('the example NodePool loads with its defaults', () => {
    const text = readFileSync(new URL('../../examples/nodepools/default.yaml', import.meta.url), 'utf8');
    const { input, warnings } = loaded(text, 'examples/nodepools/default.yaml');
    assert.deepEqual(warnings, []);
    assert.equal(input.nodePools.length, 1);
    const np = input.nodePools[0]!;
    assert.equal(np.name, 'default');
    assert.equal(np.weight, 0);
    assert.deepEqual(np.limits, { cpu: 1_000_000 });
    assert.deepEqual(
      np.requirements.map((r) => `${r.key} ${r.operator} ${r.values.join(',')}`),
      [
        'kubernetes.io/arch In amd64',
        'kubernetes.io/os In linux',
        'karpenter.sh/capacity-type In on-demand,spot',
        'karpenter.k8s.aws/instance-category In c,m,r',
        'karpenter.k8s.aws/instance-generation Gt 5',
      ],
    );
    assert.equal(np.expireAfterSeconds, 720 * 3600);
    assert.equal(np.disruption.consolidateAfterSeconds, 60);
    assert.deepEqual(np.disruption.budgets.map((b) => [b.nodes, b.schedule, b.durationSeconds, b.reasons]), [
      ['10%', null, null, null],
      ['0', '0 9 * * mon-fri', 8 * 3600, ['Underutilized']],
    ]);
  });

  test('with its EC2NodeClass: the NodeClass is accepted and ignored with a warning', () => {
    const { input, warnings } = loaded(`${nodePool('default')}---\n${EC2_NODE_CLASS}`);
    assert.deepEqual(input.nodePools.map((p) => p.name), ['default']);
    assert.deepEqual(warnings, ['np.yaml:14:1: EC2NodeClass default: accepted and ignored: berth plans with its instance-type catalog']);
  });

  test("other providers' NodeClasses are ignored the same way; look-alikes are skipped as unknown", () => {
    const text = lines(
      'apiVersion: karpenter.azure.com/v1beta1',
      'kind: AKSNodeClass',
      'metadata: {name: default}',
      '---',
      'apiVersion: karpenter.kwok.sh/v1alpha1',
      'kind: KWOKNodeClass',
      'metadata: {name: kwok}',
      '---',
      'apiVersion: example.com/v1',
      'kind: FooNodeClass',
      'metadata: {name: foo}',
    );
    assert.deepEqual(loaded(text).warnings, [
      'np.yaml:1:1: AKSNodeClass default: accepted and ignored: berth plans with its instance-type catalog',
      'np.yaml:5:1: KWOKNodeClass kwok: accepted and ignored: berth plans with its instance-type catalog',
      'np.yaml:10:7: skipping kind FooNodeClass (apiVersion example.com/v1): not used by berth',
    ]);
  });

  test('NodePools come out in Karpenter order: weight descending, then name descending', () => {
    const text = [nodePool('alpha'), nodePool('gpu', { weight: 10 }), nodePool('zeta'), nodePool('arm', { weight: 10 }), nodePool('reserved', { weight: 100 })].join('---\n');
    assert.deepEqual(loaded(text).input.nodePools.map((p) => `${p.name}:${p.weight}`), ['reserved:100', 'gpu:10', 'arm:10', 'zeta:0', 'alpha:0']);
  });

  test('NodePools inside a kubectl List', () => {
    const item = nodePool('default').trimEnd().split('\n').map((l, i) => (i === 0 ? `- ${l}` : `  ${l}`));
    const { input } = loaded(lines('apiVersion: v1', 'kind: List', 'items:', ...item));
    assert.deepEqual(input.nodePools.map((p) => p.name), ['default']);
  });

  test('a NodePool at an older apiVersion is skipped', () => {
    const text = nodePool('old').replace('karpenter.sh/v1', 'karpenter.sh/v1beta1');
    const { input, warnings } = loaded(text);
    assert.deepEqual(input.nodePools, []);
    assert.deepEqual(warnings, ['np.yaml:2:7: NodePool old: skipping kind NodePool (apiVersion karpenter.sh/v1beta1): berth reads NodePool at karpenter.sh/v1']);
  });

  test('no NodePool: an empty list', () => assert.deepEqual(loaded('apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n').input.nodePools, []));
});

describe('NodePool errors', () => {
  const cases: { name: string; text: string; want: string[] }[] = [
    {
      name: 'restricted label domain and the nodepool label in requirements',
      text: lines(
        'apiVersion: karpenter.sh/v1',
        'kind: NodePool',
        'metadata: {name: np}',
        'spec:',
        '  template:',
        '    metadata:',
        '      labels:',
        '        karpenter.sh/team: platform',
        '    spec:',
        '      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}',
        '      requirements:',
        '        - key: karpenter.sh/nodepool',
        '          operator: In',
        '          values: [other]',
      ),
      want: [
        'np.yaml:8:28: NodePool np: spec.template.metadata.labels[karpenter.sh/team]: Invalid value: "karpenter.sh/team": label domain "karpenter.sh" is restricted',
        'np.yaml:12:16: NodePool np: spec.template.spec.requirements[0].key: Invalid value: "karpenter.sh/nodepool": label "karpenter.sh/nodepool" is restricted',
      ],
    },
    {
      name: 'In without values is reported at the requirement; Gt with a word at its values',
      text: nodePool('np', { spec: ['        - key: zone', '          operator: In', '        - key: karpenter.k8s.aws/instance-cpu', '          operator: Gt', '          values: ["four"]'] }),
      want: [
        "np.yaml:13:11: NodePool np: spec.template.spec.requirements[1].values: Invalid value: []: requirements with operator 'In' must have a value defined",
        `np.yaml:17:11: NodePool np: spec.template.spec.requirements[2].values: Invalid value: ["four"]: requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value`,
      ],
    },
    {
      name: 'minValues above the number of values',
      text: nodePool('np', { spec: ['        - key: node.kubernetes.io/instance-type', '          operator: In', '          values: [m5.large]', '          minValues: 2'] }),
      want: ["np.yaml:16:22: NodePool np: spec.template.spec.requirements[1].minValues: Invalid value: 2: requirements with 'minValues' must have at least that many values specified in the 'values' field"],
    },
    {
      name: 'unsupported operator and taint effect',
      text: nodePool('np', { spec: ['        - key: zone', '          operator: Near', '      taints:', '        - {key: dedicated, value: gpu, effect: NoEvict}'] }),
      want: [
        'np.yaml:14:21: NodePool np: spec.template.spec.requirements[1].operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"',
        'np.yaml:16:48: NodePool np: spec.template.spec.taints[0].effect: Unsupported value: "NoEvict": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      ],
    },
    {
      name: 'durations',
      text: nodePool('np', { spec: ['      expireAfter: 30d', '      terminationGracePeriod: Never'] }),
      want: [
        `np.yaml:13:20: NodePool np: spec.template.spec.expireAfter: Invalid value: "30d": should match '^(([0-9]+(s|m|h))+|Never)$'`,
        `np.yaml:14:31: NodePool np: spec.template.spec.terminationGracePeriod: Invalid value: "Never": should match '^([0-9]+(s|m|h))+$'`,
      ],
    },
    {
      name: 'budgets: schedule without duration, unquoted count, bad reason',
      text: lines(
        ...nodePool('np').trimEnd().split('\n'),
        '  disruption:',
        '    budgets:',
        '      - nodes: "0"',
        '        schedule: "0 9 * * mon-fri"',
        '      - nodes: 5',
        '      - nodes: "20%"',
        '        reasons: [Expired]',
      ),
      want: ['np.yaml:17:16: NodePool np: spec.disruption.budgets[1].nodes: Invalid type: expected string, got number 5 (write it quoted: "5")'],
    },
    {
      name: 'budgets: once the types are right, the values',
      text: lines(
        ...nodePool('np').trimEnd().split('\n'),
        '  disruption:',
        '    consolidateAfter: 5 minutes',
        '    budgets:',
        '      - nodes: "0"',
        '        schedule: "0 9 * * mon-fri"',
        '      - nodes: "20%"',
        '        reasons: [Expired]',
        '      - nodes: "1"',
        '        schedule: "@dailyish"',
        '        duration: 30s',
      ),
      want: [
        `np.yaml:14:23: NodePool np: spec.disruption.consolidateAfter: Invalid value: "5 minutes": should match '^(([0-9]+(s|m|h))+|Never)$'`,
        "np.yaml:16:9: NodePool np: spec.disruption.budgets[0].duration: Required value: 'schedule' must be set with 'duration'",
        'np.yaml:19:19: NodePool np: spec.disruption.budgets[1].reasons[0]: Unsupported value: "Expired": supported values: "Underutilized", "Empty", "Drifted"',
        'np.yaml:21:19: NodePool np: spec.disruption.budgets[2].schedule: Invalid value: "@dailyish": invalid cron: unrecognized descriptor: @dailyish',
        `np.yaml:22:19: NodePool np: spec.disruption.budgets[2].duration: Invalid value: "30s": should match '^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$'`,
      ],
    },
    {
      name: 'weight 0, a bad limit and a missing nodeClassRef',
      text: lines('apiVersion: karpenter.sh/v1', 'kind: NodePool', 'metadata: {name: np}', 'spec:', '  weight: 0', '  limits: {cpu: lots}', '  template:', '    spec:', '      requirements: []'),
      want: ['np.yaml:8:5: NodePool np: spec.template.spec.nodeClassRef: Required value'],
    },
    {
      name: 'weight 0 and a bad limit, once the shape is right',
      text: lines('apiVersion: karpenter.sh/v1', 'kind: NodePool', 'metadata: {name: np}', 'spec:', '  weight: 0', '  limits: {cpu: lots}', '  template:', '    spec:', '      requirements: []', '      nodeClassRef: {group: g, kind: K, name: nc}'),
      want: [
        'np.yaml:5:11: NodePool np: spec.weight: Invalid value: 0: must be greater than or equal to 1',
        `np.yaml:6:17: NodePool np: spec.limits.cpu: Invalid value: "lots": should match '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$'`,
      ],
    },
    {
      name: 'nodeClassRef group written as an apiVersion',
      text: nodePool('np').replace('group: karpenter.k8s.aws,', 'group: karpenter.k8s.aws/v1,'),
      want: [`np.yaml:8:29: NodePool np: spec.template.spec.nodeClassRef.group: Invalid value: "karpenter.k8s.aws/v1": should match '^[^/]*$'`],
    },
    {
      name: 'duplicate NodePool names',
      text: `${nodePool('np')}---\n${nodePool('np')}`,
      want: ['np.yaml:17:9: NodePool np: metadata.name: Duplicate value: "np": already defined at np.yaml:4:9'],
    },
    {
      name: 'a NodePool without a name',
      text: nodePool('np').replace('  name: np\n', '  labels: {a: b}\n'),
      want: ['np.yaml:3:1: NodePool <unnamed>: metadata.name: Required value: name or generateName is required'],
    },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(errors(c.text), c.want));
});

describe('InstanceTypeCatalogs', () => {
  const catalog = (...types: string[]) =>
    lines('apiVersion: berth.dev/v1alpha1', 'kind: InstanceTypeCatalog', 'metadata:', '  name: lab', 'spec:', '  instanceTypes:', ...types);

  test('a catalog loads into input.catalogs', () => {
    const text = catalog(
      '    - name: lab.xlarge',
      '      cpu: "4"',
      '      memory: 16Gi',
      '      pods: 58',
      '      offerings:',
      '        - {zone: lab-1, capacityType: on-demand, price: 0.21}',
      '        - {zone: lab-1, capacityType: spot, price: 0.07, available: false}',
    );
    const { input, warnings } = loaded(`${text}---\n${nodePool('default')}`);
    assert.deepEqual(warnings, []);
    assert.equal(input.catalogs.length, 1);
    const [it] = input.catalogs[0]!;
    assert.equal(it!.name, 'lab.xlarge');
    assert.equal(it!.capacity.cpu, 4000);
    assert.equal(it!.capacity.pods, 58);
    assert.deepEqual(it!.offerings.map((o) => `${o.zone}/${o.capacityType}/${o.available}`), ['lab-1/on-demand/true', 'lab-1/spot/false']);
    assert.deepEqual(input.nodePools.map((p) => p.name), ['default']);
  });

  test('several catalogs, in input order; apiVersion may be left out', () => {
    const one = (name: string) => [`    - name: ${name}`, '      cpu: "2"', '      memory: 4Gi', '      offerings: [{zone: z, capacityType: on-demand, price: 0.1}]'];
    const second = catalog(...one('b.small')).replace('apiVersion: berth.dev/v1alpha1\n', '').replace('name: lab', 'name: lab2');
    const { input } = loaded(`${catalog(...one('a.small'))}---\n${second}`);
    assert.deepEqual(input.catalogs.map((c) => c.map((t) => t.name)), [['a.small'], ['b.small']]);
  });

  test("a catalog's error is reported at its field", () => {
    const text = catalog(
      '    - name: lab.xlarge',
      '      cpu: "4"',
      '      memory: 16Gi',
      '      offerings:',
      '        - {zone: lab-1, capacityType: on-demand, price: 0.21}',
      '        - {zone: lab-1, capacityType: on-demand, price: 0.25}',
    );
    assert.deepEqual(errors(text), ['np.yaml:12:11: InstanceTypeCatalog lab: spec.instanceTypes[0].offerings[1]: Duplicate value: zone "lab-1" with capacityType "on-demand"']);
  });

  test('a catalog with an unsupported capacity type', () => {
    const text = catalog('    - name: x', '      cpu: "1"', '      memory: 1Gi', '      offerings: [{zone: z, capacityType: preemptible, price: 0.1}]');
    assert.deepEqual(errors(text), ['np.yaml:10:43: InstanceTypeCatalog lab: spec.instanceTypes[0].offerings[0].capacityType: Unsupported value: "preemptible": supported values: "on-demand", "spot"']);
  });

  test('a catalog without spec', () => {
    assert.deepEqual(errors(lines('apiVersion: berth.dev/v1alpha1', 'kind: InstanceTypeCatalog', 'metadata: {name: empty}')), ['np.yaml:1:1: InstanceTypeCatalog empty: spec: Required value']);
  });
});
