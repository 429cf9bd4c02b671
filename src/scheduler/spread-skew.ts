// The skew of each of a pod's topology spread constraints as the cluster stands:
// matching pods per domain over the nodes the constraint counts (PodTopologySpread's
// node inclusion policies and, for DoNotSchedule, every key of the set present),
// and max − min, the minimum read as 0 while fewer domains than minDomains exist.
// For views (the playground's skew panel); the plugin itself decides placement.

import type { ClusterState } from '../cluster/state.js';
import type { Pod } from '../model/pod.js';
import type { WhenUnsatisfiable } from './plugins/pod-topology-spread/args.js';
import { constraintsFor, hasAllTopologyKeys, nodeIncluded, type SpreadConstraint } from './plugins/pod-topology-spread/constraints.js';
import { matchQuery, nodeMatchCount } from './plugins/pod-topology-spread/match-counts.js';

export interface SpreadSkew {
  readonly topologyKey: string;
  readonly whenUnsatisfiable: WhenUnsatisfiable;
  readonly maxSkew: number;
  readonly minDomains: number;
  /** Each counted domain with its matching pods, in domain order. */
  readonly domains: readonly { readonly domain: string; readonly pods: number }[];
  readonly skew: number;
}

function skewOf(cluster: ClusterState, pod: Pod, c: SpreadConstraint, set: readonly SpreadConstraint[], action: WhenUnsatisfiable): SpreadSkew {
  const counts = new Map<string, number>();
  const query = matchQuery(c.selector, pod.namespace);
  for (const info of cluster.nodeInfos()) {
    const labels = info.node.labels;
    const domain = labels[c.topologyKey];
    if (domain === undefined || (action === 'DoNotSchedule' && !hasAllTopologyKeys(labels, set)) || !nodeIncluded(c, pod, info.node)) continue;
    counts.set(domain, (counts.get(domain) ?? 0) + nodeMatchCount(info, query));
  }
  const domains = [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([domain, pods]) => ({ domain, pods }));
  const values = domains.map((d) => d.pods);
  const min = action === 'DoNotSchedule' && domains.length < c.minDomains ? 0 : Math.min(...values);
  return { topologyKey: c.topologyKey, whenUnsatisfiable: action, maxSkew: c.maxSkew, minDomains: c.minDomains, domains, skew: domains.length === 0 ? 0 : Math.max(...values) - min };
}

/** The skew of each of the pod's own constraints (DoNotSchedule first, then ScheduleAnyway, each in spec order). */
export function spreadSkews(cluster: ClusterState, pod: Pod): SpreadSkew[] {
  return (['DoNotSchedule', 'ScheduleAnyway'] as const).flatMap((action) => {
    const set = pod.topologySpreadConstraints.length > 0 ? constraintsFor(pod, action, [], cluster) : [];
    return set.map((c) => skewOf(cluster, pod, c, set, action));
  });
}
