import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { controllerLogger } from './logger.js';
import { BatchLog, batchDecision, REPEAT_LOG_MS, type PlannedBatch } from './batch-log.js';

function captured(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()) });
  return { lines, stream };
}

const claim = { name: 'p', nodePool: 'default', instanceType: 'c5a.large', zone: 'us-west-2a', capacityType: 'on-demand', pricePerHour: 0.077, pods: ['ns/web-1', 'ns/web-2'], annotations: {}, labels: {}, requirements: [] };
const launch: PlannedBatch = { pods: ['ns/web-2', 'ns/web-1'], nodes: 3, inFlight: [], plan: { nodeClaims: [claim], unschedulable: [], costPerHour: 0.077 } };

test('a batch line names the decision in words', () => {
  assert.equal(batchDecision(launch), 'planned batch of 2 pod(s): launch 1 NodeClaim(s): c5a.large in us-west-2a (on-demand), $0.0770/h');
  assert.equal(batchDecision({ ...launch, plan: { nodeClaims: [], unschedulable: [{ pod: 'ns/arm', message: 'no' }], costPerHour: 0 } }), 'planned batch of 2 pod(s): 1 pod(s) fit no NodePool');
  assert.equal(batchDecision({ ...launch, inFlight: ['default-a'], plan: { nodeClaims: [], unschedulable: [], costPerHour: 0 } }), 'planned batch of 2 pod(s): fits capacity in flight (1 NodeClaim(s) launching)');
});

test('one info line per batch naming its pods; the same batch again is throttled to debug, then counted', () => {
  const { lines, stream } = captured();
  let now = 0;
  const log = new BatchLog(controllerLogger('info', 'test', stream), () => now);
  log.planned(launch);
  now += 10_000;
  log.planned(launch);
  log.planned(launch);
  assert.equal(lines.length, 1);
  assert.deepEqual(lines[0]!.pods, ['ns/web-1', 'ns/web-2']);
  assert.deepEqual((lines[0]!.nodeClaims as { pods: string[] }[])[0]!.pods, ['ns/web-1', 'ns/web-2']);
  now += REPEAT_LOG_MS;
  log.planned(launch);
  assert.equal(lines.length, 2);
  assert.equal(lines[1]!.repeatsNotLogged, 2);
  log.planned({ ...launch, pods: ['ns/web-3'] });
  assert.equal(lines.length, 3, 'another batch logs at once');
});

test('controller logs carry the level by name and an ISO time', () => {
  const { lines, stream } = captured();
  controllerLogger('info', 'replica-1', stream).info({ a: 1 }, 'hello');
  assert.equal(lines[0]!.level, 'info');
  assert.match(String(lines[0]!.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(lines[0]!.identity, 'replica-1');
});
