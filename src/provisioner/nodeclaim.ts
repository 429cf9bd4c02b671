// A NodeClaim being planned: a node that does not exist yet, from one NodePool,
// whose requirements narrow and whose instance-type options shrink as pods join it.
// Its zone (like its capacity type and instance type) stays open, a requirement
// narrowed by the pods that join, until the launch picks the cheapest offering the
// final requirements allow. It is shown to the scheduling plugins as a Node whose
// labels are what is already decided (hostname, pool labels, single-valued
// requirements: the zone only once one is left).

import { LABEL_HOSTNAME, type Node } from '../model/node.js';
import type { Pod } from '../model/pod.js';
import { addInto, type ResourceList } from '../model/resources.js';
import type { Taint } from '../model/taints.js';
import { LABEL_ZONE, type InstanceType, type Offering } from './catalog/types.js';
import { compatibleOfferings, instanceTypeCompatible, satisfiesMinValues } from './instance-requirements.js';
import { ALLOW_UNDEFINED_WELL_KNOWN, Requirements } from './requirements.js';

export interface PoolTemplate {
  readonly name: string;
  readonly weight: number;
  /** NodePool requirements plus its template labels and karpenter.sh/nodepool. */
  readonly requirements: Requirements;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  /** Instance types compatible with the pool's requirements, with at least one usable offering. */
  readonly instanceTypes: readonly InstanceType[];
  /** Zones some of those instance types are offered in, allowed by the pool. */
  readonly zones: readonly string[];
  /** Zones that are topology domains for the pool's nodes (Karpenter's domain groups), sorted. */
  readonly domainZones: readonly string[];
  /** Requests of the DaemonSet pods that would run on every node of this pool. */
  readonly daemonOverhead: ResourceList;
  readonly daemonPods: number;
}

/** Offerings of `it` a claim with `reqs` could launch (the zone and capacity type are among the requirements). */
export function usableOfferings(it: InstanceType, reqs: Requirements): Offering[] {
  return compatibleOfferings(it, reqs);
}

/** requests + daemon overhead + pod count fit what the instance type leaves allocatable. */
export function fits(requests: ResourceList, pods: number, it: InstanceType): boolean {
  const alloc = it.allocatable;
  if (pods > (alloc.pods ?? 0)) return false;
  for (const [k, v] of Object.entries(requests)) {
    if (k === 'pods' || v === 0) continue;
    if (v > (alloc[k] ?? 0)) return false;
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
  /** Pod requests plus the pool's daemon overhead. */
  readonly requests: Record<string, number>;

  constructor(
    readonly name: string,
    readonly pool: PoolTemplate,
    public requirements: Requirements,
    public options: readonly InstanceType[],
    /** Creation order, for stable iteration. */
    readonly seq: number,
  ) {
    this.requests = { ...pool.daemonOverhead };
  }

  /** Zones the claim may still launch in: the pool's zones its requirements allow, sorted. */
  zones(): string[] {
    const zone = this.requirements.get(LABEL_ZONE);
    return this.pool.zones.filter((z) => zone.has(z));
  }

  /** Pods the node would run: planned pods and the pool's daemons. */
  get podCount(): number {
    return this.pods.length + this.pool.daemonPods;
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
    const narrowed = requirements.narrow(podReqs);
    const requests = { ...this.requests };
    addInto(requests, pod.resources.requests);
    const podCount = this.podCount + 1;
    // Every option already suits the claim's requirements (they were filtered by them), so unless the pod narrows them only the size is left to check.
    const kept = this.options.filter((it) => fits(requests, podCount, it) && (!narrowed || (instanceTypeCompatible(it, requirements) && usableOfferings(it, requirements).length > 0)));
    if (kept.length === 0) return { reason: `no instance type satisfied resources ${formatRequests(requests, podCount)} and requirements ${requirements.toString()}` };
    const minValues = satisfiesMinValues(kept, requirements);
    if (minValues.error) return { reason: minValues.error };
    // Unchanged state is handed back as the same objects, so node() knows the claim's node did not change.
    return { requirements: narrowed ? requirements : this.requirements, options: kept.length === this.options.length ? this.options : kept };
  }

  /** Whether some remaining option could still hold `pod` on top of the claim's pods (size only): canAdd refuses it otherwise, whatever the requirements. */
  hasRoomFor(pod: Pod): boolean {
    const requests = { ...this.requests };
    addInto(requests, pod.resources.requests);
    const podCount = this.podCount + 1;
    return this.options.some((it) => fits(requests, podCount, it));
  }

  add(pod: Pod, next: { requirements: Requirements; options: readonly InstanceType[] }): void {
    this.pods.push(pod);
    addInto(this.requests, pod.resources.requests);
    this.requirements = next.requirements;
    this.options = next.options;
  }

  private lastNode: { requirements: Requirements; options: readonly InstanceType[]; node: Node } | undefined;

  /** toNode(seq), the same object for as long as the requirements and options stay the same objects. */
  node(): Node {
    const last = this.lastNode;
    if (last?.requirements === this.requirements && last.options === this.options) return last.node;
    const node = this.toNode(this.seq);
    this.lastNode = { requirements: this.requirements, options: this.options, node };
    return node;
  }

  /**
   * The node the scheduling plugins see: decided labels, pool taints, the largest
   * remaining capacity. `zone` labels it as if launched there, to judge a pod in one
   * of the zones the claim may still take.
   */
  toNode(order: number, zone?: string): Node {
    const labels: Record<string, string> = { ...this.pool.labels, ...this.requirements.singleValueLabels(), [LABEL_HOSTNAME]: this.name };
    if (zone !== undefined) labels[LABEL_ZONE] = zone;
    const shared = sharedLabels(this.options);
    for (const [k, v] of Object.entries(shared)) if (!(k in labels) && this.requirements.get(k).has(v)) labels[k] = v;
    const allocatable: Record<string, number> = {};
    for (const it of this.options) for (const [k, v] of Object.entries(it.allocatable)) allocatable[k] = Math.max(allocatable[k] ?? 0, v);
    return { name: this.name, uid: this.name, labels, annotations: {}, taints: this.pool.taints, unschedulable: false, allocatable, capacity: allocatable, images: [], creation: order };
  }
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
