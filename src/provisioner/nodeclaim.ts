// A NodeClaim being planned: a node that does not exist yet, from one NodePool,
// whose requirements narrow and whose instance-type options shrink as pods join it.
// Its zone (like its capacity type and instance type) stays open, a requirement
// narrowed by the pods that join, until the launch picks the cheapest offering the
// final requirements allow. It is shown to the scheduling plugins as a Node whose
// labels are what is already decided (hostname, pool labels, single-valued
// requirements: the zone only once one is left). To judge a pod that decides some
// of the open labels, it is shown with those labels set (`Domains`).

import { LABEL_HOSTNAME, type Node } from '../model/node.js';
import type { Pod } from '../model/pod.js';
import { addInto, type ResourceList } from '../model/resources.js';
import type { Taint } from '../model/taints.js';
import { LABEL_CAPACITY_TYPE, LABEL_ZONE, type InstanceType, type Offering } from './catalog/types.js';
import { daemonLoad, type DaemonLoad } from './daemon-overhead.js';
import { compatibleOfferings, instanceTypeRequirements, satisfiesMinValues } from './instance-requirements.js';
import { ALLOW_UNDEFINED_WELL_KNOWN, Requirements } from './requirements.js';
import type { Domains } from './topology-keys.js';

export interface PoolTemplate {
  readonly name: string;
  readonly weight: number;
  /** NodePool requirements plus its template labels and karpenter.sh/nodepool. */
  readonly requirements: Requirements;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  /** Instance types compatible with the pool's requirements, with at least one usable offering. */
  readonly instanceTypes: readonly InstanceType[];
  /** Whether some instance type suits the pool before DaemonSet overhead: Karpenter keeps its NodeClaimTemplate and checks each DaemonSet pod against it. */
  readonly hasInstanceTypes: boolean;
  /** Zones some of those instance types are offered in, allowed by the pool. */
  readonly zones: readonly string[];
  /** Zones that are topology domains for the pool's nodes (Karpenter's domain groups), sorted. */
  readonly domainZones: readonly string[];
  /** Per instance type name, the DaemonSet pods a node of the type would run (its allocatable above already excludes them). */
  readonly daemonLoad: ReadonlyMap<string, DaemonLoad>;
  /** Karpenter's minValuesPolicy: Strict refuses a claim whose types cannot meet minValues, BestEffort lowers them. */
  readonly minValuesPolicy: MinValuesPolicy;
}

export type MinValuesPolicy = 'Strict' | 'BestEffort';

/** Offerings of `it` a claim with `reqs` could launch (the zone and capacity type are among the requirements). */
export function usableOfferings(it: InstanceType, reqs: Requirements): Offering[] {
  return compatibleOfferings(it, reqs);
}

/** requests and pod count fit what the instance type leaves allocatable (to pods, after the pool's daemons). */
export function fits(requests: ResourceList, pods: number, it: InstanceType): boolean {
  return withinAllocatable(requests, undefined, pods, it.allocatable);
}

/** requests (+ more) and the pod count within alloc; keys named `pods` and zero amounts are not compared. */
function withinAllocatable(requests: ResourceList, more: ResourceList | undefined, pods: number, alloc: ResourceList): boolean {
  if (pods > (alloc.pods ?? 0)) return false;
  for (const k in requests) {
    const v = requests[k]! + (more?.[k] ?? 0);
    if (k !== 'pods' && v !== 0 && v > (alloc[k] ?? 0)) return false;
  }
  if (more !== undefined) {
    for (const k in more) {
      const v = more[k]!;
      if (!(k in requests) && k !== 'pods' && v !== 0 && v > (alloc[k] ?? 0)) return false;
    }
  }
  return true;
}

export function cheapestOffering(types: readonly InstanceType[], reqs: Requirements): { it: InstanceType; offering: Offering } | undefined {
  let best: { it: InstanceType; offering: Offering } | undefined;
  for (const it of types) {
    for (const o of usableOfferings(it, reqs)) {
      if (!best || o.price < best.offering.price || (o.price === best.offering.price && it.name < best.it.name)) best = { it, offering: o };
    }
  }
  return best;
}

export class PlannedClaim {
  readonly pods: Pod[] = [];
  /** Whether the claim's first pod needed some of the pool's minValues lowered (BestEffort). */
  minValuesRelaxed = false;
  /** The pods' summed requests (the daemons' are taken off each option's allocatable). */
  readonly requests: Record<string, number> = {};

  constructor(
    readonly name: string,
    readonly pool: PoolTemplate,
    public requirements: Requirements,
    public options: readonly InstanceType[],
    /** Creation order, for stable iteration. */
    readonly seq: number,
  ) {}

  /** Zones the claim may still launch in: the pool's zones its requirements allow, sorted. */
  zones(): string[] {
    const zone = this.requirements.get(LABEL_ZONE);
    return this.pool.zones.filter((z) => zone.has(z));
  }

  /** Pods planned onto the node (its daemons are counted in each option's allocatable). */
  get podCount(): number {
    return this.pods.length;
  }

  /**
   * Whether `pod` (asking for `podReqs`) can join: the merged requirements must be
   * compatible and some remaining instance type must fit everything. Returns the
   * narrowed state, or the reason it cannot.
   */
  canAdd(pod: Pod, podReqs: Requirements): { requirements: Requirements; options: readonly InstanceType[] } | { reason: string } {
    const incompatible = this.requirements.compatible(podReqs, ALLOW_UNDEFINED_WELL_KNOWN);
    if (incompatible !== undefined) return { reason: `incompatible requirements, ${incompatible}` };
    const requirements = this.requirements.clone();
    const changed = requirements.narrow(podReqs);
    const narrowed = changed.length > 0;
    const requests = { ...this.requests };
    addInto(requests, pod.resources.requests);
    const podCount = this.podCount + 1;
    // Every option already suits the claim's requirements (they were filtered by them): only the keys the pod narrows can rule one out.
    const kept = this.options.filter((it) => fits(requests, podCount, it) && (!narrowed || stillSuits(it, requirements, changed)) && this.portsFree(pod, it));
    if (kept.length === 0) return { reason: `no instance type satisfied resources ${formatRequests(requests, podCount)} and requirements ${requirements.toString()}` };
    const minValues = satisfiesMinValues(kept, requirements);
    let relaxed = false;
    if (minValues.error) {
      if (this.pool.minValuesPolicy !== 'BestEffort') return { reason: minValues.error };
      // BestEffort: each unmet minValues drops to the number of values the remaining types offer.
      for (const [key, n] of minValues.unsatisfied) requirements.set(requirements.get(key).withMinValues(n));
      relaxed = true;
    }
    // Unchanged state is handed back as the same objects, so node() knows the claim's node did not change.
    return { requirements: narrowed || relaxed ? requirements : this.requirements, options: kept.length === this.options.length ? this.options : kept };
  }

  /** Whether the pod's host ports are free of the ports the type's DaemonSet pods hold. */
  private portsFree(pod: Pod, it: InstanceType): boolean {
    if (pod.hostPorts.length === 0 || this.pool.daemonLoad.size === 0) return true;
    const used = daemonLoad(this.pool.daemonLoad, it).hostPorts;
    return !pod.hostPorts.some((p) => used.conflicts(p));
  }

  /** Whether some remaining option could still hold `pod` on top of the claim's pods (size only): canAdd refuses it otherwise, whatever the requirements. */
  hasRoomFor(pod: Pod): boolean {
    const podCount = this.podCount + 1;
    const more = pod.resources.requests;
    // Past the largest option in some resource, no option fits: the common answer once the claim is full, without a walk.
    if (!withinAllocatable(this.requests, more, podCount, this.largest())) return false;
    return this.options.some((it) => withinAllocatable(this.requests, more, podCount, it.allocatable));
  }

  /** Per resource, the most any remaining option leaves allocatable. */
  private largest(): ResourceList {
    return summaryOf(this.options).largest;
  }

  add(pod: Pod, next: { requirements: Requirements; options: readonly InstanceType[] }): void {
    this.pods.push(pod);
    addInto(this.requests, pod.resources.requests);
    this.requirements = next.requirements;
    this.options = next.options;
  }

  private nodes: { requirements: Requirements; options: readonly InstanceType[]; byDomains: Map<string, Node> } | undefined;

  /**
   * toNode(seq, domains), the same object for as long as it would be built the same: the
   * requirements stay the same object and the options, if they shrank, still agree on
   * the same labels and the same largest allocatable (toNode reads nothing else of them).
   */
  node(domains?: Domains): Node {
    const last = this.nodes;
    let byDomains: Map<string, Node>;
    if (last?.requirements !== this.requirements) byDomains = new Map();
    else if (last.options === this.options) byDomains = last.byDomains;
    else {
      const [before, now] = [summaryOf(last.options), summaryOf(this.options)];
      byDomains = sameRecord(before.largest, now.largest) && sameRecord(before.shared, now.shared) ? last.byDomains : new Map();
    }
    this.nodes = { requirements: this.requirements, options: this.options, byDomains };
    const key = domainsKey(domains);
    let node = byDomains.get(key);
    if (node === undefined) byDomains.set(key, (node = this.toNode(this.seq, domains)));
    return node;
  }

  /**
   * The node the scheduling plugins see: decided labels, pool taints, the largest
   * remaining capacity. `domains` label it as if launched with those values, to judge a
   * pod in one of the domains the claim may still take.
   */
  toNode(order: number, domains?: Domains): Node {
    const labels: Record<string, string> = { ...this.pool.labels, ...this.requirements.singleValueLabels(), [LABEL_HOSTNAME]: this.name };
    const shared = summaryOf(this.options).shared;
    for (const [k, v] of Object.entries(shared)) if (!(k in labels) && (!this.requirements.has(k) || this.requirements.get(k).has(v))) labels[k] = v;
    Object.assign(labels, domains);
    const allocatable = this.largest();
    return { name: this.name, uid: this.name, labels, annotations: {}, taints: this.pool.taints, unschedulable: false, allocatable, capacity: allocatable, images: [], creation: order };
  }
}

/**
 * Whether an option that suited the claim's requirements still suits them after
 * `changed` keys narrowed: the type's requirements are compared key by key, so only
 * those keys can conflict now, and its offerings depend on the zone and capacity type only.
 */
function stillSuits(it: InstanceType, requirements: Requirements, changed: readonly string[]): boolean {
  if (instanceTypeRequirements(it).conflictsOn(requirements, changed)) return false;
  return !(changed.includes(LABEL_ZONE) || changed.includes(LABEL_CAPACITY_TYPE)) || usableOfferings(it, requirements).length > 0;
}

/**
 * What toNode and hasRoomFor read of a list of options, kept per list: the lists are
 * never changed (narrowing makes new ones), and candidate claims share the pool's.
 */
const summaries = new WeakMap<readonly InstanceType[], { largest: ResourceList; shared: Record<string, string> }>();
function summaryOf(types: readonly InstanceType[]): { largest: ResourceList; shared: Record<string, string> } {
  let s = summaries.get(types);
  if (s === undefined) summaries.set(types, (s = { largest: maxAllocatable(types), shared: sharedLabels(types) }));
  return s;
}

/** A cache key for a set of domains (undefined: the claim as it is). */
export function domainsKey(domains: Domains | undefined): string {
  return domains === undefined ? '' : JSON.stringify(Object.entries(domains));
}

function sameRecord<T>(a: Readonly<Record<string, T>>, b: Readonly<Record<string, T>>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!(k in b) || a[k] !== b[k]) return false;
  return true;
}

function maxAllocatable(types: readonly InstanceType[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const it of types) {
    const alloc = it.allocatable;
    for (const k in alloc) out[k] = Math.max(out[k] ?? 0, alloc[k]!);
  }
  return out;
}

/** Labels every remaining instance type agrees on (e.g. the architecture once only arm64 types are left). */
function sharedLabels(types: readonly InstanceType[]): Record<string, string> {
  const first = types[0];
  if (!first) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(first.labels)) if (types.every((t) => t.labels[k] === v)) out[k] = v;
  return out;
}

export function formatRequests(requests: ResourceList, pods: number): string {
  const parts = Object.entries(requests)
    .filter(([k, v]) => v !== 0 && k !== 'pods')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `"${k}":"${k === 'cpu' ? `${v}m` : String(v)}"`);
  parts.push(`"pods":"${pods}"`);
  return `{${parts.join(',')}}`;
}
