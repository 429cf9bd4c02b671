// The shapes input comes in: Lists, kubectl dumps, multi-document YAML, JSON; and
// the warnings loading gives instead of failing.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { buildClusterState } from '../cluster/state.js';
import { formatDiagnostic } from './diagnostics.js';
import { loadSources, type LoadedInput } from './load.js';
import { loadScenario } from './scenario.js';
import { parseSource, type SourceInput } from './yaml-source.js';

const fixture = (name: string): SourceInput => ({ name: `test/fixtures/${name}`, text: readFileSync(new URL(`../../test/fixtures/${name}`, import.meta.url), 'utf8') });

function loaded(...inputs: SourceInput[]): { input: LoadedInput; warnings: string[] } {
  const r = loadSources(inputs);
  if (!r.ok) assert.fail(`unexpected errors:\n${r.errors.map(formatDiagnostic).join('\n')}`);
  return { input: r.input, warnings: r.warnings.map(formatDiagnostic) };
}

const node = (name: string) => `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${name}\nstatus:\n  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}\n`;
const pod = (name: string, ns = 'default') => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  containers: [{name: c}]\n`;

describe('load inputs', () => {
  test('a source handed over already parsed is read from its documents, not parsed again (simulate: a 10 MB scenario once)', () => {
    const text = `apiVersion: berth.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  objects:\n  - ${node('n1').replaceAll('\n', '\n    ').trimEnd()}\n`;
    const scenario = loadScenario({ name: 's.yaml', text });
    assert.ok(scenario.ok);
    assert.deepEqual(loaded({ name: 's.yaml', text, parsed: scenario.source }).input.nodes.map((n) => n.name), ['n1']);
    // Proof that the text is not read again: beside another text's parse, the text does not count.
    assert.deepEqual(loaded({ name: 's.yaml', text, parsed: parseSource({ name: 's.yaml', text: node('other') }) }).input.nodes.map((n) => n.name), ['other']);
  });

  test('multi-document YAML with empty documents and comments', () => {
    const text = `# cluster\n---\n${node('n1')}---\n---\n# nothing here\n---\n${pod('p1')}...\n---\n${node('n2')}`;
    const { input, warnings } = loaded({ name: 'm.yaml', text });
    assert.deepEqual(input.nodes.map((n) => n.name), ['n1', 'n2']);
    assert.deepEqual(input.pods.map((p) => p.key), ['default/p1']);
    assert.deepEqual(warnings, ['m.yaml:1:1: 2 empty document(s) skipped (only `---`, comments or null)']);
  });

  test('a List nested in a List', () => {
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }] }, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } }] });
    const { input, warnings } = loaded({ name: 'l.json', text });
    assert.deepEqual(input.nodes.map((n) => n.name), ['n1', 'n2']);
    assert.deepEqual(warnings, []);
  });

  const listCases = [
    {
      name: 'kind: List with items of several kinds',
      text: `apiVersion: v1\nkind: List\nitems:\n- ${node('n1').replaceAll('\n', '\n  ')}\n- ${pod('p1').replaceAll('\n', '\n  ')}\nmetadata:\n  resourceVersion: ""\n`,
      nodes: ['n1'],
      pods: ['default/p1'],
    },
    {
      name: 'a typed list whose items carry no kind (as the API returns them)',
      text: 'apiVersion: v1\nkind: NodeList\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n',
      nodes: ['a', 'b'],
      pods: [],
    },
    {
      name: 'a List inside a List',
      text: 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - {apiVersion: v1, kind: Node, metadata: {name: deep}}\n',
      nodes: ['deep'],
      pods: [],
    },
    { name: 'an empty List', text: 'apiVersion: v1\nkind: List\nitems: []\n', nodes: [], pods: [] },
    { name: 'a List with null items', text: 'apiVersion: v1\nkind: List\nitems: null\n', nodes: [], pods: [] },
  ];
  for (const c of listCases) {
    test(c.name, () => {
      const { input } = loaded({ name: 'l.yaml', text: c.text });
      assert.deepEqual(input.nodes.map((n) => n.name), c.nodes);
      assert.deepEqual(input.pods.map((p) => p.key), c.pods);
    });
  }

  test('a kubectl get nodes,pods -o yaml dump, status and unknown fields included', () => {
    const { input, warnings } = loaded(fixture('kubectl-nodes-pods.yaml'));
    assert.deepEqual(warnings, []);
    assert.deepEqual(input.nodes.map((n) => n.name), ['cp-1', 'worker-1']);
    const [cp, worker] = input.nodes;
    assert.deepEqual(cp!.taints, [{ key: 'node-role.kubernetes.io/control-plane', value: '', effect: 'NoSchedule' }]);
    assert.equal(cp!.allocatable['memory'], 3926316 * 1024);
    assert.equal(worker!.allocatable['cpu'], 1930);
    assert.equal(worker!.allocatable['pods'], 29);
    assert.equal(cp!.images.length, 2);
    assert.equal(cp!.creation, Date.parse('2025-03-01T09:12:44Z'));

    assert.deepEqual(
      input.pods.map((p) => [p.key, p.nodeName, p.phase]),
      [
        ['kube-system/coredns-668d6bf9bc-x7k2p', 'cp-1', 'Running'],
        ['shop/web-7c9f8d6b54-qm4vz', 'worker-1', 'Running'],
        ['shop/web-7c9f8d6b54-b2l9d', '', 'Pending'],
        ['shop/report-28977540-8hx2m', 'worker-1', 'Succeeded'],
      ],
    );
    const coredns = input.pods[0]!;
    assert.equal(coredns.priority, 2000000000);
    assert.equal(coredns.priorityClassName, 'system-cluster-critical');
    assert.deepEqual(coredns.resources.requests, { cpu: 100, memory: 70 * 1024 * 1024 });
    assert.equal(coredns.preferredAntiAffinity.length, 1);
    assert.deepEqual(coredns.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'coredns-668d6bf9bc', uid: '9d1e3c2b-4a5f-4e6d-8c7b-1a2b3c4d5e6f', controller: true }]);
    assert.equal(input.workloads.length, 0);
  });

  test('buildClusterState counts bound pods on their nodes and leaves finished pods out', () => {
    const { input } = loaded(fixture('kubectl-nodes-pods.yaml'));
    const state = buildClusterState(input);
    assert.deepEqual([...state.pods()].map((p) => p.name), ['coredns-668d6bf9bc-x7k2p', 'web-7c9f8d6b54-qm4vz', 'web-7c9f8d6b54-b2l9d']);
    assert.deepEqual(state.nodeInfo('worker-1')!.pods.map((p) => p.name), ['web-7c9f8d6b54-qm4vz']);
    assert.deepEqual(state.pendingPods().map((p) => p.name), ['web-7c9f8d6b54-b2l9d']);
  });

  test('JSON input, as kubectl get -o json writes it, with positions', () => {
    const json = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'j1', labels: { zone: 'a' } } }] }, null, 4);
    const { input } = loaded({ name: 'dump.json', text: json });
    assert.deepEqual(input.nodes.map((n) => [n.name, n.labels['zone']]), [['j1', 'a']]);

    const bad = json.replace('"zone": "a"', '"zone": 7');
    const r = loadSources([{ name: 'dump.json', text: bad }]);
    assert.equal(r.ok, false);
    if (!r.ok) assert.deepEqual(r.errors.map(formatDiagnostic), ['dump.json:11:29: Node j1: metadata.labels.zone: Invalid type: expected string, got number 7']);
  });

  test('unknown kinds and kinds berth does not use are skipped with a warning', () => {
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\nkind: Secret\nmetadata: {name: s}\n';
    const { input, warnings } = loaded({ name: 'w.yaml', text });
    assert.equal(input.nodes.length + input.pods.length, 0);
    assert.deepEqual(warnings, [
      'w.yaml:2:7: skipping kind ConfigMap (apiVersion v1): not used by berth',
      'w.yaml:6:7: skipping kind Widget (apiVersion example.com/v1): not used by berth',
      'w.yaml:9:7: skipping kind Secret (apiVersion <none>): not used by berth',
    ]);
  });

  test('skipped objects of one kind are summed up in one warning at the first; kinds that create pods are named one by one', () => {
    const cm = (n: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c${n}}\n`;
    const job = (n: number) => `apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: j${n}}\n`;
    const text = [cm(1), job(1), cm(2), cm(3), job(2)].join('---\n');
    const { warnings } = loaded({ name: 'w.yaml', text });
    assert.deepEqual(warnings, [
      'w.yaml:2:7: skipping kind ConfigMap (apiVersion v1): not used by berth (3 objects, the first here)',
      'w.yaml:6:7: Rollout default/j1: skipping kind Rollout (apiVersion argoproj.io/v1alpha1): not used by berth: the pods it would create are not in the analysis',
      'w.yaml:18:7: Rollout default/j2: skipping kind Rollout (apiVersion argoproj.io/v1alpha1): not used by berth: the pods it would create are not in the analysis',
    ]);
  });

  test('a known kind at an apiVersion berth does not read is skipped with a warning', () => {
    const text = 'apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: old}\nspec: {}\n';
    const { input, warnings } = loaded({ name: 'o.yaml', text });
    assert.equal(input.workloads.length, 0);
    assert.deepEqual(warnings, ['o.yaml:2:7: Deployment default/old: skipping kind Deployment (apiVersion extensions/v1beta1): berth reads Deployment at apps/v1']);
  });

  test('a pod bound to a node not in the input is a warning, and counted nowhere', () => {
    const text = `${node('n1')}---\n${pod('p1').replace('spec:\n', 'spec:\n  nodeName: gone\n')}`;
    const { input, warnings } = loaded({ name: 'b.yaml', text });
    assert.deepEqual(warnings, ['b.yaml:14:13: Pod default/p1: spec.nodeName: Not found: node "gone" is not in the input; the pod is not counted on any node']);
    const state = buildClusterState(input);
    assert.equal(state.nodeInfo('n1')!.pods.length, 0);
    assert.equal(state.getPod('default/p1')!.nodeName, 'gone');
  });

  test('objects with the same name in different namespaces or kinds are not duplicates', () => {
    const text = [pod('web', 'a'), pod('web', 'b'), node('web'), 'apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: a}\nspec: {selector: {app: web}}\n'].join('---\n');
    const { input } = loaded({ name: 'd.yaml', text });
    assert.deepEqual(input.pods.map((p) => p.key), ['a/web', 'b/web']);
    assert.equal(input.services.length, 1);
  });

  test('namespaces get kubernetes.io/metadata.name', () => {
    const { input } = loaded({ name: 'n.yaml', text: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {team: x, kubernetes.io/metadata.name: wrong}\n' });
    assert.deepEqual(input.namespaces, [{ name: 'shop', labels: { team: 'x', 'kubernetes.io/metadata.name': 'shop' } }]);
    assert.deepEqual(buildClusterState(input).namespaceLabels('shop'), { team: 'x', 'kubernetes.io/metadata.name': 'shop' });
  });

  const selectorCases = [
    { name: 'a Service selects with its map', doc: 'kind: Service\nmetadata: {name: s}\nspec: {selector: {app: web}}', field: 'services', matches: [{ app: 'web' }], misses: [{ app: 'db' }, {}] },
    { name: 'a Service without selector selects nothing', doc: 'kind: Service\nmetadata: {name: s}\nspec: {type: ExternalName}', field: 'services', matches: [], misses: [{ app: 'web' }, {}] },
    { name: 'an RC without selector uses its template labels', doc: 'kind: ReplicationController\nmetadata: {name: rc}\nspec:\n  template:\n    metadata: {labels: {app: old}}\n    spec: {containers: [{name: c}]}', field: 'replicationControllers', matches: [{ app: 'old', x: 'y' }], misses: [{ app: 'new' }] },
  ] as const;
  for (const c of selectorCases) {
    test(c.name, () => {
      const { input } = loaded({ name: 's.yaml', text: `apiVersion: v1\n${c.doc}\n` });
      const [owner] = input[c.field];
      assert.ok(owner);
      assert.equal(owner.namespace, 'default');
      for (const labels of c.matches) assert.equal(owner.selector.matches(labels), true, JSON.stringify(labels));
      for (const labels of c.misses) assert.equal(owner.selector.matches(labels), false, JSON.stringify(labels));
    });
  }

  test('pods with only generateName get stable generated names', () => {
    const gen = (ns: string) => `apiVersion: v1\nkind: Pod\nmetadata: {generateName: job-, namespace: ${ns}}\nspec: {containers: [{name: c}]}\n`;
    const names = (text: string) => loaded({ name: 'g.yaml', text }).input.pods.map((p) => p.key);
    const first = names([gen('a'), gen('a'), gen('b')].join('---\n'));
    assert.equal(first.length, 3);
    for (const key of first) assert.match(key, /^[ab]\/job-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(new Set(first).size, 3);
    assert.deepEqual(names([pod('x'), gen('a'), gen('a'), gen('b')].join('---\n')).slice(1), first);
  });

  test('an error in a pod with only generateName names it by its prefix', () => {
    const r = loadSources([{ name: 'g.yaml', text: 'apiVersion: v1\nkind: Pod\nmetadata: {generateName: job-}\nspec: {containers: [{name: 1}]}\n' }]);
    assert.equal(r.ok, false);
    if (!r.ok) assert.deepEqual(r.errors.map(formatDiagnostic), ['g.yaml:4:28: Pod default/job-*: spec.containers[0].name: Invalid type: expected string, got number 1']);
  });

  test('null fields are unset fields', () => {
    const text = 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: null, creationTimestamp: null}\nspec:\n  affinity: null\n  nodeSelector: ~\n  tolerations: null\n  containers: [{name: c, resources: {requests: null}}]\nstatus: null\n';
    const [p] = loaded({ name: 'n.yaml', text }).input.pods;
    assert.deepEqual([p!.labels, p!.nodeSelector, p!.requiredNodeAffinity, p!.tolerations, p!.phase], [{}, {}, null, [], 'Pending']);
  });

  test('a Service with an empty selector selects every pod of its namespace', () => {
    const { input } = loaded({ name: 's.yaml', text: 'apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {}}\n' });
    assert.equal(input.services[0]!.selector.matches({ any: 'thing' }), true);
  });

  test('YAML anchors, aliases and merge keys', () => {
    const text = 'apiVersion: v1\nkind: List\nitems:\n- &n {apiVersion: v1, kind: Node, metadata: {name: a, labels: &l {zone: z1}}}\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n    labels:\n      <<: *l\n      disk: ssd\n';
    const { input } = loaded({ name: 'a.yaml', text });
    assert.deepEqual(input.nodes.map((n) => [n.name, n.labels['zone'], n.labels['disk']]), [['a', 'z1', undefined], ['b', 'z1', 'ssd']]);
  });

  test('a PodDisruptionBudget, PriorityClasses and a workload fixture load together with a dump', () => {
    const { input, warnings } = loaded(fixture('workloads.yaml'), fixture('kubectl-nodes-pods.yaml'));
    assert.deepEqual(warnings, ['test/fixtures/workloads.yaml:118:7: skipping kind ConfigMap (apiVersion v1): not used by berth']);
    assert.deepEqual(input.pdbs.map((p) => [p.key, p.minAvailable]), [['shop/api', 2]]);
    assert.deepEqual(input.priorityClasses.map((p) => [p.name, p.value]), [['shop-critical', 100000]]);
    assert.deepEqual(input.workloads.map((w) => [w.kind, w.key, w.replicas, w.generatedPods.length]), [
      ['Deployment', 'shop/api', 3, 3],
      ['StatefulSet', 'shop/db', 2, 2],
      ['DaemonSet', 'kube-system/log-agent', 1, 1],
    ]);
  });
});
