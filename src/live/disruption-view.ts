// What the live disruption controller decides from, pure: the informers' objects
// loaded as files are (plan-batch.ts's loader), bound pods only, as the engine's
// DisruptionInput (src/disruption/), plus the few node and pod facts the
// execution needs (Ready, the disrupted taint, which pods a drain evicts).

import { buildClusterState } from '../cluster/state.js';
import type { DisruptionInput } from '../disruption/disrupt.js';
import { catalogPrices } from '../disruption/pricing.js';
import { LABEL_NODE_INITIALIZED, LABEL_NODEPOOL } from '../provisioner/labels.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import { DISRUPTED_TAINT } from '../sim/disruption-loop.js';
import { nodeClaimOf, readClaim } from './claims.js';
import { isBound, isFinished, isProvisionable, isTerminating, type KubeObject } from './objects.js';
import { daemonSetPods, loadLive, type LiveObjects } from './plan-batch.js';

export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

interface Taint {
  readonly key?: string;
  readonly value?: string;
  readonly effect?: string;
}
interface NodeFields {
  readonly spec?: { readonly taints?: readonly Taint[] };
  readonly status?: { readonly conditions?: readonly { readonly type?: string; readonly status?: string }[] };
}
interface PodFields {
  readonly metadata?: { readonly ownerReferences?: readonly { readonly kind?: string; readonly controller?: boolean }[] };
  readonly spec?: { readonly nodeName?: string };
}

export function isNodeReady(node: KubeObject): boolean {
  return ((node as NodeFields).status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

export function hasDisruptedTaint(node: KubeObject): boolean {
  return ((node as NodeFields).spec?.taints ?? []).some((t) => t.key === DISRUPTED_TAINT.key);
}

/** The node with the karpenter.sh/disrupted:NoSchedule taint added (`on`) or removed; undefined when it already is so. */
export function withDisruptedTaint(node: KubeObject, on: boolean): KubeObject | undefined {
  if (hasDisruptedTaint(node) === on) return undefined;
  const spec = (node.spec ?? {}) as { taints?: readonly Taint[] };
  const taints = on ? [...(spec.taints ?? []), { key: DISRUPTED_TAINT.key, effect: DISRUPTED_TAINT.effect }] : (spec.taints ?? []).filter((t) => t.key !== DISRUPTED_TAINT.key);
  return { ...node, spec: { ...spec, taints } };
}

/**
 * Pods a drain of `nodeName` must evict: bound there and not finished. DaemonSet
 * pods (their controller tolerates the taint and would put them back) and mirror
 * pods (the kubelet's static pods) go with the node.
 */
export function podsToEvict(pods: readonly KubeObject[], nodeName: string): KubeObject[] {
  return pods.filter((p) => {
    if ((p as PodFields).spec?.nodeName !== nodeName || isFinished(p)) return false;
    if (p.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return false;
    return !((p as PodFields).metadata?.ownerReferences ?? []).some((o) => o.controller && (o.kind === 'DaemonSet' || o.kind === 'Node'));
  });
}

/**
 * Why disruption should wait this pass, or undefined: while pods wait for capacity
 * or claims are still launching, the provisioner is changing the cluster and a
 * consolidation computed now would race it.
 */
export function provisioningInFlight(objects: LiveObjects): string | undefined {
  const pending = objects.pods.filter(isProvisionable).length;
  if (pending > 0) return `${pending} pod(s) wait for capacity`;
  const registered = new Set(objects.nodes.map(nodeClaimOf));
  const launching = objects.nodeClaims.flatMap((o) => readClaim(o) ?? []).filter((c) => !c.terminating && !registered.has(c.name));
  return launching.length > 0 ? `NodeClaim ${launching[0]!.name} has no node yet` : undefined;
}

export interface ViewOptions {
  readonly instanceTypes: readonly InstanceType[];
  readonly nowMs: number;
  /** Last time a pod was bound to or left each node. */
  readonly lastPodEventMs: ReadonlyMap<string, number>;
  /** Nodes of the decision under way. */
  readonly disrupting?: ReadonlySet<string>;
  /** Replacement nodes of the decision under way: never candidates meanwhile. */
  readonly replacements?: ReadonlySet<string>;
  readonly config?: SchedulerConfig;
}

export type View = { readonly ok: true; readonly input: DisruptionInput } | { readonly ok: false; readonly errors: string[] };

/**
 * The engine's input from the cached objects. Nodes carrying the disrupted taint or
 * being deleted count as disrupting (neither candidates nor targets); nodes not
 * Ready stay candidates but spend a disruption of their NodePool's budgets; managed
 * nodes without karpenter.sh/initialized are initializing (Karpenter's
 * StateNode.Initialized() false) and not candidates (the loader already shows them
 * without their startup and ephemeral taints: plan-batch.ts's planningNode). PDB
 * allowances come from each PDB's status, which kube-controller-manager keeps
 * (computed from the pods when it has none yet).
 */
export function disruptionView(objects: LiveObjects, opts: ViewOptions): View {
  const loaded = loadLive(objects, new Set());
  if (!loaded.ok) return loaded;
  const { live } = loaded;
  const disrupting = new Set(opts.disrupting);
  const uninitialized = new Set(opts.replacements);
  const initializing = new Set<string>();
  const notReady = new Set<string>();
  for (const n of objects.nodes) {
    const name = n.metadata?.name ?? '';
    if (hasDisruptedTaint(n) || isTerminating(n)) disrupting.add(name);
    if (!isNodeReady(n)) notReady.add(name);
    const labels = n.metadata?.labels ?? {};
    if (labels[LABEL_NODEPOOL] !== undefined && labels[LABEL_NODE_INITIALIZED] !== 'true') {
      initializing.add(name);
      uninitialized.add(name);
    }
  }
  return {
    ok: true,
    input: {
      cluster: buildClusterState(live),
      pools: live.nodePools,
      nowMs: opts.nowMs,
      pricePerHour: catalogPrices(opts.instanceTypes),
      ...(opts.config ? { scheduler: opts.config } : {}),
      lastPodEventMs: opts.lastPodEventMs,
      disrupting,
      uninitialized,
      initializing,
      notReady,
      replacement: { instanceTypes: opts.instanceTypes, daemonSetPods: daemonSetPods(live) },
    },
  };
}

/** Bound pods by node, for the last-pod-event bookkeeping. */
export function nodeOfPod(pod: KubeObject): string {
  return isBound(pod) ? ((pod as PodFields).spec?.nodeName ?? '') : '';
}
