import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnalysisContext } from '../analyze/check.js';
import { zoneLossCheck } from '../analyze/checks/loss.js';
import { reported } from '../analyze/finding.js';
import { contextOf, inputOf, nodesYaml, webDeployment } from '../analyze/test-input.js';
import { SharedLog, sharedLogBuffer } from './shared-log.js';

describe('shared log', () => {
  const input = inputOf(nodesYaml(1));
  const types = contextOf(input).instanceTypes;

  it('what one view of the buffer sets, another reads; a key never set reads undefined', () => {
    const buffer = sharedLogBuffer(1024);
    const a = new SharedLog(buffer, input, types);
    const b = new SharedLog(buffer, input, types);
    a.set('k1', new Map([['Deployment/default/web', true]]));
    a.set('k2', [1, 2]);
    assert.deepEqual(b.get('k1'), new Map([['Deployment/default/web', true]]));
    assert.deepEqual(b.get('k2'), [1, 2]);
    assert.equal(b.get('k3'), undefined);
  });

  it('a full log takes no more records (the reader then computes the value itself)', () => {
    const buffer = sharedLogBuffer(64);
    const a = new SharedLog(buffer, input, types);
    const b = new SharedLog(buffer, input, types);
    a.set('small', 1);
    a.set('large', 'x'.repeat(100));
    assert.equal(b.get('small'), 1);
    assert.equal(b.get('large'), undefined);
    assert.equal(a.get('large'), 'x'.repeat(100));
  });

  // Two workers of one pool: each loads the input itself; the zone-loss proofs of added nodes one made, the other reads.
  it("a worker reads the zone-loss verdicts another simulated on the same added nodes, with the same findings", () => {
    // One 4-CPU node per zone, 3 replicas of 3 CPU: a lost zone's replica has nowhere to go; the proofs try adding a node.
    const text = [nodesYaml(3), webDeployment({ replicas: 3 }).replace('cpu: 500m', 'cpu: "3"')];
    const worker = (buffer: SharedArrayBuffer): { ctx: AnalysisContext; log: SharedLog } => {
      const ctx = contextOf(inputOf(...text));
      const log = new SharedLog(buffer, ctx.input, ctx.instanceTypes);
      return { ctx: { ...ctx, exchange: log }, log };
    };
    const buffer = sharedLogBuffer();
    const first = worker(buffer);
    const alone = zoneLossCheck.run(first.ctx).map(reported);
    assert.equal(alone.length, 1);
    const second = worker(buffer);
    const asked: string[] = [];
    const get = second.log.get.bind(second.log);
    second.log.get = (key) => {
      const v = get(key);
      if (v !== undefined) asked.push(key);
      return v;
    };
    assert.deepEqual(zoneLossCheck.run(second.ctx).map(reported), alone);
    assert.ok(asked.length > 0, 'the second worker read verdicts the first published');
  });
});
