// Karpenter's scheduler reads a label selector it cannot parse (a label value or key
// the API server refuses today, kept on a legacy running pod) as selecting nothing:
// a topology spread constraint's (TopologyGroup.selects, TopologyListOptions) and a
// pod affinity or anti-affinity term's (NewTopologyGroup). kube-scheduler instead
// fails the pod with the parse error (PodTopologySpread, InterPodAffinity's
// PreFilter). A disruption simulation places displaced running pods with
// kube-scheduler's plugins, so it hands them each pod as Karpenter reads it. A
// namespaceSelector that does not parse fails Karpenter's topology as well; such a
// pod is left as kube-scheduler reads it.

import type { Pod } from '../model/pod.js';
import { nothingSelector } from '../model/selector.js';

/** The pod with each selector upstream cannot parse (spread constraints, affinity terms) selecting nothing; the same object when it has none. */
export function asKarpenterReadsIt(pod: Pod): Pod {
  const spread = pod.topologySpreadConstraints.some((c) => c.selectorError !== undefined);
  const affinity = pod.affinityWithUnparsedSelectingNothing;
  if (!spread && !affinity) return pod;
  const { affinityParseError: _e, affinityWithUnparsedSelectingNothing: _a, ...rest } = pod;
  return {
    ...(affinity ? { ...rest, ...affinity } : pod),
    topologySpreadConstraints: pod.topologySpreadConstraints.map((c) => {
      if (c.selectorError === undefined) return c;
      const { selectorError: _, ...constraint } = c;
      return { ...constraint, selector: nothingSelector() };
    }),
  };
}
