// berth's NodePool hash against the hashes Karpenter v1.14.1 computed
// (test/fixtures/nodepool-hash/karpenter-v1.14.1.yaml, written by
// conformance/nodepool-hash-run.ts from conformance/oracle-karpenter-hash).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { loadSources } from '../io/load.js';
import { NODEPOOL_HASH_VERSION, nodePoolHash } from './nodepool-hash.js';
import type { NodePoolManifest } from './nodepool.js';

const TABLE = new URL('../../test/fixtures/nodepool-hash/karpenter-v1.14.1.yaml', import.meta.url);

const pool = (spec: Partial<NodePoolManifest['spec']['template']['spec']>, metadata?: NodePoolManifest['spec']['template']['metadata']): NodePoolManifest => ({
  metadata: { name: 'default' },
  spec: { template: { ...(metadata && { metadata }), spec: { requirements: [], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, ...spec } } },
});

describe('NodePool hash (Karpenter v1.14.1 NodePool.Hash)', () => {
  it('every NodePool of the table loads with the hash Karpenter annotated it with', () => {
    const text = readFileSync(TABLE, 'utf8');
    const want = new Map<string, string>();
    for (const doc of parseAllDocuments(text)) {
      const m = doc.toJS() as { metadata: { name: string; annotations: Record<string, string> } };
      assert.equal(m.metadata.annotations['karpenter.sh/nodepool-hash-version'], NODEPOOL_HASH_VERSION);
      want.set(m.metadata.name, m.metadata.annotations['karpenter.sh/nodepool-hash']!);
    }
    const r = loadSources([{ name: 'karpenter-v1.14.1.yaml', text }]);
    assert.ok(r.ok, 'the table loads');
    assert.equal(r.input.nodePools.length, want.size);
    for (const p of r.input.nodePools) assert.equal(p.hash, want.get(p.name), p.name);
  });

  it('is the hash of a minimal NodePool, with expireAfter defaulted to 720h', () => {
    // Karpenter's value for this NodePool (oracle-karpenter-hash).
    assert.equal(nodePoolHash(pool({})), '6821555240594823858');
    assert.equal(nodePoolHash(pool({ expireAfter: '720h' })), nodePoolHash(pool({})));
  });

  it('ignores requirements but not what Go tells apart: an empty map or list, a zero duration, "Never"', () => {
    const base = nodePoolHash(pool({}));
    assert.equal(nodePoolHash(pool({ requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }] })), base);
    assert.notEqual(nodePoolHash(pool({}, { labels: {} })), base);
    assert.notEqual(nodePoolHash(pool({ taints: [] })), base);
    assert.notEqual(nodePoolHash(pool({ terminationGracePeriod: '0s' })), base);
    assert.notEqual(nodePoolHash(pool({ expireAfter: '0s' })), nodePoolHash(pool({ expireAfter: 'Never' })));
  });

  it('does not depend on the order of labels or taints (maps and SlicesAsSets)', () => {
    const t = [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', value: 'x', effect: 'NoExecute' }];
    assert.equal(nodePoolHash(pool({ taints: t }, { labels: { x: '1', y: '2' } })), nodePoolHash(pool({ taints: [...t].reverse() }, { labels: { y: '2', x: '1' } })));
  });
});
