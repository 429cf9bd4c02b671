import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDiagnostic } from './diagnostics.js';
import { loadDisruptionVariants, loadLoadCurve } from './what-if-spec.js';

const WORKLOADS = [
  { kind: 'Deployment' as const, key: 'default/web' },
  { kind: 'StatefulSet' as const, key: 'data/db' },
];

function curve(text: string) {
  return loadLoadCurve({ name: 'load.csv', text }, WORKLOADS);
}

function curveErrors(text: string): string[] {
  const r = curve(text);
  assert.equal(r.ok, false);
  return r.ok ? [] : r.errors.map(formatDiagnostic);
}

describe('load curve CSV', () => {
  it('turns changes of replica counts into scale steps at their times (HH:MM or durations; empty cells keep the count)', () => {
    const r = curve('# comment\ntime,web,StatefulSet/data/db\n00:00,3,1\n01:30,3,\n2h,5,2\n');
    assert.ok(r.ok);
    assert.deepEqual(
      r.steps.map((s) => [s.at, s.action, s.source]),
      [
        [0, { type: 'scale', kind: 'Deployment', name: 'default/web', replicas: 3 }, 'load.csv:3'],
        [0, { type: 'scale', kind: 'StatefulSet', name: 'data/db', replicas: 1 }, 'load.csv:3'],
        [7_200_000, { type: 'scale', kind: 'Deployment', name: 'default/web', replicas: 5 }, 'load.csv:5'],
        [7_200_000, { type: 'scale', kind: 'StatefulSet', name: 'data/db', replicas: 2 }, 'load.csv:5'],
      ],
    );
  });

  it('names line, column and cell of each mistake', () => {
    assert.deepEqual(curveErrors('time,web,api\n0m,1,1\n'), ['load.csv:1:10: api: Not found: no Deployment default/api in the scenario\'s objects']);
    assert.deepEqual(curveErrors('time,DaemonSet/x\n'), ['load.csv:1:6: DaemonSet/x: Unsupported value: "DaemonSet": supported kinds: Deployment, StatefulSet, ReplicaSet']);
    assert.deepEqual(curveErrors('time,web\n1h,2\n30m,3\n'), ['load.csv:3:1: time: Invalid value: "30m": times must increase from row to row']);
    assert.deepEqual(curveErrors('time,web\n1h,two\n'), ['load.csv:2:4: web: Invalid value: "two": must be a whole number of replicas from 0 to 100000']);
    assert.match(curveErrors('time,web\n25:00,1\n')[0]!, /^load\.csv:2:1: time: Invalid value: "25:00"/);
    assert.match(curveErrors('web,time\n')[0]!, /^load\.csv:1:1: time: expected a header row/);
  });
});

const HEAD = 'apiVersion: berth.dev/v1alpha1\nkind: DisruptionVariants\nspec:\n  variants:\n';

describe('disruption variants', () => {
  it('compiles each variant with the NodePool CRD defaults (10% budget, consolidateAfter 0s)', () => {
    const r = loadDisruptionVariants({ name: 'v.yaml', text: `${HEAD}  - {name: empty, disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 30s}}\n  - {name: default, disruption: {}, spotToSpotConsolidation: true}\n` });
    assert.ok(r.ok);
    assert.equal(r.variants[0]!.disruption.consolidationPolicy, 'WhenEmpty');
    assert.equal(r.variants[0]!.disruption.consolidateAfterSeconds, 30);
    assert.equal(r.variants[1]!.disruption.consolidationPolicy, 'WhenEmptyOrUnderutilized');
    assert.deepEqual(r.variants[1]!.disruption.budgets.map((b) => b.nodes), ['10%']);
    assert.equal(r.variants[1]!.spotToSpotConsolidation, true);
  });

  it('reports CRD violations and duplicates at their line and field', () => {
    const r = loadDisruptionVariants({ name: 'v.yaml', text: `${HEAD}  - name: a\n    disruption: {consolidationPolicy: Sometimes}\n  - name: a\n    disruption: {budgets: [{nodes: lots}]}\n` });
    assert.equal(r.ok, false);
    const lines = r.ok ? [] : r.errors.map(formatDiagnostic);
    assert.equal(lines.length, 3);
    assert.match(lines[0]!, /^v\.yaml:6:\d+: DisruptionVariants: spec\.variants\[0\]\.disruption\.consolidationPolicy: Unsupported value: "Sometimes"/);
    assert.match(lines[1]!, /^v\.yaml:7:\d+: DisruptionVariants: spec\.variants\[1\]\.name: Duplicate value: "a"/);
    assert.match(lines[2]!, /^v\.yaml:8:\d+: DisruptionVariants: spec\.variants\[1\]\.disruption\.budgets\[0\]\.nodes: Invalid value: "lots"/);
  });

  it('optimize: cost turns berth\'s consolidation cost step on for one variant; anything else is refused at its field', () => {
    const r = loadDisruptionVariants({ name: 'v.yaml', text: `${HEAD}  - {name: karpenter, disruption: {}}\n  - {name: cheaper, disruption: {}, optimize: cost}\n` });
    assert.ok(r.ok);
    assert.deepEqual(r.variants.map((v) => v.optimize), [undefined, 'cost']);
    const bad = loadDisruptionVariants({ name: 'v.yaml', text: `${HEAD}  - {name: x, disruption: {}, optimize: nodes}\n` });
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? '' : formatDiagnostic(bad.errors[0]!), /^v\.yaml:5:\d+: DisruptionVariants: spec\.variants\[0\]\.optimize: must be "cost"/);
  });
});
