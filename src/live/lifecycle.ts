// A NodeClaim's Registered and Initialized conditions, pure, decided from its Node
// as the Node informer delivers it (Karpenter's registration and initialization):
// a Node carrying the claim's label has registered; it is initialized once Ready,
// with the claim's startup taints and the known ephemeral taints (not-ready,
// unreachable, uninitialized, unregistered, readiness.k8s.io/*) gone. Registration also puts the termination
// finalizer, karpenter.sh/registered and the claim's annotations on the Node,
// initialization karpenter.sh/initialized.

import type { Claim } from './claims.js';
import { TERMINATION_FINALIZER } from './claims.js';
import { isNodeReady } from './disruption-view.js';
import type { KubeObject } from './objects.js';
import { isKnownEphemeralTaint } from '../provisioner/cluster-state.js';
import { LABEL_NODE_INITIALIZED, LABEL_NODE_REGISTERED } from '../provisioner/labels.js';

/** Karpenter's KnownEphemeralTaints, on a Node as the API server returns it. */
export function isEphemeralTaint(t: TaintFields): boolean {
  return isKnownEphemeralTaint({ key: t.key ?? '', effect: t.effect ?? '' });
}

export interface TaintFields {
  readonly key?: string;
  readonly value?: string;
  readonly effect?: string;
}

function taintsOf(o: KubeObject): readonly TaintFields[] {
  return ((o.spec ?? {}) as { taints?: readonly TaintFields[] }).taints ?? [];
}

/** The claim's startup taints (spec.startupTaints, copied from its NodePool). */
export function startupTaints(claim: KubeObject): readonly TaintFields[] {
  return ((claim.spec ?? {}) as { startupTaints?: readonly TaintFields[] }).startupTaints ?? [];
}

/** Why the node is not initialized yet, or undefined when it is. */
export function notInitialized(node: KubeObject, claim: KubeObject): string | undefined {
  if (!isNodeReady(node)) return 'Node status is NotReady';
  const taints = taintsOf(node);
  // core/v1 Taint.MatchTaint: key and effect.
  const startup = startupTaints(claim).find((s) => taints.some((t) => t.key === s.key && t.effect === s.effect));
  if (startup) return `StartupTaint "${startup.key}${startup.value ? `=${startup.value}` : ''}:${startup.effect}" still exists`;
  const ephemeral = taints.find(isEphemeralTaint);
  if (ephemeral) return `KnownEphemeralTaint "${ephemeral.key}:${ephemeral.effect}" still exists`;
  return undefined;
}

export interface LifecycleStep {
  readonly register: boolean;
  readonly initialize: boolean;
}

/** The conditions the claim owes for its (not terminating) node. */
export function lifecycleStep(claim: Claim, claimObject: KubeObject, node: KubeObject): LifecycleStep {
  if (claim.terminating) return { register: false, initialize: false };
  return { register: !claim.registered, initialize: !claim.initialized && notInitialized(node, claimObject) === undefined };
}

/**
 * The node with the finalizer and lifecycle labels it should carry, or undefined when
 * it has them. `claimAnnotations`, at registration: the claim's annotations, which
 * Karpenter's registration copies onto the Node (the NodePool hash among them, which
 * drift is decided on).
 */
export function registeredNode(node: KubeObject, initialized: boolean, claimAnnotations: Readonly<Record<string, string>> = {}): KubeObject | undefined {
  const labels = node.metadata?.labels ?? {};
  const annotations = node.metadata?.annotations ?? {};
  const finalizers = node.metadata?.finalizers ?? [];
  const wantLabels = { [LABEL_NODE_REGISTERED]: 'true', ...(initialized ? { [LABEL_NODE_INITIALIZED]: 'true' } : {}) };
  const missing = (want: Readonly<Record<string, string>>, have: Readonly<Record<string, string>>) => Object.entries(want).some(([k, v]) => have[k] !== v);
  if (!missing(wantLabels, labels) && !missing(claimAnnotations, annotations) && finalizers.includes(TERMINATION_FINALIZER)) return undefined;
  return {
    ...node,
    metadata: {
      ...node.metadata,
      labels: { ...labels, ...wantLabels },
      ...(Object.keys(claimAnnotations).length > 0 ? { annotations: { ...annotations, ...claimAnnotations } } : {}),
      finalizers: finalizers.includes(TERMINATION_FINALIZER) ? finalizers : [...finalizers, TERMINATION_FINALIZER],
    },
  };
}
