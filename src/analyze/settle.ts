// The moment a check's failure begins: when the unchanged cluster has settled
// (its last pod or node turned ready, rounded up to 10 s), and which analysed
// groups' pods each node runs then (settle: each pod counted for the first group
// it belongs to; settledGroups: for every group it belongs to).

import type { Node } from '../model/node.js';
import type { Pod } from '../model/pod.js';
import type { AnalysisContext } from './check.js';
import { groupFinder, type PodGroup } from './pod-groups.js';
import { isSharedInput } from './remedies.js';
import { baseline, BASELINE_WHAT_IF, memoized, simulateWhatIf } from './what-if.js';

export type Placement = { readonly node: Node; readonly hosts: ReadonlyMap<PodGroup, number> }[];

/**
 * What settle reads of the baseline, once per input. An input with nodes added
 * (shared by many groups' fix proofs, so kept for the whole check) keeps only
 * this, not its baseline's simulation.
 */
function settledState(ctx: AnalysisContext): { readonly t0: number; readonly nodes: readonly { readonly node: Node; readonly pods: readonly Pod[] }[] } {
  return memoized(ctx, 'settled', () => {
    const run = isSharedInput(ctx.input) ? simulateWhatIf(ctx, BASELINE_WHAT_IF) : baseline(ctx);
    const lastReady = Math.max(0, ...run.events.filter((e) => e.type === 'PodReady' || e.type === 'NodeReady').map((e) => e.t));
    const t0 = (Math.floor(lastReady / 10_000) + 1) * 10_000;
    return { t0, nodes: run.sim.world.cluster.nodeInfos().map((info) => ({ node: info.node, pods: info.pods.filter((p) => !p.terminating) })) };
  });
}

export function settle(ctx: AnalysisContext, groups: readonly PodGroup[]): { t0: number; placement: Placement } {
  const { t0, nodes } = settledState(ctx);
  const find = groupFinder(groups);
  const placement = nodes.map(({ node, pods }) => {
    const hosts = new Map<PodGroup, number>();
    for (const p of pods) {
      const g = find(p)[0];
      if (g) hosts.set(g, (hosts.get(g) ?? 0) + 1);
    }
    return { node, hosts };
  });
  return { t0, placement };
}

/** Where one group's pods run at t0: the nodes in node order, each with the group's pods on it. */
export type GroupPlacement = readonly { readonly node: Node; readonly pods: readonly Pod[] }[];

/**
 * Each group's placement at t0, for all of `groups` in one pass over the pods: a
 * pod counts for every group it belongs to, so a group's entry is what
 * settle(ctx, [group]) gives for it alone.
 */
export function settledGroups(ctx: AnalysisContext, groups: readonly PodGroup[]): { t0: number; placements: ReadonlyMap<PodGroup, GroupPlacement> } {
  const { t0, nodes } = settledState(ctx);
  const find = groupFinder(groups);
  const placements = new Map<PodGroup, { node: Node; pods: Pod[] }[]>(groups.map((g) => [g, []]));
  for (const { node, pods } of nodes) {
    for (const p of pods) {
      for (const g of find(p)) {
        const list = placements.get(g)!;
        const last = list.at(-1);
        if (last?.node === node) last.pods.push(p);
        else list.push({ node, pods: [p] });
      }
    }
  }
  return { t0, placements };
}
