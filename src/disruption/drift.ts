// Drift (Karpenter's static and requirement drift) and expiry of a NodePool's nodes.
//
// Static drift: every NodeClaim carries the hash of the NodePool template it was
// launched from (labels, annotations, taints, startup taints, nodeClassRef,
// expireAfter and terminationGracePeriod; requirements are left out of the hash).
// A node whose hash differs from its NodePool's current one is drifted. Requirement
// drift: the node's labels no longer satisfy the NodePool's requirements.

import { templateHash } from '../model/names.js';
import type { Node } from '../model/node.js';
import type { NodePool } from '../model/nodepool.js';
import { ALLOW_UNDEFINED_WELL_KNOWN, Requirements } from '../provisioner/requirements.js';

export const NODEPOOL_HASH_ANNOTATION = 'karpenter.sh/nodepool-hash';

export type DriftReason = 'NodePoolDrifted' | 'RequirementsDrifted';

/** The hash of the fields of a NodePool's template whose change drifts its nodes. */
export function nodePoolHash(pool: NodePool): string {
  return templateHash({
    labels: pool.labels,
    annotations: pool.annotations,
    taints: pool.taints,
    startupTaints: pool.startupTaints,
    nodeClassRef: pool.nodeClassRef,
    expireAfter: pool.expireAfterSeconds,
    terminationGracePeriod: pool.terminationGracePeriodSeconds,
  });
}

/**
 * Why a node no longer matches its NodePool, or undefined. `claimHash` is the hash the
 * node's NodeClaim was stamped with; without one only requirement drift is checked.
 */
export function driftReason(node: Node, pool: NodePool, claimHash: string | undefined = node.annotations[NODEPOOL_HASH_ANNOTATION]): DriftReason | undefined {
  if (claimHash !== undefined && claimHash !== nodePoolHash(pool)) return 'NodePoolDrifted';
  // A launched node carries every well-known label of its instance type; one written by hand may
  // leave them out, and a label it does not have cannot have drifted.
  if (Requirements.fromLabels(node.labels).compatible(Requirements.fromNodeSelectorRequirements(pool.requirements), ALLOW_UNDEFINED_WELL_KNOWN) !== undefined) return 'RequirementsDrifted';
  return undefined;
}

/** Whether the node has outlived its NodePool's expireAfter (never, with "Never"). */
export function isExpired(node: Node, pool: NodePool, nowMs: number): boolean {
  return pool.expireAfterSeconds !== null && nowMs >= node.creation + pool.expireAfterSeconds * 1000;
}
