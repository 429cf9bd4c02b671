// Karpenter's scheduler reads a topology spread selector it cannot parse (a label
// value or key the API server refuses today, kept on a legacy running pod) as
// selecting nothing (TopologyGroup.selects, TopologyListOptions), where
// kube-scheduler's PodTopologySpread fails the pod with the parse error. A
// disruption simulation places displaced running pods with kube-scheduler's
// plugins, so it hands them each pod as Karpenter reads it.

import type { Pod } from '../model/pod.js';
import { nothingSelector } from '../model/selector.js';

/** The pod with each spread constraint whose selector upstream cannot parse selecting nothing; the same object when it has none. */
export function spreadAsKarpenterReadsIt(pod: Pod): Pod {
  if (!pod.topologySpreadConstraints.some((c) => c.selectorError !== undefined)) return pod;
  return {
    ...pod,
    topologySpreadConstraints: pod.topologySpreadConstraints.map((c) => {
      if (c.selectorError === undefined) return c;
      const { selectorError: _, ...rest } = c;
      return { ...rest, selector: nothingSelector() };
    }),
  };
}
