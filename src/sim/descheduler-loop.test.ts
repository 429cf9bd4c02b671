import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { LogRecord } from './engine.js';
import { timeline } from './timeline.js';
import { runScenarioText } from './fixtures.test-support.js';

const FILE = 'examples/scenarios/kube-dns-descheduler.yaml';
const TEXT = readFileSync(FILE, 'utf8');
const HOUR = 3_600_000;

const of = (events: readonly LogRecord[], type: string) => events.filter((e) => e.type === type);
const dnsPlacements = (events: readonly LogRecord[], untilMs: number) => of(events, 'Scheduled').filter((e) => e.t <= untilMs && String(e['pod']).startsWith('kube-system/kube-dns'));

describe('descheduler loop: the kube-dns incident', () => {
  it('both replicas stack on node-1 after the node loss; one pass moves one to the returned node, where the engine predicted', () => {
    const r = runScenarioText(FILE, TEXT, { untilMs: 2 * HOUR });
    // node-2 goes at 2m; its replica's replacement joins node-1 (preferred anti-affinity gives way).
    assert.deepEqual(dnsPlacements(r.events, 9.5 * 60_000).map((e) => e['node']), ['node-1', 'node-2', 'node-1']);
    const moved = of(r.events, 'Descheduled');
    assert.equal(moved.length, 1, 'exactly one eviction in two hours: no eviction loop');
    assert.equal(moved[0]!.t, 10 * 60_000);
    assert.equal(moved[0]!['strategy'], 'RemoveDuplicates');
    const replacement = of(r.events, 'Scheduled').find((e) => e.t >= moved[0]!.t && String(e['pod']).startsWith('kube-system/kube-dns'))!;
    assert.equal(replacement['node'], moved[0]!['predictedNode']);
    const placed = of(r.events, 'DescheduledPodPlaced');
    assert.deepEqual(placed.map((e) => [e['pod'], e['replacement'], e['node'], e['asPredicted']]), [[moved[0]!['pod'], replacement['pod'], 'node-3', true]]);
    assert.ok(timeline(r.events, false).some((line) => /Descheduled +pod=kube-system\/kube-dns-\S+ node=node-1 strategy=RemoveDuplicates .* predictedNode=node-3$/.test(line)));
    const nodes = r.final.nodes.filter((n) => n.pods.some((p) => p.startsWith('kube-system/kube-dns'))).map((n) => n.name);
    assert.deepEqual(nodes, ['node-1', 'node-3']);
  });

  it('is deterministic: the same run twice gives the same event log', () => {
    const a = runScenarioText(FILE, TEXT);
    const b = runScenarioText(FILE, TEXT);
    assert.equal(JSON.stringify(a.events), JSON.stringify(b.events));
  });

  it('a PDB that allows no disruption blocks the move, and the skip is logged once', () => {
    const r = runScenarioText(FILE, TEXT.replace('minAvailable: 1', 'minAvailable: 2'));
    assert.equal(of(r.events, 'Descheduled').length, 0);
    const skipped = of(r.events, 'DescheduleSkipped');
    assert.equal(skipped.length, 1);
    assert.match(String(skipped[0]!['why']), /PodDisruptionBudget kube-system\/kube-dns allows no more disruptions/);
    assert.equal(new Set(r.final.nodes.filter((n) => n.pods.length > 0).map((n) => n.name)).size, 1);
  });

  it('the eviction API has the last word: a pod under two PDBs is refused, and logged as skipped', () => {
    const second = '    - apiVersion: policy/v1\n      kind: PodDisruptionBudget\n      metadata: {name: kube-dns-2, namespace: kube-system}\n      spec: {maxUnavailable: 1, selector: {matchLabels: {k8s-app: kube-dns}}}\n';
    const r = runScenarioText(FILE, TEXT.replace('    - apiVersion: apps/v1\n', `${second}    - apiVersion: apps/v1\n`));
    assert.equal(of(r.events, 'Descheduled').length, 0);
    assert.match(String(of(r.events, 'DescheduleSkipped')[0]!['why']), /^the eviction API refused: This pod has more than one PodDisruptionBudget/);
  });

  it('switched off, nothing moves and the replicas stay stacked', () => {
    const r = runScenarioText(FILE, TEXT.replace('enabled: true', 'enabled: false'));
    assert.equal(of(r.events, 'Descheduled').length, 0);
    assert.deepEqual(r.final.nodes.filter((n) => n.pods.length > 0).map((n) => [n.name, n.pods.length]), [['node-1', 2]]);
  });

  it('runs at the configured interval', () => {
    const r = runScenarioText(FILE, TEXT.replace('interval: 5m', 'interval: 7m'));
    assert.equal(of(r.events, 'Descheduled')[0]!.t, 14 * 60_000);
  });
});
