// Which planned pods Karpenter's topology spread counts see. Karpenter keeps one
// topology group per spread constraint and node filter (the pod's node selector,
// remaining required node affinity terms and tolerations), created with counts of the
// pods bound in the cluster only, and then records each pod it plans. Groups for the
// pending pods as written exist from the start, so they see every planned pod. A
// relaxation that changes the node filter (dropping a required node affinity term,
// tolerating PreferNoSchedule taints) makes a new group when none has that filter yet:
// it misses the pods planned before it, and may put a pod in a domain its siblings
// already fill. This replays that: the pods planned before the attempt's group was
// created are taken out of its spread counts.

import type { ClusterState } from '../cluster/state.js';
import { LABEL_HOSTNAME } from '../model/node.js';
import type { Pod } from '../model/pod.js';
import { selectorKey, type NodeSelectorTermSpec } from '../model/selector.js';
import type { Toleration } from '../model/taints.js';
import type { CycleState } from '../scheduler/framework.js';
import { PRE_FILTER_STATE_KEY, updateWithPod, type PreFilterState } from '../scheduler/plugins/pod-topology-spread/filtering.js';
import { countMatchingPods, hasAllTopologyKeys, nodeIncluded, type SpreadConstraint } from '../scheduler/plugins/pod-topology-spread/constraints.js';
import { matchQuery, nodeMatchCount } from '../scheduler/plugins/pod-topology-spread/match-counts.js';
import { CriticalPaths } from '../scheduler/plugins/pod-topology-spread/critical-paths.js';
import { doNotScheduleTaints, findUntoleratedTaint } from '../model/taints.js';
import { nodeAffinityRequirements } from './pod-requirements.js';
import { ALLOW_UNDEFINED_WELL_KNOWN, type Requirements } from './requirements.js';

function sortedJson(xs: readonly unknown[]): string {
  return JSON.stringify(xs.map((x) => JSON.stringify(x)).sort());
}

/** The node filter of a pod as attempted (Karpenter hashes its slices as sets). */
function filterKey(pod: Pod, requiredTerms: readonly NodeSelectorTermSpec[], tolerations: readonly Toleration[]): string {
  const selector = Object.entries(pod.nodeSelector).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${JSON.stringify(selector)}\x01${sortedJson(requiredTerms)}\x01${sortedJson(tolerations.map((t) => [t.key, t.operator, t.value, t.effect]))}`;
}

function groupKey(namespace: string, c: Pick<SpreadConstraint, 'topologyKey' | 'maxSkew' | 'selector'> & { honorAffinity: boolean; honorTaints: boolean }, filter: string): string {
  return [namespace, c.topologyKey, c.maxSkew, selectorKey(c.selector), c.honorAffinity, c.honorTaints, filter].join('\x02');
}

export class SpreadGroups {
  /** Group key → how many pods had been planned when Karpenter would have created it. */
  private readonly created = new Map<string, number>();
  /** Pods planned onto new claims, in order. */
  private readonly planned: Pod[] = [];

  /** The groups of the pending pods as written exist before anything is planned. */
  constructor(pending: readonly Pod[]) {
    for (const p of pending) {
      const filter = filterKey(p, p.requiredNodeAffinity?.terms ?? [], p.tolerations);
      for (const c of p.topologySpreadConstraints) {
        const key = groupKey(p.namespace, { ...c, honorAffinity: c.nodeAffinityPolicy === 'Honor', honorTaints: c.nodeTaintsPolicy === 'Honor' }, filter);
        this.created.set(key, 0);
      }
    }
  }

  /** A pod was planned (bound to a claim's node in the cluster). */
  record(pod: Pod): void {
    this.planned.push(pod);
  }

  /**
   * After PreFilter for `pod` attempted with these required terms: creates the groups its
   * constraints fall in, and takes the pods planned before a group's creation out of
   * that constraint's counts. Returns, per constraint, the pods its group does not see.
   */
  adjust(state: CycleState, pod: Pod, requiredTerms: readonly NodeSelectorTermSpec[], cluster: ClusterState): ReadonlySet<string>[] {
    const s = state.tryRead<PreFilterState>(PRE_FILTER_STATE_KEY);
    if (s === undefined || s.constraints.length === 0) return [];
    const filter = filterKey(pod, requiredTerms, pod.tolerations);
    return s.constraints.map((c, i) => {
      const key = groupKey(pod.namespace, { ...c, honorAffinity: c.honorNodeAffinity, honorTaints: c.honorNodeTaints }, filter);
      let since = this.created.get(key);
      if (since === undefined) this.created.set(key, (since = this.planned.length));
      const unseen = this.planned.slice(0, since);
      for (const earlier of unseen) {
        const node = cluster.nodeInfo(earlier.nodeName)?.node;
        if (node) updateWithPod(s, earlier, pod, node, -1, i);
      }
      return new Set(unseen.map((p) => p.key));
    });
  }
}

/**
 * Takes out of the spread counts the domains (hostname aside) that only claims with no
 * Node yet carry: Karpenter's topology takes its domains from NodePools and Nodes, so such
 * a zone is no domain and does not hold the global minimum down. `unknownWhenEmpty`'s
 * values go only when no counted pod is there: a disruption candidate's domain exists for
 * Karpenter only through the pods it keeps.
 */
export function forgetDomains(state: CycleState, unknown: (key: string) => ReadonlySet<string>, unknownWhenEmpty: (key: string) => ReadonlySet<string> = () => new Set()): void {
  const s = state.tryRead<PreFilterState>(PRE_FILTER_STATE_KEY);
  s?.constraints.forEach((c, i) => {
    if (c.topologyKey === LABEL_HOSTNAME) return;
    const counts = s.tpValueToMatchNum[i]!;
    const gone = new Set([...unknown(c.topologyKey), ...[...unknownWhenEmpty(c.topologyKey)].filter((v) => counts.get(v) === 0)]);
    if (![...gone].some((v) => counts.has(v))) return;
    for (const v of gone) counts.delete(v);
    const paths = CriticalPaths.empty();
    for (const [v, n] of counts) paths.update(v, n);
    s.criticalPaths[i] = paths;
  });
}

/** A hostname domain no node has: the new claim Karpenter can always create. */
const NEW_CLAIM_HOSTNAME = '\x00new-claim';

/**
 * Karpenter judges hostname spread with a global minimum of 0, as it can always create
 * a new claim: an empty domain joins each hostname constraint's counts, even when the
 * pod's node affinity leaves no empty node (template) counted.
 */
export function newClaimsAreEmptyHostnames(state: CycleState): void {
  const s = state.tryRead<PreFilterState>(PRE_FILTER_STATE_KEY);
  s?.constraints.forEach((c, i) => {
    if (c.topologyKey !== LABEL_HOSTNAME) return;
    s.tpValueToMatchNum[i]!.set(NEW_CLAIM_HOSTNAME, 0);
    s.criticalPaths[i]!.update(NEW_CLAIM_HOSTNAME, 0);
  });
}

/** What the spread counts need of a planned claim: its node's name and its requirements. */
export interface CountedClaim {
  readonly name: string;
  readonly requirements: Requirements;
}

/**
 * Karpenter counts a planned claim's pods in a spread domain when the claim's
 * requirements are compatible with the pod's node filter (its node selector and each
 * required node affinity term), and per constraint; kube-scheduler's inclusion reads the
 * node's labels, and a claim lacks those it has not decided (or another constraint's
 * key). Adds the pods of the claims the label check left out and Karpenter's keeps,
 * but not those planned before the constraint's group existed (`unseen`, from adjust).
 */
export function countOpenClaims(state: CycleState, pod: Pod, requiredTerms: readonly NodeSelectorTermSpec[], claims: readonly CountedClaim[], cluster: ClusterState, unseen: readonly ReadonlySet<string>[]): void {
  const s = state.tryRead<PreFilterState>(PRE_FILTER_STATE_KEY);
  if (s === undefined || s.constraints.length === 0 || claims.length === 0) return;
  const terms = requiredTerms.length === 0 ? [undefined] : requiredTerms;
  const filters = terms.map((t) => nodeAffinityRequirements(pod.nodeSelector, t ? [t] : []));
  for (const claim of claims) {
    const info = cluster.nodeInfo(claim.name);
    if (info === undefined || info.pods.length === 0) continue;
    const node = info.node;
    const compatible = filters.some((f) => claim.requirements.isCompatible(f, ALLOW_UNDEFINED_WELL_KNOWN));
    s.constraints.forEach((c, i) => {
      const value = node.labels[c.topologyKey];
      if (value === undefined || (hasAllTopologyKeys(node.labels, s.constraints) && nodeIncluded(c, pod, node))) return;
      if (c.honorNodeAffinity && !compatible) return;
      if (c.honorNodeTaints && findUntoleratedTaint(node.taints, pod.tolerations, doNotScheduleTaints) !== undefined) return;
      const hidden = unseen[i];
      const n = hidden && hidden.size > 0 ? countMatchingPods(info.pods.filter((p) => !hidden.has(p.key)), c.selector, pod.namespace) : nodeMatchCount(info, matchQuery(c.selector, pod.namespace));
      if (n === 0) return;
      const m = s.tpValueToMatchNum[i]!;
      const num = (m.get(value) ?? 0) + n;
      m.set(value, num);
      s.criticalPaths[i]!.update(value, num);
    });
  }
}
