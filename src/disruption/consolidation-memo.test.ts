import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compilePod } from '../model/pod.js';
import { catalogPrices } from './pricing.js';
import { consolidationCandidates, computeConsolidation, type ConsolidationInput } from './consolidate.js';
import { ConsolidationMemo } from './consolidation-memo.js';
import { boundPod, CATALOG, catalogNode, clusterOf, nodePool } from './fixtures.test-support.js';

describe('ConsolidationMemo', () => {
  const pool = nodePool();
  const price = catalogPrices(CATALOG);
  const setup = () => {
    const cluster = clusterOf(
      [catalogNode('a', pool, 'm5.xlarge'), catalogNode('b', pool, 'm5.xlarge')],
      [boundPod('p1', 'a', '500m'), boundPod('p2', 'b', '500m')],
    );
    const memo = new ConsolidationMemo();
    const input = (): ConsolidationInput => ({ cluster, pools: [pool], nowMs: 1e12, pricePerHour: price, replacement: { instanceTypes: CATALOG }, memo });
    let computed = 0;
    const ask = () => {
      const i = input();
      const c = consolidationCandidates(i).eligible.find((x) => x.node.name === 'a')!;
      return i.memo!.answer(i, [c], 'Underutilized', () => (computed++, computeConsolidation({ ...i, memo: undefined }, [c], 'Underutilized')));
    };
    return { cluster, ask, computed: () => computed };
  };

  it('answers again without computing while nothing bound changed, pending pods included', () => {
    const { cluster, ask, computed } = setup();
    const first = ask();
    cluster.addPod(compilePod({ metadata: { name: 'pending', namespace: 'default' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '3' } } }] } }, { order: 1000 }));
    assert.equal(ask(), first);
    assert.equal(computed(), 1);
  });

  it('computes again once a bound pod or a node changed', () => {
    const { cluster, ask, computed } = setup();
    const first = ask();
    assert.ok('decision' in first && first.decision.kind === 'delete');
    // b fills up: a's pod no longer fits there, the answer changes.
    cluster.addPod({ ...boundPod('big', 'b', '3'), phase: 'Running' });
    const second = ask();
    assert.equal(computed(), 2);
    assert.notDeepEqual(second, first);
    cluster.removeNode('b');
    ask();
    assert.equal(computed(), 3);
  });

  it('computes again when the cluster is another one', () => {
    const { ask, computed } = setup();
    const other = setup();
    ask();
    other.ask();
    assert.equal(computed() + other.computed(), 2);
  });
});
