import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadScenario, scenarioJsonSchema } from '../io/scenario.js';
import { loadSources, type LoadedInput } from '../io/load.js';
import type { ScenarioSpec } from '../io/scenario-spec.js';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import { runScenarioText } from './fixtures.test-support.js';
import { inputOwnPods, runScenario, startScenario } from './scenario.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const DIR = 'examples/scenarios';

function run(file: string) {
  return runScenarioText(file, readFileSync(file, 'utf8'));
}

describe('example scenarios', () => {
  for (const name of readdirSync(DIR).filter((f) => f.endsWith('.yaml'))) {
    it(`${name}: every expectation passes`, () => {
      const r = run(`${DIR}/${name}`);
      assert.ok(r.expectations.length > 0);
      for (const e of r.expectations) assert.ok(e.passed, `${e.name}: ${e.detail}`);
    });
  }

  it('the same scenario twice gives the same event log', () => {
    const a = run(`${DIR}/apiserver-anti-affinity.yaml`);
    const b = run(`${DIR}/apiserver-anti-affinity.yaml`);
    assert.equal(JSON.stringify(a.events), JSON.stringify(b.events));
  });

  it('the anti-affinity scale-up launches exactly two nodes through the provisioner', () => {
    const r = run(`${DIR}/apiserver-anti-affinity.yaml`);
    assert.equal(r.events.filter((e) => e.type === 'NodeClaimLaunched').length, 2);
  });
});

describe('a scenario run in legs (startScenario)', () => {
  const file = `${DIR}/apiserver-anti-affinity.yaml`;
  const text = readFileSync(file, 'utf8');
  const scenario = loadScenario({ name: file, text });
  assert.ok(scenario.ok);
  const loaded = loadSources([{ name: file, text }]);
  assert.ok(loaded.ok);
  const { input } = loaded;
  const spec = { ...scenario.scenario.spec, expect: [] };

  it('goes on where the last leg ended: the event log and end state are those of one run to the later end', () => {
    const whole = runScenario(input, spec, { instanceTypes: bundledInstanceTypes(), untilMs: 20 * 60_000 });
    const session = startScenario(input, spec, { instanceTypes: bundledInstanceTypes() });
    const first = session.runTo(3 * 60_000);
    assert.ok(first.events.length < whole.events.length);
    const last = session.runTo(20 * 60_000);
    assert.equal(JSON.stringify(last.events), JSON.stringify(whole.events));
    assert.deepEqual(last.final, whole.final);
  });

  it('a run with expectations ends once', () => {
    const session = startScenario(input, scenario.scenario.spec, { instanceTypes: bundledInstanceTypes() });
    session.runTo(60_000);
    assert.throws(() => session.runTo(120_000), /expectations ends once/);
  });
});

describe('the cluster of an input with nodes added to one already run', () => {
  const file = 'test/fixtures/kubectl-dump-workloads.yaml';
  const loaded = loadSources([{ name: file, text: readFileSync(file, 'utf8') }]);
  assert.ok(loaded.ok);
  const { input } = loaded;
  const spec: ScenarioSpec = { name: 't', seed: 0, provisioner: { enabled: false }, timing: {}, steps: [{ at: 60_000, action: { type: 'rollout', kind: 'Deployment', name: 'default/web' }, source: 't' }], expect: [] };
  const like = input.nodes[0]!;
  const extra = { ...like, name: 'node-c', uid: 'node-c', labels: { ...like.labels, 'kubernetes.io/hostname': 'node-c', 'topology.kubernetes.io/zone': 'us-west-2c' } };
  /** The run, and the generation node-a's NodeInfo had when it started (a copy keeps it; building anew gives a new one). */
  const run = (i: LoadedInput) => {
    let generation = -1;
    const r = runScenario(i, spec, { instanceTypes: [], untilMs: 20 * 60_000, observe: (sim) => (generation = sim.world.cluster.nodeInfo('node-a')!.generation) });
    return { r, generation };
  };

  it('is the built one with the nodes added, and runs as on a cluster built for it', () => {
    const base = run(input);
    const added = run({ ...input, nodes: [...input.nodes, extra] });
    // Other pods (an equal array, not the same one): nothing built to share, the cluster is built afresh.
    const fresh = run({ ...input, nodes: [...input.nodes, extra], pods: [...input.pods] });
    assert.equal(added.generation, base.generation);
    assert.notEqual(fresh.generation, base.generation);
    assert.equal(JSON.stringify(added.r.events), JSON.stringify(fresh.r.events));
    assert.deepEqual(added.r.final, fresh.r.final);
    assert.ok(added.r.final.nodes.some((n) => n.name === 'node-c' && n.pods.length > 0), 'the rollout uses the added node');
  });

  it('is still derived after many other inputs with nodes added: theirs do not push out the cluster built from the input', () => {
    const base = run(input);
    for (let i = 0; i < 6; i++) {
      const more = { ...extra, name: `node-x${i}`, uid: `node-x${i}`, labels: { ...extra.labels, 'kubernetes.io/hostname': `node-x${i}` } };
      assert.equal(run({ ...input, nodes: [...input.nodes, more] }).generation, base.generation, `input ${i}`);
    }
  });
});

describe('the input\'s own pods (what adoption reads)', () => {
  it('are the same list for inputs with the same pods and generated pods, whatever else a check changed', () => {
    // A Deployment without pods in the dump: the two pods of its template are generated.
    const fresh = '{apiVersion: apps/v1, kind: Deployment, metadata: {name: fresh, namespace: default}, spec: {replicas: 2, selector: {matchLabels: {app: fresh}}, template: {metadata: {labels: {app: fresh}}, spec: {containers: [{name: c, image: "fresh:1"}]}}}}';
    const text = `${readFileSync('test/fixtures/kubectl-dump-workloads.yaml', 'utf8')}- ${fresh}\n`;
    const loaded = loadSources([{ name: 'x.yaml', text }]);
    assert.ok(loaded.ok);
    const { input } = loaded;
    const own = inputOwnPods(input);
    assert.equal(own.length, input.pods.length - 2, 'the two pods generated for fresh are left out');
    const changed: LoadedInput = { ...input, workloads: input.workloads.map((w) => (w.name === 'web' ? { ...w, replicas: 3 } : w)) };
    assert.equal(inputOwnPods(changed), own);
    const dump = loadSources([{ name: 'd.yaml', text: readFileSync('test/fixtures/kubectl-dump-workloads.yaml', 'utf8') }]);
    assert.ok(dump.ok);
    assert.equal(inputOwnPods(dump.input), dump.input.pods);
  });
});

describe('scenario errors', () => {
  const bad = (spec: string) => loadScenario({ name: 's.yaml', text: `apiVersion: berth.dev/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nspec:\n${spec}` });
  const cases: { name: string; spec: string; want: RegExp }[] = [
    { name: 'two actions in a step', spec: '  steps:\n  - at: 1s\n    cordon: {node: a}\n    drain: {node: a}\n', want: /s\.yaml:6:\d+: .*spec\.steps\[0\]: .*exactly one action/ },
    { name: 'a bad duration', spec: '  steps:\n  - at: 5 minutes\n    cordon: {node: a}\n', want: /s\.yaml:6:\d+: .*spec\.steps\[0\]\.at: Invalid value: "5 minutes"/ },
    { name: 'steps out of order', spec: '  steps:\n  - at: 2m\n    cordon: {node: a}\n  - at: 1m\n    uncordon: {node: a}\n', want: /spec\.steps\[1\]\.at: .*time order/ },
    { name: 'an unknown action', spec: '  steps:\n  - at: 1s\n    explode: {node: a}\n', want: /spec\.steps\[0\]/ },
    {
      name: 'an invalid NodePool in updateNodePool, at its field',
      spec: '  steps:\n  - at: 1s\n    updateNodePool:\n      metadata: {name: default}\n      spec:\n        template: {spec: {requirements: [], nodeClassRef: {group: g, kind: K, name: d}, expireAfter: 1 day}}\n',
      want: /s\.yaml:10:\d+: .*spec\.steps\[0\]\.updateNodePool\.spec\.template\.spec\.expireAfter: Invalid value: "1 day"/,
    },
    { name: 'an unknown disruption setting', spec: '  disruption: {enabled: true, consolidate: true}\n', want: /s\.yaml:5:\d+: .*spec\.disruption/ },
    { name: 'an unknown disruption reason', spec: '  expect:\n  - disruptions: {reason: Bored}\n', want: /spec\.expect\[0\]\.disruptions\.reason/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = bad(c.spec);
      assert.equal(r.ok, false);
      const text = !r.ok ? r.errors.map((d) => `${d.file}:${d.line}:${d.column}: ${d.object ?? ''}: ${d.field ?? ''}: ${d.message}`).join('\n') : '';
      assert.match(text, c.want);
    });
  }
});

describe('scenario JSON Schema', () => {
  it('docs/scenario.schema.json is what the validator exports (run npm run scenario-schema after a change)', () => {
    assert.deepEqual(JSON.parse(readFileSync('docs/scenario.schema.json', 'utf8')), scenarioJsonSchema());
  });
});

describe('storage in scenarios', () => {
  it('etcd-zonal-volumes-zone-loss: the replica recreated after its zone is gone waits with the scheduler\'s PV node affinity message', () => {
    const r = run(`${DIR}/etcd-zonal-volumes-zone-loss.yaml`);
    const failed = r.events.filter((e) => e.type === 'FailedScheduling' && e.t >= 180_000);
    assert.ok(failed.length > 0);
    assert.match(String(failed[0]!['message']), /^0\/4 nodes are available: 4 node\(s\) didn't match PersistentVolume's node affinity\./);
    // The volumes were provisioned, one per zone, where the scheduler put each replica.
    const provisioned = r.events.filter((e) => e.type === 'VolumeProvisioned').map((e) => e['topology']).sort();
    assert.deepEqual(provisioned, ['topology.kubernetes.io/zone=us-west-2a', 'topology.kubernetes.io/zone=us-west-2b', 'topology.kubernetes.io/zone=us-west-2c']);
  });

  /** A scenario named `name` with one 4-CPU node n1 in us-west-2a, up to its first object after the node. */
  const oneNode = (name: string, volumeProvision: string) => `apiVersion: berth.dev/v1alpha1
kind: Scenario
metadata: {name: ${name}}
spec:
  timing: {volumeProvision: ${volumeProvision}}
  objects:
  - {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: us-west-2a}}, status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}}
`;

  const steps = (extra: string) => `${oneNode('storage-steps', '20s')}  - apiVersion: v1
    kind: Pod
    metadata: {name: db, namespace: default}
    spec:
      containers: [{name: c, resources: {requests: {cpu: 100m}}}]
      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
  steps:
  - at: 30s
    addStorageClass: {metadata: {name: gp3, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}, provisioner: ebs.csi.aws.com}
  - at: 1m
    addPersistentVolumeClaim: {metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}
${extra}`;

  it('classes and claims added by steps: the default class is admitted, the volume provisioned after timing.volumeProvision, the pod then scheduled', () => {
    const r = runScenarioText('s.yaml', steps('  expect:\n  - at: 79s\n    pending: {selector: {}, count: 1}\n  - allScheduled: {}\n'));
    for (const e of r.expectations) assert.ok(e.passed, `${e.name}: ${e.detail}`);
    const pvc = r.sim.world.cluster.volumes.claim('default', 'data')!;
    assert.equal(pvc.storageClassName, 'gp3');
    assert.equal(r.events.find((e) => e.type === 'VolumeProvisioned')!.t, 80_000);
  });

  it('a step naming a claim that does not exist fails with a clear message, the run goes on', () => {
    const r = runScenarioText('s.yaml', steps('  - at: 2m\n    deletePersistentVolumeClaim: {claim: other}\n  expect:\n  - allScheduled: {}\n'));
    assert.ok(r.events.some((e) => e.type === 'StepFailed' && e['message'] === 'no PersistentVolumeClaim default/other'));
  });

  it('deleteStatefulSet: its pods go, and its claims with them under whenDeleted: Delete; an unknown set is a failed step', () => {
    const text = (policy: string) => `${oneNode('delete-sts', '5s')}  - {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: gp3, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}, provisioner: ebs.csi.aws.com}
  - apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: db, namespace: default}
    spec:
      replicas: 2
      selector: {matchLabels: {app: db}}
      persistentVolumeClaimRetentionPolicy: {whenDeleted: ${policy}}
      template:
        metadata: {labels: {app: db}}
        spec: {terminationGracePeriodSeconds: 5, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
      volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]
  steps:
  - at: 2m
    deleteStatefulSet: {statefulSet: db}
  - at: 3m
    deleteStatefulSet: {statefulSet: other/db}
  until: 5m
`;
    for (const [policy, claims] of [['Delete', 0], ['Retain', 2]] as const) {
      const r = runScenarioText('s.yaml', text(policy));
      assert.equal([...r.sim.world.cluster.pods()].length, 0, policy);
      assert.equal([...r.sim.world.cluster.volumes.claims()].length, claims, policy);
      assert.ok(r.events.some((e) => e.type === 'StepFailed' && e['message'] === 'no StatefulSet other/db'));
    }
  });

  it('a bad claim in a step is an error at its field', () => {
    const s = loadScenario({ name: 's.yaml', text: steps('  - at: 2m\n    addPersistentVolumeClaim: {metadata: {name: x}, spec: {accessModes: [ReadWriteSometimes]}}\n') });
    assert.ok(!s.ok);
    assert.match(`${s.errors[0]!.line}: ${s.errors[0]!.field}: ${s.errors[0]!.message}`, /^20: spec\.steps\[2\]\.addPersistentVolumeClaim\.spec\.accessModes\[0\]: Unsupported value: "ReadWriteSometimes"/);
  });
});

describe('bad storage input in a simulation', () => {
  it('an unknown class, a claim bound to a missing PV and an access-mode mismatch leave their pods Pending with the scheduler\'s messages', () => {
    const pod = (name: string, claim: string) => `  - apiVersion: v1
    kind: Pod
    metadata: {name: ${name}, namespace: default}
    spec:
      containers: [{name: c, resources: {requests: {cpu: 100m}}}]
      volumes: [{name: data, persistentVolumeClaim: {claimName: ${claim}}}]
`;
    const claim = (name: string, extra: string, status = '') => `  - {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: ${name}, namespace: default}, spec: {accessModes: [ReadWriteMany], resources: {requests: {storage: 1Gi}}, ${extra}}${status}}
`;
    const text = `apiVersion: berth.dev/v1alpha1
kind: Scenario
metadata: {name: bad-storage}
spec:
  objects:
  - {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: us-west-2a}}, status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}}
  - {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: static}, provisioner: kubernetes.io/no-provisioner}
  - {apiVersion: v1, kind: PersistentVolume, metadata: {name: rwo}, spec: {capacity: {storage: 5Gi}, accessModes: [ReadWriteOnce], storageClassName: static, csi: {driver: ebs.csi.aws.com, volumeHandle: v}}}
${claim('unknown-class', 'storageClassName: missing')}${claim('lost', 'storageClassName: static, volumeName: gone', ', status: {phase: Bound}')}${claim('mismatch', 'storageClassName: static')}${pod('a', 'unknown-class')}${pod('b', 'lost')}${pod('c', 'mismatch')}
  expect:
  - pending: {selector: {}, count: 3}
`;
    const r = runScenarioText('bad.yaml', text, { untilMs: 60_000 });
    for (const e of r.expectations) assert.ok(e.passed, `${e.name}: ${e.detail}`);
    const last = (pod: string) => String(r.events.filter((e) => e.type === 'FailedScheduling' && e['pod'] === pod).at(-1)?.['message']);
    assert.match(last('default/a'), /pod has unbound immediate PersistentVolumeClaims/);
    assert.match(last('default/c'), /pod has unbound immediate PersistentVolumeClaims/);
    // The PV controller marks the bound claim Lost; VolumeBinding's PreFilter names it.
    assert.match(last('default/b'), /persistentvolumeclaim "lost" bound to non-existent persistentvolume "gone"/);
    assert.equal(r.sim.world.cluster.volumes.claim('default', 'lost')!.phase, 'Lost');
    assert.equal(r.sim.world.cluster.volumes.persistentVolume('rwo')!.claimRef, null);
  });
});

describe('scenario startTime', () => {
  it('sets the wall clock CronJob schedules read: a 03:00 CronJob fires 1 minute into a run starting at 02:59', () => {
    const text = `apiVersion: berth.dev/v1alpha1
kind: Scenario
metadata: {name: nightly}
spec:
  startTime: "2026-01-05T02:59:00Z"
  until: 5m
  objects:
  - {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}}
  - apiVersion: batch/v1
    kind: CronJob
    metadata: {name: nightly, namespace: default}
    spec:
      schedule: "0 3 * * *"
      jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}}}
`;
    const run = runScenarioText('nightly.yaml', text);
    const fired = run.events.filter((e) => e.type === 'CronJobScheduled');
    assert.deepEqual(fired.map((e) => [e.t, e['scheduled']]), [[60_000, '2026-01-05T03:00:00.000Z']]);
    assert.ok(run.events.some((e) => e.type === 'JobComplete'));
  });
});

describe('runs over one built cluster share what they start from, and nothing they change', () => {
  // Running pods owned by a ReplicaSet (with a PDB) and a DaemonSet: what a copy reads of the built cluster (the PDB's selection, pending pods, the World's pod index).
  const pod = (name: string, app: string, owner: string, node: string) =>
    `- {apiVersion: v1, kind: Pod, metadata: {name: ${name}, namespace: apps, uid: pod-${name}, labels: {app: ${app}}, ownerReferences: [${owner}]}, spec: {nodeName: ${node}, containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]}, status: {phase: Running}}`;
  const rs = '{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f, uid: rs-web, controller: true}';
  const ds = '{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds-agent, controller: true}';
  const nodes = ['n0', 'n1', 'n2', 'n3'];
  const text = [
    'apiVersion: v1',
    'kind: List',
    'items:',
    ...nodes.map((n, i) => `- {apiVersion: v1, kind: Node, metadata: {name: ${n}, labels: {kubernetes.io/hostname: ${n}, topology.kubernetes.io/zone: z${i % 2}}}, status: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}}}`),
    '- {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: apps, uid: deploy-web}, spec: {replicas: 3, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]}}}}',
    '- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: web, namespace: apps}, spec: {minAvailable: 2, selector: {matchLabels: {app: web}}}}',
    '- {apiVersion: apps/v1, kind: DaemonSet, metadata: {name: agent, namespace: apps, uid: ds-agent}, spec: {selector: {matchLabels: {app: agent}}, template: {metadata: {labels: {app: agent}}, spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]}}}}',
    ...[0, 1, 2].map((i) => pod(`web-5d8f-p${i}`, 'web', rs, `n${i}`)),
    ...nodes.map((n) => pod(`agent-${n}`, 'agent', ds, n)),
    '',
  ].join('\n');
  const load = () => {
    const loaded = loadSources([{ name: 'shared.yaml', text }]);
    assert.ok(loaded.ok);
    return loaded.input;
  };
  const spec = (steps: ScenarioSpec['steps']): ScenarioSpec => ({ name: 'x', seed: 0, provisioner: { enabled: false }, timing: {}, steps, expect: [] });
  const loss: ScenarioSpec['steps'] = [
    { at: 60_000, action: { type: 'rollout', kind: 'Deployment', name: 'apps/web' }, source: 't' },
    { at: 90_000, action: { type: 'failNode', node: 'n0' }, source: 't' },
  ];
  const dsRollout: ScenarioSpec['steps'] = [{ at: 60_000, action: { type: 'rollout', kind: 'DaemonSet', name: 'apps/agent' }, source: 't' }];
  const log = (input: LoadedInput, steps: ScenarioSpec['steps']) => JSON.stringify(runScenario(input, spec(steps), { instanceTypes: [], untilMs: 20 * 60_000 }).events);

  it('a run over a copy gives the log of a run over a cluster built afresh, and leaves the next copy as the first', () => {
    const input = load();
    const quiet = log(input, []);
    const changed = log(input, loss);
    assert.match(changed, /PodTerminating/);
    // Each of these starts from the built cluster the runs above copied: any change they left in it would show.
    assert.equal(log(input, loss), changed);
    assert.equal(log(input, []), quiet);
    assert.equal(log(load(), loss), changed);
    assert.equal(log(load(), []), quiet);
  });

  it('a DaemonSet rollout over a copy (its view files the pods every copy starts with once) gives the log of one over a cluster built afresh', () => {
    const input = load();
    const rolled = log(input, dsRollout);
    for (const n of nodes) assert.match(rolled, new RegExp(`"PodTerminating","pod":"apps/agent-${n}"`));
    assert.equal(log(input, loss), log(load(), loss));
    assert.equal(log(input, dsRollout), rolled);
    assert.equal(log(load(), dsRollout), rolled);
  });

  it('keeps the last two clusters built from inputs with the same pods (each a whole cluster at 5,000 nodes), and two derived from them: a third with nodes added lets the oldest such go, not the one they are derived from', async () => {
    const input = load();
    /** The built cluster a run copied (held weakly by the copy). */
    const builtOf = (i: LoadedInput) => (runScenario(i, spec([]), { instanceTypes: [], untilMs: 0 }).sim.world.cluster as unknown as { copiedFrom: { state: WeakRef<object> } }).copiedFrom.state;
    const withNode = (name: string): LoadedInput => ({ ...input, nodes: [...input.nodes, { ...input.nodes[0]!, name, uid: name }] });
    const built = [builtOf(input), builtOf(withNode('n8')), builtOf(withNode('n9')), builtOf(withNode('n10'))];
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    assert.deepEqual(built.map((b) => b.deref() !== undefined), [true, false, true, true]);
  });

  it('a DaemonSet whose template an input changed (same pods, same revision) is synced over every node, not as the runs before found it', () => {
    const zoneOnly = (i: LoadedInput): LoadedInput => ({
      ...i,
      workloads: i.workloads.map((w) => (w.kind === 'DaemonSet' ? { ...w, template: { ...w.template, spec: { ...w.template.spec, nodeSelector: { 'topology.kubernetes.io/zone': 'z0' } } } } : w)),
    });
    // The pods carry the revision label, as in a dump: the DaemonSet keeps that revision whatever its template.
    const labelled = () => {
      const loaded = loadSources([{ name: 'labelled.yaml', text: text.replaceAll('labels: {app: agent}, ownerReferences', 'labels: {app: agent, controller-revision-hash: r1}, ownerReferences') }]);
      assert.ok(loaded.ok);
      return loaded.input;
    };
    const input = labelled();
    log(input, []);
    log(input, []);
    const changed = log(zoneOnly(input), []);
    for (const n of ['n1', 'n3']) assert.match(changed, new RegExp(`"PodTerminating","pod":"apps/agent-${n}"`));
    assert.equal(changed, log(zoneOnly(labelled()), []));
  });
});
