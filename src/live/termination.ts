// Termination, as Karpenter's node termination and NodeClaim finalization do it.
// berth's NodeClaims and the Nodes launched for them carry the finalizer
// berth.dev/termination, so a delete (by a user, by disruption, by expiry or
// garbage collection) only marks them. Each pass of the leader then:
// - a terminating Node: deletes its NodeClaim too, taints the node
//   karpenter.sh/disrupted:NoSchedule, and drains it: pods are evicted through the
//   Eviction API (PDBs enforced by the API server; 429 retried with backoff) in
//   Karpenter's order (non-critical before critical, DaemonSet pods after the
//   others); pods that tolerate the taint, mirror pods and pods stuck terminating
//   are not waited for; do-not-disrupt pods are waited for, not evicted. With a
//   terminationGracePeriod on the claim, a pod is deleted once waiting longer would
//   cut its own grace period short of the node's deadline (PDBs and do-not-disrupt
//   notwithstanding). Drained and at least MIN_DRAIN_MS after the drain began (pods
//   bound just before the taint reached kube-scheduler are caught), the instance is
//   deleted and the Node's finalizer removed;
// - a terminating NodeClaim: deletes its Node (which drains as above) and waits for
//   it to go, then deletes the instance and removes the claim's finalizer.
// Volume detachment is not waited for: berth does not watch VolumeAttachments.
// Every step is idempotent and reads the informers' caches, so a new leader picks
// up a termination where the old one left it.

import type { Logger } from 'pino';
import { DO_NOT_DISRUPT } from '../disruption/candidates.js';
import { DISRUPTED_TAINT } from '../sim/disruption-loop.js';
import { hasFinalizer, NODECLAIM_API_VERSION, NODECLAIM_KIND, nodeClaimOf, readClaim, withFinalizer, type Claim } from './claims.js';
import type { CloudProvider } from './cloud-provider.js';
import { MIRROR_POD_ANNOTATION, withDisruptedTaint } from './disruption-view.js';
import type { DeletePod, Evict } from './eviction.js';
import { errorText, type Kube } from './kube.js';
import type { Metrics } from './metrics.js';
import { isFinished, isTerminating, objectKey, type KubeObject } from './objects.js';
import type { LiveObjects } from './plan-batch.js';

/** Karpenter's MinDrainTime: a node counts as drained only this long after its drain began. */
export const MIN_DRAIN_MS = 5_000;
/** A pod terminating for longer than this past its deletion deadline is not waited for (Karpenter: IsStuckTerminating). */
const STUCK_TERMINATING_MS = 60_000;
/** Retry delays of an eviction refused with 429: Karpenter's queue backs off from 100 ms, doubling, to 10 s. */
const EVICTION_BACKOFF_START_MS = 100;
const EVICTION_BACKOFF_MAX_MS = 10_000;

const CRITICAL_PRIORITY_CLASSES = new Set(['system-cluster-critical', 'system-node-critical']);

interface PodFields {
  readonly metadata?: { readonly ownerReferences?: readonly { readonly kind?: string; readonly controller?: boolean }[]; readonly deletionTimestamp?: string | Date };
  readonly spec?: {
    readonly nodeName?: string;
    readonly priorityClassName?: string;
    readonly terminationGracePeriodSeconds?: number;
    readonly tolerations?: readonly { readonly key?: string; readonly operator?: string; readonly value?: string; readonly effect?: string }[];
  };
}
const fields = (p: KubeObject): PodFields => p as PodFields;

function ownerKind(pod: KubeObject, kind: string): boolean {
  return (fields(pod).metadata?.ownerReferences ?? []).some((o) => o.controller && o.kind === kind);
}

/** The pod tolerates karpenter.sh/disrupted:NoSchedule (so the taint does not move it, and the drain leaves it). */
export function toleratesDisrupted(pod: KubeObject): boolean {
  return (fields(pod).spec?.tolerations ?? []).some((t) => {
    if (t.effect && t.effect !== DISRUPTED_TAINT.effect) return false;
    if (t.key && t.key !== DISRUPTED_TAINT.key) return false;
    return t.operator === 'Exists' || (t.value ?? '') === DISRUPTED_TAINT.value;
  });
}

function deletionMs(pod: KubeObject): number {
  const t = fields(pod).metadata?.deletionTimestamp;
  return t == null ? 0 : new Date(t).getTime();
}

/** A pod the drain waits for: not finished, not tolerating the taint, not stuck terminating, not a mirror pod. */
export function isWaitingEviction(pod: KubeObject, now: number): boolean {
  if (isFinished(pod) || toleratesDisrupted(pod)) return false;
  if (isTerminating(pod) && now - deletionMs(pod) > STUCK_TERMINATING_MS) return false;
  return pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] === undefined && !ownerKind(pod, 'Node');
}

/** A pod the drain may evict now: waiting, not already terminating, without do-not-disrupt. */
function isEvictable(pod: KubeObject, now: number): boolean {
  return isWaitingEviction(pod, now) && !isTerminating(pod) && pod.metadata?.annotations?.[DO_NOT_DISRUPT] !== 'true';
}

/** Karpenter's drain order: non-critical non-DaemonSet, non-critical DaemonSet, critical non-DaemonSet, critical DaemonSet. */
export function evictionTiers(pods: readonly KubeObject[]): KubeObject[][] {
  const tiers: KubeObject[][] = [[], [], [], []];
  for (const p of pods) {
    const critical = CRITICAL_PRIORITY_CLASSES.has(fields(p).spec?.priorityClassName ?? '');
    tiers[(critical ? 2 : 0) + (ownerKind(p, 'DaemonSet') ? 1 : 0)]!.push(p);
  }
  return tiers;
}

export interface DrainStep {
  /** Pods to evict now (the first tier with pods left). */
  readonly evict: KubeObject[];
  /** Pods to delete now so they finish by the node's deadline, and the grace each gets (at least 1 s). */
  readonly delete: { pod: KubeObject; graceSeconds: number }[];
  /** Pods the drain still waits for; 0: drained. */
  readonly waiting: number;
}

/** One drain step for the pods bound to a node; `deadline` is the claim's termination time (deletion + terminationGracePeriod), if any. */
export function drainStep(podsOnNode: readonly KubeObject[], now: number, deadline: number | undefined): DrainStep {
  const waiting = podsOnNode.filter((p) => isWaitingEviction(p, now));
  const del: DrainStep['delete'] = [];
  if (deadline !== undefined) {
    for (const p of waiting) {
      // A terminating pod is deleted again only if its own deletion ends after the node's deadline.
      if (isTerminating(p) && deletionMs(p) <= deadline) continue;
      // Deleted once waiting longer would leave it less than its own grace period before the deadline.
      const grace = (fields(p).spec?.terminationGracePeriodSeconds ?? 30) * 1000;
      if (now > deadline - grace) del.push({ pod: p, graceSeconds: Math.max(Math.floor((deadline - now) / 1000), 1) });
    }
  }
  const tier = evictionTiers(waiting).find((t) => t.length > 0) ?? [];
  const deleting = new Set(del.map((d) => d.pod));
  return { evict: tier.filter((p) => isEvictable(p, now) && !deleting.has(p)), delete: del, waiting: waiting.length };
}

/** Karpenter labels a terminating node so load balancers stop sending it traffic before it goes. */
export const LABEL_EXCLUDE_FROM_LB = 'node.kubernetes.io/exclude-from-external-load-balancers';

/** The node tainted karpenter.sh/disrupted:NoSchedule and excluded from load balancers; undefined when it already is. */
export function terminatingNode(node: KubeObject): KubeObject | undefined {
  const tainted = withDisruptedTaint(node, true) ?? node;
  const labels = tainted.metadata?.labels ?? {};
  if (tainted === node && labels[LABEL_EXCLUDE_FROM_LB] !== undefined) return undefined;
  return { ...tainted, metadata: { ...tainted.metadata, labels: { ...labels, [LABEL_EXCLUDE_FROM_LB]: 'karpenter' } } };
}

/** When the claim's pods must be gone: its deletion plus its terminationGracePeriod (undefined: no limit). */
export function terminationDeadline(claim: Claim | undefined): number | undefined {
  if (!claim || claim.terminationGracePeriodMs === null || claim.deleted === 0) return undefined;
  return claim.deleted + claim.terminationGracePeriodMs;
}

export interface TerminationHost {
  objects(): LiveObjects;
  /** Checked before every write. */
  leading(): boolean;
  /** An Event (Normal or Warning) on a Node, NodeClaim or Pod. */
  event(about: { kind: 'Node' | 'NodeClaim' | 'Pod'; object: KubeObject }, reason: string, message: string, type: 'Normal' | 'Warning'): Promise<void>;
}

export type TerminationKube = Pick<Kube, 'update' | 'delete'>;

export class Termination {
  /** node name → when its drain began (this replica's clock). */
  private readonly drainStarted = new Map<string, number>();
  /** pod uid → backoff of its refused evictions. */
  private readonly evictRetry = new Map<string, { delayMs: number; at: number }>();
  /** uids of objects whose termination has been announced with an Event. */
  private readonly announced = new Set<string>();

  constructor(
    private readonly kube: TerminationKube,
    private readonly cloud: Pick<CloudProvider, 'delete' | 'list'>,
    private readonly host: TerminationHost,
    private readonly evict: Evict,
    private readonly deletePod: DeletePod,
    private readonly log: Logger,
    private readonly metrics: Metrics,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether any Node or NodeClaim is terminating under berth's finalizer (the caller then passes again soon). */
  busy(objects: LiveObjects): boolean {
    return [...objects.nodes, ...objects.nodeClaims].some((o) => isTerminating(o) && hasFinalizer(o));
  }

  /** One step for every terminating Node and NodeClaim. */
  async pass(): Promise<void> {
    let objects = this.host.objects();
    const claims = new Map(objects.nodeClaims.map((o) => [o.metadata?.name ?? '', o]));
    for (const node of objects.nodes) {
      if (!isTerminating(node) || !hasFinalizer(node) || nodeClaimOf(node) === '') continue;
      await this.step(() => this.terminateNode(node, claims.get(nodeClaimOf(node)), objects.pods), node);
    }
    // Again: a node finished above lets its claim go in the same pass.
    objects = this.host.objects();
    const nodesByClaim = new Map(objects.nodes.filter((n) => nodeClaimOf(n) !== '').map((n) => [nodeClaimOf(n), n]));
    for (const claim of objects.nodeClaims) {
      if (!isTerminating(claim) || !hasFinalizer(claim)) continue;
      await this.step(() => this.finalizeClaim(claim, nodesByClaim.get(claim.metadata?.name ?? '')), claim);
    }
    const live = new Set(objects.nodes.map((n) => n.metadata?.name));
    for (const name of this.drainStarted.keys()) if (!live.has(name)) this.drainStarted.delete(name);
  }

  private async step(work: () => Promise<void>, o: KubeObject): Promise<void> {
    if (!this.host.leading()) return;
    try {
      await work();
    } catch (e) {
      this.log.warn({ object: o.metadata?.name, kind: o.kind, err: errorText(e) }, 'termination step failed; retried on the next pass');
    }
  }

  private async announce(about: { kind: 'Node' | 'NodeClaim'; object: KubeObject }, message: string): Promise<void> {
    const uid = about.object.metadata?.uid ?? `${about.kind}/${about.object.metadata?.name}`;
    if (this.announced.has(uid)) return;
    this.announced.add(uid);
    this.log.info({ [about.kind === 'Node' ? 'node' : 'nodeClaim']: about.object.metadata?.name }, message);
    await this.host.event(about, 'Terminating', message, 'Normal');
  }

  private async terminateNode(node: KubeObject, claimObject: KubeObject | undefined, pods: readonly KubeObject[]): Promise<void> {
    const name = node.metadata?.name ?? '';
    const claim = claimObject ? readClaim(claimObject) : undefined;
    await this.announce({ kind: 'Node', object: node }, `Terminating node ${name}: tainted ${DISRUPTED_TAINT.key}:${DISRUPTED_TAINT.effect}, draining through the Eviction API`);
    // A Node deleted directly takes its claim with it, whatever the claim's age.
    if (claimObject && !isTerminating(claimObject)) await this.kube.delete(NODECLAIM_API_VERSION, NODECLAIM_KIND, claimObject.metadata?.name ?? '');
    if (!this.host.leading()) return;
    await this.kube.update('v1', 'Node', name, terminatingNode);
    const now = this.now();
    if (!this.drainStarted.has(name)) this.drainStarted.set(name, now);
    const onNode = pods.filter((p) => fields(p).spec?.nodeName === name);
    const deadline = terminationDeadline(claim);
    const step = drainStep(onNode, now, deadline);
    for (const d of step.delete) await this.forceDelete(d.pod, d.graceSeconds, name, deadline!);
    for (const pod of step.evict) await this.evictOne(pod, name);
    if (step.waiting > 0 || now - this.drainStarted.get(name)! < MIN_DRAIN_MS) return;
    if (!this.host.leading()) return;
    await this.cloud.delete({ nodeName: name });
    await this.kube.update('v1', 'Node', name, (n) => withFinalizer(n, false));
    const began = this.drainStarted.get(name)!;
    this.drainStarted.delete(name);
    const nodePool = node.metadata?.labels?.['karpenter.sh/nodepool'] ?? '';
    this.metrics.nodesTerminated.inc({ nodepool: nodePool });
    this.metrics.terminationSeconds.observe({ nodepool: nodePool }, (this.now() - began) / 1000);
    this.log.info({ node: name, nodeClaim: nodeClaimOf(node), drainSeconds: (this.now() - began) / 1000 }, 'deleted node');
  }

  private async evictOne(pod: KubeObject, node: string): Promise<void> {
    const uid = pod.metadata?.uid ?? objectKey(pod);
    const retry = this.evictRetry.get(uid);
    if (retry && this.now() < retry.at) return;
    if (!this.host.leading()) return;
    const result = await this.evict(pod);
    this.metrics.evictions.inc({ result });
    if (result === 'blocked') {
      const delayMs = Math.min((retry?.delayMs ?? EVICTION_BACKOFF_START_MS / 2) * 2, EVICTION_BACKOFF_MAX_MS);
      this.evictRetry.set(uid, { delayMs, at: this.now() + delayMs });
      if (!retry) this.log.info({ pod: objectKey(pod), node }, 'eviction refused (429: a PodDisruptionBudget allows none now); retrying with backoff');
      return;
    }
    this.evictRetry.delete(uid);
    if (result === 'evicted') {
      this.log.info({ pod: objectKey(pod), node }, 'evicted pod');
      await this.host.event({ kind: 'Pod', object: pod }, 'Evicted', `Evicted pod: node ${node} is terminating`, 'Normal');
    }
  }

  private async forceDelete(pod: KubeObject, graceSeconds: number, node: string, deadline: number): Promise<void> {
    if (!this.host.leading()) return;
    const at = new Date(deadline).toISOString();
    await this.deletePod(pod, graceSeconds);
    this.metrics.evictions.inc({ result: 'deleted' });
    this.log.info({ pod: objectKey(pod), node, graceSeconds, terminationTime: at }, 'deleting pod to meet the node termination time');
    await this.host.event({ kind: 'Pod', object: pod }, 'Disrupted', `Deleting the pod to accommodate the terminationTime ${at} of the node; it gets ${graceSeconds}s of grace, bypassing its PDB and do-not-disrupt`, 'Warning');
  }

  private async finalizeClaim(claimObject: KubeObject, node: KubeObject | undefined): Promise<void> {
    const name = claimObject.metadata?.name ?? '';
    await this.announce({ kind: 'NodeClaim', object: claimObject }, `Terminating NodeClaim ${name}${node ? `: deleting node ${node.metadata?.name}` : ''}`);
    if (node) {
      if (!isTerminating(node)) await this.kube.delete('v1', 'Node', node.metadata?.name ?? '');
      return; // the Node's own termination drains it; the claim goes once the Node has
    }
    if (!this.host.leading()) return;
    for (const i of await this.cloud.list()) if (i.claim === name) await this.cloud.delete(i);
    await this.kube.update(NODECLAIM_API_VERSION, NODECLAIM_KIND, name, (o) => withFinalizer(o, false));
    const claim = readClaim(claimObject);
    const nodePool = claim?.nodePool ?? '';
    this.metrics.claimsTerminated.inc({ nodepool: nodePool });
    if (claim && claim.deleted > 0) this.metrics.claimTerminationSeconds.observe({ nodepool: nodePool }, (this.now() - claim.deleted) / 1000);
    this.log.info({ nodeClaim: name }, 'deleted nodeclaim');
  }
}
