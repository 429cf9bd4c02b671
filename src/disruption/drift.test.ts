// Karpenter's hash-version migration (nodepool.hash controller, v1.14.1): the stamp a
// NodeClaim gets when its NodePool was last hashed under another hash version.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NODEPOOL_HASH_VERSION } from '../model/nodepool-hash.js';
import { driftReason, restampedClaim } from './drift.js';
import { catalogNode, nodePool } from './fixtures.test-support.js';

describe('restampedClaim (nodepool.hash controller)', () => {
  const stale = { hash: 'abceduefed', hashVersion: 'test' };

  it('should update nodepool hash versions on all nodeclaims when the hash versions don\'t match the controller hash version', () => {
    const p = { ...stale, hash: '987654' };
    for (const claim of [{ hash: '123456', version: 'test' }, { hash: '123456', version: 'test' }]) {
      assert.deepEqual(restampedClaim(p, claim, false), { hash: '987654', version: NODEPOOL_HASH_VERSION });
    }
  });

  it('should not update nodepool hash on all nodeclaims when the hash versions match the controller hash version', () => {
    assert.equal(restampedClaim({ hash: '987654', hashVersion: 'test-version' }, { hash: '1234564654', version: NODEPOOL_HASH_VERSION }, false), undefined);
  });

  it('should not update nodepool hash on the nodeclaim if it\'s drifted: only the version moves, so it stays drifted', () => {
    const stamp = restampedClaim({ ...stale, hash: '987654' }, { hash: '123456', version: 'test' }, true);
    assert.deepEqual(stamp, { hash: '123456', version: NODEPOOL_HASH_VERSION });
    const p = { ...nodePool(), hash: '987654' };
    assert.equal(driftReason(catalogNode('n1', p, 'm5.large'), p, stamp), 'NodePoolDrifted');
  });

  it('a NodePool already hashed under the current version migrates nothing, whatever its claims carry', () => {
    assert.equal(restampedClaim({ hash: '987654', hashVersion: NODEPOOL_HASH_VERSION }, { hash: '123456', version: 'test' }, false), undefined);
  });
});
