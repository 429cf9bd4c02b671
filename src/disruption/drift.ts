// Drift (Karpenter's static and requirement drift) and expiry of a NodePool's nodes,
// as Karpenter v1.14.1's NodeClaim drift controller decides it.
//
// Static drift: every NodeClaim carries the hash of the NodePool template it was
// launched from (karpenter.sh/nodepool-hash) and the version of the hash algorithm
// (karpenter.sh/nodepool-hash-version). It has drifted when both are present, the
// version is the current one and the hash differs from the NodePool's (NodePool.hash,
// Karpenter's own algorithm). Another version is not drift: Karpenter re-stamps such
// NodeClaims rather than comparing hashes computed differently (restampedClaim). Requirement drift: the
// node's labels no longer meet the NodePool's requirements, a key the node lacks
// included (an In or Exists on it fails, NotIn and DoesNotExist hold).

import type { Labels } from '../model/selector.js';
import type { Node } from '../model/node.js';
import type { NodePool } from '../model/nodepool.js';
import { NODEPOOL_HASH_ANNOTATION, NODEPOOL_HASH_VERSION, NODEPOOL_HASH_VERSION_ANNOTATION } from '../model/nodepool-hash.js';
import { Requirements } from '../provisioner/requirements.js';

export { NODEPOOL_HASH_ANNOTATION, NODEPOOL_HASH_VERSION_ANNOTATION };

export type DriftReason = 'NodePoolDrifted' | 'RequirementsDrifted';

/** The hash and hash version a NodeClaim was stamped with (either may be absent). */
export interface ClaimHash {
  readonly hash: string | undefined;
  readonly version: string | undefined;
}

/** The stamp Karpenter puts on a NodeClaim it launches from `pool` (and the Node copies at registration). */
export function hashAnnotations(pool: Pick<NodePool, 'hash'>): Record<string, string> {
  return { [NODEPOOL_HASH_ANNOTATION]: pool.hash, [NODEPOOL_HASH_VERSION_ANNOTATION]: NODEPOOL_HASH_VERSION };
}

/** The stamp a node carries (its NodeClaim's annotations are copied to it when it registers). */
export function claimHashOf(node: Node): ClaimHash | undefined {
  const hash = node.annotations[NODEPOOL_HASH_ANNOTATION];
  const version = node.annotations[NODEPOOL_HASH_VERSION_ANNOTATION];
  return hash === undefined && version === undefined ? undefined : { hash, version };
}

/**
 * The stamp Karpenter's nodepool.hash controller gives a NodeClaim of `pool`, or
 * undefined when it leaves the claim alone. It acts only on a NodePool last hashed
 * under another hash version (its own karpenter.sh/nodepool-hash-version differs
 * from the current one), and there only on claims stamped with another version: they
 * get the current version and the pool's current hash, except a claim that already
 * has a Drifted condition, which keeps its old hash (and so stays drifted).
 */
export function restampedClaim(pool: Pick<NodePool, 'hash' | 'hashVersion'>, claim: ClaimHash | undefined, alreadyDrifted: boolean): ClaimHash | undefined {
  if (pool.hashVersion === NODEPOOL_HASH_VERSION || claim?.version === NODEPOOL_HASH_VERSION) return undefined;
  return { hash: alreadyDrifted ? claim?.hash : pool.hash, version: NODEPOOL_HASH_VERSION };
}

function staticDrift(pool: NodePool, claim: ClaimHash | undefined): boolean {
  if (claim?.hash === undefined || claim.version === undefined) return false;
  return claim.version === NODEPOOL_HASH_VERSION && claim.hash !== pool.hash;
}

/** requirementsDrifted's answers per labels object and NodePool (both immutable by convention): asked of every node at every disruption poll. */
const driftedByLabels = new WeakMap<Labels, WeakMap<NodePool, boolean>>();

/** Whether labels fail the NodePool's requirements, an undefined In/Exists key included (Karpenter's Compatible without allowances). */
export function requirementsDrifted(labels: Labels, pool: NodePool): boolean {
  let byPool = driftedByLabels.get(labels);
  if (!byPool) driftedByLabels.set(labels, (byPool = new WeakMap()));
  let drifted = byPool.get(pool);
  if (drifted === undefined) byPool.set(pool, (drifted = Requirements.fromLabels(labels).compatible(Requirements.fromNodeSelectorRequirements(pool.requirements)) !== undefined));
  return drifted;
}

/**
 * Why a node no longer matches its NodePool, or undefined. `claim` is the stamp of the
 * node's NodeClaim: by default the node's own annotations.
 */
export function driftReason(node: Node, pool: NodePool, claim: ClaimHash | undefined = claimHashOf(node)): DriftReason | undefined {
  if (staticDrift(pool, claim)) return 'NodePoolDrifted';
  if (requirementsDrifted(node.labels, pool)) return 'RequirementsDrifted';
  return undefined;
}

/** Whether the node has outlived its NodePool's expireAfter (never, with "Never"). */
export function isExpired(node: Node, pool: NodePool, nowMs: number): boolean {
  return pool.expireAfterSeconds !== null && nowMs >= node.creation + pool.expireAfterSeconds * 1000;
}
