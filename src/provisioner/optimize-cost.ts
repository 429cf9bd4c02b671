// `--optimize cost` (berth's own, off by default): after the Karpenter-faithful plan,
// the pods it put on new claims are packed again for price (cost-packing.ts) and the
// result is kept only when it is cheaper and checkLaunchedPlan finds no violation.
//
// What may move, so that every constraint the faithful plan met still holds:
// - a claim stays as planned when one of its pods has preferences (Karpenter honoured
//   them), pod affinity, host ports, persistent volumes, a spread or anti-affinity term
//   on a key other than zone and hostname, or is selected by such a term, by a hostname
//   spread or by a hostname affinity; also when its NodePool has limits or minValues;
// - a pod some zone-keyed term names or selects keeps the zone it had;
// - pods of required hostname anti-affinity never share a node with a pod their terms select;
// - every pod runs on an offering its requirements and its pool's taints allow.
// The launched plan is then judged by kube-scheduler's filters and Karpenter's checks;
// any violation sends back the faithful plan.

import type { ClusterState } from '../cluster/state.js';
import { LABEL_HOSTNAME, type Node } from '../model/node.js';
import { bindPod, type Pod, type PodAffinityTerm } from '../model/pod.js';
import { selectorKey, type Selector } from '../model/selector.js';
import { tolerationsTolerateTaint } from '../model/taints.js';
import type { Framework } from '../scheduler/framework.js';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE, type CapacityType, type InstanceType, type Offering } from './catalog/types.js';
import { compatibleOfferings } from './instance-requirements.js';
import { offeringNodeLabels } from './launched-node.js';
import { packGroups, type PackGroup, type PackOffer } from './cost-packing.js';
import type { PlannedClaim, PoolTemplate } from './nodeclaim.js';
import { checkLaunchedPlan, claimNode, type LaunchedClaim, type PlanViolation } from './plan-check.js';
import { podRequirements } from './pod-requirements.js';
import { ALLOW_UNDEFINED_WELL_KNOWN, Requirement, Requirements } from './requirements.js';

/** A claim of the faithful plan as it launches. */
export interface FaithfulClaim {
  readonly claim: PlannedClaim;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly price: number;
}

export interface OptimizedClaim extends LaunchedClaim {
  /** Kept as the faithful plan made it. */
  readonly faithful: boolean;
  readonly price: number;
  readonly pods: readonly Pod[];
}

export interface CostOptimization {
  /** The claims to launch: the faithful ones kept as planned, then the repacked ones. */
  readonly claims: readonly OptimizedClaim[];
  /** Repacked: false when the faithful plan was as cheap, or the repacked one had violations (then listed). */
  readonly repacked: boolean;
  readonly violations: readonly PlanViolation[];
}

interface Term {
  readonly key: string;
  readonly selector: Selector;
  readonly namespaces: ReadonlySet<string>;
  readonly anyNamespace: boolean;
  /** Required hostname anti-affinity: the one hostname term packing honours itself. */
  readonly hostnameAnti: boolean;
}

function affinityTerm(owner: Pod, t: PodAffinityTerm, hostnameAnti: boolean): Term {
  return { key: t.topologyKey, selector: t.selector, namespaces: t.namespaces.size > 0 ? t.namespaces : new Set([owner.namespace]), anyNamespace: !t.namespaceSelector.nothing, hostnameAnti };
}

function termsOf(pod: Pod): Term[] {
  return [
    ...pod.topologySpreadConstraints.map((c) => ({ key: c.topologyKey, selector: c.selector, namespaces: new Set([pod.namespace]), anyNamespace: false, hostnameAnti: false })),
    ...pod.requiredAffinity.map((t) => affinityTerm(pod, t, false)),
    ...pod.preferredAffinity.map((t) => affinityTerm(pod, t.term, false)),
    ...pod.requiredAntiAffinity.map((t) => affinityTerm(pod, t, t.topologyKey === LABEL_HOSTNAME)),
    ...pod.preferredAntiAffinity.map((t) => affinityTerm(pod, t.term, false)),
  ];
}

/** The cluster's terms, each distinct one once (pods of a workload repeat theirs). */
function distinctTerms(pods: Iterable<Pod>): Term[] {
  const byKey = new Map<string, Term>();
  for (const pod of pods) {
    for (const t of termsOf(pod)) {
      const key = JSON.stringify([t.key, selectorKey(t.selector), [...t.namespaces].sort(), t.anyNamespace, t.hostnameAnti]);
      if (!byKey.has(key)) byKey.set(key, t);
    }
  }
  return [...byKey.values()];
}

const selects = (t: Term, pod: Pod): boolean => (t.anyNamespace || t.namespaces.has(pod.namespace)) && t.selector.matches(pod.labels);

/** How a pod may move: not at all, within its zone, or anywhere its requirements allow. */
function mobility(pod: Pod, terms: readonly Term[]): 'frozen' | 'zone' | 'free' {
  if (pod.preferredNodeAffinity.length > 0 || pod.preferredAffinity.length > 0 || pod.preferredAntiAffinity.length > 0 || pod.requiredAffinity.length > 0) return 'frozen';
  if (pod.hostPorts.length > 0 || pod.persistentVolumeClaims === true) return 'frozen';
  let zone = false;
  const judge = (t: Term): boolean => {
    if (t.key === LABEL_ZONE) zone = true;
    return t.key !== LABEL_ZONE && !(t.key === LABEL_HOSTNAME && t.hostnameAnti);
  };
  if (termsOf(pod).some(judge)) return 'frozen';
  for (const t of terms) if (selects(t, pod) && judge(t)) return 'frozen';
  return zone ? 'zone' : 'free';
}

/** A NodePool the repacking may launch from: no limits to spend, no minValues a single type would break. */
function repackable(pool: PoolTemplate, limited: ReadonlySet<string>): boolean {
  return !limited.has(pool.name) && !pool.requirements.values().some((r) => r.minValues !== undefined);
}

export interface Offer extends PackOffer {
  readonly pool: PoolTemplate;
  readonly it: InstanceType;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly reqs: Requirements;
}

/** Per pool, type and zone the cheapest available offering the pool allows. */
export function offersOf(pools: readonly PoolTemplate[], dims: readonly string[]): Offer[] {
  const out: Offer[] = [];
  for (const pool of pools) {
    for (const it of pool.instanceTypes) {
      const byZone = new Map<string, Offering>();
      for (const o of compatibleOfferings(it, pool.requirements)) {
        const had = byZone.get(o.zone);
        if (!had || o.price < had.price) byZone.set(o.zone, o);
      }
      for (const o of [...byZone.values()].sort((a, b) => (a.zone < b.zone ? -1 : 1))) {
        const labels = offeringNodeLabels({ ...pool.requirements.singleValueLabels(), ...pool.labels }, pool.name, it, o, 'offer');
        const reqs = Requirements.fromLabels(labels);
        reqs.delete(LABEL_HOSTNAME);
        out.push({ pool, it, zone: o.zone, capacityType: o.capacityType, price: o.price, reqs, alloc: dims.map((d) => it.allocatable[d] ?? 0) });
      }
    }
  }
  return out;
}

/** Offers no other offer beats: another with every group's consent, as much of each resource, and no higher price. */
export function undominated(offers: readonly Offer[], compat: readonly Set<number>[]): number[] {
  const signature = offers.map((_, o) => compat.map((s) => (s.has(o) ? '1' : '0')).join(''));
  const bySig = new Map<string, number[]>();
  offers.forEach((_, o) => {
    if (!signature[o]!.includes('1')) return;
    const list = bySig.get(signature[o]!) ?? [];
    list.push(o);
    bySig.set(signature[o]!, list);
  });
  const kept: number[] = [];
  for (const list of bySig.values()) {
    for (const o of list) {
      const a = offers[o]!;
      const beaten = list.some((p) => {
        if (p === o) return false;
        const b = offers[p]!;
        const noWorse = b.price <= a.price && b.alloc.every((v, i) => v >= a.alloc[i]!);
        const better = b.price < a.price || b.alloc.some((v, i) => v > a.alloc[i]!) || p < o;
        return noWorse && better;
      });
      if (!beaten) kept.push(o);
    }
  }
  return kept.sort((x, y) => x - y);
}

/** Per pod, the offers its requirements and tolerations allow (cached by both). */
export function offerChecker(offers: readonly Offer[]): (pod: Pod, reqs: Requirements) => ReadonlySet<number> {
  const cache = new Map<string, Set<number>>();
  return (pod, reqs) => {
    const key = JSON.stringify([reqs.toString(), pod.tolerations]);
    let allowed = cache.get(key);
    if (allowed === undefined) {
      allowed = new Set(offers.flatMap((o, i) => (o.pool.taints.every((t) => tolerationsTolerateTaint(pod.tolerations, t)) && o.reqs.isCompatible(reqs, ALLOW_UNDEFINED_WELL_KNOWN) ? [i] : [])));
      cache.set(key, allowed);
    }
    return allowed;
  };
}

/** Whether the pod's own required hostname anti-affinity selects itself: one such pod per node. */
export function selfConflicting(pod: Pod): boolean {
  return pod.requiredAntiAffinity.some((t) => t.topologyKey === LABEL_HOSTNAME && selects(affinityTerm(pod, t, true), pod));
}

export interface OptimizeInput {
  readonly cluster: ClusterState;
  /** The filter plugins a launched claim is judged by. */
  readonly framework: Framework;
  readonly claims: readonly FaithfulClaim[];
  readonly pools: readonly PoolTemplate[];
  /** NodePools with spec.limits. */
  readonly limited: ReadonlySet<string>;
  /** Names claims may not take (existing nodes); new claims are numbered past the faithful ones. */
  readonly firstFreeNumber: number;
}

export function optimizeCost(input: OptimizeInput): CostOptimization {
  const { cluster } = input;
  const terms = distinctTerms(cluster.pods());
  const kept: FaithfulClaim[] = [];
  const moving: { pod: Pod; zone?: string }[] = [];
  for (const fc of input.claims) {
    const modes = fc.claim.pods.map((p) => mobility(p, terms));
    if (modes.includes('frozen') || !repackable(fc.claim.pool, input.limited)) kept.push(fc);
    else fc.claim.pods.forEach((pod, i) => moving.push(modes[i] === 'zone' ? { pod, zone: fc.zone } : { pod }));
  }
  const launchedKept = kept.map((fc, i) => launchedFaithful(fc, i));
  const faithfulCost = input.claims.reduce((s, c) => s + c.price, 0);
  if (moving.length === 0) return { claims: launchedKept, repacked: false, violations: [] };

  const dims = [...new Set(['cpu', 'memory', 'pods', ...moving.flatMap((m) => Object.keys(m.pod.resources.requests))])].filter((d) => d !== 'pods').concat('pods');
  const pools = input.pools.filter((p) => repackable(p, input.limited));
  const allOffers = offersOf(pools, dims);
  const antiTerms = terms.filter((t) => t.hostnameAnti);
  // Identical pods (requests, requirements, tolerations, zone, and labels where a hostname anti-affinity term may read them) form one group.
  const groupIndex = new Map<string, number>();
  const members: { pods: Pod[]; req: number[]; reqs: Requirements; zone?: string; sample: Pod }[] = [];
  for (const m of moving) {
    const reqs = podRequirements(m.pod);
    const anti = m.pod.requiredAntiAffinity.some((t) => t.topologyKey === LABEL_HOSTNAME) || antiTerms.some((t) => selects(t, m.pod));
    const req = dims.map((d) => (d === 'pods' ? 1 : (m.pod.resources.requests[d] ?? 0)));
    const key = JSON.stringify([req, reqs.toString(), m.pod.tolerations, m.zone ?? '', anti ? [m.pod.namespace, m.pod.labels, m.pod.requiredAntiAffinity.map((t) => [t.topologyKey, selectorKey(t.selector), [...t.namespaces].sort(), selectorKey(t.namespaceSelector)])] : '']);
    let g = groupIndex.get(key);
    if (g === undefined) {
      groupIndex.set(key, (g = members.length));
      members.push({ pods: [], req, reqs, ...(m.zone ? { zone: m.zone } : {}), sample: m.pod });
    }
    members[g]!.pods.push(m.pod);
  }
  const allowedFor = offerChecker(allOffers);
  const compat = members.map((g) => new Set([...allowedFor(g.sample, g.reqs)].filter((o) => (g.zone === undefined || allOffers[o]!.zone === g.zone) && g.req.every((r, i) => r <= allOffers[o]!.alloc[i]!))));
  const keptOffers = undominated(allOffers, compat);
  const position = new Map(keptOffers.map((o, i) => [o, i]));
  const offers = keptOffers.map((o) => allOffers[o]!);
  const groups: PackGroup[] = members.map((g, gi) => ({
    count: g.pods.length,
    req: g.req,
    offers: new Set([...compat[gi]!].flatMap((o) => (position.has(o) ? [position.get(o)!] : []))),
    selfConflict: selfConflicting(g.sample),
    conflicts: new Set(members.flatMap((h, hi) => (hi !== gi && conflict(g.sample, h.sample) ? [hi] : []))),
  }));
  if (groups.some((g) => g.offers.size === 0)) return { claims: launchedKept, repacked: false, violations: [] };
  const packed = packGroups(offers, groups);

  const taken = new Set(kept.map((k) => k.claim.name));
  let number = input.firstFreeNumber;
  const cursor = members.map(() => 0);
  const repacked: OptimizedClaim[] = packed.map((n, i) => {
    const offer = offers[n.offer]!;
    let name: string;
    do name = `${offer.pool.name}-${String(number++).padStart(4, '0')}`;
    while (taken.has(name) || cluster.nodeInfo(name) !== undefined);
    const pods = [...n.groups].flatMap(([g, k]) => members[g]!.pods.slice(cursor[g]!, (cursor[g]! += k)));
    return { name, pool: offer.pool, instanceType: offer.it, zone: offer.zone, capacityType: offer.capacityType, creation: launchedKept.length + i, faithful: false, price: offer.price, pods };
  });
  const cost = [...launchedKept, ...repacked].reduce((s, c) => s + c.price, 0);
  if (cost >= faithfulCost - 1e-9) return { claims: launchedKept, repacked: false, violations: [] };

  // In the cluster's order (zones interleaved, each zone's nodes as added): re-added in it, they keep it.
  const claimNames = new Set(input.claims.map((c) => c.claim.name));
  const faithfulNodes = cluster.nodeInfos().filter((n) => claimNames.has(n.node.name)).map((n) => ({ node: n.node, pods: [...n.pods] }));
  for (const c of input.claims) if (!kept.includes(c)) detach(cluster, c.claim.name);
  for (const c of repacked) {
    cluster.addNode(claimNode(c));
    for (const pod of c.pods) cluster.addPod(bindPod(pod, c.name));
  }
  const violations = checkLaunchedPlan(cluster, input.framework, [...launchedKept, ...repacked]);
  if (violations.length === 0) return { claims: [...launchedKept, ...repacked.map((c) => ({ ...c, pods: c.pods.map((p) => bindPod(p, c.name)) }))], repacked: true, violations };
  // Back to the faithful claims as planned (checkLaunchedPlan relabelled the kept ones), in their order: the
  // next batch's kube-scheduler walks the nodes in order.
  for (const c of repacked) detach(cluster, c.name);
  for (const c of kept) detach(cluster, c.claim.name);
  for (const f of faithfulNodes) restore(cluster, f.node, f.pods);
  return { claims: launchedKept, repacked: false, violations };
}

function launchedFaithful(fc: FaithfulClaim, creation: number): OptimizedClaim {
  const it = fc.claim.pool.instanceTypes.find((t) => t.name === fc.instanceType)!;
  return { name: fc.claim.name, pool: fc.claim.pool, instanceType: it, zone: fc.zone, capacityType: fc.capacityType, creation, faithful: true, price: fc.price, pods: fc.claim.pods };
}

/** Whether a required hostname anti-affinity term of either pod selects the other. */
function conflict(a: Pod, b: Pod): boolean {
  const against = (x: Pod, y: Pod) => x.requiredAntiAffinity.some((t) => t.topologyKey === LABEL_HOSTNAME && selects(affinityTerm(x, t, true), y));
  return against(a, b) || against(b, a);
}

function detach(cluster: ClusterState, node: string): Pod[] {
  const pods = cluster.removeNode(node);
  for (const p of pods) cluster.removePod(p.key);
  return pods;
}

function restore(cluster: ClusterState, node: Node, pods: readonly Pod[]): void {
  cluster.addNode(node);
  for (const p of pods) cluster.addPod(p);
}

/** The requirements a repacked claim is created with: its pool's, narrowed to its one type, zone and capacity type. */
export function repackedRequirements(c: LaunchedClaim): Requirements {
  const reqs = c.pool.requirements.clone();
  reqs.add(Requirement.of(LABEL_INSTANCE_TYPE, 'In', [c.instanceType.name]));
  reqs.add(Requirement.of(LABEL_ZONE, 'In', [c.zone]));
  reqs.add(Requirement.of(LABEL_CAPACITY_TYPE, 'In', [c.capacityType]));
  return reqs;
}
