import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { runWithInvariants, scenarioArb, scenarioText } from './scenarios.js';

// CI sample of the nightly run (`npm run invariants -- --runs 10000`): the same
// generator and checker on a fixed seed.

describe('invariants over random scenarios (CI sample)', () => {
  it('no overcommit, no broken required constraint at bind time, no PDB broken by eviction, NodePool limits kept, replicas converge, same seed ⇒ same log', () => {
    let i = 0;
    fc.assert(
      fc.property(scenarioArb, (p) => {
        const text = scenarioText(p);
        const a = runWithInvariants(text);
        assert.deepEqual(a.violations, [], text);
        if (i++ % 4 === 0) assert.equal(runWithInvariants(text).log, a.log, 'same seed, different event log');
      }),
      { numRuns: 30, seed: 20261203 },
    );
  });

  it('the checker sees a NodePool launching past its limits', () => {
    const [p] = fc.sample(scenarioArb.filter((s) => s.nodePool !== undefined), { numRuns: 1, seed: 4 });
    // A pool whose pods cannot fit the given nodes, with room for several launches.
    const params = { ...p!, nodes: [{ cpu: 1, memGi: 2, zone: 0, tainted: true }], apps: [{ ...p!.apps[0]!, kind: 'Deployment' as const, replicas: 6, cpuMilli: 1500, antiAffinity: true, zoneSpread: undefined, affinityTo: undefined, zoneSelector: undefined, pdb: undefined }], nodePool: { cpuLimit: 40 }, steps: [] };
    const text = scenarioText(params);
    assert.deepEqual(runWithInvariants(text).violations, []);
    const tight = runWithInvariants(text, { poolLimitOverride: { cpu: 2000 } });
    assert.ok(tight.violations.some((v) => v.invariant === 'NodePool limit exceeded'), JSON.stringify(tight.violations));
  });
});
