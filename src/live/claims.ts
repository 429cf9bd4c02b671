// NodeClaim bookkeeping, pure: what a planned claim looks like as an API object
// (berth.dev/v1alpha1 NodeClaim, see deploy/crd.yaml), which claims are still in
// flight (launched, no Node yet: capacity the next plan must count), and the
// garbage-collection decisions (claims whose node never registered or whose
// instance vanished, expired claims, nodes whose claim is gone).

import { hashAnnotations } from '../disruption/drift.js';
import { parseGoDuration } from '../model/go-duration.js';
import type { Node } from '../model/node.js';
import type { NodePool } from '../model/nodepool.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import { LABEL_NODEPOOL } from '../provisioner/labels.js';
import { launchedNode } from '../provisioner/launched-node.js';
import { createdAt, isTerminating, type KubeObject } from './objects.js';

export const NODECLAIM_API_VERSION = 'berth.dev/v1alpha1';
export const NODECLAIM_KIND = 'NodeClaim';
/** On a Node: the NodeClaim it was launched for. */
export const LABEL_NODECLAIM = 'berth.dev/nodeclaim';
/**
 * On berth's NodeClaims and the Nodes launched for them (Karpenter's
 * karpenter.sh/termination, in berth's group): a delete only marks the object, and
 * the controller drains the node and ends the instance before it lets it go.
 */
export const TERMINATION_FINALIZER = 'berth.dev/termination';

export interface ClaimSpec {
  readonly nodePool: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: string;
}

export interface Claim extends ClaimSpec {
  readonly name: string;
  readonly created: number;
  readonly terminating: boolean;
  /** metadata.deletionTimestamp in ms (0 while not terminating). */
  readonly deleted: number;
  /** status: Launched=True (the cloud created its instance), Registered=True (its Node joined), Initialized=True (its Node is Ready). */
  readonly launched: boolean;
  readonly registered: boolean;
  readonly initialized: boolean;
  readonly providerID: string;
  /** From the NodePool when the claim was made (Karpenter copies them too); null: never / no limit. */
  readonly expireAfterMs: number | null;
  readonly terminationGracePeriodMs: number | null;
  readonly pricePerHour: number | null;
}

export type ClaimConditionType = 'Launched' | 'Registered' | 'Initialized';

export interface ClaimCondition {
  readonly type: ClaimConditionType;
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message?: string;
  readonly lastTransitionTime: string;
}

interface ClaimStatus {
  readonly providerID?: string;
  readonly nodeName?: string;
  readonly conditions?: readonly ClaimCondition[];
}

function statusOf(o: KubeObject): ClaimStatus {
  return (o.status ?? {}) as ClaimStatus;
}

function conditionTrue(o: KubeObject, type: ClaimConditionType): boolean {
  return (statusOf(o).conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/**
 * The claim object with a condition set True and the given status fields, or
 * undefined when it already says so (nothing to write). Other fields, and labels
 * or annotations another writer put on it, are kept: this runs on the object as
 * last read, again after a conflict.
 */
export function withCondition(o: KubeObject, type: ClaimConditionType, reason: string, fields: Omit<ClaimStatus, 'conditions'>, now: number): KubeObject | undefined {
  const status = statusOf(o);
  const same = conditionTrue(o, type) && Object.entries(fields).every(([k, v]) => (status as Record<string, unknown>)[k] === v);
  if (same) return undefined;
  const condition: ClaimCondition = { type, status: 'True', reason, lastTransitionTime: new Date(now).toISOString() };
  const conditions = [...(status.conditions ?? []).filter((c) => c.type !== type), condition];
  return { ...o, status: { ...status, ...fields, conditions } };
}

/**
 * The NodeClaim object for a planned claim or a replacement; the API server
 * completes the name. The NodePool's expireAfter, terminationGracePeriod and startup taints are
 * copied in, as Karpenter does, so a later NodePool edit does not change a
 * running node's deadlines; and, as Karpenter stamps its NodeClaims, the NodePool's
 * hash (karpenter.sh/nodepool-hash and -hash-version), from which a later edit of
 * the NodePool's template is seen as drift.
 */
export function claimObject<T extends ClaimSpec & { pricePerHour: number }>(plan: T, pool?: Pick<NodePool, 'expireAfterSeconds' | 'terminationGracePeriodSeconds' | 'startupTaints' | 'hash'>): KubeObject & { spec: ClaimSpec & Record<string, unknown> } {
  const expire = pool?.expireAfterSeconds ?? null;
  const grace = pool?.terminationGracePeriodSeconds ?? null;
  return {
    apiVersion: NODECLAIM_API_VERSION,
    kind: NODECLAIM_KIND,
    metadata: {
      generateName: `${plan.nodePool}-`,
      labels: { [LABEL_NODEPOOL]: plan.nodePool },
      ...(pool ? { annotations: hashAnnotations(pool) } : {}),
      finalizers: [TERMINATION_FINALIZER],
    },
    spec: {
      nodePool: plan.nodePool,
      instanceType: plan.instanceType,
      zone: plan.zone,
      capacityType: plan.capacityType,
      // A string: the CRD's printer column shows it as written (a number column would round).
      price: plan.pricePerHour.toFixed(4),
      ...(expire === null ? {} : { expireAfter: `${expire}s` }),
      ...(grace === null ? {} : { terminationGracePeriod: `${grace}s` }),
      ...(pool && pool.startupTaints.length > 0 ? { startupTaints: pool.startupTaints.map((t) => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect })) } : {}),
    },
  };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A Go duration field in ms; null when absent or not a duration (the CRD's pattern keeps bad ones out). */
function durationMs(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  try {
    return Number(parseGoDuration(v) / 1_000_000n);
  } catch {
    return null;
  }
}

/** A NodeClaim object as the controller uses it; undefined when its spec is incomplete. */
export function readClaim(o: KubeObject): Claim | undefined {
  const spec = (o.spec ?? {}) as Record<string, unknown>;
  const claim = { nodePool: str(spec.nodePool), instanceType: str(spec.instanceType), zone: str(spec.zone), capacityType: str(spec.capacityType) };
  const name = o.metadata?.name;
  if (!name || Object.values(claim).some((v) => v === '')) return undefined;
  const price = Number.parseFloat(str(spec.price));
  const deletion = o.metadata?.deletionTimestamp;
  return {
    ...claim,
    name,
    created: createdAt(o),
    terminating: isTerminating(o),
    deleted: deletion == null ? 0 : new Date(deletion).getTime(),
    launched: conditionTrue(o, 'Launched'),
    registered: conditionTrue(o, 'Registered'),
    initialized: conditionTrue(o, 'Initialized'),
    providerID: statusOf(o).providerID ?? '',
    expireAfterMs: durationMs(spec.expireAfter),
    terminationGracePeriodMs: durationMs(spec.terminationGracePeriod),
    pricePerHour: Number.isFinite(price) ? price : null,
  };
}

export function hasFinalizer(o: KubeObject, finalizer = TERMINATION_FINALIZER): boolean {
  return (o.metadata?.finalizers ?? []).includes(finalizer);
}

/** The object with the finalizer added (`on`) or removed; undefined when it already is so. */
export function withFinalizer(o: KubeObject, on: boolean, finalizer = TERMINATION_FINALIZER): KubeObject | undefined {
  if (hasFinalizer(o, finalizer) === on) return undefined;
  const rest = (o.metadata?.finalizers ?? []).filter((f) => f !== finalizer);
  return { ...o, metadata: { ...o.metadata, finalizers: on ? [...rest, finalizer] : rest } };
}

/** The claim a Node belongs to ('' for nodes berth did not launch). */
export function nodeClaimOf(node: KubeObject): string {
  return node.metadata?.labels?.[LABEL_NODECLAIM] ?? '';
}

/**
 * Claims launched whose Node has not registered, as the nodes they will become,
 * so the planner counts them as coming capacity (and against NodePool limits).
 * A claim whose NodePool or instance type is gone cannot be modelled and is left
 * to garbage collection.
 */
export function inFlightNodes(claims: readonly Claim[], registered: ReadonlySet<string>, pools: readonly NodePool[], instanceTypes: readonly InstanceType[]): Node[] {
  const out: Node[] = [];
  for (const c of claims) {
    if (registered.has(c.name) || c.terminating) continue;
    const pool = pools.find((p) => p.name === c.nodePool);
    const it = instanceTypes.find((t) => t.name === c.instanceType);
    if (!pool || !it) continue;
    // Planned as it will be once initialized: without its startup taints (Karpenter's in-flight StateNode).
    const node = launchedNode(c.name, pool, it, { zone: c.zone, capacityType: c.capacityType === 'spot' ? 'spot' : 'on-demand' }, c.created);
    out.push({ ...node, taints: pool.taints });
  }
  return out;
}

export interface GcInput {
  readonly now: number;
  readonly claims: readonly Claim[];
  /** The cloud's instances (for kwok, the Nodes berth launched): node name and the claim it is tagged with. */
  readonly instances: readonly { name: string; claim: string }[];
  /** How long a claim may wait for its node before it is given up. */
  readonly registrationTtlMs: number;
  /** How long a node may show no claim (the claim informer may lag the node informer). */
  readonly orphanGraceMs: number;
  /** Instance → when it was first seen without its claim (from the previous pass). */
  readonly orphanedSince: ReadonlyMap<string, number>;
}

export interface GcDecisions {
  /** Claims without an instance, never launched, within the registration TTL: launch (idempotent). */
  readonly launch: string[];
  readonly deleteClaims: { name: string; reason: GcReason; message: string }[];
  readonly deleteNodes: { name: string; reason: string }[];
  /** Instances without their claim now, and since when: the next pass's orphanedSince. */
  readonly orphanedSince: Map<string, number>;
}

/** Why garbage collection deletes a claim (the metric's reason label and the Event's reason). */
export type GcReason = 'RegistrationTimeout' | 'InstanceTerminated' | 'Expired';

/**
 * What a reconcile pass deletes or launches. A deleted claim goes through
 * termination (its finalizer) like any other. An instance counts as orphaned from
 * the first pass that finds its claim gone, not from its creation: a node whose
 * claim was deleted a moment ago gets the full grace period.
 */
export function gcDecisions(input: GcInput): GcDecisions {
  const byClaim = new Set(input.instances.map((n) => n.claim).filter((c) => c !== ''));
  const claimNames = new Set(input.claims.map((c) => c.name));
  const launch: string[] = [];
  const deleteClaims: GcDecisions['deleteClaims'] = [];
  for (const c of input.claims) {
    if (c.terminating) continue;
    const age = input.now - c.created;
    if (c.expireAfterMs !== null && age >= c.expireAfterMs) {
      deleteClaims.push({ name: c.name, reason: 'Expired', message: `NodeClaim expired after ${Math.round(c.expireAfterMs / 1000)}s (its NodePool's expireAfter)` });
    } else if (byClaim.has(c.name)) {
      continue;
    } else if (c.launched) {
      // Karpenter's garbage collection: a launched claim whose instance the cloud no
      // longer has is deleted (its pods are planned again), never launched twice.
      deleteClaims.push({ name: c.name, reason: 'InstanceTerminated', message: `instance ${c.providerID || '(unknown)'} no longer exists` });
    } else if (age >= input.registrationTtlMs) {
      deleteClaims.push({ name: c.name, reason: 'RegistrationTimeout', message: `node did not register within ${Math.round(input.registrationTtlMs / 1000)}s` });
    } else {
      launch.push(c.name);
    }
  }
  const orphanedSince = new Map<string, number>();
  const deleteNodes: GcDecisions['deleteNodes'] = [];
  for (const n of input.instances) {
    if (n.claim === '' || claimNames.has(n.claim)) continue;
    const since = input.orphanedSince.get(n.name) ?? input.now;
    orphanedSince.set(n.name, since);
    if (input.now - since >= input.orphanGraceMs) deleteNodes.push({ name: n.name, reason: `its NodeClaim ${n.claim} has been gone for ${Math.round((input.now - since) / 1000)}s` });
  }
  return { launch, deleteClaims, deleteNodes, orphanedSince };
}

export interface StatusDecisions {
  /** Claims whose instance exists but whose Launched condition was never written (e.g. a crash between create and record): adopt it. */
  readonly launched: { name: string; providerID: string }[];
}

/** The Launched writes a reconcile pass owes from the cloud's instances (Registered and Initialized come from the Node informer: lifecycle.ts). */
export function statusDecisions(claims: readonly Claim[], instances: readonly { claim: string; providerID: string }[]): StatusDecisions {
  const instanceOf = new Map(instances.filter((i) => i.claim !== '').map((i) => [i.claim, i]));
  const launched: StatusDecisions['launched'] = [];
  for (const c of claims) {
    if (c.terminating) continue;
    const instance = instanceOf.get(c.name);
    if (!c.launched && instance) launched.push({ name: c.name, providerID: instance.providerID });
  }
  return { launched };
}
