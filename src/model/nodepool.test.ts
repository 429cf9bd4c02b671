import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  allowedDisruptions,
  budgetAllowedDisruptions,
  compileNodePool,
  isBudgetActive,
  nodeClassLabelKey,
  nodePoolErrors,
  orderNodePools,
  parseNillableDuration,
  UNBOUNDED_DISRUPTIONS,
  type NodePool,
  type NodePoolManifest,
} from './nodepool.js';

/** The smallest valid NodePool; `edit` changes a copy. */
function manifest(edit: (m: NodePoolManifest) => void = () => {}): NodePoolManifest {
  const m: NodePoolManifest = {
    metadata: { name: 'default' },
    spec: {
      template: {
        spec: {
          requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'Exists' }],
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        },
      },
    },
  };
  edit(m);
  return m;
}

const tmpl = (m: NodePoolManifest) => m.spec.template.spec;

/** Each error as `path: message`, the path dotted with [index]. */
function errorsOf(m: NodePoolManifest): string[] {
  return nodePoolErrors(m).map((e) => `${e.path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('').slice(1)}: ${e.message}`);
}

describe('compileNodePool defaults', () => {
  it('fills in what the CRD defaults', () => {
    const np = compileNodePool(manifest());
    assert.equal(np.name, 'default');
    assert.equal(np.weight, 0);
    assert.equal(np.replicas, null);
    assert.equal(np.expireAfterSeconds, 720 * 3600);
    assert.equal(np.terminationGracePeriodSeconds, null);
    assert.deepEqual(np.limits, {});
    assert.deepEqual(np.labels, {});
    assert.deepEqual(np.taints, []);
    assert.deepEqual(np.startupTaints, []);
    assert.deepEqual(np.disruption, {
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfterSeconds: 0,
      budgets: [{ nodes: '10%', maxNodes: { percent: true, value: 10 }, schedule: null, cron: null, durationSeconds: null, reasons: null }],
    });
  });

  it('a budget without nodes gets 10%; an explicit empty budget list stays empty', () => {
    const one = compileNodePool(manifest((m) => (m.spec.disruption = { budgets: [{ reasons: ['Drifted'] }] })));
    assert.equal(one.disruption.budgets[0]!.nodes, '10%');
    assert.deepEqual(one.disruption.budgets[0]!.reasons, ['Drifted']);
    const none = compileNodePool(manifest((m) => (m.spec.disruption = { budgets: [] })));
    assert.deepEqual(none.disruption.budgets, []);
  });
});

describe('a NodePool as users write it', () => {
  const np = compileNodePool(
    manifest((m) => {
      m.spec.weight = 50;
      m.spec.limits = { cpu: 1000, memory: '1000Gi', nodes: '20', 'nvidia.com/gpu': 8 };
      m.spec.template.metadata = { labels: { team: 'platform', 'karpenter.sh/capacity-type': 'spot' }, annotations: { 'example.com/owner': 'sre' } };
      m.spec.template.spec = {
        requirements: [
          { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
          { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'], minValues: 2 },
          { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['5'] },
          { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lte', values: ['32'] },
          { key: 'node.kubernetes.io/instance-type', operator: 'NotIn', values: ['m5.24xlarge'] },
          { key: 'topology.kubernetes.io/zone', operator: 'Exists' },
        ],
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        taints: [{ key: 'example.com/special', value: 'true', effect: 'NoSchedule' }],
        startupTaints: [{ key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoExecute' }],
        expireAfter: '1h30m',
        terminationGracePeriod: '48h',
      };
      m.spec.disruption = {
        consolidationPolicy: 'WhenEmpty',
        consolidateAfter: '30s',
        budgets: [
          { nodes: '20%', reasons: ['Empty', 'Drifted'] },
          { nodes: '5' },
          { nodes: '0', schedule: '@daily', duration: '10m' },
          { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h', reasons: ['Underutilized'] },
        ],
      };
    }),
  );

  it('keeps weight, labels, annotations, taints and requirements', () => {
    assert.equal(np.weight, 50);
    assert.deepEqual(np.labels, { team: 'platform', 'karpenter.sh/capacity-type': 'spot' });
    assert.deepEqual(np.annotations, { 'example.com/owner': 'sre' });
    assert.deepEqual(np.taints, [{ key: 'example.com/special', value: 'true', effect: 'NoSchedule' }]);
    assert.deepEqual(np.startupTaints, [{ key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoExecute' }]);
    assert.equal(np.requirements.length, 7);
    assert.deepEqual(np.requirements[2], { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'], minValues: 2 });
    assert.deepEqual(np.requirements[6], { key: 'topology.kubernetes.io/zone', operator: 'Exists', values: [] });
    assert.deepEqual(np.nodeClassRef, { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' });
  });

  it('parses limits into engine integers', () => {
    assert.deepEqual(np.limits, { cpu: 1_000_000, memory: 1000 * 2 ** 30, nodes: 20, 'nvidia.com/gpu': 8 });
  });

  it('parses durations into seconds', () => {
    assert.equal(np.expireAfterSeconds, 5400);
    assert.equal(np.terminationGracePeriodSeconds, 48 * 3600);
    assert.equal(np.disruption.consolidationPolicy, 'WhenEmpty');
    assert.equal(np.disruption.consolidateAfterSeconds, 30);
  });

  it('parses budgets', () => {
    const [pct, count, daily, weekdays] = np.disruption.budgets;
    assert.deepEqual(pct!.maxNodes, { percent: true, value: 20 });
    assert.deepEqual(pct!.reasons, ['Empty', 'Drifted']);
    assert.deepEqual(count!.maxNodes, { percent: false, value: 5 });
    assert.equal(daily!.schedule, '@daily');
    assert.equal(daily!.durationSeconds, 600);
    assert.equal(weekdays!.cron?.kind, 'spec');
    assert.equal(weekdays!.durationSeconds, 8 * 3600);
  });
});

describe('limits', () => {
  const cases: { name: string; limits: Record<string, string | number>; want: Record<string, number> }[] = [
    { name: 'fractional cpu to millicores', limits: { cpu: '1.5' }, want: { cpu: 1500 } },
    { name: 'millicores', limits: { cpu: '2500m' }, want: { cpu: 2500 } },
    { name: 'decimal memory', limits: { memory: '1G' }, want: { memory: 1e9 } },
    // Karpenter compares quantities exactly; for integer usage, flooring keeps `usage > limit` exact.
    { name: 'fractions below the unit are floored', limits: { nodes: '2.5', cpu: '0.0005' }, want: { nodes: 2, cpu: 0 } },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(compileNodePool(manifest((m) => (m.spec.limits = c.limits))).limits, c.want));
  }
});

describe('parseNillableDuration', () => {
  const cases: { text: string; want: number | null }[] = [
    { text: '720h', want: 2_592_000 },
    { text: '1h30m', want: 5400 },
    { text: '30s', want: 30 },
    { text: '1h30m5s', want: 5405 },
    { text: '0s', want: 0 },
    { text: 'Never', want: null },
  ];
  for (const c of cases) it(c.text, () => assert.equal(parseNillableDuration(c.text), c.want));

  const bad: { text: string; message: string }[] = [
    { text: '1hr', message: `Invalid value: "1hr": should match '^(([0-9]+(s|m|h))+|Never)$'` },
    { text: '-1s', message: `Invalid value: "-1s": should match '^(([0-9]+(s|m|h))+|Never)$'` },
    { text: 'FooNever', message: `Invalid value: "FooNever": should match '^(([0-9]+(s|m|h))+|Never)$'` },
    { text: '1.5h', message: `Invalid value: "1.5h": should match '^(([0-9]+(s|m|h))+|Never)$'` },
    { text: '9999999999h', message: 'Invalid value: "9999999999h": time: invalid duration "9999999999h"' },
  ];
  for (const c of bad) {
    it(`rejects ${c.text}`, () => assert.throws(() => parseNillableDuration(c.text, ['x']), (e: Error & { path?: unknown }) => e.message === c.message && JSON.stringify(e.path) === '["x"]'));
  }
});

describe('validation errors', () => {
  const R = 'spec.template.spec.requirements';
  const cases: { name: string; edit: (m: NodePoolManifest) => void; want: string[] }[] = [
    { name: 'missing name', edit: (m) => (m.metadata = {}), want: ['metadata.name: Required value: name or generateName is required'] },
    { name: 'weight 0', edit: (m) => (m.spec.weight = 0), want: ['spec.weight: Invalid value: 0: must be greater than or equal to 1'] },
    { name: 'weight 101', edit: (m) => (m.spec.weight = 101), want: ['spec.weight: Invalid value: 101: must be less than or equal to 100'] },
    { name: 'negative replicas', edit: (m) => (m.spec.replicas = -1), want: ['spec.replicas: Invalid value: -1: must be greater than or equal to 0'] },
    {
      name: 'static NodePool with weight and cpu limit',
      edit: (m) => {
        m.spec.replicas = 3;
        m.spec.weight = 10;
        m.spec.limits = { cpu: '100', nodes: '5' };
      },
      want: ["spec.weight: Forbidden: 'weight' is not supported on static NodePools", "spec.limits.cpu: Forbidden: only 'limits.nodes' is supported on static NodePools"],
    },
    {
      name: 'restricted label domain',
      edit: (m) => (m.spec.template.metadata = { labels: { 'karpenter.sh/team': 'a', 'sub.karpenter.sh/x': 'b', 'karpenter.sh/capacity-type': 'spot' } }),
      want: [
        'spec.template.metadata.labels.karpenter.sh/team: Invalid value: "karpenter.sh/team": label domain "karpenter.sh" is restricted',
        'spec.template.metadata.labels.sub.karpenter.sh/x: Invalid value: "sub.karpenter.sh/x": label domain "karpenter.sh" is restricted',
      ],
    },
    {
      name: 'nodepool and hostname labels',
      edit: (m) => (m.spec.template.metadata = { labels: { 'karpenter.sh/nodepool': 'x', 'kubernetes.io/hostname': 'h' } }),
      want: [
        'spec.template.metadata.labels.karpenter.sh/nodepool: Invalid value: "karpenter.sh/nodepool": label "karpenter.sh/nodepool" is restricted',
        'spec.template.metadata.labels.kubernetes.io/hostname: Invalid value: "kubernetes.io/hostname": label "kubernetes.io/hostname" is restricted',
      ],
    },
    {
      name: 'kubernetes.io and k8s.io labels are allowed (Karpenter v1.9+)',
      edit: (m) => (m.spec.template.metadata = { labels: { 'kubernetes.io/role': 'x', 'node-role.kubernetes.io/worker': '', 'k8s.io/a': 'b', 'kops.k8s.io/instancegroup': 'n' } }),
      want: [],
    },
    {
      name: 'karpenter.k8s.aws keys: only the AWS provider\'s own, when the NodeClass is an EC2NodeClass',
      edit: (m) => {
        m.spec.template.metadata = { labels: { 'karpenter.k8s.aws/team': 'a', 'karpenter.k8s.aws/instance-family': 'm5' } };
        tmpl(m).requirements = [
          { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m'] },
          { key: 'karpenter.k8s.aws/fast', operator: 'Exists' },
        ];
      },
      want: [
        'spec.template.metadata.labels.karpenter.k8s.aws/team: Invalid value: "karpenter.k8s.aws/team": label domain "karpenter.k8s.aws" is restricted',
        `${R}[1].key: Invalid value: "karpenter.k8s.aws/fast": label domain "karpenter.k8s.aws" is restricted`,
      ],
    },
    {
      name: 'karpenter.k8s.aws keys are not restricted for other providers',
      edit: (m) => {
        tmpl(m).nodeClassRef = { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' };
        tmpl(m).requirements = [{ key: 'karpenter.k8s.aws/fast', operator: 'Exists' }];
      },
      want: [],
    },
    {
      name: 'label key that is not a qualified name',
      edit: (m) => (m.spec.template.metadata = { labels: { 'spaces are not allowed': 'v' } }),
      want: [
        "spec.template.metadata.labels.spaces are not allowed: Invalid value: \"spaces are not allowed\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    },
    {
      name: 'label value',
      edit: (m) => (m.spec.template.metadata = { labels: { a: '/ is not allowed', b: 'x'.repeat(64) } }),
      want: [
        `spec.template.metadata.labels.a: Invalid value: "/ is not allowed": should match '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$'`,
        'spec.template.metadata.labels.b: Too long: may not be more than 63 bytes',
      ],
    },
    {
      name: 'more than 100 labels',
      edit: (m) => (m.spec.template.metadata = { labels: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`l${i}`, 'v'])) }),
      want: ['spec.template.metadata.labels: Too many: 101: must have at most 100 items'],
    },
    {
      name: 'restricted requirement keys',
      edit: (m) =>
        (tmpl(m).requirements = [
          { key: 'karpenter.sh/nodepool', operator: 'In', values: ['a'] },
          { key: 'karpenter.sh/unknown', operator: 'Exists' },
          { key: 'kubernetes.io/hostname', operator: 'Exists' },
        ]),
      want: [
        `${R}[0].key: Invalid value: "karpenter.sh/nodepool": label "karpenter.sh/nodepool" is restricted`,
        `${R}[1].key: Invalid value: "karpenter.sh/unknown": label domain "karpenter.sh" is restricted`,
        `${R}[2].key: Invalid value: "kubernetes.io/hostname": label "kubernetes.io/hostname" is restricted`,
      ],
    },
    {
      name: 'requirement key syntax and length',
      edit: (m) =>
        (tmpl(m).requirements = [
          { key: 'test.com.com}', operator: 'Exists' },
          { key: `test.com/${'a'.repeat(64)}`, operator: 'Exists' },
          { key: `a/${'b'.repeat(320)}`, operator: 'Exists' },
        ]),
      want: [
        `${R}[0].key: Invalid value: "test.com.com}": should match '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$'`,
        `${R}[1].key: Invalid value: "test.com/${'a'.repeat(64)}": name part must be no more than 63 bytes`,
        `${R}[2].key: Too long: may not be more than 316 bytes`,
      ],
    },
    {
      name: 'unsupported operator',
      edit: (m) => (tmpl(m).requirements = [{ key: 'zone', operator: 'Near', values: ['a'] }]),
      want: [`${R}[0].operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"`],
    },
    {
      name: 'In without values',
      edit: (m) => (tmpl(m).requirements = [{ key: 'zone', operator: 'In' }]),
      want: [`${R}[0].values: Invalid value: []: requirements with operator 'In' must have a value defined`],
    },
    {
      name: 'Gt, Lt, Gte and Lte need one non-negative integer',
      edit: (m) =>
        (tmpl(m).requirements = [
          { key: 'a', operator: 'Gt', values: [] },
          { key: 'a', operator: 'Lt', values: ['1', '2'] },
          { key: 'a', operator: 'Gte', values: ['a'] },
          { key: 'a', operator: 'Lte', values: ['-1'] },
          { key: 'a', operator: 'Gt', values: ['99999999999999999999'] },
        ]),
      want: [0, 1, 2, 3, 4].map((i) => {
        const values = [[], ['1', '2'], ['a'], ['-1'], ['99999999999999999999']][i];
        return `${R}[${i}].values: Invalid value: ${JSON.stringify(values)}: requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value`;
      }),
    },
    {
      name: 'NotIn and Exists need no values check',
      edit: (m) => (tmpl(m).requirements = [{ key: 'a', operator: 'NotIn' }, { key: 'b', operator: 'DoesNotExist' }]),
      want: [],
    },
    {
      name: 'minValues bounds and count',
      edit: (m) =>
        (tmpl(m).requirements = [
          { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['a'], minValues: 0 },
          { key: 'node.kubernetes.io/instance-type', operator: 'Exists', minValues: 51 },
          { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['a'], minValues: 2 },
        ]),
      want: [
        `${R}[0].minValues: Invalid value: 0: must be greater than or equal to 1`,
        `${R}[1].minValues: Invalid value: 51: must be less than or equal to 50`,
        `${R}[2].minValues: Invalid value: 2: requirements with 'minValues' must have at least that many values specified in the 'values' field`,
      ],
    },
    {
      name: 'requirement values must be label values',
      edit: (m) => (tmpl(m).requirements = [{ key: 'a', operator: 'In', values: ['ok', 'not ok'] }]),
      want: [
        `${R}[0].values[1]: Invalid value: "not ok": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      ],
    },
    {
      name: 'capacity type without a known value',
      edit: (m) =>
        (tmpl(m).requirements = [
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['preemptible'] },
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'cheap'], minValues: 2 },
        ]),
      want: [
        `${R}[0].values: Invalid value: ["preemptible"]: no valid values found for karpenter.sh/capacity-type, expected one of: "on-demand", "reserved", "spot"`,
        `${R}[1].values: Invalid value: ["spot","cheap"]: not enough valid values found for karpenter.sh/capacity-type, expected at least 2 valid values from: "on-demand", "reserved", "spot", got: 1`,
      ],
    },
    {
      name: 'taints',
      edit: (m) => {
        tmpl(m).taints = [
          { key: '', effect: 'NoSchedule' },
          { key: 'Test.com/test', effect: 'NoSchedule' },
          { key: 'invalid-value', value: '???', effect: 'NoSchedule' },
          { key: 'invalid-effect', effect: '???' },
          { key: 'a', effect: 'NoSchedule' },
          { key: 'a', effect: 'NoExecute' },
        ];
        tmpl(m).startupTaints = [{ key: 'a', effect: 'NoSchedule' }];
      },
      want: [
        'spec.template.spec.taints[0].key: Required value',
        `spec.template.spec.taints[1].key: Invalid value: "Test.com/test": should match '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$'`,
        `spec.template.spec.taints[2].value: Invalid value: "???": should match '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$'`,
        'spec.template.spec.taints[3].effect: Unsupported value: "???": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        'spec.template.spec.startupTaints[0]: Duplicate value: "a=NoSchedule": duplicate taint Key/Effect pair',
      ],
    },
    {
      name: 'taint key too long for a qualified name',
      edit: (m) => (tmpl(m).taints = [{ key: `test.com.test/test-${'a'.repeat(60)}`, effect: 'NoSchedule' }]),
      want: [`spec.template.spec.taints[0].key: Invalid value: "test.com.test/test-${'a'.repeat(60)}": name part must be no more than 63 bytes`],
    },
    {
      name: 'nodeClassRef',
      edit: (m) => (tmpl(m).nodeClassRef = { group: 'karpenter.k8s.aws/v1', kind: '', name: '' }),
      want: [
        'spec.template.spec.nodeClassRef.kind: Invalid value: "": kind may not be empty',
        'spec.template.spec.nodeClassRef.name: Invalid value: "": name may not be empty',
        `spec.template.spec.nodeClassRef.group: Invalid value: "karpenter.k8s.aws/v1": should match '^[^/]*$'`,
      ],
    },
    {
      name: 'empty nodeClassRef group',
      edit: (m) => (tmpl(m).nodeClassRef.group = ''),
      want: ['spec.template.spec.nodeClassRef.group: Invalid value: "": group may not be empty'],
    },
    {
      name: 'durations',
      edit: (m) => {
        tmpl(m).expireAfter = '1hr';
        tmpl(m).terminationGracePeriod = 'Never';
        m.spec.disruption = { consolidateAfter: '-1s' };
      },
      want: [
        `spec.template.spec.expireAfter: Invalid value: "1hr": should match '^(([0-9]+(s|m|h))+|Never)$'`,
        `spec.template.spec.terminationGracePeriod: Invalid value: "Never": should match '^([0-9]+(s|m|h))+$'`,
        `spec.disruption.consolidateAfter: Invalid value: "-1s": should match '^(([0-9]+(s|m|h))+|Never)$'`,
      ],
    },
    {
      name: 'consolidation policy',
      edit: (m) => (m.spec.disruption = { consolidationPolicy: 'WhenUnderutilized' }),
      want: ['spec.disruption.consolidationPolicy: Unsupported value: "WhenUnderutilized": supported values: "WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"'],
    },
    {
      name: 'budget nodes',
      edit: (m) => (m.spec.disruption = { budgets: [{ nodes: '-10' }, { nodes: '1000%' }, { nodes: 'ten' }, { nodes: '100%' }, { nodes: '0' }] }),
      want: [0, 1, 2].map((i) => `spec.disruption.budgets[${i}].nodes: Invalid value: ${JSON.stringify(['-10', '1000%', 'ten'][i])}: should match '^((100|[0-9]{1,2})%|[0-9]+)$'`),
    },
    {
      name: 'schedule and duration must be set together',
      edit: (m) => (m.spec.disruption = { budgets: [{ nodes: '10', schedule: '* * * * *' }, { nodes: '10', duration: '20m' }] }),
      want: [
        "spec.disruption.budgets[0].duration: Required value: 'schedule' must be set with 'duration'",
        "spec.disruption.budgets[1].schedule: Required value: 'schedule' must be set with 'duration'",
      ],
    },
    {
      name: 'schedules',
      edit: (m) =>
        (m.spec.disruption = {
          budgets: [
            { schedule: '*', duration: '20m' },
            { schedule: '* * * * ', duration: '20m' },
            { schedule: '61 * * * *', duration: '20m' },
            { schedule: '@dailyish', duration: '20m' },
            { schedule: '0 0 * * * *', duration: '20m' },
          ],
        }),
      want: [
        `spec.disruption.budgets[0].schedule: Invalid value: "*": should match '^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)[\\t\\n\\f\\r ](.+)[\\t\\n\\f\\r ](.+)[\\t\\n\\f\\r ](.+)[\\t\\n\\f\\r ](.+))$'`,
        `spec.disruption.budgets[1].schedule: Invalid value: "* * * * ": should match '^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)[\\t\\n\\f\\r ](.+)[\\t\\n\\f\\r ](.+)[\\t\\n\\f\\r ](.+)[\\t\\n\\f\\r ](.+))$'`,
        'spec.disruption.budgets[2].schedule: Invalid value: "61 * * * *": invalid cron: end of range (61) above maximum (59): 61',
        'spec.disruption.budgets[3].schedule: Invalid value: "@dailyish": invalid cron: unrecognized descriptor: @dailyish',
        'spec.disruption.budgets[4].schedule: Invalid value: "0 0 * * * *": invalid cron: expected exactly 5 fields, found 6: [0 0 * * * *]',
      ],
    },
    {
      name: 'budget durations take hours and minutes only',
      edit: (m) =>
        (m.spec.disruption = {
          budgets: [
            { schedule: '@hourly', duration: '30s' },
            { schedule: '@hourly', duration: '-20m' },
            { schedule: '@hourly', duration: '2h20m0s' },
            { schedule: '@hourly', duration: '1h1h' },
          ],
        }),
      want: [0, 1, 3].map((i) => `spec.disruption.budgets[${i}].duration: Invalid value: ${JSON.stringify(['30s', '-20m', '', '1h1h'][i])}: should match '^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$'`),
    },
    {
      name: 'budget reasons',
      edit: (m) => (m.spec.disruption = { budgets: [{ reasons: ['Drifted', 'expired', 'Drifted', ''] }] }),
      want: [
        'spec.disruption.budgets[0].reasons[1]: Unsupported value: "expired": supported values: "Underutilized", "Empty", "Drifted"',
        'spec.disruption.budgets[0].reasons[2]: Duplicate value: "Drifted"',
        'spec.disruption.budgets[0].reasons[3]: Unsupported value: "": supported values: "Underutilized", "Empty", "Drifted"',
      ],
    },
    {
      name: 'more than 50 budgets',
      edit: (m) => (m.spec.disruption = { budgets: Array.from({ length: 51 }, () => ({ nodes: '1' })) }),
      want: ['spec.disruption.budgets: Too many: 51: must have at most 50 items'],
    },
    {
      name: 'limits',
      edit: (m) => (m.spec.limits = { cpu: '10 cores', memory: 0.5, nodes: '1x' }),
      want: [
        `spec.limits.cpu: Invalid value: "10 cores": should match '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$'`,
        'spec.limits.memory: Invalid value: 0.5: must be an integer or a quantity string',
        `spec.limits.nodes: Invalid value: "1x": should match '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$'`,
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(errorsOf(manifest(c.edit)), c.want));
  }

  it('compileNodePool throws the first error as a FieldError', () => {
    assert.throws(
      () => compileNodePool(manifest((m) => (m.spec.weight = 0))),
      (e: Error & { path?: readonly (string | number)[] }) => e.message.startsWith('Invalid value: 0') && JSON.stringify(e.path) === '["spec","weight"]',
    );
  });
});

describe('orderNodePools', () => {
  const pool = (name: string, weight?: number) => compileNodePool(manifest((m) => ((m.metadata.name = name), weight !== undefined && (m.spec.weight = weight))));
  it('higher weight first, then names later in the alphabet first', () => {
    const order = orderNodePools([pool('a'), pool('b', 10), pool('c'), pool('d', 10), pool('e', 100)]).map((p) => p.name);
    assert.deepEqual(order, ['e', 'd', 'b', 'c', 'a']);
  });
});

describe('nodeClassLabelKey', () => {
  it('is group/lowercased kind', () => assert.equal(nodeClassLabelKey({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }), 'karpenter.k8s.aws/ec2nodeclass'));
});

describe('disruption budgets', () => {
  const withBudgets = (budgets: NonNullable<NodePoolManifest['spec']['disruption']>['budgets']): NodePool => compileNodePool(manifest((m) => (m.spec.disruption = { budgets })));
  // Friday 2024-03-15.
  const at = (iso: string) => Date.parse(iso);

  const activity: { name: string; schedule: string; duration: string; now: string; active: boolean }[] = [
    { name: 'inside a weekday window', schedule: '0 9 * * mon-fri', duration: '8h', now: '2024-03-15T12:00:00Z', active: true },
    { name: 'at the window start', schedule: '0 9 * * mon-fri', duration: '8h', now: '2024-03-15T09:00:00Z', active: true },
    // Karpenter looks for a hit after now-duration (cron's Next is strictly later), so a window is [hit, hit+duration).
    { name: 'a second before the window ends', schedule: '0 9 * * mon-fri', duration: '8h', now: '2024-03-15T16:59:59Z', active: true },
    { name: 'exactly one duration after the hit', schedule: '0 9 * * mon-fri', duration: '8h', now: '2024-03-15T17:00:00Z', active: false },
    { name: 'after the window', schedule: '0 9 * * mon-fri', duration: '8h', now: '2024-03-15T17:00:01Z', active: false },
    { name: 'on a weekend', schedule: '0 9 * * mon-fri', duration: '8h', now: '2024-03-16T12:00:00Z', active: false },
    { name: '@daily for ten minutes, just after midnight', schedule: '@daily', duration: '10m', now: '2024-03-16T00:05:00Z', active: true },
    { name: '@daily for ten minutes, at noon', schedule: '@daily', duration: '10m', now: '2024-03-16T12:00:00Z', active: false },
    { name: 'a schedule that never fires counts as active', schedule: '0 0 30 2 *', duration: '1h', now: '2024-03-16T12:00:00Z', active: true },
  ];
  for (const c of activity) {
    it(c.name, () => {
      const budget = withBudgets([{ nodes: '0', schedule: c.schedule, duration: c.duration }]).disruption.budgets[0]!;
      assert.equal(isBudgetActive(budget, at(c.now)), c.active);
    });
  }

  it('an inactive budget is unbounded; percentages round up', () => {
    const [pct, count, window] = withBudgets([{ nodes: '15%' }, { nodes: '3' }, { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }]).disruption.budgets;
    const now = at('2024-03-16T12:00:00Z');
    assert.equal(budgetAllowedDisruptions(pct!, now, 10), 2);
    assert.equal(budgetAllowedDisruptions(pct!, now, 0), 0);
    assert.equal(budgetAllowedDisruptions(count!, now, 10), 3);
    assert.equal(budgetAllowedDisruptions(window!, now, 10), UNBOUNDED_DISRUPTIONS);
  });

  it('the most restrictive budget that applies to the reason wins', () => {
    const pool = withBudgets([{ nodes: '50%' }, { nodes: '0', reasons: ['Underutilized'] }, { nodes: '1', reasons: [] }]);
    const now = at('2024-03-16T12:00:00Z');
    assert.equal(allowedDisruptions(pool, now, 10, 'Underutilized'), 0);
    assert.equal(allowedDisruptions(pool, now, 10, 'Drifted'), 5);
    assert.equal(allowedDisruptions(withBudgets([]), now, 10, 'Empty'), UNBOUNDED_DISRUPTIONS);
  });
});
