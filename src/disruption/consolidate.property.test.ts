// Property: whatever the cluster, applying consolidation decisions one after another
// never puts two pods with required hostname anti-affinity on one node and never
// leaves a DoNotSchedule zone spread with a skew above its maxSkew.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ClusterState } from '../cluster/state.js';
import { LABEL_ZONE } from '../model/node.js';
import { scheduleAll } from '../scheduler/run.js';
import { applyDecision, consolidate, replacementNode } from './consolidate.js';
import { catalogPrices } from './pricing.js';
import { boundPod, CATALOG, catalogNode, clusterOf, nodePool } from './fixtures.test-support.js';

const ZONES = ['us-west-2a', 'us-west-2b'];
// A small catalog keeps the planner quick; two zones so zone spread has something to balance.
const TYPES = CATALOG.filter((t) => ['t3.medium', 'm5.large', 'm5.xlarge', 'm5.2xlarge', 'c5.xlarge'].includes(t.name)).map((t) => ({ ...t, offerings: t.offerings.filter((o) => ZONES.includes(o.zone)) }));
const price = catalogPrices(TYPES);
const pool = nodePool({ capacityTypes: ['on-demand', 'spot'] });

const ANTI = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'anti' } }, topologyKey: 'kubernetes.io/hostname' }] } } };
const SPREAD = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: LABEL_ZONE, whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app: 'spread' } } }] };

const arbCluster = fc.record({
  nodes: fc.array(fc.record({ type: fc.constantFrom('m5.large', 'm5.xlarge', 'm5.2xlarge'), zone: fc.constantFrom(...ZONES), spot: fc.boolean() }), { minLength: 2, maxLength: 7 }),
  pods: fc.array(fc.record({ app: fc.constantFrom('anti', 'spread', 'plain'), milli: fc.integer({ min: 100, max: 1500 }) }), { minLength: 1, maxLength: 14 }),
});

type ClusterSpec = typeof arbCluster extends fc.Arbitrary<infer T> ? T : never;

function build(c: ClusterSpec): ClusterState {
  const nodes = c.nodes.map((n, i) => catalogNode(`n${i}`, pool, n.type, { zone: n.zone, capacityType: n.spot ? 'spot' : 'on-demand' }));
  const pods = c.pods.map((p, i) => boundPod(`p${i}`, '', `${p.milli}m`, { labels: { app: p.app }, spec: p.app === 'anti' ? ANTI : p.app === 'spread' ? SPREAD : {} }));
  const cluster = clusterOf(nodes, pods);
  // Placed by the scheduler, so the starting point satisfies every constraint; what fits nowhere is dropped.
  const report = scheduleAll(cluster, {});
  for (const u of report.unschedulable) cluster.removePod(u.pod);
  return cluster;
}

function violations(cluster: ClusterState): string[] {
  const out: string[] = [];
  const pods = [...cluster.pods()].filter((p) => p.nodeName);
  const antiNodes = pods.filter((p) => p.labels['app'] === 'anti').map((p) => p.nodeName);
  if (new Set(antiNodes).size !== antiNodes.length) out.push(`anti-affinity pods share a node: ${antiNodes.join(',')}`);
  const zones = new Set(cluster.nodeInfos().map((i) => i.node.labels[LABEL_ZONE] ?? ''));
  const count = new Map([...zones].map((z) => [z, 0]));
  for (const p of pods.filter((x) => x.labels['app'] === 'spread')) {
    const z = cluster.nodeInfo(p.nodeName)?.node.labels[LABEL_ZONE] ?? '';
    count.set(z, (count.get(z) ?? 0) + 1);
  }
  const values = [...count.values()];
  if (values.length > 0 && Math.max(...values) - Math.min(...values) > 1) out.push(`zone spread skew ${JSON.stringify([...count])}`);
  return out;
}

describe('consolidation property', () => {
  it('never breaks required anti-affinity or a DoNotSchedule spread, and never strands a pod', () => {
    fc.assert(
      fc.property(arbCluster, fc.boolean(), (spec, spotToSpot) => {
        const cluster = build(spec);
        assert.deepEqual(violations(cluster), [], 'the generated start is valid');
        const bound = [...cluster.pods()].length;
        for (let round = 0; round < 6; round++) {
          const [d] = consolidate({ cluster, pools: [pool], nowMs: 1e12, pricePerHour: price, replacement: { instanceTypes: TYPES, spotToSpot } }).decisions;
          if (!d) break;
          const before = cluster.nodeInfos().reduce((s, i) => s + (price(i.node) ?? 0), 0);
          applyDecision(cluster, d, d.replacements.map((r, i) => replacementNode(r, [pool], TYPES, `r${round}-${i}`, round)));
          assert.deepEqual(violations(cluster), [], `after ${d.kind} of ${d.nodes.join(',')}`);
          assert.equal([...cluster.pods()].filter((p) => p.nodeName).length, bound, 'every pod still has a node');
          const after = cluster.nodeInfos().reduce((s, i) => s + (price(i.node) ?? 0), 0);
          assert.ok(after < before + 1e-9, `cost went from ${before} to ${after}`);
        }
      }),
      { numRuns: 40, seed: 11 },
    );
  });
});
