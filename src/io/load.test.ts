// Every kind of load error, each with its exact file:line:column and field path.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDiagnostic } from './diagnostics.js';
import { loadSources } from './load.js';
import type { SourceInput } from './yaml-source.js';

/** Lines joined with newlines: line N of the text is argument N. */
const lines = (...ls: string[]) => ls.join('\n') + '\n';

function errorsOf(...inputs: SourceInput[]): string[] {
  const r = loadSources(inputs);
  assert.equal(r.ok, false, 'expected the load to fail');
  return r.ok ? [] : r.errors.map(formatDiagnostic);
}

function errors(text: string, name = 'in.yaml'): string[] {
  return errorsOf({ name, text });
}

const POD_HEAD = ['apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', 'spec:', '  containers:', '  - name: c'];

describe('load errors', () => {
  test('invalid quantity is reported at the quantity', () => {
    const text = lines(...POD_HEAD, '    resources:', '      requests:', '        cpu: 1x', '        memory: 1Gi');
    assert.deepEqual(errors(text), ['in.yaml:10:14: Pod default/web: spec.containers[0].resources.requests.cpu: invalid quantity "1x": unknown suffix "x"']);
  });

  test('invalid quantity under a resource name that needs brackets', () => {
    const text = lines(...POD_HEAD, '    resources:', '      limits:', '        nvidia.com/gpu: lots');
    assert.deepEqual(errors(text), ['in.yaml:10:25: Pod default/web: spec.containers[0].resources.limits[nvidia.com/gpu]: invalid quantity "lots": no digits']);
  });

  test('unknown node selector operator lists the supported ones', () => {
    const text = lines(
      ...POD_HEAD,
      '  affinity:',
      '    nodeAffinity:',
      '      requiredDuringSchedulingIgnoredDuringExecution:',
      '        nodeSelectorTerms:',
      '        - matchExpressions:',
      '          - key: zone',
      '            operator: Near',
      '            values: [a]',
    );
    assert.deepEqual(errors(text), [
      'in.yaml:14:23: Pod default/web: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"',
    ]);
  });

  test('Gt is not a label selector operator', () => {
    const text = lines(
      ...POD_HEAD,
      '  topologySpreadConstraints:',
      '  - maxSkew: 1',
      '    topologyKey: zone',
      '    whenUnsatisfiable: DoNotSchedule',
      '    labelSelector:',
      '      matchExpressions: [{key: tier, operator: Gt, values: ["3"]}]',
    );
    assert.deepEqual(errors(text), [
      'in.yaml:13:48: Pod default/web: spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].operator: Unsupported value: "Gt": supported values: "In", "NotIn", "Exists", "DoesNotExist"',
    ]);
  });

  test('unknown toleration operator', () => {
    const text = lines(...POD_HEAD, '  tolerations:', '  - key: dedicated', '    operator: Matches');
    assert.deepEqual(errors(text), ['in.yaml:10:15: Pod default/web: spec.tolerations[0].operator: Unsupported value: "Matches": supported values: "Equal", "Exists"']);
  });

  test('a mapping where a list belongs is reported at its key', () => {
    const text = lines('apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', 'spec:', '  containers:', '    name: c');
    assert.deepEqual(errors(text), ['in.yaml:6:3: Pod default/web: spec.containers: Invalid type: expected list, got mapping']);
  });

  test('a number where a string belongs is reported at the number', () => {
    const text = lines('apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', '  labels:', '    version: 1.5', 'spec:', '  containers: [{name: c}]');
    assert.deepEqual(errors(text), ['in.yaml:6:14: Pod default/web: metadata.labels.version: Invalid type: expected string, got number 1.5']);
  });

  test('YAML 1.1 booleans are booleans, as kubectl reads them', () => {
    const text = lines('apiVersion: v1', 'kind: Node', 'metadata:', '  name: n1', '  labels:', '    spot: yes');
    assert.deepEqual(errors(text), ['in.yaml:6:11: Node n1: metadata.labels.spot: Invalid type: expected string, got boolean true']);
  });

  test('a fraction where an integer belongs', () => {
    const text = lines(...POD_HEAD, '  priority: 1.5');
    assert.deepEqual(errors(text), ['in.yaml:8:13: Pod default/web: spec.priority: Invalid type: expected integer, got number 1.5']);
  });

  test('a missing required field is reported at its nearest existing ancestor', () => {
    const text = lines('apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', 'spec:', '  containers:', '  - image: nginx');
    assert.deepEqual(errors(text), ['in.yaml:7:5: Pod default/web: spec.containers[0].name: Required value']);
  });

  test('a missing spec is reported at the object', () => {
    const text = lines('apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web');
    assert.deepEqual(errors(text), ['in.yaml:1:1: Pod default/web: spec: Required value']);
  });

  test('an empty container list is a missing value', () => {
    const text = lines('apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', 'spec:', '  containers: []');
    assert.deepEqual(errors(text), ['in.yaml:6:3: Pod default/web: spec.containers: Required value']);
  });

  test('a missing name is reported at metadata', () => {
    const text = lines('apiVersion: v1', 'kind: Node', 'metadata:', '  labels: {a: b}');
    assert.deepEqual(errors(text), ['in.yaml:3:1: Node <unnamed>: metadata.name: Required value: name or generateName is required']);
  });

  test('every schema problem of an object is reported, in source order', () => {
    const text = lines('apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', 'spec:', '  priority: high', '  containers:', '  - name: 7', '  - {}');
    assert.deepEqual(errors(text), [
      'in.yaml:6:13: Pod default/web: spec.priority: Invalid type: expected integer, got string "high"',
      'in.yaml:8:11: Pod default/web: spec.containers[0].name: Invalid type: expected string, got number 7',
      'in.yaml:9:5: Pod default/web: spec.containers[1].name: Required value',
    ]);
  });

  test('a selector problem names the field once', () => {
    const text = lines(
      ...POD_HEAD,
      '  affinity:',
      '    nodeAffinity:',
      '      requiredDuringSchedulingIgnoredDuringExecution:',
      '        nodeSelectorTerms:',
      '        - matchExpressions:',
      '          - key: zone',
      '            operator: In',
    );
    assert.deepEqual(errors(text), [
      "in.yaml:13:13: Pod default/web: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ]);
  });

  test('a namespaced object is named with its namespace', () => {
    const text = lines('apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', '  namespace: shop', 'spec:', '  containers: [{name: c, resources: {requests: {memory: -1Gi}}}]');
    assert.deepEqual(errors(text), ['in.yaml:7:57: Pod shop/web: spec.containers[0].resources.requests.memory: Invalid value: "-1Gi": must be greater than or equal to 0']);
  });

  test('duplicate objects: the second is reported, pointing at the first', () => {
    const a = lines('apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', 'spec:', '  containers: [{name: c}]');
    const b = lines('# again', ...a.split('\n'));
    assert.deepEqual(errorsOf({ name: 'a.yaml', text: a }, { name: 'b.yaml', text: b }), [
      'b.yaml:5:9: Pod default/web: metadata.name: Duplicate value: "web": already defined at a.yaml:4:9',
    ]);
  });

  test('with clusterFrom, an object of the cluster inputs that an earlier input defines is replaced by it; duplicates within the cluster are still errors', () => {
    const deploy = (image: string) => `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: "${image}"}]}\n`;
    const r = loadSources([{ name: 'change.yaml', text: deploy('web:2') }, { name: 'dump.yaml', text: deploy('web:1') }], { clusterFrom: 1 });
    assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
    assert.deepEqual(r.input.workloads.map((w) => w.templatePod.images), [['web:2']]);
    assert.equal(r.input.locations.get('Deployment/default/web')?.file, 'change.yaml');
    const twice = loadSources([{ name: 'change.yaml', text: '' }, { name: 'dump.yaml', text: `${deploy('web:1')}---\n${deploy('web:1')}` }], { clusterFrom: 1 });
    assert.equal(twice.ok, false);
  });

  test('duplicate cluster-scoped objects ignore the namespace field', () => {
    const node = (ns: string) => `apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  namespace: ${ns}\n`;
    assert.deepEqual(errors(`${node('a')}---\n${node('b')}`), ['in.yaml:10:9: Node n1: metadata.name: Duplicate value: "n1": already defined at in.yaml:4:9']);
  });

  test('malformed YAML reports the parser position', () => {
    const text = lines('apiVersion: v1', 'kind: Pod', 'metadata:', '  name: [web', 'spec: {}');
    const got = errors(text);
    assert.equal(got.length >= 1, true);
    assert.match(got[0]!, /^in\.yaml:5:1: invalid YAML: /);
  });

  test('a field written twice is an error naming the field, at the second key', () => {
    const text = lines('apiVersion: v1', 'kind: Node', 'metadata:', '  name: a', '  name: b');
    assert.deepEqual(errors(text), ['in.yaml:5:3: metadata.name: duplicate field "name"']);
  });

  test('malformed JSON reports the parser position', () => {
    const got = errors('{"apiVersion": "v1",\n "kind": "Node",\n "metadata": {"name": "n1"\n', 'in.json');
    assert.match(got[0]!, /^in\.json:4:1: invalid JSON: Flow map/);
  });

  test('a document without kind', () => {
    assert.deepEqual(errors(lines('apiVersion: v1', 'metadata:', '  name: x')), ['in.yaml:1:1: kind: Required value: every object needs apiVersion and kind']);
  });

  test('a document that is not a mapping', () => {
    assert.deepEqual(errors(lines('- a', '- b')), ['in.yaml:1:1: expected a Kubernetes object (a mapping with apiVersion and kind), got list']);
  });

  test('errors inside a List item point into the item, paths relative to the item', () => {
    const text = lines(
      'apiVersion: v1',
      'kind: List',
      'items:',
      '- apiVersion: v1',
      '  kind: Node',
      '  metadata: {name: n1}',
      '- apiVersion: v1',
      '  kind: Node',
      '  metadata: {name: n2}',
      '  status:',
      '    allocatable: {cpu: 2x}',
    );
    assert.deepEqual(errors(text), ['in.yaml:11:24: Node n2: status.allocatable.cpu: invalid quantity "2x": unknown suffix "x"']);
  });

  test('a List item without kind', () => {
    assert.deepEqual(errors(lines('apiVersion: v1', 'kind: List', 'items:', '- metadata: {name: a}')), [
      'in.yaml:4:3: items[0].kind: Required value: every object needs apiVersion and kind',
    ]);
  });

  test('unknown PriorityClass is reported at spec.priorityClassName', () => {
    const text = lines(...POD_HEAD, '  priorityClassName: gold');
    assert.deepEqual(errors(text), ['in.yaml:8:22: Pod default/web: spec.priorityClassName: Not found: no PriorityClass with name gold was found (add it to the input, or pass --allow-missing to give the pod the priority of one naming none)']);
  });

  test('kubeletDefaults: false takes a Node as written: no hostname label, no pod capacity added', () => {
    const text = lines('apiVersion: v1', 'kind: Node', 'metadata: {name: n1}', 'status: {capacity: {cpu: "2"}}');
    const kubelet = loadSources([{ name: 'in.yaml', text }]);
    const asWritten = loadSources([{ name: 'in.yaml', text }], { kubeletDefaults: false });
    assert.ok(kubelet.ok && asWritten.ok);
    assert.deepEqual(kubelet.input.nodes[0]!.labels, { 'kubernetes.io/hostname': 'n1' });
    assert.equal(kubelet.input.nodes[0]!.allocatable['pods'], 110);
    assert.deepEqual(asWritten.input.nodes[0]!.labels, {});
    assert.equal(asWritten.input.nodes[0]!.allocatable['pods'], undefined);
  });

  test('Lt/Gt tolerations load only with TaintTolerationComparisonOperators on, in a Deployment template too', () => {
    const text = lines(...POD_HEAD, '  tolerations: [{key: sla, operator: Gt, value: "750"}]');
    assert.deepEqual(errors(text), ['in.yaml:8:38: Pod default/web: spec.tolerations[0].operator: Unsupported value: "Gt": supported values: "Equal", "Exists", "Lt", "Gt" (Gt needs --feature-gates TaintTolerationComparisonOperators=true)']);
    const on = loadSources([{ name: 'in.yaml', text }], { tolerationComparisonOperators: true });
    assert.ok(on.ok);
    assert.deepEqual(on.input.pods[0]!.tolerations, [{ key: 'sla', operator: 'Gt', value: '750', effect: '' }]);
    const deployment = lines(
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: d}',
      'spec:',
      '  selector: {matchLabels: {app: d}}',
      '  template:',
      '    metadata: {labels: {app: d}}',
      '    spec:',
      '      containers: [{name: c, image: x}]',
      '      tolerations: [{key: sla, operator: Lt, value: "9"}]',
    );
    assert.deepEqual(errors(deployment), ['in.yaml:10:42: Deployment default/d: spec.template.spec.tolerations[0].operator: Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt" (Lt needs --feature-gates TaintTolerationComparisonOperators=true)']);
    assert.ok(loadSources([{ name: 'in.yaml', text: deployment }], { tolerationComparisonOperators: true }).ok);
  });

  // resource helpers_test.go TestPodLevelResourceRequests: with the gate off the API server drops
  // spec.resources (dropDisabledPodLevelResources) and kube-scheduler counts containers only.
  test('upstream: "pod level memory resource with SkipPodLevelResources true" (PodLevelResources off)', () => {
    const text = lines(...POD_HEAD, '    image: x', '  resources: {requests: {memory: 2Mi}}');
    const on = loadSources([{ name: 'in.yaml', text }]);
    assert.ok(on.ok);
    assert.deepEqual(on.input.pods[0]!.resources.requests, { memory: 2 * 1024 * 1024 });
    const off = loadSources([{ name: 'in.yaml', text }], { podLevelResources: false });
    assert.ok(off.ok);
    assert.deepEqual(off.input.pods[0]!.resources.requests, {});
    assert.deepEqual(off.warnings.map(formatDiagnostic), ['in.yaml:9:3: Pod default/web: spec.resources: dropped: pod-level resources count only with the PodLevelResources feature gate on']);
  });

  test('PodLevelResources off: a Deployment template loses spec.resources too, so its pods request what their containers do', () => {
    const text = lines(
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: d}',
      'spec:',
      '  replicas: 2',
      '  selector: {matchLabels: {app: d}}',
      '  template:',
      '    metadata: {labels: {app: d}}',
      '    spec:',
      '      containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]',
      '      resources: {requests: {cpu: "1"}}',
    );
    const off = loadSources([{ name: 'in.yaml', text }], { podLevelResources: false });
    assert.ok(off.ok);
    assert.deepEqual(off.input.pods.map((p) => p.resources.requests['cpu']), [100, 100]);
    assert.equal(off.warnings.length, 1);
    const on = loadSources([{ name: 'in.yaml', text }]);
    assert.ok(on.ok);
    assert.deepEqual(on.input.pods.map((p) => p.resources.requests['cpu']), [1000, 1000]);
  });

  test('--allow-missing: a missing PriorityClass is a warning and the pod gets the priority of one naming none', () => {
    const text = lines(...POD_HEAD, '  priorityClassName: gold');
    const plain = loadSources([{ name: 'in.yaml', text }], { allowMissing: true });
    assert.ok(plain.ok);
    assert.equal(plain.input.pods[0]!.priority, 0);
    assert.deepEqual(plain.warnings.map(formatDiagnostic), ['in.yaml:8:22: Pod default/web: spec.priorityClassName: PriorityClass "gold" is not in the input; the pod gets priority 0 as if it named none (--allow-missing)']);
    const globalDefault = lines('apiVersion: scheduling.k8s.io/v1', 'kind: PriorityClass', 'metadata: {name: base}', 'value: 7', 'globalDefault: true');
    const withDefault = loadSources([{ name: 'in.yaml', text: `${globalDefault}---\n${text}` }], { allowMissing: true });
    assert.ok(withDefault.ok);
    assert.equal(withDefault.input.pods[0]!.priority, 7);
  });

  test('spec.priority that contradicts the PriorityClass is forbidden', () => {
    const pc = lines('apiVersion: scheduling.k8s.io/v1', 'kind: PriorityClass', 'metadata: {name: gold}', 'value: 1000');
    const text = `${pc}---\n${lines(...POD_HEAD, '  priorityClassName: gold', '  priority: 5')}`;
    assert.deepEqual(errors(text), [
      'in.yaml:14:13: Pod default/web: spec.priority: Forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
    ]);
  });

  test('a user PriorityClass above one billion', () => {
    const text = lines('apiVersion: scheduling.k8s.io/v1', 'kind: PriorityClass', 'metadata: {name: huge}', 'value: 2000000000');
    assert.deepEqual(errors(text), ['in.yaml:4:8: PriorityClass huge: value: Invalid value: 2000000000: maximum allowed value of a user defined priority is 1000000000']);
  });

  test('two global default PriorityClasses', () => {
    const pc = (name: string) => lines('apiVersion: scheduling.k8s.io/v1', 'kind: PriorityClass', `metadata: {name: ${name}}`, 'value: 10', 'globalDefault: true');
    assert.deepEqual(errors(`${pc('a')}---\n${pc('b')}`), [
      'in.yaml:11:16: PriorityClass b: globalDefault: Forbidden: PriorityClass a is already marked as default. Only one default can exist',
    ]);
  });

  test('a PriorityClass that failed does not also fail the pods naming it', () => {
    const pc = lines('apiVersion: scheduling.k8s.io/v1', 'kind: PriorityClass', 'metadata: {name: gold}', 'value: lots');
    const text = `${pc}---\n${lines(...POD_HEAD, '  priorityClassName: gold')}`;
    assert.deepEqual(errors(text), ['in.yaml:4:8: PriorityClass gold: value: Invalid type: expected integer, got string "lots"']);
  });

  test('PodDisruptionBudget with both minAvailable and maxUnavailable', () => {
    const text = lines('apiVersion: policy/v1', 'kind: PodDisruptionBudget', 'metadata: {name: api}', 'spec:', '  minAvailable: 1', '  maxUnavailable: 10%');
    assert.deepEqual(errors(text), ['in.yaml:6:19: PodDisruptionBudget default/api: spec.maxUnavailable: Invalid value: minAvailable and maxUnavailable cannot be both set']);
  });

  test('a workload template error is reported under spec.template', () => {
    const text = lines(
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: api}',
      'spec:',
      '  selector: {matchLabels: {app: api}}',
      '  template:',
      '    metadata: {labels: {app: api}}',
      '    spec:',
      '      containers:',
      '      - name: api',
      '        resources: {requests: {cpu: half}}',
    );
    assert.deepEqual(errors(text), ['in.yaml:11:37: Deployment default/api: spec.template.spec.containers[0].resources.requests.cpu: invalid quantity "half": no digits']);
  });

  test('a workload selector that does not match its template labels', () => {
    const text = lines(
      'apiVersion: apps/v1',
      'kind: StatefulSet',
      'metadata: {name: db}',
      'spec:',
      '  selector: {matchLabels: {app: db}}',
      '  template:',
      '    metadata:',
      '      labels: {app: database}',
      '    spec: {containers: [{name: pg}]}',
    );
    assert.deepEqual(errors(text), ['in.yaml:8:7: StatefulSet default/db: spec.template.metadata.labels: Invalid value: {"app":"database"}: `selector` does not match template `labels`']);
  });

  test('an empty workload selector', () => {
    const text = lines('apiVersion: apps/v1', 'kind: DaemonSet', 'metadata: {name: agent}', 'spec:', '  selector: {}', '  template:', '    spec: {containers: [{name: a}]}');
    assert.deepEqual(errors(text), ['in.yaml:5:3: DaemonSet default/agent: spec.selector: Invalid value: {}: empty selector is invalid for daemonset']);
  });

  test('a workload without selector', () => {
    const text = lines('apiVersion: apps/v1', 'kind: ReplicaSet', 'metadata: {name: rs}', 'spec:', '  template:', '    spec: {containers: [{name: a}]}');
    assert.deepEqual(errors(text), ['in.yaml:4:1: ReplicaSet default/rs: spec.selector: Required value']);
  });

  test('negative replicas', () => {
    const text = lines('apiVersion: apps/v1', 'kind: Deployment', 'metadata: {name: d}', 'spec:', '  replicas: -1', '  selector: {matchLabels: {a: b}}', '  template:', '    metadata: {labels: {a: b}}', '    spec: {containers: [{name: a}]}');
    assert.deepEqual(errors(text), ['in.yaml:5:13: Deployment default/d: spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
  });

  test('errors of several files come in input order, then by line', () => {
    const bad = (q: string) => lines(...POD_HEAD.map((l) => l.replace('name: web', `name: web-${q}`)), `    resources: {requests: {cpu: ${q}}}`);
    const got = errorsOf({ name: 'z.yaml', text: bad('zz') }, { name: 'a.yaml', text: `${bad('b1')}---\n${bad('a1')}` });
    assert.deepEqual(
      got.map((e) => e.split(': ')[0]),
      ['z.yaml:8:33', 'a.yaml:8:33', 'a.yaml:17:33'],
    );
  });

  test('the result never carries a stack trace', () => {
    const got = errors(lines('apiVersion: v1', 'kind: Pod', 'metadata: {name: p, creationTimestamp: yesterday}', 'spec: {containers: [{name: c}]}'));
    assert.deepEqual(got, ['in.yaml:3:40: Pod default/p: metadata.creationTimestamp: Invalid value: "yesterday": not an RFC 3339 timestamp']);
    for (const e of got) assert.doesNotMatch(e, /\n\s+at /);
  });
});

describe('load keeps what scheduling reads', () => {
  test('a pod status DisruptionTarget condition marks a preemption victim', () => {
    const victim = (reason: string) =>
      lines(...POD_HEAD, '  nodeName: n1', 'status:', '  phase: Running', '  conditions:', `  - {type: DisruptionTarget, status: "True", reason: ${reason}}`);
    for (const [reason, want] of [['PreemptionByScheduler', true], ['EvictionByEvictionAPI', false]] as const) {
      const r = loadSources([{ name: 'in.yaml', text: victim(reason) }]);
      assert.ok(r.ok);
      assert.equal(r.input.pods[0]!.preemptedByScheduler, want, reason);
    }
  });
});
