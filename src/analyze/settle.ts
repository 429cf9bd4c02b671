// The moment a check's failure begins: when the unchanged cluster has settled
// (its last pod or node turned ready, rounded up to 10 s), and which analysed
// groups' pods each node runs then.

import type { Node } from '../model/node.js';
import type { AnalysisContext } from './check.js';
import type { PodGroup } from './pod-groups.js';
import { baseline } from './what-if.js';

export type Placement = { readonly node: Node; readonly hosts: ReadonlyMap<PodGroup, number> }[];

export function settle(ctx: AnalysisContext, groups: readonly PodGroup[]): { t0: number; placement: Placement } {
  const run = baseline(ctx);
  const lastReady = Math.max(0, ...run.events.filter((e) => e.type === 'PodReady' || e.type === 'NodeReady').map((e) => e.t));
  const t0 = (Math.floor(lastReady / 10_000) + 1) * 10_000;
  const placement = run.sim.world.cluster.nodeInfos().map((info) => {
    const hosts = new Map<PodGroup, number>();
    for (const p of info.pods) {
      if (p.terminating) continue;
      const g = groups.find((x) => x.has(p));
      if (g) hosts.set(g, (hosts.get(g) ?? 0) + 1);
    }
    return { node: info.node, hosts };
  });
  return { t0, placement };
}
