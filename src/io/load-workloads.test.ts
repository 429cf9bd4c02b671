// Workloads expanded into pods while loading, and pod priority resolution.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from '../model/pod.js';
import { formatDiagnostic } from './diagnostics.js';
import { loadSources, type LoadedInput } from './load.js';
import { SAFE_ALPHABET } from '../model/names.js';

function loaded(text: string): { input: LoadedInput; warnings: string[] } {
  const r = loadSources([{ name: 'w.yaml', text }]);
  if (!r.ok) assert.fail(`unexpected errors:\n${r.errors.map(formatDiagnostic).join('\n')}`);
  return { input: r.input, warnings: r.warnings.map(formatDiagnostic) };
}

const C = `[${SAFE_ALPHABET}]`;

function workload(kind: string, name: string, opts: { replicas?: number; ns?: string; extraSpec?: string; podSpec?: string; labels?: string } = {}): string {
  const labels = opts.labels ?? `{app: ${name}}`;
  return [
    'apiVersion: apps/v1',
    `kind: ${kind}`,
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${opts.ns ?? 'default'}`,
    'spec:',
    ...(opts.replicas !== undefined ? [`  replicas: ${opts.replicas}`] : []),
    ...(opts.extraSpec ? [opts.extraSpec] : []),
    `  selector: {matchLabels: {app: ${name}}}`,
    '  template:',
    `    metadata: {labels: ${labels}}`,
    '    spec:',
    '      containers: [{name: c, image: img, resources: {requests: {cpu: 100m}}}]',
    ...(opts.podSpec ? [opts.podSpec] : []),
    '',
  ].join('\n');
}

const node = (name: string, extra = '') => `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${name}\n  labels: {disk: ssd}\nspec:\n${extra || '  {}'}\nstatus: {allocatable: {cpu: "4", pods: "110"}}\n`;

const docs = (...ds: string[]) => ds.join('---\n');

describe('workload expansion', () => {
  test('a Deployment becomes <name>-<hash>-<suffix> pods owned by its ReplicaSet', () => {
    const { input } = loaded(workload('Deployment', 'api', { replicas: 3, ns: 'shop' }));
    assert.equal(input.pods.length, 3);
    const hash = input.pods[0]!.labels['pod-template-hash']!;
    assert.match(hash, new RegExp(`^${C}{1,10}$`));
    for (const p of input.pods) {
      assert.match(p.name, new RegExp(`^api-${hash}-${C}{5}$`));
      assert.equal(p.namespace, 'shop');
      assert.deepEqual(p.labels, { app: 'api', 'pod-template-hash': hash });
      assert.deepEqual(p.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `api-${hash}`, uid: `shop/api-${hash}`, controller: true }]);
      assert.equal(p.nodeName, '');
      assert.equal(p.phase, 'Pending');
      assert.equal(p.resources.requests['cpu'], 100);
    }
    assert.equal(new Set(input.pods.map((p) => p.name)).size, 3);
    // The implied ReplicaSet selects its pods (PodTopologySpread's default selector looks it up).
    const [rs] = input.replicaSets;
    assert.equal(rs?.name, `api-${hash}`);
    assert.equal(rs?.selector.matches(input.pods[0]!.labels), true);
    assert.equal(rs?.selector.matches({ app: 'api', 'pod-template-hash': 'other' }), false);
    assert.deepEqual(input.workloads[0]?.generatedPods, input.pods.map((p) => p.key));
  });

  test('names are deterministic and do not depend on unrelated input', () => {
    const d = workload('Deployment', 'api', { replicas: 4 });
    const names = (text: string) => loaded(text).input.pods.filter((p) => p.name.startsWith('api-')).map((p) => p.name);
    const first = names(d);
    assert.deepEqual(names(d), first);
    assert.deepEqual(names(docs(workload('ReplicaSet', 'other', { replicas: 2 }), d)), first);
  });

  test('the template hash follows the template', () => {
    const hashOf = (text: string) => loaded(text).input.pods[0]!.labels['pod-template-hash'];
    const a = hashOf(workload('Deployment', 'api'));
    assert.equal(hashOf(workload('Deployment', 'api', { replicas: 7 })), a, 'replicas are not part of the template');
    assert.notEqual(hashOf(workload('Deployment', 'api', { podSpec: '      nodeSelector: {disk: ssd}' })), a);
    assert.notEqual(hashOf(workload('Deployment', 'api', { labels: '{app: api, tier: web}' })), a);
    assert.equal(hashOf(workload('Deployment', 'api', { podSpec: '      nodeSelector: null' })), a, 'null fields are unset fields');
  });

  test('a collisionCount changes the hash', () => {
    const base = workload('Deployment', 'api');
    const hashOf = (text: string) => loaded(text).input.pods[0]!.labels['pod-template-hash'];
    assert.notEqual(hashOf(`${base}status: {collisionCount: 1}\n`), hashOf(base));
  });

  test('a ReplicaSet becomes <name>-<suffix> pods; replicas default to 1', () => {
    const { input } = loaded(docs(workload('ReplicaSet', 'rs', { replicas: 2 }), workload('ReplicaSet', 'one')));
    assert.deepEqual(input.pods.map((p) => p.name.replace(new RegExp(`${C}{5}$`), '*')), ['rs-*', 'rs-*', 'one-*']);
    assert.deepEqual(input.pods[0]!.labels, { app: 'rs' });
    assert.deepEqual(input.pods[0]!.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'default/rs', controller: true }]);
  });

  test('a StatefulSet becomes <name>-<ordinal> pods with identity and revision labels', () => {
    const { input } = loaded(workload('StatefulSet', 'db', { replicas: 2, extraSpec: '  ordinals: {start: 5}' }));
    assert.deepEqual(input.pods.map((p) => p.name), ['db-5', 'db-6']);
    const rev = input.pods[0]!.labels['controller-revision-hash']!;
    assert.match(rev, new RegExp(`^db-${C}{1,10}$`));
    assert.deepEqual(input.pods[1]!.labels, { app: 'db', 'statefulset.kubernetes.io/pod-name': 'db-6', 'apps.kubernetes.io/pod-index': '6', 'controller-revision-hash': rev });
    assert.deepEqual(input.statefulSets.map((s) => s.name), ['db']);
  });

  test('a StatefulSet whose pod name is taken by a pod it does not own', () => {
    const pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: db-0}\nspec: {containers: [{name: c}]}\n';
    const r = loadSources([{ name: 'w.yaml', text: docs(pod, workload('StatefulSet', 'db')) }]);
    assert.equal(r.ok, false);
    if (!r.ok) assert.deepEqual(r.errors.map(formatDiagnostic), ['w.yaml:9:9: StatefulSet default/db: metadata.name: Invalid value: "db": pod default/db-0 of this StatefulSet is in the input but not owned by it']);
  });

  test('generated pods come after the pods of the input, in creation order', () => {
    const pod = (name: string, ts: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, creationTimestamp: "${ts}"}\nspec: {containers: [{name: c}]}\n`;
    const { input } = loaded(docs(workload('ReplicaSet', 'rs', { replicas: 2 }), pod('late', '2025-01-02T00:00:00Z'), pod('early', '2025-01-01T00:00:00Z')));
    assert.deepEqual(input.pods.map((p) => p.name.replace(new RegExp(`${C}{5}$`), '*')), ['late', 'early', 'rs-*', 'rs-*']);
    const [late, early, g1, g2] = input.pods as [Pod, Pod, Pod, Pod];
    assert.ok(early.creation < late.creation && late.creation < g1.creation && g1.creation < g2.creation);
  });

  const ownedCases = [
    { name: 'a pod owned by the ReplicaSet', pod: 'ownerReferences: [{kind: ReplicaSet, name: web}]', kind: 'ReplicaSet', expanded: false },
    { name: 'a pod owned by the StatefulSet', pod: 'ownerReferences: [{kind: StatefulSet, name: web}]', kind: 'StatefulSet', expanded: false },
    { name: 'a pod owned by the DaemonSet', pod: 'ownerReferences: [{kind: DaemonSet, name: web}]', kind: 'DaemonSet', expanded: false },
    { name: "a pod owned by the Deployment's ReplicaSet (by pod-template-hash)", pod: 'labels: {app: web, pod-template-hash: abc}, ownerReferences: [{kind: ReplicaSet, name: web-abc}]', kind: 'Deployment', expanded: false },
    { name: 'a pod owned by a same-named workload of another kind', pod: 'ownerReferences: [{kind: ReplicaSet, name: web}]', kind: 'StatefulSet', expanded: true },
    { name: 'a pod owned by a ReplicaSet of another Deployment', pod: 'labels: {pod-template-hash: abc}, ownerReferences: [{kind: ReplicaSet, name: webx-abc}]', kind: 'Deployment', expanded: true },
    { name: 'a pod in another namespace', pod: 'namespace: other, ownerReferences: [{kind: ReplicaSet, name: web}]', kind: 'ReplicaSet', expanded: true },
  ];
  for (const c of ownedCases) {
    test(`existing pods stop expansion: ${c.name}`, () => {
      const pod = `apiVersion: v1\nkind: Pod\nmetadata: {name: existing, ${c.pod}}\nspec: {containers: [{name: c}]}\n`;
      // A DaemonSet has no replicas field (strict validation refuses one).
      const { input } = loaded(docs(node('n1'), pod, workload(c.kind, 'web', c.kind === 'DaemonSet' ? {} : { replicas: 2 })));
      assert.equal(input.workloads[0]!.generatedPods.length > 0, c.expanded);
    });
  }

  test("a Deployment whose ReplicaSet is in the input: the ReplicaSet's pods, not the Deployment's", () => {
    const rs = workload('ReplicaSet', 'web-5d9', { replicas: 2, labels: '{app: web-5d9}' }).replace('  namespace: default', '  namespace: default\n  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, controller: true}]');
    const { input } = loaded(docs(workload('Deployment', 'web', { replicas: 5 }), rs));
    assert.deepEqual(input.workloads.map((w) => [w.kind, w.generatedPods.length]), [['Deployment', 0], ['ReplicaSet', 2]]);
    assert.ok(input.pods.every((p) => p.name.startsWith('web-5d9-')));
  });

  test('a Deployment with pods in the input implies their ReplicaSet for spreading defaults', () => {
    const pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: web-abc-x, labels: {app: web, pod-template-hash: abc}, ownerReferences: [{kind: ReplicaSet, name: web-abc}]}\nspec: {containers: [{name: c}]}\n';
    const { input } = loaded(docs(pod, workload('Deployment', 'web')));
    assert.deepEqual(input.replicaSets.map((r) => r.name), ['web-abc']);
    assert.equal(input.replicaSets[0]!.selector.matches({ app: 'web', 'pod-template-hash': 'abc' }), true);
  });

  test('a workload summary carries what a simulator needs', () => {
    const { input } = loaded(workload('Deployment', 'api', { replicas: 0 }));
    const [w] = input.workloads;
    assert.ok(w);
    assert.deepEqual([w.kind, w.key, w.replicas, w.generatedPods], ['Deployment', 'default/api', 0, []]);
    assert.equal(w.selector.matches({ app: 'api' }), true);
    assert.equal(w.templatePod.resources.requests['cpu'], 100);
    assert.deepEqual(w.template.metadata?.labels, { app: 'api' });
    assert.equal(input.pods.length, 0);
  });
});

describe('DaemonSet expansion', () => {
  const nodes = [
    node('plain'),
    node('tainted', '  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]'),
    node('evicting', '  taints: [{key: dedicated, value: gpu, effect: NoExecute}]'),
    node('soft', '  taints: [{key: spot, effect: PreferNoSchedule}]'),
    node('cordoned', '  unschedulable: true\n  taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]'),
    node('pressure', '  taints: [{key: node.kubernetes.io/memory-pressure, effect: NoSchedule}, {key: node.kubernetes.io/not-ready, effect: NoExecute}]'),
    node('no-network', '  taints: [{key: node.kubernetes.io/network-unavailable, effect: NoSchedule}]'),
    node('hdd').replace('disk: ssd', 'disk: hdd'),
  ];
  const nodesOf = (input: LoadedInput) => input.pods.map((p) => input.nodes.find((n) => p.requiredNodeAffinity?.matches(n))?.name);

  const cases = [
    { name: 'runs where taints are tolerated by default', podSpec: '', want: ['plain', 'soft', 'cordoned', 'pressure', 'hdd'] },
    { name: 'hostNetwork also tolerates network-unavailable', podSpec: '      hostNetwork: true', want: ['plain', 'soft', 'cordoned', 'pressure', 'no-network', 'hdd'] },
    { name: "the template's tolerations count", podSpec: '      tolerations: [{key: dedicated, operator: Exists}]', want: ['plain', 'tainted', 'evicting', 'soft', 'cordoned', 'pressure', 'hdd'] },
    { name: 'nodeSelector narrows the nodes', podSpec: '      nodeSelector: {disk: hdd}', want: ['hdd'] },
    {
      name: 'required node affinity narrows the nodes',
      podSpec: '      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: disk, operator: In, values: [ssd]}]}]}}}',
      want: ['plain', 'soft', 'cordoned', 'pressure'],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const { input } = loaded(docs(...nodes, workload('DaemonSet', 'agent', { ns: 'kube-system', podSpec: c.podSpec })));
      assert.deepEqual(nodesOf(input), c.want);
      assert.equal(input.workloads[0]!.replicas, c.want.length);
    });
  }

  test('each pod is pinned to its node by matchFields, replacing required node affinity', () => {
    const podSpec = '      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: disk, operator: In, values: [ssd]}]}]}}}';
    const { input } = loaded(docs(node('a'), node('b'), workload('DaemonSet', 'agent', { podSpec })));
    const [pa, pb] = input.pods;
    assert.deepEqual(pa!.requiredNodeAffinity!.terms, [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }]);
    assert.deepEqual(input.nodes.map((n) => pa!.requiredNodeAffinity!.matches(n)), [true, false]);
    assert.deepEqual(input.nodes.map((n) => pb!.requiredNodeAffinity!.matches(n)), [false, true]);
    // The hdd node case: the template's own required affinity is gone from the pod.
    assert.equal(pa!.requiredNodeAffinity!.matches({ name: 'a', labels: { disk: 'hdd' } }), true);
  });

  test('pods get the default tolerations, names, labels and owner', () => {
    const podSpec = '      tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 30}, {key: other, operator: Exists}]';
    const { input } = loaded(docs(node('a'), workload('DaemonSet', 'agent', { ns: 'kube-system', podSpec })));
    const [p] = input.pods;
    assert.match(p!.name, new RegExp(`^agent-${C}{5}$`));
    assert.equal(p!.namespace, 'kube-system');
    assert.deepEqual(p!.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'kube-system/agent', controller: true }]);
    assert.equal(p!.labels['pod-template-generation'], '1');
    assert.match(p!.labels['controller-revision-hash']!, new RegExp(`^${C}{1,10}$`));
    assert.deepEqual(
      p!.tolerations.map((t) => `${t.key}:${t.effect}${t.tolerationSeconds !== undefined ? `:${t.tolerationSeconds}` : ''}`),
      [
        // Same key, operator, value and effect: the controller's toleration replaces the template's (no tolerationSeconds).
        'node.kubernetes.io/not-ready:NoExecute',
        'other:',
        'node.kubernetes.io/unreachable:NoExecute',
        'node.kubernetes.io/disk-pressure:NoSchedule',
        'node.kubernetes.io/memory-pressure:NoSchedule',
        'node.kubernetes.io/pid-pressure:NoSchedule',
        'node.kubernetes.io/unschedulable:NoSchedule',
      ],
    );
  });

  test('pod names stay put when nodes are added', () => {
    const nameOn = (text: string, nodeName: string) => {
      const { input } = loaded(text);
      return input.pods.find((p) => p.requiredNodeAffinity?.matches({ name: nodeName, labels: {} }))?.name;
    };
    const ds = workload('DaemonSet', 'agent');
    assert.equal(nameOn(docs(node('a'), ds), 'a'), nameOn(docs(node('z'), node('a'), ds), 'a'));
  });
});

describe('pod priority', () => {
  const pc = (name: string, value: number, extra = '') => `apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: ${name}}\nvalue: ${value}\n${extra}`;
  const pod = (name: string, spec = '') => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  containers: [{name: c}]\n${spec}`;
  const prio = (input: LoadedInput) => input.pods.map((p) => [p.name, p.priority, p.priorityClassName, p.preemptionPolicy]);

  test('priorityClassName resolves to the class value and preemption policy', () => {
    const { input } = loaded(docs(pc('gold', 1000, 'preemptionPolicy: Never\n'), pod('p', '  priorityClassName: gold\n')));
    assert.deepEqual(prio(input), [['p', 1000, 'gold', 'Never']]);
  });

  test('built-in system classes resolve', () => {
    const { input } = loaded(pod('p', '  priorityClassName: system-node-critical\n'));
    assert.deepEqual(prio(input), [['p', 2000001000, 'system-node-critical', 'PreemptLowerPriority']]);
  });

  test('a pod without class gets the global default, by name too', () => {
    const { input } = loaded(docs(pc('base', 7, 'globalDefault: true\n'), pod('p')));
    assert.deepEqual(prio(input), [['p', 7, 'base', 'PreemptLowerPriority']]);
  });

  test('spec.priority without class is kept', () => {
    const { input } = loaded(docs(pc('base', 7, 'globalDefault: true\n'), pod('p', '  priority: 42\n'), pod('q', '  priority: 3\n  preemptionPolicy: Never\n')));
    assert.deepEqual(prio(input), [['p', 42, 'base', 'PreemptLowerPriority'], ['q', 3, 'base', 'Never']]);
  });

  test('no class and no default: priority 0', () => {
    const { input } = loaded(pod('p'));
    assert.deepEqual(prio(input), [['p', 0, '', 'PreemptLowerPriority']]);
  });

  test('a class missing from a dump, with spec.priority set, keeps the priority with a warning', () => {
    const { input, warnings } = loaded(pod('p', '  priorityClassName: gold\n  priority: 900\n'));
    assert.deepEqual(prio(input), [['p', 900, 'gold', 'PreemptLowerPriority']]);
    assert.deepEqual(warnings, ['w.yaml:6:22: Pod default/p: spec.priorityClassName: PriorityClass "gold" is not in the input; keeping spec.priority 900']);
  });

  test('workload pods resolve their priority through the PriorityClass', () => {
    const { input } = loaded(docs(pc('gold', 1000), workload('Deployment', 'api', { replicas: 2, podSpec: '      priorityClassName: gold' })));
    assert.deepEqual(input.pods.map((p) => [p.priority, p.priorityClassName]), [[1000, 'gold'], [1000, 'gold']]);
    assert.equal(input.workloads[0]!.templatePod.priority, 1000);
  });

  test('an unknown class in a workload template is an error under spec.template', () => {
    const r = loadSources([{ name: 'w.yaml', text: workload('Deployment', 'api', { podSpec: '      priorityClassName: gold' }) }]);
    assert.equal(r.ok, false);
    if (!r.ok) assert.deepEqual(r.errors.map(formatDiagnostic), ['w.yaml:12:26: Deployment default/api: spec.template.spec.priorityClassName: Not found: no PriorityClass with name gold was found (add it to the input, or pass --allow-missing to give the pod the priority of one naming none)']);
  });

  test('a preemptionPolicy that contradicts the class is forbidden', () => {
    const r = loadSources([{ name: 'w.yaml', text: docs(pc('gold', 10), pod('p', '  priorityClassName: gold\n  preemptionPolicy: Never\n')) }]);
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.deepEqual(r.errors.map(formatDiagnostic), [
        'w.yaml:12:21: Pod default/p: spec.preemptionPolicy: Forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name',
      ]);
    }
  });
});
