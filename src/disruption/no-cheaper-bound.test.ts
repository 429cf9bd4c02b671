import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { computeConsolidation, consolidationCandidates, singleNode, type ConsolidationInput } from './consolidate.js';
import { ConsolidationMemo } from './consolidation-memo.js';
import { boundPod, CATALOG, catalogNode, clusterOf, nodePool } from './fixtures.test-support.js';
import { surelyNoCheaper } from './no-cheaper-bound.js';
import { catalogPrices } from './pricing.js';
import type { Rejection } from './candidates.js';
import { makeInstanceType, LABEL_INSTANCE_TYPE, type InstanceType, type Offering } from '../provisioner/catalog/types.js';
import { launchedNode } from '../provisioner/launched-node.js';

// Single-node consolidation skips the simulation of a candidate whose pods partly fit on
// no other node when no instance type that could hold them is cheaper: every outcome is
// then a refusal. The refusal's wording is still the simulation's, worked out when read.

const none = { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} };
function type(name: string, cpu: number, offerings: Partial<Offering>[]): InstanceType {
  return makeInstanceType({
    name,
    labels: { [LABEL_INSTANCE_TYPE]: name, 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux' },
    capacity: { cpu, memory: 16 * 2 ** 30, pods: 110 },
    overhead: none,
    offerings: offerings.map((o) => ({ zone: 'test-zone-1a', capacityType: 'on-demand', price: 1, available: true, ...o })),
  });
}
const current = type('current', 4000, [{ price: 0.5 }]);
const pool = nodePool({ capacityTypes: ['on-demand'] });

/** Counts the consolidation simulations (each goes through the memo). */
class CountingMemo extends ConsolidationMemo {
  simulations = 0;
  override answer<T>(input: ConsolidationInput, candidates: Parameters<ConsolidationMemo['answer']>[1], what: string, compute: () => T): T {
    return super.answer(input, candidates, what, () => {
      this.simulations++;
      return compute();
    });
  }
}

/**
 * Candidate n (0.5 $/h, pods of `cpus`, a 3-cpu one by default) and node m with `room` cpu
 * free; `replacement` is what a new node could be; `o` sets the rest of the input.
 */
function setup(room: number, replacement: InstanceType, cpus: readonly string[] = ['3'], o: Partial<ConsolidationInput> & { pool?: typeof pool } = {}) {
  const types = [current, replacement];
  const p = o.pool ?? pool;
  const n = launchedNode('n', p, current, { zone: 'test-zone-1a', capacityType: 'on-demand' }, 0);
  const m = launchedNode('m', p, current, { zone: 'test-zone-1a', capacityType: 'on-demand' }, 1);
  const filler = boundPod('filler', 'm', `${(m.allocatable.cpu! - room) / 1000}`);
  const memo = new CountingMemo();
  const input: ConsolidationInput = {
    cluster: clusterOf([n, m], [...cpus.map((cpu, i) => boundPod(i === 0 ? 'p' : `p${i}`, 'n', cpu)), filler]),
    pools: [p],
    nowMs: 3_600_000,
    pricePerHour: catalogPrices(types),
    replacement: { instanceTypes: types },
    memo,
    ...o,
  };
  const candidate = consolidationCandidates(input).eligible.find((c) => c.node.name === 'n')!;
  return { input, memo, candidate };
}

describe('single-node consolidation refused without its simulation', () => {
  it('when the pods that fit nowhere else need a node no type is cheaper for, the refusal is worded by the simulation once read', () => {
    const { input, memo, candidate } = setup(1000, type('dearer', 4000, [{ price: 0.6 }, { price: 0.1, capacityType: 'spot' }]));
    assert.equal(surelyNoCheaper(input, [candidate]), true);
    const rejected: Rejection[] = [];
    assert.equal(singleNode(input, [candidate], rejected), undefined);
    assert.equal(memo.simulations, 0);
    assert.deepEqual(rejected, [{ node: 'n', reason: "Can't replace with a cheaper node", event: 'Unconsolidatable' }]);
    assert.equal(memo.simulations, 1);
  });

  it('reading the refusal after the cluster changed is an error, not a wording of another state', () => {
    const { input, candidate } = setup(1000, type('dearer', 4000, [{ price: 0.6 }]));
    const rejected: Rejection[] = [];
    singleNode(input, [candidate], rejected);
    input.cluster.removePod('default/filler');
    assert.throws(() => rejected[0]!.reason, /read after the cluster changed/);
  });

  it('simulates when another node has room for every pod (a delete may work)', () => {
    const { input, memo, candidate } = setup(3000, type('dearer', 4000, [{ price: 0.6 }]));
    assert.equal(surelyNoCheaper(input, [candidate]), false);
    assert.equal(singleNode(input, [candidate], [])?.kind, 'delete');
    assert.equal(memo.simulations, 1);
  });

  it('simulates when a type that could hold the homeless pods is offered for less', () => {
    const { input, candidate } = setup(1000, type('cheaper', 4000, [{ price: 0.9 }, { price: 0.4, zone: 'test-zone-1b' }]));
    assert.equal(surelyNoCheaper(input, [candidate]), false);
  });

  it('a cheaper type too small for the homeless pods does not count', () => {
    const { input, candidate } = setup(1000, type('small', 2000, [{ price: 0.1 }]));
    assert.equal(surelyNoCheaper(input, [candidate]), true);
  });
});

describe('where the bound looks for room', () => {
  const dearer = type('dearer', 4000, [{ price: 0.6 }]);
  /** The simulation refuses too, whatever the bound says. */
  const refused = (input: ConsolidationInput, c: Parameters<typeof surelyNoCheaper>[1][number]) => assert.ok(!('decision' in computeConsolidation(input, [c], 'Underutilized')));

  it('pods that each fit on another node alone but not together: the rest need a claim', () => {
    const { input, candidate } = setup(3000, dearer, ['2', '2']);
    assert.equal(surelyNoCheaper(input, [candidate]), true);
    refused(input, candidate);
  });

  it('not on a node being disrupted (gone from the simulation)', () => {
    const { input, candidate } = setup(3000, dearer, ['3'], { disrupting: new Set(['m']) });
    assert.equal(surelyNoCheaper(input, [candidate]), true);
    refused(input, candidate);
  });

  it('not on a node still initializing (a pod placed there refuses the decision)', () => {
    const { input, candidate } = setup(3000, dearer, ['3'], { initializing: new Set(['m']), uninitialized: new Set(['m']) });
    assert.equal(surelyNoCheaper(input, [candidate]), true);
    refused(input, candidate);
  });

  it('not on a node inside its consolidateAfter', () => {
    const p = nodePool({ capacityTypes: ['on-demand'], disruption: { consolidateAfter: '30m', budgets: [{ nodes: '100%' }] } });
    const { input, candidate } = setup(3000, dearer, ['3'], { pool: p, lastPodEventMs: new Map([['m', 3_000_000]]) });
    assert.equal(surelyNoCheaper(input, [candidate]), true);
    refused(input, candidate);
  });

  it('a node with room for the pods, outside all of those, keeps the simulation', () => {
    const p = nodePool({ capacityTypes: ['on-demand'], disruption: { consolidateAfter: '30m', budgets: [{ nodes: '100%' }] } });
    const { input, candidate } = setup(4000, dearer, ['2', '2'], { pool: p, lastPodEventMs: new Map([['m', 0]]) });
    assert.equal(surelyNoCheaper(input, [candidate]), false);
    assert.ok('decision' in computeConsolidation(input, [candidate], 'Underutilized'));
  });
});

describe('surelyNoCheaper property', () => {
  const ZONES = ['us-west-2a', 'us-west-2b'];
  const TYPES = CATALOG.filter((t) => ['t3.medium', 'm5.large', 'm5.xlarge', 'm5.2xlarge', 'c5.xlarge', 'r5.large'].includes(t.name)).map((t) => ({ ...t, offerings: t.offerings.filter((o) => ZONES.includes(o.zone)) }));
  const arb = fc.record({
    nodes: fc.array(fc.record({ type: fc.constantFrom('m5.large', 'm5.xlarge', 'm5.2xlarge', 'c5.xlarge', 'r5.large'), zone: fc.constantFrom(...ZONES), spot: fc.boolean() }), { minLength: 2, maxLength: 6 }),
    pods: fc.array(fc.record({ node: fc.nat(), milli: fc.integer({ min: 500, max: 3500 }), gib: fc.integer({ min: 1, max: 12 }), spread: fc.boolean() }), { minLength: 4, maxLength: 24 }),
    // Nodes the simulation treats apart: being disrupted, still initializing.
    disrupting: fc.array(fc.nat(), { maxLength: 2 }),
    initializing: fc.array(fc.nat(), { maxLength: 2 }),
    capacityTypes: fc.constantFrom(['on-demand'], ['spot'], ['on-demand', 'spot']),
    spotToSpot: fc.boolean(),
  });
  const SPREAD = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app: 'spread' } } }] };

  it('whenever it holds, the simulation refuses the candidates too (single nodes and prefixes)', () => {
    let held = 0;
    fc.assert(
      fc.property(arb, (spec) => {
        const p = nodePool({ capacityTypes: [...spec.capacityTypes] });
        const nodes = spec.nodes.map((n, i) => catalogNode(`n${i}`, p, n.type, { zone: n.zone, capacityType: n.spot ? 'spot' : 'on-demand' }));
        const free = new Map(nodes.map((n) => [n.name, n.allocatable.cpu! - 256]));
        const pods = spec.pods.flatMap((q, i) => {
          const node = nodes[q.node % nodes.length]!;
          if (free.get(node.name)! < q.milli) return [];
          free.set(node.name, free.get(node.name)! - q.milli);
          const containers = [{ name: 'c', resources: { requests: { cpu: `${q.milli}m`, memory: `${q.gib}Gi` } } }];
          return [boundPod(`p${i}`, node.name, `${q.milli}m`, q.spread ? { labels: { app: 'spread' }, spec: { ...SPREAD, containers } } : { spec: { containers } })];
        });
        const named = (picks: number[]) => new Set(picks.map((i) => nodes[i % nodes.length]!.name));
        const initializing = named(spec.initializing);
        const input: ConsolidationInput = { cluster: clusterOf(nodes, pods), pools: [p], nowMs: 1e12, pricePerHour: catalogPrices(TYPES), replacement: { instanceTypes: TYPES, spotToSpot: spec.spotToSpot }, disrupting: named(spec.disrupting), initializing, uninitialized: initializing };
        const eligible = consolidationCandidates(input).eligible.filter((c) => c.reschedulable.length > 0);
        const sets = [...eligible.map((c) => [c]), ...eligible.slice(2).map((_, i) => eligible.slice(0, i + 2))];
        for (const set of sets) {
          if (!surelyNoCheaper(input, set)) continue;
          held++;
          const r = computeConsolidation(input, set, 'Underutilized');
          assert.ok(!('decision' in r), `${set.map((c) => c.node.name).join(',')} would go: ${JSON.stringify(r)}`);
        }
      }),
      { numRuns: 200, seed: 5 },
    );
    assert.ok(held > 50, `the bound held ${held} times`);
  });
});
