import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileNode } from '../model/node.js';
import { compilePod } from '../model/pod.js';
import { newestTimestamp, relativeTo } from './time-origin.js';

const node = (name: string, creationTimestamp?: string, order = 0) => compileNode({ metadata: { name, ...(creationTimestamp ? { creationTimestamp } : {}) }, status: { allocatable: { cpu: '1' } } } as never, order, { kubeletDefaults: true });
const pod = (name: string, creationTimestamp: string, startTime?: string) =>
  compilePod({ metadata: { name, creationTimestamp }, spec: { containers: [{ name: 'c' }] }, ...(startTime ? { status: { startTime } } : {}) } as never, { order: 0 });

test('the newest wall-clock time of the input; input-order stand-ins are not times', () => {
  const nodes = [node('a', '2026-11-20T10:00:00Z'), node('b', undefined, 7)];
  const pods = [pod('p', '2026-11-20T10:05:00Z', '2026-11-20T10:06:00Z')];
  assert.equal(newestTimestamp({ nodes, pods }), Date.parse('2026-11-20T10:06:00Z'));
  assert.equal(newestTimestamp({ nodes: [node('b', undefined, 7)], pods: [] }), undefined);
});

test('times become relative to the origin: ages are kept, and an untimed node is older than every timed one', () => {
  const origin = Date.parse('2026-11-20T11:00:00Z');
  const r = relativeTo({ nodes: [node('a', '2026-11-20T10:00:00Z'), node('b', undefined, 7)], pods: [pod('p', '2026-11-20T10:05:00Z', '2026-11-20T10:06:00Z')] }, origin);
  assert.equal(r.nodes[0]!.creation, -3_600_000);
  assert.ok(r.nodes[1]!.creation < r.nodes[0]!.creation);
  assert.deepEqual([r.pods[0]!.creation, r.pods[0]!.startTime], [-55 * 60_000, -54 * 60_000]);
});
