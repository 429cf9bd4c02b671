// A 500-node underutilized cluster, consolidated as Karpenter would until nothing is
// left to do: `npx tsx bench/consolidation-500.ts [--spot-to-spot] [--optimize cost [--growth-min-saving 0.25]]`.
//
// The cluster is bench/consolidation-500-cluster.ts's (the oversized m5.4xlarge nodes
// are replace opportunities: nothing else has room once the small nodes are packed).
// Every consolidation decision (emptiness, multi-node, single-node delete or replace)
// is applied at once; the loop ends when a pass proposes nothing. Prints nodes and $/h
// before and after, the decisions by kind, and the wall time. With --optimize cost,
// berth's cost step (optimize-consolidation.ts) then runs at that fixed point, with
// Karpenter-faithful consolidation again after each step, until neither finds
// anything; it prints the fixed point's $/h, the optimized $/h and the LP lower bound.
// --growth-min-saving sets the least saving (share of the set's price) for a cost step
// that launches more nodes than it removes (GROWTH_MIN_SAVING by default, 0: no cap).

import { performance } from 'node:perf_hooks';
import { ClusterState } from '../src/cluster/state.js';
import { loadHighsSolver } from '../src/cli/highs.js';
import { applyDecision, consolidate, replacementNode, type ConsolidationInput, type Decision } from '../src/disruption/consolidate.js';
import { cheaperRepack, consolidationLowerBound, GROWTH_MIN_SAVING } from '../src/disruption/optimize-consolidation.js';
import { catalogPrices } from '../src/disruption/pricing.js';
import { compileNodePool } from '../src/model/nodepool.js';
import { compilePod } from '../src/model/pod.js';
import { bundledInstanceTypes } from '../src/provisioner/catalog/catalog.js';
import { launchedNode } from '../src/provisioner/launched-node.js';
import { benchCluster, benchNodePool, benchPodManifest } from './consolidation-500-cluster.js';

const spotToSpot = process.argv.includes('--spot-to-spot');
const types = bundledInstanceTypes();
const price = catalogPrices(types);
const pool = compileNodePool(benchNodePool());
const typeOf = (name: string) => types.find((t) => t.name === name)!;

const cluster = new ClusterState();
const shape = benchCluster();
shape.nodes.forEach((n, i) => cluster.addNode(launchedNode(n.name, pool, typeOf(n.instanceType), { zone: n.zone, capacityType: n.capacityType }, i)));
shape.pods.forEach((p, order) => {
  const { labels, spec } = benchPodManifest(p);
  cluster.addPod({ ...compilePod({ metadata: { name: p.name, namespace: 'default', labels }, spec }, { order }), phase: 'Running' });
});

const cost = () => cluster.nodeInfos().reduce((s, info) => s + (price(info.node) ?? 0), 0);
const before = { nodes: cluster.numNodes, cost: cost(), pods: [...cluster.pods()].length };
const kinds = new Map<string, number>();
const t0 = performance.now();
let replacements = 0;
let pass = 0;
const input = (): ConsolidationInput => ({ cluster, pools: [pool], nowMs: 1e12, pricePerHour: price, replacement: { instanceTypes: types, spotToSpot } });
function apply(d: Decision, label: string): void {
  const key = `${label}${d.reason}/${d.kind}${d.nodes.length > 1 ? ` x${d.nodes.length}` : ''}${d.replacements.length > 1 ? ` -> ${d.replacements.length}` : ''}`;
  kinds.set(key, (kinds.get(key) ?? 0) + 1);
  applyDecision(cluster, d, d.replacements.map((r) => replacementNode(r, [pool], types, `r${replacements++}`, pass)));
  pass++;
}
function settle(): void {
  for (let d = consolidate(input()).decisions[0]; d; d = consolidate(input()).decisions[0]) apply(d, '');
}
settle();
const fixedPoint = { cost: cost(), nodes: cluster.numNodes };
const optimize = process.argv.includes('--optimize');
const growthArg = process.argv.indexOf('--growth-min-saving');
const growthMinSaving = growthArg > 0 ? Number(process.argv[growthArg + 1]) : GROWTH_MIN_SAVING;
if (optimize) for (let d = cheaperRepack(input(), { growthMinSaving }); d; d = cheaperRepack(input(), { growthMinSaving })) { apply(d, 'cost step '); settle(); }
const seconds = (performance.now() - t0) / 1000;
const boundAfter = [...cluster.pods()].filter((p) => p.nodeName).length;
console.log(`nodes ${before.nodes} -> ${cluster.numNodes}, $/h ${before.cost.toFixed(2)} -> ${cost().toFixed(2)}, pods bound ${boundAfter}/${before.pods}, ${seconds.toFixed(1)} s wall`);
console.log(`decisions: ${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')}${spotToSpot ? ' (SpotToSpotConsolidation on)' : ''}`);
if (optimize) {
  const bound = consolidationLowerBound(input(), await loadHighsSolver());
  console.log(`growth cap: a step launching more nodes than it removes saves at least ${growthMinSaving * 100}% of the set's price`);
  console.log(`$/h: Karpenter-faithful fixed point ${fixedPoint.cost.toFixed(2)} (${fixedPoint.nodes} nodes), optimized ${cost().toFixed(2)} (${cluster.numNodes} nodes), lower bound ${bound.costPerHour?.toFixed(2) ?? bound.status}${bound.method ? ` (${bound.method})` : ''}`);
}
