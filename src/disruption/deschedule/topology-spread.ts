// RemovePodsViolatingTopologySpreadConstraint, as upstream balances domains: per
// namespace, every distinct constraint of the kinds asked for (DoNotSchedule by
// default) found on its evictable pods is checked over the domains of its key
// (nodes passing its inclusion policies); when the largest and smallest domain
// differ by more than maxSkew, pods are taken from the largest domains towards
// the ideal average, half the excess skew at a time, the last pods of a domain
// first (pods with a node selector or affinity kept longest), and, with
// topologyBalanceNodeFit (on by default), only pods that fit a node of a domain
// below the average. Counts are of the pods the evictor lets through, as upstream.
// With predictPlacement berth moves a pod only into a domain that then holds
// no more than the one it left.

import type { NodeInfo } from '../../cluster/node-info.js';
import type { ClusterState } from '../../cluster/state.js';
import type { Pod, TopologySpreadConstraint } from '../../model/pod.js';
import { matchesRequiredNodeAffinity } from '../../model/pod.js';
import { doNotScheduleTaints, findUntoleratedTaint } from '../../model/taints.js';
import { fitsAnyNode } from './node-fit.js';
import type { EvictionPlanner } from './planner.js';
import type { StrategyArgs } from '../../model/descheduler-policy.js';

const NAME = 'RemovePodsViolatingTopologySpreadConstraint';

interface Constraint {
  readonly c: TopologySpreadConstraint;
  /** The pod the constraint was read from: its node affinity and tolerations drive the inclusion policies. */
  readonly owner: Pod;
  readonly id: string;
}

function identity(c: TopologySpreadConstraint, pod: Pod): string {
  return JSON.stringify([
    c.maxSkew,
    c.topologyKey,
    c.selector.nothing,
    c.selector.requirements,
    c.nodeAffinityPolicy,
    c.nodeTaintsPolicy,
    c.nodeAffinityPolicy === 'Honor' ? [pod.nodeSelector, pod.requiredNodeAffinity?.terms ?? null] : null,
    c.nodeTaintsPolicy === 'Honor' ? pod.tolerations : null,
  ]);
}

function included(k: Constraint, info: NodeInfo): boolean {
  if (k.c.nodeAffinityPolicy === 'Honor' && !matchesRequiredNodeAffinity(k.owner, info.node)) return false;
  if (k.c.nodeTaintsPolicy === 'Honor' && findUntoleratedTaint(info.node.taints, k.owner.tolerations, doNotScheduleTaints) !== undefined) return false;
  return true;
}

const hasSelectorOrAffinity = (p: Pod) => Object.keys(p.nodeSelector).length > 0 || p.requiredNodeAffinity !== null || p.preferredNodeAffinity.length > 0;

interface Domain {
  readonly value: string;
  pods: Pod[];
}

export function removePodsViolatingTopologySpreadConstraint(planner: EvictionPlanner, args: StrategyArgs['RemovePodsViolatingTopologySpreadConstraint']): void {
  const { cluster } = planner;
  const nodes = planner.nodes();
  const byName = new Map(nodes.map((i) => [i.node.name, i]));
  const pods = nodes.flatMap((i) => planner.candidates(planner.podsOn(i), args.namespaces, args.labelSelector));
  const chosen: { pod: Pod; reason: string; k: Constraint }[] = [];
  const picked = new Set<string>();
  for (const ns of [...new Set(pods.map((p) => p.namespace))].sort()) {
    const inNs = pods.filter((p) => p.namespace === ns);
    const constraints: Constraint[] = [];
    for (const pod of inNs) {
      for (const c of pod.topologySpreadConstraints) {
        if (!args.constraints.includes(c.whenUnsatisfiable)) continue;
        const id = identity(c, pod);
        if (!constraints.some((k) => k.id === id)) constraints.push({ c, owner: pod, id });
      }
    }
    for (const k of constraints) {
      const key = k.c.topologyKey;
      const domains = new Map<string, Domain>();
      for (const info of nodes) {
        const v = info.node.labels[key];
        if (v !== undefined && included(k, info) && !domains.has(v)) domains.set(v, { value: v, pods: [] });
      }
      let sum = 0;
      for (const pod of inNs) {
        if (pod.terminating || !k.c.selector.matches(pod.labels)) continue;
        const v = byName.get(pod.nodeName)?.node.labels[key];
        if (v === undefined) continue;
        const d = domains.get(v) ?? { value: v, pods: [] };
        d.pods.push(pod);
        domains.set(v, d);
        sum++;
      }
      const counts = [...domains.values()].map((d) => d.pods.length);
      if (counts.length === 0 || Math.max(...counts) - Math.min(...counts) <= k.c.maxSkew) continue;
      for (const pod of balance(cluster, nodes, k, [...domains.values()], sum, args.topologyBalanceNodeFit ?? true)) {
        if (picked.has(pod.key)) continue;
        picked.add(pod.key);
        chosen.push({ pod, k, reason: `${k.c.whenUnsatisfiable} topology spread on ${key} (maxSkew ${k.c.maxSkew}): domains hold ${describe(domains)}` });
      }
    }
  }
  for (const { pod, k, reason } of chosen) {
    if (!planner.stillOn(pod, pod.nodeName) || !planner.evictable(pod) || !planner.preEvictable(pod)) continue;
    const key = k.c.topologyKey;
    const own = cluster.nodeInfo(pod.nodeName)!.node.labels[key]!;
    planner.tryMove(pod, NAME, reason, (dest) => {
      const target = dest.node.labels[key];
      if (target === undefined) return `it has no ${key} label`;
      const there = domainCount(cluster, k, target);
      const left = domainCount(cluster, k, own);
      return there + 1 <= left ? undefined : `domain ${target} would hold ${there + 1} while ${own} keeps ${left}`;
    });
  }
}

function describe(domains: ReadonlyMap<string, Domain>): string {
  return [...domains.values()].sort((a, b) => (a.value < b.value ? -1 : 1)).map((d) => `${d.value}=${d.pods.length}`).join(' ');
}

/** Upstream's balanceDomains: the pods to evict so the domains move towards the ideal average. */
function balance(cluster: ClusterState, nodes: readonly NodeInfo[], k: Constraint, domains: Domain[], sum: number, nodeFit: boolean): Pod[] {
  const ideal = sum / domains.length;
  for (const d of domains) {
    // Eviction takes pods off the end: pods with a node selector or affinity go to the front, then by priority.
    d.pods.sort((a, b) => Number(hasSelectorOrAffinity(b)) - Number(hasSelectorOrAffinity(a)) || a.priority - b.priority);
  }
  domains.sort((a, b) => a.pods.length - b.pods.length || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  const eligible = nodes.filter((i) => included(k, i));
  const below = new Set(domains.filter((d) => d.pods.length < ideal).map((d) => d.value));
  const belowNodes = eligible.filter((i) => below.has(i.node.labels[k.c.topologyKey] ?? '\0'));
  const fits = (p: Pod) => fitsAnyNode(cluster, p, belowNodes, true);
  const out: Pod[] = [];
  let i = 0;
  let j = domains.length - 1;
  while (i < j) {
    if (domains[j]!.pods.length <= ideal) j--;
    const hi = domains[j]!;
    const lo = domains[i]!;
    const skew = hi.pods.length - lo.pods.length;
    if (skew <= k.c.maxSkew) {
      i++;
      continue;
    }
    const move = Math.min(Math.ceil(hi.pods.length - ideal), Math.ceil(ideal - lo.pods.length), Math.ceil((skew - k.c.maxSkew) / 2));
    if (move <= 0) {
      i++;
      continue;
    }
    // Pods that fit elsewhere go to the back, where eviction takes them from (a stable sort).
    const fitting = new Map(hi.pods.map((p) => [p.key, fits(p)]));
    hi.pods = [...hi.pods.filter((p) => !fitting.get(p.key)), ...hi.pods.filter((p) => fitting.get(p.key))];
    const taken = hi.pods.slice(hi.pods.length - move);
    for (const p of taken) if (!nodeFit || fitting.get(p.key)) out.push(p);
    hi.pods = hi.pods.slice(0, hi.pods.length - move);
    lo.pods = [...lo.pods, ...taken];
  }
  return out;
}

/** Matching, non-terminating pods of the constraint's namespace in one domain (predictPlacement's check). */
function domainCount(cluster: ClusterState, k: Constraint, value: string): number {
  let n = 0;
  for (const info of cluster.nodeInfos()) {
    if (info.node.labels[k.c.topologyKey] !== value || !included(k, info)) continue;
    n += info.pods.filter((p) => !p.terminating && p.namespace === k.owner.namespace && k.c.selector.matches(p.labels)).length;
  }
  return n;
}
