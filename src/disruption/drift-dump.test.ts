// Drift on a kubectl dump of a cluster Karpenter v1.14.1 runs
// (test/fixtures/karpenter-cluster-dump.yaml): the hash annotations Karpenter wrote
// match berth's NodePool hash, so nothing is drifted until the NodePool really changes.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { buildClusterState } from '../cluster/state.js';
import { loadSources, type LoadedInput } from '../io/load.js';
import { catalogPrices } from './pricing.js';
import { drift } from './disrupt.js';
import { driftReason } from './drift.js';
import { CATALOG } from './fixtures.test-support.js';

const DUMP = readFileSync(new URL('../../test/fixtures/karpenter-cluster-dump.yaml', import.meta.url), 'utf8');
const NOW = Date.parse('2026-12-03T21:00:00Z');

function load(text: string): LoadedInput {
  const r = loadSources([{ name: 'dump.yaml', text }]);
  if (!r.ok) assert.fail(JSON.stringify(r.errors));
  return r.input;
}

/** Drift reason per node name. */
function reasons(input: LoadedInput): Record<string, string> {
  const pool = input.nodePools[0]!;
  return Object.fromEntries(input.nodes.map((n) => [n.name.split('.')[0], driftReason(n, pool) ?? 'none']));
}

const withoutNodeClaims = (text: string) =>
  text
    .split(/\n(?=- apiVersion: )/)
    .filter((doc) => !doc.startsWith('- apiVersion: karpenter.sh/v1\n  kind: NodeClaim'))
    .join('\n');

describe('drift on a real Karpenter cluster dump', () => {
  it('shows no drift: Karpenter\'s karpenter.sh/nodepool-hash equals berth\'s hash of the NodePool', () => {
    const input = load(DUMP);
    assert.equal(input.nodePools[0]!.hash, '5448167955501246549');
    assert.deepEqual(reasons(input), { 'ip-10-0-1-11': 'none', 'ip-10-0-2-22': 'none', 'ip-10-0-3-33': 'none' });
    const cluster = buildClusterState(input);
    assert.equal(drift({ cluster, pools: input.nodePools, nowMs: NOW, pricePerHour: catalogPrices(CATALOG), replacement: { instanceTypes: CATALOG, spotToSpot: false } }), undefined);
  });

  it('a changed template label drifts every node; the NodeClaim\'s re-stamped hash counts, not the one its Node registered with', () => {
    const input = load(DUMP.replace('          team: platform', '          team: data'));
    assert.deepEqual(reasons(input), { 'ip-10-0-1-11': 'NodePoolDrifted', 'ip-10-0-2-22': 'NodePoolDrifted', 'ip-10-0-3-33': 'NodePoolDrifted' });
  });

  it('without its NodeClaim, a node stamped with another hash version is not drifted (Karpenter compares hashes of one version only)', () => {
    const input = load(withoutNodeClaims(DUMP.replace('          team: platform', '          team: data')));
    assert.deepEqual(reasons(input), { 'ip-10-0-1-11': 'NodePoolDrifted', 'ip-10-0-2-22': 'NodePoolDrifted', 'ip-10-0-3-33': 'none' });
  });

  it('a narrowed requirement drifts only the nodes whose labels it no longer admits', () => {
    const input = load(DUMP.replace('          operator: Gt\n          values:\n          - "4"', '          operator: Gt\n          values:\n          - "5"'));
    assert.deepEqual(reasons(input), { 'ip-10-0-1-11': 'RequirementsDrifted', 'ip-10-0-2-22': 'none', 'ip-10-0-3-33': 'RequirementsDrifted' });
  });
});
