import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { loadSources } from '../io/load.js';
import { loadScenario } from '../io/scenario.js';
import { loadDisruptionVariants } from '../io/what-if-spec.js';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import { runVariants } from './policy-variants.js';

// test/fixtures/what-if/scale-down.yaml: six one-CPU replicas on six nodes, scaled to two
// at 20m. WhenEmpty removes the four emptied nodes; consolidateAfter: Never keeps them all.
const DIR = new URL('../../test/fixtures/what-if/', import.meta.url).pathname;
const SCENARIO = readFileSync(`${DIR}scale-down.yaml`, 'utf8');
const VARIANTS = readFileSync(`${DIR}variants.yaml`, 'utf8');

function run() {
  const s = loadScenario({ name: 's.yaml', text: SCENARIO });
  assert.ok(s.ok);
  const loaded = loadSources([{ name: 's.yaml', text: SCENARIO }]);
  assert.ok(loaded.ok);
  const v = loadDisruptionVariants({ name: 'v.yaml', text: VARIANTS });
  assert.ok(v.ok);
  return runVariants(loaded.input, s.scenario.spec, v.variants, { instanceTypes: bundledInstanceTypes(), sampleMs: 10 * 60_000 });
}

describe('disruption variants on one timeline', () => {
  const [never, empty] = run();

  it('Never keeps the six nodes; WhenEmpty removes the four emptied ones and pays less', () => {
    assert.equal(never!.nodesLaunched, 6);
    assert.equal(never!.nodesDisrupted, 0);
    assert.equal(never!.finalCostPerHour, 0.576);
    assert.equal(empty!.nodesDisrupted, 4);
    assert.equal(empty!.finalCostPerHour, 0.192);
    assert.ok(empty!.totalCost < never!.totalCost, `${empty!.totalCost} < ${never!.totalCost}`);
    // Empty nodes are deleted without evicting anyone.
    assert.equal(empty!.evictions, 0);
    assert.deepEqual(empty!.podsDisrupted, {});
  });

  it('total cost is the integral of the $/h series; the series is sampled from 0 to the end', () => {
    assert.equal(never!.costSeries.length, 7);
    assert.deepEqual(never!.costSeries.slice(1).map((s) => s.costPerHour), [0.576, 0.576, 0.576, 0.576, 0.576, 0.576]);
    // Six nodes from their launch (under a minute in) to the end of the hour.
    assert.ok(never!.totalCost > 0.56 && never!.totalCost <= 0.576, String(never!.totalCost));
    assert.equal(never!.averageCostPerHour, never!.totalCost);
  });

  it('counts time below desired while replicas start', () => {
    assert.ok((never!.belowDesiredMs['Deployment/web'] ?? 0) > 0);
    assert.equal(never!.pendingAtEnd, 0);
  });
});
