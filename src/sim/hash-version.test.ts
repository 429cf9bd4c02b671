// Karpenter's hash-version migration in the simulation: a cluster whose NodePool and
// NodeClaims were hashed by an older Karpenter (another karpenter.sh/nodepool-hash-version)
// has its claims re-stamped when the run starts, as the nodepool.hash controller does on
// its first reconcile; a later NodePool edit then drifts them. Upstream's cases are in
// pkg/controllers/nodepool/hash/suite_test.go (their stamp arithmetic: disruption/drift.test.ts).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadSources } from '../io/load.js';
import type { Step } from '../io/scenario-spec.js';
import { catalogOrBundled } from '../provisioner/catalog/catalog.js';
import { runScenario } from './scenario.js';

const CLUSTER = readFileSync('examples/preview/cluster.yaml', 'utf8');
const STAMP = "karpenter.sh/nodepool-hash: '15764231286769662415'\n      karpenter.sh/nodepool-hash-version: v3";
const NODES = ['ip-10-0-1-11', 'ip-10-0-2-22', 'ip-10-0-1-33', 'ip-10-0-2-44'].map((n) => `${n}.us-west-2.compute.internal`);

/** The example cluster with the NodePool's own annotation at `poolVersion` and every node stamped by an older Karpenter. */
function staleCluster(poolVersion: string): string {
  const [pool, ...nodes] = CLUSTER.split(STAMP);
  assert.equal(nodes.length, 5, 'the NodePool and four nodes carry the stamp');
  const old = "karpenter.sh/nodepool-hash: '123456'\n      karpenter.sh/nodepool-hash-version: test";
  return [pool, ...nodes].join('\u0000').replace('\u0000', `karpenter.sh/nodepool-hash: 'abceduefed'\n      karpenter.sh/nodepool-hash-version: ${poolVersion}`).replaceAll('\u0000', old);
}

/** A NodeClaim of the first node, stamped like it, with a Drifted condition. */
const DRIFTED_CLAIM = `
- apiVersion: karpenter.sh/v1
  kind: NodeClaim
  metadata:
    name: default-abc12
    labels: {karpenter.sh/nodepool: default}
    annotations: {karpenter.sh/nodepool-hash: '123456', karpenter.sh/nodepool-hash-version: test}
  spec:
    nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
    requirements: []
  status:
    nodeName: ${NODES[0]}
    conditions:
    - {type: Drifted, status: 'True'}
`;

/** NodeDrifted events (node names) of a 5-minute run, with the edited NodePool applied at 1m when `edit`. */
function drifted(cluster: string, edit: boolean): string[] {
  const r = loadSources([{ name: 'cluster.yaml', text: cluster }]);
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  const edited = loadSources([{ name: 'nodepool-v2.yaml', text: readFileSync('examples/preview/nodepool-v2.yaml', 'utf8') }]);
  assert.ok(edited.ok, JSON.stringify(!edited.ok && edited.errors));
  const v2 = edited.input.nodePools[0]!;
  const input = r.input;
  const steps: Step[] = edit ? [{ at: 60_000, action: { type: 'updateNodePool', pool: v2 }, source: 'test' }] : [];
  const run = runScenario(
    input,
    { name: 'hash-version', seed: 0, untilMs: 5 * 60_000, provisioner: { enabled: true }, disruption: { enabled: true, spotToSpotConsolidation: false }, timing: {}, steps, expect: [] },
    { instanceTypes: catalogOrBundled(r.input.catalogs) },
  );
  return run.events.filter((e) => e.type === 'NodeDrifted').map((e) => String(e.node));
}

describe('NodePool hash-version migration (nodepool.hash controller)', () => {
  it('should update nodepool hash versions on all nodeclaims when the hash versions don\'t match the controller hash version: re-stamped with the pool\'s hash, nothing drifts; the NodePool edit then drifts them all', () => {
    assert.deepEqual(drifted(staleCluster('test'), false), []);
    assert.deepEqual(drifted(staleCluster('test'), true), NODES);
  });

  it('should not update nodepool hash on all nodeclaims when the hash versions match the controller hash version: claims of another version are never compared, so the edit drifts none', () => {
    assert.deepEqual(drifted(staleCluster('v3'), true), []);
  });

  it('should not update nodepool hash on the nodeclaim if it\'s drifted: it keeps its old hash under the new version and drifts at once', () => {
    assert.deepEqual(drifted(staleCluster('test') + DRIFTED_CLAIM, false), [NODES[0]]);
  });
});
