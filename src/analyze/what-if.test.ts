import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contextOf, inputOf, nodesYaml, webDeployment } from './test-input.js';
import { singleProfilePolicy } from '../model/descheduler-policy.js';
import { baseline, sharedWhatIf } from './what-if.js';

describe('sharedWhatIf', () => {
  const ctx = contextOf(inputOf(nodesYaml(2), webDeployment({ replicas: 2 })));
  const fail = (node: string) => ({ name: 'node-loss', steps: [{ at: 60_000, action: { type: 'failNode' as const, node } }], untilMs: 120_000 });

  it('runs a what-if once per input and steps; other steps, settings or inputs run again', () => {
    assert.equal(sharedWhatIf(ctx, fail('node-1')), sharedWhatIf(ctx, fail('node-1')));
    assert.notEqual(sharedWhatIf(ctx, fail('node-1')), sharedWhatIf(ctx, fail('node-2')));
    assert.notEqual(sharedWhatIf(ctx, fail('node-1')), sharedWhatIf({ ...ctx, seed: 1 }, fail('node-1')));
    assert.notEqual(sharedWhatIf(ctx, fail('node-1')), sharedWhatIf({ ...ctx, input: { ...ctx.input } }, fail('node-1')));
    assert.equal(baseline(ctx), baseline({ ...ctx }));
    assert.notEqual(baseline(ctx), baseline(ctx, true));
  });

  it('runs the descheduler of check --descheduler-policy in the simulation, and keys the memo on it', () => {
    // Two web replicas on two nodes; node-1 fails and recovers: both replicas stack on node-2, and RemoveDuplicates spreads them again.
    const steps = [
      { at: 60_000, action: { type: 'failNode' as const, node: 'node-1' } },
      { at: 600_000, action: { type: 'recoverNode' as const, node: 'node-1' } },
    ];
    const w = { name: 'loss-and-return', steps, untilMs: 1_500_000 };
    const descheduler = { enabled: true, intervalMs: 300_000, policy: singleProfilePolicy({ RemoveDuplicates: {} }) };
    const without = sharedWhatIf(ctx, w);
    const withD = sharedWhatIf({ ...ctx, descheduler }, w);
    assert.notEqual(without, withD);
    assert.equal(without.events.filter((e) => e.type === 'Descheduled').length, 0);
    assert.ok(withD.events.some((e) => e.type === 'Descheduled'));
  });
});
