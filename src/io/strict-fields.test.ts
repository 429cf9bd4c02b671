import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDiagnostic, loadSources } from './load.js';
import { FIELD_SCHEMA_SOURCES, hasFieldSchema, unknownFields, type ValidationMode } from './strict-fields.js';

const lines = (...ls: string[]) => `${ls.join('\n')}\n`;

function run(text: string, validate?: ValidationMode) {
  const r = loadSources([{ name: 'in.yaml', text }], validate ? { validate } : {});
  return { ok: r.ok, errors: r.ok ? [] : r.errors.map(formatDiagnostic), warnings: r.warnings.map(formatDiagnostic) };
}

const REPLICAZ = lines(
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata: {name: web}',
  'spec:',
  '  replicaz: 3',
  '  selector: {matchLabels: {app: web}}',
  '  template:',
  '    metadata: {labels: {app: web}}',
  '    spec: {containers: [{name: c, image: nginx}]}',
);

describe('strict field validation', () => {
  test('a misspelled Deployment field is an error at its key, naming the path (the issue\'s acceptance case)', () => {
    const r = run(REPLICAZ);
    assert.equal(r.ok, false);
    assert.deepEqual(r.errors, ['in.yaml:5:3: Deployment default/web: spec.replicaz: unknown field "replicaz" (did you mean "replicas"?)']);
  });

  test('--validate=warn reports the same as a warning and loads the object; ignore says nothing', () => {
    const warn = run(REPLICAZ, 'warn');
    assert.equal(warn.ok, true);
    assert.deepEqual(warn.warnings, ['in.yaml:5:3: Deployment default/web: spec.replicaz: unknown field "replicaz" (did you mean "replicas"?)']);
    const ignore = run(REPLICAZ, 'ignore');
    assert.equal(ignore.ok, true);
    assert.deepEqual(ignore.warnings, []);
  });

  test('a field written twice: error under strict, warning under warn (the last value wins), nothing under ignore', () => {
    const text = lines('apiVersion: v1', 'kind: Node', 'metadata:', '  name: a', '  labels: {x: "1"}', '  labels: {x: "2"}');
    assert.deepEqual(run(text).errors, ['in.yaml:6:3: metadata.labels: duplicate field "labels"']);
    const warn = loadSources([{ name: 'in.yaml', text }], { validate: 'warn' });
    assert.ok(warn.ok);
    assert.equal(warn.input.nodes[0]!.labels['x'], '2');
    assert.deepEqual(warn.warnings.map(formatDiagnostic), ['in.yaml:6:3: metadata.labels: duplicate field "labels"']);
    assert.equal(run(text, 'ignore').warnings.length, 0);
  });

  test('misspellings deep in a pod template, in lists and in a List are all reported', () => {
    const text = lines(
      'apiVersion: v1',
      'kind: List',
      'items:',
      '- apiVersion: v1',
      '  kind: Pod',
      '  metadata: {name: p}',
      '  spec:',
      '    affinity: {podAntiAfinity: {}}',
      '    containers:',
      '    - name: c',
      '      resources: {requets: {cpu: 1}}',
    );
    assert.deepEqual(run(text).errors, [
      'in.yaml:8:16: Pod default/p: spec.affinity.podAntiAfinity: unknown field "podAntiAfinity" (did you mean "podAntiAffinity"?)',
      'in.yaml:11:19: Pod default/p: spec.containers[0].resources.requets: unknown field "requets" (did you mean "requests"?)',
    ]);
  });

  test('everything a kubectl dump carries is declared: status, managedFields (free-form fieldsV1), annotations, ownerReferences', () => {
    const text = lines(
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: p',
      '  annotations: {any/key: v}',
      '  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: r, uid: u, controller: true, blockOwnerDeletion: true}]',
      '  managedFields: [{manager: kubectl, operation: Apply, fieldsType: FieldsV1, fieldsV1: {"f:spec": {"f:anything": {}}}}]',
      'spec: {containers: [{name: c}], nodeName: n1}',
      'status: {phase: Running, conditions: [{type: Ready, status: "True"}], podIPs: [{ip: 10.0.0.1}]}',
    );
    assert.deepEqual(run(text).errors, []);
  });

  test('karpenter.sh/v1 NodePool: its CRD schema, and ObjectMeta for metadata', () => {
    const text = lines(
      'apiVersion: karpenter.sh/v1',
      'kind: NodePool',
      'metadata: {name: default, lables: {a: b}}',
      'spec:',
      '  template:',
      '    spec:',
      '      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]',
      '      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}',
      '  disruption: {consolidationPolicy: WhenEmpty, consolidateAfer: 30s}',
    );
    assert.deepEqual(run(text).errors, [
      'in.yaml:3:27: NodePool default: metadata.lables: unknown field "lables" (did you mean "labels"?)',
      'in.yaml:9:48: NodePool default: spec.disruption.consolidateAfer: unknown field "consolidateAfer" (did you mean "consolidateAfter"?)',
    ]);
  });

  test("berth's InstanceTypeCatalog: the envelope is checked here (its spec by the catalog's own parser)", () => {
    const text = lines('apiVersion: berth.dev/v1alpha1', 'kind: InstanceTypeCatalog', 'metadata: {name: c}', 'spek: {}');
    assert.match(run(text).errors.join('\n'), /in\.yaml:4:1: .*spek: unknown field "spek" \(did you mean "spec"\?\)/);
  });

  test('a suggestion only within two edits of one declared field', () => {
    assert.deepEqual(unknownFields('v1', 'Node', { metadata: { nme: 'x' }, zz: 1 }).map((f) => f.suggestion ?? null), ['name', null]);
    assert.deepEqual(unknownFields('v1', 'Service', { spec: { ports: [{ prot: 80 }] } }).map((f) => [f.path.join('.'), f.suggestion]), [['spec.ports.0.prot', 'port']]);
  });

  test('every kind of the group versions berth reads or will read has a schema (PV, PVC, StorageClass, CSINode, CSIDriver, Job, CronJob...)', () => {
    const kinds: [string, string][] = [
      ['v1', 'Pod'], ['v1', 'Node'], ['v1', 'Namespace'], ['v1', 'Service'], ['v1', 'ReplicationController'], ['v1', 'PersistentVolume'], ['v1', 'PersistentVolumeClaim'],
      ['apps/v1', 'Deployment'], ['apps/v1', 'ReplicaSet'], ['apps/v1', 'StatefulSet'], ['apps/v1', 'DaemonSet'],
      ['batch/v1', 'Job'], ['batch/v1', 'CronJob'], ['policy/v1', 'PodDisruptionBudget'], ['scheduling.k8s.io/v1', 'PriorityClass'],
      ['storage.k8s.io/v1', 'StorageClass'], ['storage.k8s.io/v1', 'CSINode'], ['storage.k8s.io/v1', 'CSIDriver'], ['autoscaling/v2', 'HorizontalPodAutoscaler'],
      ['karpenter.sh/v1', 'NodePool'], ['karpenter.sh/v1', 'NodeClaim'], ['berth.dev/v1alpha1', 'InstanceTypeCatalog'],
    ];
    for (const [v, k] of kinds) assert.ok(hasFieldSchema(v, k), `${v} ${k}`);
    assert.equal(hasFieldSchema('apps/v1', 'Pod'), false);
    assert.deepEqual(FIELD_SCHEMA_SOURCES, ['k8s.io/kubernetes@v1.37.2 api/openapi-spec/v3', 'sigs.k8s.io/karpenter@v1.14.1 pkg/apis/crds']);
  });

  test('fields added in recent releases are declared (the table is v1.37, not an old copy)', () => {
    // Pod-level resources (1.32+), and a Job's successPolicy (1.31+).
    assert.deepEqual(unknownFields('v1', 'Pod', { spec: { resources: { requests: { cpu: '1' } }, containers: [] } }), []);
    assert.deepEqual(unknownFields('batch/v1', 'Job', { spec: { successPolicy: { rules: [] }, template: {} } }), []);
  });

  test('an unknown kind or a value of the wrong shape is left to the other checks', () => {
    assert.deepEqual(unknownFields('example.com/v1', 'Widget', { anything: 1 }), []);
    assert.deepEqual(unknownFields('apps/v1', 'Deployment', { spec: 'not a mapping', metadata: [] }), []);
  });
});
