// RemovePodsViolatingInterPodAntiAffinity: a pod whose required anti-affinity
// term matches another pod in the same topology domain (the rule was added, or
// labels changed, after both were placed). As upstream, only evictable pods are
// looked at, each node's pods lowest priority first, the pod holding the term is
// the one evicted, and an evicted pod no longer counts against the others.
// With predictPlacement berth never evicts a pod to make room for a
// lower-priority one: when the pod it repels has lower priority, that pod is the
// one moved (or, when it may not be evicted, both stay).

import type { ClusterState } from '../../cluster/state.js';
import type { Pod } from '../../model/pod.js';
import { mergeTermNamespaces } from '../../scheduler/plugins/inter-pod-affinity/terms.js';
import type { EvictionPlanner } from './planner.js';
import { inNamespaces, type StrategyArgs } from '../../model/descheduler-policy.js';

const NAME = 'RemovePodsViolatingInterPodAntiAffinity';

export interface AntiAffinityConflict {
  readonly other: Pod;
  readonly topologyKey: string;
}

/** The first pod among `others` that `pod` on `nodeName` repels through a required anti-affinity term (upstream's reading: the term's namespaces, or the pod's own; no namespaceSelector). */
function upstreamConflict(cluster: ClusterState, pod: Pod, nodeName: string, others: readonly Pod[]): AntiAffinityConflict | undefined {
  const node = cluster.nodeInfo(nodeName)?.node;
  if (!node) return undefined;
  for (const term of pod.requiredAntiAffinity) {
    const namespaces = term.namespaces.size > 0 ? term.namespaces : new Set([pod.namespace]);
    for (const other of others) {
      if (other.name === pod.name || !namespaces.has(other.namespace) || !term.selector.matches(other.labels)) continue;
      const there = cluster.nodeInfo(other.nodeName)?.node;
      if (!there) continue;
      const same = there.name === node.name || (node.labels[term.topologyKey] !== undefined && node.labels[term.topologyKey] === there.labels[term.topologyKey]);
      if (same) return { other, topologyKey: term.topologyKey };
    }
  }
  return undefined;
}

/** The first pod that `pod` on `nodeName` repels through a required anti-affinity term, as the scheduler reads the term. */
export function antiAffinityConflict(cluster: ClusterState, pod: Pod, nodeName: string): AntiAffinityConflict | undefined {
  const node = cluster.nodeInfo(nodeName)?.node;
  if (!node) return undefined;
  for (const term of pod.requiredAntiAffinity) {
    const value = node.labels[term.topologyKey];
    if (value === undefined) continue;
    const merged = mergeTermNamespaces(term, (ns) => cluster.namespaceLabels(ns));
    for (const info of cluster.nodeInfos()) {
      if (info.node.labels[term.topologyKey] !== value) continue;
      const other = info.pods.find((o) => o.key !== pod.key && !o.terminating && merged.matches(o));
      if (other) return { other, topologyKey: term.topologyKey };
    }
  }
  return undefined;
}

export function removePodsViolatingInterPodAntiAffinity(planner: EvictionPlanner, args: StrategyArgs['RemovePodsViolatingInterPodAntiAffinity']): void {
  if (planner.predict) return predictedMoves(planner, args);
  const { cluster } = planner;
  const nodes = planner.nodes();
  const pods = nodes.flatMap((i) => planner.candidates(planner.podsOn(i), args.namespaces, args.labelSelector));
  let remaining = pods;
  for (const info of nodes) {
    for (const pod of pods.filter((p) => p.nodeName === info.node.name)) {
      const conflict = upstreamConflict(cluster, pod, info.node.name, remaining);
      if (!conflict || !planner.preEvictable(pod)) continue;
      const reason = `required pod anti-affinity (${conflict.topologyKey}) of ${pod.key} is violated by ${conflict.other.key} on ${conflict.other.nodeName}`;
      if (planner.tryMove(pod, NAME, reason)) remaining = remaining.filter((p) => p.key !== pod.key);
    }
  }
}

function predictedMoves(planner: EvictionPlanner, args: StrategyArgs['RemovePodsViolatingInterPodAntiAffinity']): void {
  const { cluster } = planner;
  for (const info of planner.nodes()) {
    const here = info.node.name;
    for (const pod of planner.candidates(planner.podsOn(info), args.namespaces, args.labelSelector)) {
      if (pod.requiredAntiAffinity.length === 0 || !planner.stillOn(pod, here)) continue;
      const conflict = antiAffinityConflict(cluster, pod, here);
      if (!conflict) continue;
      const { other, topologyKey } = conflict;
      const reason = `required pod anti-affinity (${topologyKey}) of ${pod.key} is violated by ${other.key} on ${other.nodeName}`;
      if (other.priority < pod.priority) {
        if (!planner.evictable(other) || !inNamespaces(args.namespaces, other.namespace)) {
          planner.skip(pod, NAME, reason, `it would make room for ${other.key}, of lower priority (${other.priority} < ${pod.priority}), which may not be evicted`);
          continue;
        }
        const domain = info.node.labels[topologyKey];
        planner.tryMove(other, NAME, `${reason}; ${other.key} has the lower priority, so it is the one moved`, (dest) =>
          dest.node.labels[topologyKey] === domain ? `it is in the same ${topologyKey} domain` : undefined,
        );
        continue;
      }
      planner.tryMove(pod, NAME, reason, (dest) => {
        const still = antiAffinityConflict(cluster, pod, dest.node.name);
        return still ? `${still.other.key} would violate it again` : undefined;
      });
    }
  }
}
