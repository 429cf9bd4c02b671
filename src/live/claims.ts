// NodeClaim bookkeeping, pure: what a planned claim looks like as an API object
// (berth.dev/v1alpha1 NodeClaim, see deploy/crd.yaml), which claims are still in
// flight (launched, no Node yet: capacity the next plan must count), and the
// garbage-collection decisions (claims whose node never registered, nodes whose
// claim is gone).

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
  /** status: Launched=True (the cloud created its instance) and Registered=True (its Node joined). */
  readonly launched: boolean;
  readonly registered: boolean;
}

export type ClaimConditionType = 'Launched' | 'Registered';

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

/** The NodeClaim object for a planned claim or a replacement; the API server completes the name. */
export function claimObject<T extends ClaimSpec>(plan: T): KubeObject & { spec: ClaimSpec } {
  return {
    apiVersion: NODECLAIM_API_VERSION,
    kind: NODECLAIM_KIND,
    metadata: { generateName: `${plan.nodePool}-`, labels: { [LABEL_NODEPOOL]: plan.nodePool } },
    spec: { nodePool: plan.nodePool, instanceType: plan.instanceType, zone: plan.zone, capacityType: plan.capacityType },
  };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A NodeClaim object as the controller uses it; undefined when its spec is incomplete. */
export function readClaim(o: KubeObject): Claim | undefined {
  const spec = (o.spec ?? {}) as Record<string, unknown>;
  const claim = { nodePool: str(spec.nodePool), instanceType: str(spec.instanceType), zone: str(spec.zone), capacityType: str(spec.capacityType) };
  const name = o.metadata?.name;
  if (!name || Object.values(claim).some((v) => v === '')) return undefined;
  return { ...claim, name, created: createdAt(o), terminating: isTerminating(o), launched: conditionTrue(o, 'Launched'), registered: conditionTrue(o, 'Registered') };
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
    out.push(launchedNode(c.name, pool, it, { zone: c.zone, capacityType: c.capacityType === 'spot' ? 'spot' : 'on-demand' }, c.created));
  }
  return out;
}

export interface GcInput {
  readonly now: number;
  readonly claims: readonly Claim[];
  /** Nodes as name, the claim label, creation time. */
  readonly nodes: readonly { name: string; claim: string; created: number }[];
  /** How long a claim may wait for its node before it is given up. */
  readonly registrationTtlMs: number;
  /** How long a node may show no claim (the claim informer may lag the node informer). */
  readonly orphanGraceMs: number;
}

export interface GcDecisions {
  /** Claims without a node, still within the registration TTL: launch (idempotent). */
  readonly launch: string[];
  readonly deleteClaims: { name: string; reason: string }[];
  readonly deleteNodes: { name: string; reason: string }[];
}

export function gcDecisions(input: GcInput): GcDecisions {
  const nodesByClaim = new Set(input.nodes.map((n) => n.claim).filter((c) => c !== ''));
  const claimNames = new Set(input.claims.map((c) => c.name));
  const launch: string[] = [];
  const deleteClaims: { name: string; reason: string }[] = [];
  for (const c of input.claims) {
    if (c.terminating || nodesByClaim.has(c.name)) continue;
    const age = input.now - c.created;
    if (age >= input.registrationTtlMs) deleteClaims.push({ name: c.name, reason: `node did not register within ${Math.round(input.registrationTtlMs / 1000)}s` });
    else launch.push(c.name);
  }
  const deleteNodes = input.nodes
    .filter((n) => n.claim !== '' && !claimNames.has(n.claim) && input.now - n.created >= input.orphanGraceMs)
    .map((n) => ({ name: n.name, reason: `its NodeClaim ${n.claim} is gone` }));
  return { launch, deleteClaims, deleteNodes };
}

export interface StatusDecisions {
  /** Claims whose instance exists but whose Launched condition was never written (e.g. a crash between create and record): adopt it. */
  readonly launched: { name: string; providerID: string }[];
  /** Claims whose Node has joined the cluster. */
  readonly registered: { name: string; nodeName: string }[];
}

/** The status writes a reconcile pass owes: from the cloud's instances and the Nodes in the cluster. */
export function statusDecisions(claims: readonly Claim[], instances: readonly { claim: string; providerID: string }[], nodes: readonly KubeObject[]): StatusDecisions {
  const instanceOf = new Map(instances.filter((i) => i.claim !== '').map((i) => [i.claim, i]));
  const nodeOf = new Map(nodes.map((n) => [nodeClaimOf(n), n.metadata?.name ?? '']));
  const launched: StatusDecisions['launched'] = [];
  const registered: StatusDecisions['registered'] = [];
  for (const c of claims) {
    if (c.terminating) continue;
    const instance = instanceOf.get(c.name);
    if (!c.launched && instance) launched.push({ name: c.name, providerID: instance.providerID });
    const node = nodeOf.get(c.name);
    if (!c.registered && node) registered.push({ name: c.name, nodeName: node });
  }
  return { launched, registered };
}
