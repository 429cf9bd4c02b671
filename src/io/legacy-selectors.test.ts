import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildClusterState, loadSources } from './load.js';
import { legacySelectorValues } from './legacy-selectors.js';
import { scheduleAll } from '../scheduler/run.js';

const POD = `apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: default}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: zone, operator: In, values: [a, "-a"]}
  containers: [{name: c, image: x}]
---
apiVersion: v1
kind: Pod
metadata: {name: p2, namespace: default}
spec:
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchLabels: {"bad key": x}}
  containers: [{name: c, image: x}]
`;

describe('legacy label keys and values in pod selectors', () => {
  it('finds each value and key with its path', () => {
    const found = legacySelectorValues({
      affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'z', labelSelector: { matchLabels: { app: '{{x}}' } } } }] } },
      topologySpreadConstraints: [{ labelSelector: { matchExpressions: [{ key: 'a/b/c', operator: 'Exists' }] } }],
    });
    assert.deepEqual(
      found.map((f) => f.path.join('.')),
      ['affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution.0.podAffinityTerm.labelSelector.matchLabels.app', 'topologySpreadConstraints.0.labelSelector.matchExpressions.0.key'],
    );
    assert.deepEqual(legacySelectorValues({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'z', operator: 'In', values: ['ok'] }] }] } } } }), []);
  });

  it('loads the pods with a warning at file:line and field, and schedules them as kube-scheduler does', () => {
    const r = loadSources([{ name: 'dump.yaml', text: POD }]);
    assert.ok(r.ok);
    assert.deepEqual(
      r.warnings.map((w) => `${w.line}:${w.field}`),
      ['15:spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[1]', '26:spec.topologySpreadConstraints[0].labelSelector.matchLabels[bad key]'],
    );
    const report = scheduleAll(buildClusterState(r.input), {});
    assert.deepEqual(report.placements, []);
    const messages = Object.fromEntries(report.unschedulable.map((u) => [u.pod, u.message]));
    // The term with "-a" cannot be parsed, so it matches no node although zone=a is listed.
    assert.match(messages['default/p1']!, /didn't match Pod's node affinity\/selector/);
    // A spread selector that cannot be parsed is PodTopologySpread's PreFilter Error: the attempt ends with it.
    assert.match(messages['default/p2']!, /^running PreFilter plugin "PodTopologySpread": get constraints from pod: obtaining pod's hard topology spread constraints: key: Invalid value: "bad key"/);
  });
});

describe('legacy label keys and values in PDB and workload selectors', () => {
  const NODE = 'apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}\n';
  it('a PDB loads with a warning at the value and matches no pod, NotIn included (the eviction API and preemption skip it)', () => {
    const text = `${NODE}---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: old, namespace: default}
spec:
  maxUnavailable: 0
  selector: {matchExpressions: [{key: app, operator: NotIn, values: ["x y"]}]}
`;
    const r = loadSources([{ name: 'pdb.yaml', text }]);
    assert.ok(r.ok);
    assert.deepEqual(r.warnings.map((w) => `${w.line}:${w.field}`), ['11:spec.selector.matchExpressions[0].values[0]']);
    assert.match(r.warnings[0]!.message, /protects no pod; Karpenter v1\.14\.1 cannot read the cluster's PDBs, so it disrupts no node\)$/);
    assert.equal(r.input.pdbs[0]!.selector.matches({ app: 'web' }), false);
  });
  for (const kind of ['Deployment', 'ReplicaSet', 'StatefulSet']) {
    it(`a ${kind} selector with such a value is an error (apps/v1 always validated it strictly)`, () => {
      const text = `${NODE}---
apiVersion: apps/v1
kind: ${kind}
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}, matchExpressions: [{key: "bad key", operator: DoesNotExist}]}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: i}]}
`;
      const r = loadSources([{ name: 'w.yaml', text }]);
      assert.ok(!r.ok);
      assert.deepEqual(r.errors.map((e) => `${e.line}:${e.field}`), ['10:spec.selector.matchExpressions[0].key']);
      assert.match(r.errors[0]!.message, /^Invalid value: "bad key": .*no stored object has one\)$/);
    });
  }
  const DAEMONSET = (selector: string) => `${NODE}---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: ${selector}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: i}]}
`;
  it('a DaemonSet selector with such a value loads with a warning and makes no pods (ValidateDaemonSetSpec keeps old values; its controller cannot parse them)', () => {
    const r = loadSources([{ name: 'ds.yaml', text: DAEMONSET('{matchExpressions: [{key: app, operator: In, values: [agent, "x y"]}]}') }]);
    assert.ok(r.ok, r.ok ? '' : r.errors[0]!.message);
    assert.deepEqual(r.warnings.map((w) => `${w.line}:${w.field}`), ['10:spec.selector.matchExpressions[0].values[1]']);
    assert.match(r.warnings[0]!.message, /^Invalid value: "x y": .*the DaemonSet controller cannot parse its selector, so it creates and manages no pods\)$/);
    assert.deepEqual(r.input.pods, []);
    // The same DaemonSet with valid values runs its pod on the node.
    const valid = loadSources([{ name: 'ds.yaml', text: DAEMONSET('{matchExpressions: [{key: app, operator: In, values: [agent, x]}]}') }]);
    assert.ok(valid.ok);
    assert.equal(valid.input.pods.length, 1);
  });
  it('a DaemonSet selector with such a key is an error, and only that one (no template-label mismatch on a selector that cannot be parsed)', () => {
    const r = loadSources([{ name: 'ds.yaml', text: DAEMONSET('{matchExpressions: [{key: "bad key", operator: In, values: [agent]}]}') }]);
    assert.ok(!r.ok);
    assert.deepEqual(r.errors.map((e) => `${e.line}:${e.field}`), ['10:spec.selector.matchExpressions[0].key']);
    assert.match(r.errors[0]!.message, /^Invalid value: "bad key": .*a DaemonSet selector's keys have always been checked so, and no stored object has one\)$/);
  });
});
