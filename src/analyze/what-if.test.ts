import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contextOf, inputOf, nodesYaml, webDeployment } from './test-input.js';
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
});
