// The descheduler's NodeFit: the subset of the scheduler's filters it checks
// before evicting (nodeFit, topologyBalanceNodeFit, the node-affinity plugin):
// cordon, node selector and required affinity, NoSchedule/NoExecute taints, the
// pod's required anti-affinity against the node's pods, and room for its requests.

import type { NodeInfo } from '../../cluster/node-info.js';
import type { ClusterState } from '../../cluster/state.js';
import { matchesRequiredNodeAffinity, type Pod } from '../../model/pod.js';
import { doNotScheduleTaints, findUntoleratedTaint } from '../../model/taints.js';
import { mergeTermNamespaces } from '../../scheduler/plugins/inter-pod-affinity/terms.js';

/** Why `pod` would not fit `info`'s node, or undefined when it would. */
export function nodeFitError(cluster: ClusterState, pod: Pod, info: NodeInfo): string | undefined {
  const node = info.node;
  if (node.unschedulable) return 'node is not schedulable';
  if (!matchesRequiredNodeAffinity(pod, node)) return 'pod node selector does not match the node label';
  if (findUntoleratedTaint(node.taints, pod.tolerations, doNotScheduleTaints) !== undefined) return 'pod does not tolerate taints on the node';
  for (const term of pod.requiredAntiAffinity) {
    const merged = mergeTermNamespaces(term, (ns) => cluster.namespaceLabels(ns));
    if (info.pods.some((o) => o.key !== pod.key && merged.matches(o))) return 'pod matches inter-pod anti-affinity rule of other pod on node';
  }
  if (pod.nodeName !== node.name) {
    if (info.pods.length + 1 > (node.allocatable['pods'] ?? 0)) return 'insufficient pods';
    for (const [r, v] of Object.entries(pod.resources.requests)) {
      if ((info.requested[r] ?? 0) + v > (node.allocatable[r] ?? 0)) return `insufficient ${r}`;
    }
  }
  return undefined;
}

/** Whether `pod` fits any of `nodes` (other than its own when `other`). */
export function fitsAnyNode(cluster: ClusterState, pod: Pod, nodes: readonly NodeInfo[], other: boolean): boolean {
  return nodes.some((i) => !(other && i.node.name === pod.nodeName) && nodeFitError(cluster, pod, i) === undefined);
}
