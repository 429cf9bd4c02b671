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
});
