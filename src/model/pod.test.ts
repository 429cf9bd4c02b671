import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldError } from './errors.js';
import type { ContainerManifest, PodAffinityTermManifest, PodManifest, PodSpecManifest, TolerationManifest, TopologySpreadConstraintManifest } from './manifest.js';
import { compilePod, tolerationComparisonError, type Pod } from './pod.js';

const MI = 1024 * 1024;

function pod(spec: Partial<PodSpecManifest>, labels: Record<string, string> = {}, namespace = 'ns1'): Pod {
  const m: PodManifest = { metadata: { name: 'p', namespace, labels }, spec: { containers: [{ name: 'c' }], ...spec } };
  return compilePod(m, { order: 0 });
}

function rejects(spec: Partial<PodSpecManifest>, message: string, path: (string | number)[], labels: Record<string, string> = {}) {
  assert.throws(
    () => pod(spec, labels),
    (e: unknown) => e instanceof FieldError && e.message === message && assert.deepEqual(e.path, path) === undefined,
  );
}

const withResources = (requests?: Record<string, string | number>, limits?: Record<string, string | number>): ContainerManifest => ({
  name: 'c',
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
});

describe('compilePod resources', () => {
  const cases: { name: string; spec: Partial<PodSpecManifest>; requests: Record<string, number>; nonZero?: [number, number] }[] = [
    { name: 'requests as written', spec: { containers: [withResources({ cpu: '250m', memory: '64Mi' })] }, requests: { cpu: 250, memory: 64 * MI } },
    { name: 'a limit without a request becomes the request', spec: { containers: [withResources(undefined, { cpu: '1', memory: '1Gi' })] }, requests: { cpu: 1000, memory: 1024 * MI } },
    { name: 'an explicit request beats the limit', spec: { containers: [withResources({ cpu: '100m' }, { cpu: '1' })] }, requests: { cpu: 100 } },
    { name: 'YAML numbers', spec: { containers: [withResources({ cpu: 0.5, memory: 1024 })] }, requests: { cpu: 500, memory: 1024 } },
    {
      name: 'container sum and init max',
      spec: { containers: [withResources({ cpu: '1' }), withResources({ cpu: '1' })], initContainers: [{ ...withResources({ cpu: '3' }), name: 'i' }] },
      requests: { cpu: 3000 },
    },
    {
      name: 'sidecar added to the sum and to later init containers',
      spec: {
        containers: [withResources({ cpu: '1' })],
        initContainers: [{ ...withResources({ cpu: '1' }), name: 's', restartPolicy: 'Always' }, { ...withResources({ cpu: '2' }), name: 'i' }],
      },
      // max(1 + 1, 2 + 1) = 3
      requests: { cpu: 3000 },
    },
    { name: 'overhead is added', spec: { containers: [withResources({ cpu: '1' })], overhead: { cpu: '250m' } }, requests: { cpu: 1250 } },
    { name: 'non-zero defaults per missing request', spec: { containers: [withResources({ cpu: '0' }), withResources({})] }, requests: { cpu: 0 }, nonZero: [100, 400 * MI] },
    {
      // podutil.DefaultPodLevelResources: cpu from the containers' aggregate, not from the pod-level limit
      name: 'pod-level cpu limit: request defaults to the containers aggregate',
      spec: { containers: [withResources({ cpu: '500m' })], resources: { limits: { cpu: '2' } } },
      requests: { cpu: 500 },
      nonZero: [500, 200 * MI],
    },
    {
      name: 'pod-level limit without any container request: request is the limit',
      spec: { containers: [withResources({})], resources: { limits: { cpu: '2', memory: '1Gi' } } },
      requests: { cpu: 2000, memory: 1024 * MI },
      nonZero: [2000, 1024 * MI],
    },
    {
      name: 'pod-level requests alone pull in the containers aggregate for the others',
      spec: { containers: [withResources({ cpu: '2m' })], resources: { requests: { memory: '2Mi' } } },
      requests: { cpu: 2, memory: 2 * MI },
      nonZero: [2, 2 * MI],
    },
    {
      name: 'pod-level requests: cpu missing at both levels gets the per-container default',
      spec: { containers: [withResources({}), withResources({})], resources: { requests: { memory: '1Gi' } } },
      requests: { memory: 1024 * MI },
      nonZero: [200, 1024 * MI],
    },
    {
      name: 'a pod-level hugepages limit becomes the request',
      spec: { containers: [withResources({})], resources: { limits: { 'hugepages-1Gi': '2Gi' } } },
      requests: { 'hugepages-1Gi': 2048 * MI },
    },
    {
      name: 'a pod-level limit of an unsupported resource is no pod-level request',
      spec: { containers: [withResources({})], resources: { limits: { 'ephemeral-storage': '1Gi' } } },
      requests: {},
      nonZero: [100, 200 * MI],
    },
    {
      name: 'explicit pod-level request wins',
      spec: { containers: [withResources({ cpu: '100m' })], resources: { requests: { cpu: '1' }, limits: { cpu: '2' } } },
      requests: { cpu: 1000 },
    },
    { name: 'empty pod-level resources are no pod-level resources', spec: { containers: [withResources({})], resources: { requests: {} } }, requests: {}, nonZero: [100, 200 * MI] },
    { name: 'fractional memory is summed exactly', spec: { containers: [withResources({ memory: '0.1Gi' }), withResources({ memory: '0.1Gi' })] }, requests: { memory: 214_748_365 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = pod(c.spec);
      assert.deepEqual(p.resources.requests, c.requests);
      if (c.nonZero) assert.deepEqual([p.resources.nonZeroCpu, p.resources.nonZeroMemory], c.nonZero);
    });
  }

  it('a request above its limit is rejected at the request', () => {
    rejects({ containers: [withResources({ cpu: '2' }, { cpu: '1' })] }, 'Invalid value: "2": must be less than or equal to cpu limit of 1', ['spec', 'containers', 0, 'resources', 'requests', 'cpu']);
  });
  it('request and limit are compared exactly (1.5 vs 1.2 bytes)', () => {
    assert.throws(() => pod({ containers: [withResources({ memory: '1.5' }, { memory: '1.2' })] }), FieldError);
  });
  it('a negative quantity is rejected', () => {
    rejects({ initContainers: [{ ...withResources({ memory: '-1' }), name: 'i' }] }, 'Invalid value: "-1": must be greater than or equal to 0', ['spec', 'initContainers', 0, 'resources', 'requests', 'memory']);
  });
  it('a tiny negative quantity is still negative', () => {
    rejects({ containers: [withResources({ cpu: '-0.1m' })] }, 'Invalid value: "-0.1m": must be greater than or equal to 0', ['spec', 'containers', 0, 'resources', 'requests', 'cpu']);
  });
  it('an unparsable quantity names its field', () => {
    assert.throws(
      () => pod({ containers: [withResources(undefined, { memory: '1Gb' })] }),
      (e: unknown) => e instanceof FieldError && /unknown suffix "Gb"/.test(e.message) && assert.deepEqual(e.path, ['spec', 'containers', 0, 'resources', 'limits', 'memory']) === undefined,
    );
  });
});

describe('compilePod host ports (GetHostPorts)', () => {
  const cases: { name: string; spec: Partial<PodSpecManifest>; want: { hostIP: string; protocol: string; port: number }[] }[] = [
    {
      name: 'container host ports with defaults',
      spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 53, hostPort: 53, protocol: 'UDP', hostIP: '10.0.0.1' }] }] },
      want: [
        { hostIP: '', protocol: 'TCP', port: 8080 },
        { hostIP: '10.0.0.1', protocol: 'UDP', port: 53 },
      ],
    },
    { name: 'no host port, no entry', spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }, { containerPort: 81, hostPort: 0 }] }] }, want: [] },
    {
      name: 'sidecar host ports count, plain init containers do not, sidecars first',
      spec: {
        containers: [{ name: 'c', ports: [{ containerPort: 1, hostPort: 1 }] }],
        initContainers: [
          { name: 'i', ports: [{ containerPort: 2, hostPort: 2 }] },
          { name: 's', restartPolicy: 'Always', ports: [{ containerPort: 3, hostPort: 3 }] },
        ],
      },
      want: [
        { hostIP: '', protocol: 'TCP', port: 3 },
        { hostIP: '', protocol: 'TCP', port: 1 },
      ],
    },
    {
      name: 'hostNetwork makes container ports host ports',
      spec: { hostNetwork: true, containers: [{ name: 'c', ports: [{ containerPort: 9100 }, { containerPort: 80, hostPort: 8080 }] }] },
      want: [
        { hostIP: '', protocol: 'TCP', port: 9100 },
        { hostIP: '', protocol: 'TCP', port: 8080 },
      ],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(pod(c.spec).hostPorts, c.want));
});

const term = (t: Partial<PodAffinityTermManifest>): PodAffinityTermManifest => ({ topologyKey: 'zone', labelSelector: { matchLabels: { app: 'web' } }, ...t });
const affinity = (t: PodAffinityTermManifest) => ({ affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [t] } } });
const antiPreferred = (t: PodAffinityTermManifest) => ({ affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: t }] } } });

describe('compilePod affinity terms', () => {
  const podLabels = { app: 'web', rev: 'v1' };
  const cases: { name: string; spec: Partial<PodSpecManifest>; matches: [Record<string, string>, boolean][] }[] = [
    {
      name: 'matchLabelKeys adds key In (pod value)',
      spec: affinity(term({ matchLabelKeys: ['rev'] })),
      matches: [
        [{ app: 'web', rev: 'v1' }, true],
        [{ app: 'web', rev: 'v2' }, false],
        [{ app: 'web' }, false],
      ],
    },
    {
      name: 'mismatchLabelKeys adds key NotIn (pod value)',
      spec: affinity(term({ mismatchLabelKeys: ['rev'] })),
      matches: [
        [{ app: 'web', rev: 'v1' }, false],
        [{ app: 'web', rev: 'v2' }, true],
        [{ app: 'web' }, true],
      ],
    },
    { name: 'a key the pod lacks is not merged', spec: affinity(term({ matchLabelKeys: ['team'] })), matches: [[{ app: 'web', team: 'x' }, true]] },
    {
      name: 'an empty selector with matchLabelKeys selects only that value',
      spec: affinity(term({ labelSelector: {}, matchLabelKeys: ['rev'] })),
      matches: [
        [{ rev: 'v1' }, true],
        [{ rev: 'v2' }, false],
      ],
    },
    { name: 'a nil selector selects nothing', spec: affinity(term({ labelSelector: null })), matches: [[{ app: 'web' }, false]] },
    {
      name: 'a pod read back from the API server, which merged matchLabelKeys at creation, is not merged twice',
      spec: affinity(term({ labelSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'rev', operator: 'In', values: ['v1'] }] }, matchLabelKeys: ['rev'] })),
      matches: [
        [{ app: 'web', rev: 'v1' }, true],
        [{ app: 'web', rev: 'v2' }, false],
      ],
    },
    {
      name: 'preferred anti-affinity terms are merged too',
      spec: antiPreferred(term({ matchLabelKeys: ['rev'] })),
      matches: [
        [{ app: 'web', rev: 'v1' }, true],
        [{ app: 'web', rev: 'v2' }, false],
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = pod(c.spec, podLabels);
      const t = p.requiredAffinity[0] ?? p.preferredAntiAffinity[0]!.term;
      assert.deepEqual(
        c.matches.map(([labels]) => t.selector.matches(labels)),
        c.matches.map(([, want]) => want),
      );
    });
  }

  const nsCases: { name: string; t: Partial<PodAffinityTermManifest>; namespaces: string[]; selectorEverything: boolean; selectorNothing: boolean }[] = [
    { name: 'no namespaces and no selector: the pod namespace', t: {}, namespaces: ['ns1'], selectorEverything: false, selectorNothing: true },
    { name: 'empty namespaces list: the pod namespace', t: { namespaces: [] }, namespaces: ['ns1'], selectorEverything: false, selectorNothing: true },
    { name: 'explicit namespaces', t: { namespaces: ['a', 'b'] }, namespaces: ['a', 'b'], selectorEverything: false, selectorNothing: true },
    { name: 'empty namespaceSelector: all namespaces, no defaulting', t: { namespaceSelector: {} }, namespaces: [], selectorEverything: true, selectorNothing: false },
    { name: 'namespaceSelector and namespaces together', t: { namespaces: ['a'], namespaceSelector: { matchLabels: { team: 'x' } } }, namespaces: ['a'], selectorEverything: false, selectorNothing: false },
  ];
  for (const c of nsCases) {
    it(`namespaces: ${c.name}`, () => {
      const t = pod(affinity(term(c.t))).requiredAffinity[0]!;
      assert.deepEqual([...t.namespaces], c.namespaces);
      assert.deepEqual([t.namespaceSelector.everything, t.namespaceSelector.nothing], [c.selectorEverything, c.selectorNothing]);
    });
  }

  const base = ['spec', 'affinity', 'podAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 0];
  const errCases: { name: string; t: Partial<PodAffinityTermManifest>; message: string; path: (string | number)[] }[] = [
    { name: 'empty topologyKey', t: { topologyKey: '' }, message: 'Required value: can not be empty', path: [...base, 'topologyKey'] },
    {
      name: 'matchLabelKeys without a selector',
      t: { labelSelector: null, matchLabelKeys: ['rev'] },
      message: 'Forbidden: must not be specified when labelSelector is not set',
      path: [...base, 'matchLabelKeys'],
    },
    {
      name: 'mismatchLabelKeys without a selector',
      t: { labelSelector: undefined, mismatchLabelKeys: ['rev'] },
      message: 'Forbidden: must not be specified when labelSelector is not set',
      path: [...base, 'mismatchLabelKeys'],
    },
    {
      name: 'a matchLabelKeys key already in matchLabels',
      t: { labelSelector: { matchLabels: { rev: 'v1' } }, matchLabelKeys: ['app', 'rev'] },
      message: 'Invalid value: "rev": exists in both matchLabelKeys and labelSelector',
      path: [...base, 'matchLabelKeys', 1],
    },
    {
      name: 'a matchLabelKeys key already in matchExpressions',
      t: { labelSelector: { matchExpressions: [{ key: 'rev', operator: 'Exists', values: [] }] }, matchLabelKeys: ['rev'] },
      message: 'Invalid value: "rev": exists in both matchLabelKeys and labelSelector',
      path: [...base, 'matchLabelKeys', 0],
    },
    {
      name: 'a key in both matchLabelKeys and mismatchLabelKeys',
      t: { matchLabelKeys: ['team'], mismatchLabelKeys: ['team'] },
      message: 'Invalid value: "team": exists in both matchLabelKeys and mismatchLabelKeys',
      path: [...base, 'matchLabelKeys', 0],
    },
    {
      name: 'selector errors carry the selector path',
      t: { labelSelector: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] } },
      message: "Required value: must be specified when `operator` is 'In' or 'NotIn'",
      path: [...base, 'labelSelector', 'matchExpressions', 0, 'values'],
    },
  ];
  for (const c of errCases) it(`rejects: ${c.name}`, () => rejects(affinity(term(c.t)), c.message, c.path, podLabels));

  it('the duplicate check runs after merging: a key the pod lacks is no duplicate', () => {
    assert.doesNotThrow(() => pod(affinity(term({ labelSelector: { matchLabels: { team: 'x' } }, matchLabelKeys: ['team'] })), podLabels));
  });
  it('mismatchLabelKeys may repeat a selector key', () => {
    assert.doesNotThrow(() => pod(affinity(term({ labelSelector: { matchLabels: { rev: 'v0' } }, mismatchLabelKeys: ['rev'] })), podLabels));
  });
  it('preferred weight out of range', () => {
    rejects(
      { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, podAffinityTerm: term({}) }] } } },
      'Invalid value: 0: must be in the range 1-100',
      ['spec', 'affinity', 'podAffinity', 'preferredDuringSchedulingIgnoredDuringExecution', 0, 'weight'],
    );
  });
});

describe('compilePod node affinity', () => {
  const required = (terms: unknown[]) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms as never } } } });
  const reqPath = ['spec', 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution'];

  it('no terms is rejected (ValidateNodeSelector)', () => {
    rejects(required([]), 'Required value: must have at least one node selector term', [...reqPath, 'nodeSelectorTerms']);
  });
  it('a term with a non-integer Gt value only fails itself (LazyErrorNodeSelector)', () => {
    const p = pod(required([{ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['many'] }] }, { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }]));
    assert.equal(p.requiredNodeAffinity!.matches({ name: 'n', labels: { cores: '8', zone: 'b' } }), false);
    assert.equal(p.requiredNodeAffinity!.matches({ name: 'n', labels: { cores: '8', zone: 'a' } }), true);
  });
  it('an API-invalid required term is rejected with its path', () => {
    rejects(required([{ matchExpressions: [{ key: 'cores', operator: 'Gt', values: [] }] }]), "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'", [
      ...reqPath,
      'nodeSelectorTerms',
      0,
      'matchExpressions',
      0,
      'values',
    ]);
  });
  it('a preferred term upstream cannot parse keeps the pod and carries NewPreferredSchedulingTerms errors for PreScore', () => {
    const p = pod({
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 1, preference: { matchExpressions: [{ key: 'a', operator: 'In', values: ['ok'] }] } },
            { weight: 1, preference: { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['x'] }] } },
          ],
        },
      },
    });
    assert.equal(p.preferredNodeAffinityError, `[1].matchExpressions[0].values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`);
  });
});

describe('compilePod legacy label values in pod affinity (framework.NewPodInfo)', () => {
  const term = (values: string[]) => ({ topologyKey: 'zone', labelSelector: { matchExpressions: [{ key: 'service', operator: 'In' as const, values }] } });
  // Translated from interpodaffinity's filtering_test "PodAffinity fails PreFilter with an invalid affinity label syntax":
  // the second, valid term is dropped too, and the error names the kind.
  it('PodAffinity fails PreFilter with an invalid affinity label syntax', () => {
    const p = pod({ affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(['{{.bad-value.}}']), term(['antivirusscan', 'value2'])] } } });
    assert.deepEqual(p.requiredAffinity, []);
    assert.match(p.affinityParseError ?? '', /^requiredAffinityTerms: values\[0\]\[service\]: Invalid value: "\{\{\.bad-value\.\}\}": a valid label must be/);
  });
  it('errors of several kinds aggregate in NewPodInfo order; valid kinds keep their terms', () => {
    const p = pod({
      affinity: {
        podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term(['-p']) }], requiredDuringSchedulingIgnoredDuringExecution: [term(['ok'])] },
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(['-a'])] },
      },
    });
    assert.equal(p.requiredAffinity.length, 1);
    assert.deepEqual([p.requiredAntiAffinity, p.preferredAffinity], [[], []]);
    assert.match(p.affinityParseError ?? '', /^\[requiredAntiAffinityTerms: values\[0\]\[service\]: Invalid value: "-a": .*, preferredAffinityTerms: values\[0\]\[service\]: Invalid value: "-p": .*\]$/);
  });
});

describe('compilePod topology spread constraints', () => {
  const tsc = (c: Partial<TopologySpreadConstraintManifest>): TopologySpreadConstraintManifest => ({
    maxSkew: 1,
    topologyKey: 'zone',
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { app: 'web' } },
    ...c,
  });
  const podLabels = { app: 'web', rev: 'v1' };

  it('defaults', () => {
    const c = pod({ topologySpreadConstraints: [tsc({})] }, podLabels).topologySpreadConstraints[0]!;
    assert.deepEqual([c.minDomains, c.nodeAffinityPolicy, c.nodeTaintsPolicy], [1, 'Honor', 'Ignore']);
  });
  it('matchLabelKeys are merged as key In (value)', () => {
    const c = pod({ topologySpreadConstraints: [tsc({ matchLabelKeys: ['rev'] })] }, podLabels).topologySpreadConstraints[0]!;
    assert.deepEqual([c.selector.matches({ app: 'web', rev: 'v1' }), c.selector.matches({ app: 'web', rev: 'v2' })], [true, false]);
  });
  it('a pod read back from the API server (matchLabelKeys merged at creation, as a Deployment pod with pod-template-hash is in a dump) loads with the same selector', () => {
    const labels = { app: 'web', 'pod-template-hash': '5d8f7c9b4' };
    const written = pod({ topologySpreadConstraints: [tsc({ matchLabelKeys: ['pod-template-hash'] })] }, labels).topologySpreadConstraints[0]!;
    const stored = pod(
      { topologySpreadConstraints: [tsc({ labelSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'pod-template-hash', operator: 'In', values: ['5d8f7c9b4'] }] }, matchLabelKeys: ['pod-template-hash'] })] },
      labels,
    ).topologySpreadConstraints[0]!;
    assert.deepEqual(stored.selector.requirements, written.selector.requirements);
    assert.deepEqual(stored.labelSelectorOnly.requirements, written.selector.requirements, 'the stored selector already holds the merged key');
  });
  it('a matchLabelKeys key the pod lacks may also be in the selector', () => {
    assert.doesNotThrow(() => pod({ topologySpreadConstraints: [tsc({ labelSelector: { matchLabels: { team: 'x' } }, matchLabelKeys: ['team'] })] }, podLabels));
  });

  const base = ['spec', 'topologySpreadConstraints', 0];
  const errCases: { name: string; cs: Partial<TopologySpreadConstraintManifest>[]; message: string; path: (string | number)[] }[] = [
    { name: 'maxSkew 0', cs: [{ maxSkew: 0 }], message: 'Invalid value: 0: must be greater than zero', path: [...base, 'maxSkew'] },
    { name: 'empty topologyKey', cs: [{ topologyKey: '' }], message: 'Required value: can not be empty', path: [...base, 'topologyKey'] },
    {
      name: 'unknown whenUnsatisfiable',
      cs: [{ whenUnsatisfiable: 'Never' as never }],
      message: 'Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"',
      path: [...base, 'whenUnsatisfiable'],
    },
    {
      name: 'duplicate topologyKey and whenUnsatisfiable',
      cs: [{}, { maxSkew: 2 }],
      message: 'Duplicate value: "{zone, DoNotSchedule}"',
      path: [...base, '{topologyKey, whenUnsatisfiable}'],
    },
    { name: 'minDomains 0', cs: [{ minDomains: 0 }], message: 'Invalid value: 0: must be greater than zero', path: [...base, 'minDomains'] },
    {
      name: 'minDomains with ScheduleAnyway',
      cs: [{ minDomains: 2, whenUnsatisfiable: 'ScheduleAnyway' }],
      message: 'Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway',
      path: [...base, 'minDomains'],
    },
    {
      name: 'unknown nodeTaintsPolicy',
      cs: [{ nodeTaintsPolicy: 'Always' as never }],
      message: 'Unsupported value: "Always": supported values: "Honor", "Ignore"',
      path: [...base, 'nodeTaintsPolicy'],
    },
    {
      name: 'matchLabelKeys key also in the selector',
      cs: [{ labelSelector: { matchLabels: { app: 'web', rev: 'v1' } }, matchLabelKeys: ['rev'] }],
      message: 'Invalid value: "rev": exists in both matchLabelKeys and labelSelector',
      path: [...base, 'matchLabelKeys', 0],
    },
    {
      name: 'matchLabelKeys without a selector',
      cs: [{ labelSelector: null, matchLabelKeys: ['rev'] }],
      message: 'Forbidden: must not be specified when labelSelector is not set',
      path: [...base, 'matchLabelKeys'],
    },
  ];
  for (const c of errCases) it(`rejects: ${c.name}`, () => rejects({ topologySpreadConstraints: c.cs.map(tsc) }, c.message, c.path, podLabels));
});

describe('compilePod tolerations (ValidateTolerations)', () => {
  it('compiles with defaults', () => {
    const [t] = pod({ tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }] }).tolerations;
    assert.deepEqual(t, { key: 'gpu', operator: 'Exists', value: '', effect: 'NoExecute', tolerationSeconds: 30 });
    assert.deepEqual(pod({ tolerations: [{ key: 'a', value: 'b' }] }).tolerations[0], { key: 'a', operator: '', value: 'b', effect: '' });
  });
  const base = ['spec', 'tolerations', 0];
  const cases: { name: string; t: TolerationManifest; message: string; path: (string | number)[] }[] = [
    {
      name: 'empty key needs Exists',
      t: { operator: 'Equal', value: 'x' },
      message: 'Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
      path: [...base, 'operator'],
    },
    {
      name: 'empty key with no operator',
      t: {},
      message: 'Invalid value: "": operator must be Exists when `key` is empty, which means "match all values and all keys"',
      path: [...base, 'operator'],
    },
    {
      name: 'tolerationSeconds needs NoExecute',
      t: { key: 'a', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 },
      message: "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
      path: [...base, 'effect'],
    },
    {
      name: 'Exists with a value (reported at operator, as upstream)',
      t: { key: 'a', operator: 'Exists', value: 'x' },
      message: "Invalid value: \"x\": value must be empty when `operator` is 'Exists'",
      path: [...base, 'operator'],
    },
    { name: 'Gt with an empty value', t: { key: 'a', operator: 'Gt' }, message: 'Invalid value: "": must be non-empty', path: [...base, 'value'] },
    { name: 'Lt with a value not in canonical form', t: { key: 'a', operator: 'Lt', value: '05' }, message: 'Invalid value: "05": must be a valid decimal integer in canonical form', path: [...base, 'value'] },
    {
      name: 'Gt with a value past int64',
      t: { key: 'a', operator: 'Gt', value: '9223372036854775808' },
      message: 'Invalid value: "9223372036854775808": strconv.ParseInt: parsing "9223372036854775808": value out of range',
      path: [...base, 'value'],
    },
    { name: 'unknown operator', t: { key: 'a', operator: 'In' as never }, message: 'Unsupported value: "In": supported values: "Equal", "Exists"', path: [...base, 'operator'] },
    {
      name: 'unknown effect',
      t: { key: 'a', operator: 'Exists', effect: 'NoWay' as never },
      message: 'Unsupported value: "NoWay": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      path: [...base, 'effect'],
    },
  ];
  for (const c of cases) it(`rejects: ${c.name}`, () => rejects({ tolerations: [c.t] }, c.message, c.path));
  it('compiles Lt/Gt with an int64 value (as with TaintTolerationComparisonOperators on)', () => {
    assert.deepEqual(pod({ tolerations: [{ key: 'sla', operator: 'Gt', value: '-750' }] }).tolerations[0], { key: 'sla', operator: 'Gt', value: '-750', effect: '' });
  });
  it('tolerationComparisonError: the first Lt/Gt toleration, in the words of validation with the gate off', () => {
    assert.equal(tolerationComparisonError([{ key: 'a', operator: 'Exists' }], ['spec', 'tolerations']), undefined);
    const e = tolerationComparisonError([{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Lt', value: '3' }], ['spec', 'tolerations']);
    assert.deepEqual(e?.path, ['spec', 'tolerations', 1, 'operator']);
    assert.equal(e?.message, 'Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt" (Lt needs --feature-gates TaintTolerationComparisonOperators=true)');
  });
});
