import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadSources } from '../io/load.js';
import { catalogOrBundled } from '../provisioner/catalog/catalog.js';
import { preview } from './preview.js';

/** `edits` first, then the cluster (a dump): the edits replace the dump's objects of the same name. */
function previewOf(cluster: string, edits: string[] = [], extra: { originMs?: number } = {}, horizonMs = 15 * 60_000) {
  const files = [...edits, cluster];
  const r = loadSources(files.map((f) => ({ name: f, text: readFileSync(f, 'utf8') })), { clusterFrom: edits.length });
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  return preview({ input: r.input, instanceTypes: catalogOrBundled(r.input.catalogs), seed: 0, horizonMs, ...extra });
}

describe('berth preview', () => {
  it('a Karpenter cluster whose nodes carry their NodePool hash: nothing drifts; consolidation replaces each m5.large with the cheaper c6g.large the NodePool allows, one at a time', () => {
    const p = previewOf('examples/preview/cluster.yaml');
    assert.deepEqual([p.drifted, p.pending], [[], []]);
    assert.deepEqual(new Set(p.disruptions.map((d) => `${d.reason} ${d.kind} ${d.replacements.map((r) => r.split(':')[1]).join()}`)), new Set(['Underutilized replace c6g.large/us-west-2a/on-demand']));
    assert.equal(p.disruptions.length, 4);
    assert.equal(p.costPerHour.now, 0.384);
    assert.equal(p.costPerHour.atHorizon, 0.272);
  });

  it('a NodePool template edit: every node drifts and is replaced one at a time (budget 1), each pod landing where Karpenter predicted', () => {
    const p = previewOf('examples/preview/cluster.yaml', ['examples/preview/nodepool-v2.yaml']);
    const nodes = ['ip-10-0-1-11', 'ip-10-0-2-22', 'ip-10-0-1-33', 'ip-10-0-2-44'].map((n) => `${n}.us-west-2.compute.internal`);
    assert.deepEqual(p.drifted.map((d) => [d.node, d.reason]), nodes.map((n) => [n, 'NodePoolDrifted']));
    assert.deepEqual(p.disruptions.map((d) => [d.reason, d.kind, d.nodes]), nodes.map((n) => ['Drifted', 'replace', [n]]));
    for (const [i, d] of p.disruptions.entries()) {
      assert.equal(d.replacements.length, 1);
      assert.equal(d.evictions.length, 1);
      assert.equal(d.evictions[0]!.landed, d.evictions[0]!.predicted, `${d.nodes[0]}: the pod lands where predicted`);
      assert.equal(d.evictions[0]!.landed, d.replacements[0]!.split(':')[0], 'on the replacement');
      assert.ok(d.doneAtMs !== undefined && (i === 0 || d.atMs >= p.disruptions[i - 1]!.doneAtMs!), 'one node at a time');
    }
    assert.deepEqual(p.pending, []);
  });

  it('ages count from the moment the snapshot stands for: a 50-day-old node expires (720h), a do-not-disrupt: 30m pod started 5 minutes ago still blocks its node, one started a day ago no longer does', () => {
    const p = previewOf('test/fixtures/karpenter-cluster-dump.yaml', [], { originMs: Date.parse('2026-11-21T09:35:00Z') }, 10 * 60_000);
    assert.deepEqual(p.disruptions.map((d) => [d.reason, d.kind, d.nodes.join()]), [
      ['Expired', 'delete', 'ip-10-0-3-33.us-west-2.compute.internal'],
      ['Underutilized', 'delete', 'ip-10-0-1-11.us-west-2.compute.internal'],
    ]);
    assert.deepEqual(p.blocked, [{ node: 'ip-10-0-2-22.us-west-2.compute.internal', event: 'DisruptionBlocked', message: 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=prod/api-5c7d9b8f6-d3e4f)' }]);
  });

  it('a NodePool edit that cannot roll everywhere: the nodes it can replace go one at a time (budget 1), and each node left alone is named with what blocks it, in Karpenter\'s words (a PDB, a do-not-disrupt pod, a pod whose zone spread or zone anti-affinity the edit makes unsatisfiable, a budget)', () => {
    const p = previewOf('examples/preview/drift-blocked.yaml', ['examples/preview/drift-blocked-edit.yaml']);
    const node = (n: string) => `${n}.us-west-2.compute.internal`;
    assert.deepEqual(p.drifted.map((d) => [d.node, d.nodePool]), [
      [node('ip-10-0-1-11'), 'default'],
      [node('ip-10-0-2-22'), 'default'],
      [node('ip-10-0-3-55'), 'default'],
      [node('ip-10-0-1-33'), 'default'],
      [node('ip-10-0-2-44'), 'default'],
      [node('ip-10-0-1-66'), 'batch'],
    ]);
    assert.deepEqual(p.disruptions.map((d) => [d.atMs, d.reason, d.kind, d.nodes, d.replacements.length, d.doneAtMs]), [
      [10_000, 'Drifted', 'replace', [node('ip-10-0-1-11')], 1, 80_000],
      [90_000, 'Drifted', 'replace', [node('ip-10-0-2-22')], 1, 160_000],
    ]);
    const blocking = p.blocked.filter((b) => b.event !== 'Unconsolidatable');
    assert.deepEqual(blocking, [
      { node: node('ip-10-0-1-33'), event: 'DisruptionBlocked', message: 'Pdb prevents pod evictions (PodDisruptionBudget=[shop/db])' },
      { node: node('ip-10-0-1-66'), event: '', message: 'No allowed disruptions for disruption reason Drifted due to blocking budget' },
      { node: node('ip-10-0-2-44'), event: 'DisruptionBlocked', message: 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=shop/report-28977120-x9z8w)' },
      {
        node: node('ip-10-0-3-55'),
        event: 'DisruptionBlocked',
        message:
          'Not all pods would schedule, ' +
          'shop/audit-6b7c9d8f4-j7k8l => nodepool "default": unsatisfiable topology constraint for pod anti-affinity, key=topology.kubernetes.io/zone; nodepool "batch": did not tolerate taint workload=batch:NoSchedule ' +
          'shop/kv-5f6c8d7b9-g5h6i => nodepool "default": unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone; nodepool "batch": did not tolerate taint workload=batch:NoSchedule ',
      },
    ]);
    assert.deepEqual(p.pending, []);
  });
});
