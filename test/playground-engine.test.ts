// The playground's engine calls (web/src/engine.ts) without a browser: the scheduler
// configuration written among the manifests, explain for any pod, the bars' numbers.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { check, explain, load, provision, schedule, simulate, type Loaded } from '../web/src/engine.js';
import { splitByKind } from '../web/src/input-tabs.js';

const nodes = `apiVersion: v1
kind: Node
metadata: {name: a, labels: {kubernetes.io/hostname: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: b, labels: {kubernetes.io/hostname: b}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: default}
spec: {nodeName: a, containers: [{name: c, image: i, resources: {requests: {cpu: "2", memory: 2Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: new, namespace: default}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 500m, memory: 512Mi}}}]}
`;
const binPacking = readFileSync(new URL('../examples/scheduler-config/bin-packing.yaml', import.meta.url), 'utf8');

function loaded(text: string): Loaded & { ok: true } {
  const r = load(splitByKind(text));
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  return r;
}

const placed = (text: string) => schedule(loaded(text)).pods.find((p) => p.key === 'default/new')?.node;

describe('playground engine', () => {
  it('a KubeSchedulerConfiguration in the input is the --config: bin-packing puts the pod on the fuller node', () => {
    assert.equal(placed(nodes), 'b', 'the default profile spreads (LeastAllocated)');
    assert.equal(placed(`${nodes}---\n${binPacking}`), 'a');
    assert.equal(placed(`${binPacking}\n---\n${nodes}`), 'a', 'wherever the document is');
    assert.deepEqual(loaded(`${nodes}---\n${binPacking}`).warnings, [], 'not reported as a skipped kind');
  });

  it('an error in that configuration is reported at its line in the Scheduler pane', () => {
    const tabs = splitByKind(`${nodes}---\n${binPacking.replace('type: MostAllocated', 'type: Fullest')}`);
    const r = load(tabs);
    assert.equal(r.ok, false);
    const line = tabs.scheduler.split('\n').findIndex((l) => l.includes('scoringStrategy')) + 1;
    const errors = !r.ok ? r.errors : [];
    assert.ok(errors.some((e) => e.file === 'scheduler.yaml' && e.line >= line - 2 && e.line <= line + 1 && /Fullest|scoringStrategy/.test(e.message + (e.field ?? ''))), JSON.stringify(errors));
  });

  it('a second KubeSchedulerConfiguration is an error at its line (--config takes one), in the same pane or another', () => {
    const tabs = splitByKind(`${nodes}---\n${binPacking}---\n${binPacking.replace('MostAllocated', 'LeastAllocated')}`);
    const second = tabs.scheduler.split('\n').findIndex((l, i) => i > 0 && /^kind: KubeSchedulerConfiguration/.test(l) && tabs.scheduler.split('\n').slice(0, i).some((x) => /^kind: KubeSchedulerConfiguration/.test(x))) + 1;
    const r = load(tabs);
    assert.equal(r.ok, false);
    assert.deepEqual(!r.ok && r.errors.map((e) => [e.file, e.line, e.object, e.message.slice(0, 12)]), [['scheduler.yaml', second, 'KubeSchedulerConfiguration', 'a second one']]);
    const inWorkloads = load({ ...splitByKind(`${nodes}---\n${binPacking}`), workloads: `kind: KubeSchedulerConfiguration\napiVersion: kubescheduler.config.k8s.io/v1\n` });
    assert.deepEqual(!inWorkloads.ok && inWorkloads.errors.map((e) => [e.file, e.line]), [['workloads.yaml', 1]], 'the Scheduler pane\'s is the one used');
  });

  it('explains a pod the run placed: its node is the chosen one, every node has a row', () => {
    const l = loaded(nodes);
    const r = explain(l, 'default/new')!;
    assert.equal(r.explanation.selected, 'b');
    assert.equal(r.note, '');
    assert.deepEqual(r.explanation.nodes.map((n) => n.node).sort(), ['a', 'b']);
    assert.ok(r.explanation.nodes.every((n) => n.scores.length > 0 && n.total !== null));
  });

  it('explains a pod bound in the input as if it were pending, and says so', () => {
    const r = explain(loaded(nodes), 'default/running')!;
    assert.match(r.note, /bound to a in the input/);
    assert.ok(r.explanation.selected === 'a' || r.explanation.selected === 'b');
    assert.equal(explain(loaded(nodes), 'default/absent'), undefined);
  });

  it('nodes carry what their pods request, for the bars; a provisioned claim counts the pods planned onto it', () => {
    const run = schedule(loaded(nodes));
    assert.deepEqual(run.nodes.map((n) => [n.name, n.cpuRequested, n.memoryRequested]), [['a', 2000, 2 * 2 ** 30], ['b', 500, 512 * 2 ** 20]]);
    assert.deepEqual(run.pods.map((p) => `${p.key}:${p.placement}`).sort(), ['default/new:scheduled', 'default/running:bound']);
    const pools = readFileSync(new URL('../examples/nodepools/default.yaml', import.meta.url), 'utf8');
    const big = nodes.replace('cpu: 500m', 'cpu: "6"');
    const p = provision(loaded(`${big}---\n${pools}`));
    const claim = p.nodes.find((n) => n.planned)!;
    assert.equal(claim.cpuRequested, 6000);
    assert.ok(claim.cpuMilli >= 6000);
    assert.equal(p.pods.find((x) => x.key === 'default/new')?.placement, 'provisioned');
    assert.equal(p.nodes.filter((n) => !n.planned).length, 2, 'the claim is not also listed as an input node');
  });

  it('every answer can cross from the worker to the page (structured clone): findings lose their remedies\' functions', () => {
    const deadlock = readFileSync(new URL('../examples/rolling-update-deadlock.yaml', import.meta.url), 'utf8');
    const l = loaded(deadlock);
    const streamed: string[] = [];
    const findings = check(l.input, 0, (rule, found) => streamed.push(...found.map(() => rule)));
    assert.ok(findings.some((f) => f.rule === 'rollout-deadlock'));
    assert.deepEqual(structuredClone(findings), findings);
    assert.equal(streamed.length >= findings.length, true, 'each finding was streamed as its check ended');
    structuredClone(schedule(l));
    structuredClone(explain(l, schedule(l).pods[0]!.key));
    const scenario = readFileSync(new URL('../examples/scenarios/kube-dns-required.yaml', import.meta.url), 'utf8');
    const sim = simulate(scenario, 'scenarios/kube-dns-required.yaml', () => undefined);
    assert.ok(sim.ok);
    structuredClone(sim.view);
  });
});
