import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Preview } from '../analyze/preview.js';
import { formatPreviewMarkdown, formatPreviewTable } from './preview.js';

const p: Preview = {
  horizonMs: 3_600_000,
  pending: [{ pod: 'shop/db-0', message: '0/2 nodes are available: 2 Insufficient cpu | memory.' }],
  drifted: [],
  expired: [],
  disruptions: [{ atMs: 10_000, reason: 'Drifted', kind: 'replace', nodes: ['n1'], replacements: ['default-x:c6g.large/us-west-2a/on-demand'], savingsPerHour: 0.03, evictions: [{ pod: 'shop/web-a', from: 'n1', predicted: 'default-x', landed: 'default-x' }], doneAtMs: 80_000 }],
  blocked: [],
  descheduled: [],
  costPerHour: { now: 0.1, atHorizon: 0.07 },
};

test('markdown for a PR comment: one table per section with cells escaped, and a line for an empty one', () => {
  const md = formatPreviewMarkdown(p);
  assert.match(md, /^## berth preview\n\nwithin 1h00m00s: 1 disruption command\(s\) over 1 node\(s\); the last command is done at 1m20s;/);
  assert.match(md, /\| shop\/db-0 \| 0\/2 nodes are available: 2 Insufficient cpu \\\| memory\. \|/);
  assert.match(md, /\| 10s \| Drifted \| replace \| n1 \| default-x:c6g\.large\/us-west-2a\/on-demand \| 1m20s \| shop\/web-a → default-x \|/);
  assert.match(md, /### Karpenter: drifted nodes\n\n_no node is drifted_/);
});

test('the table output says where each pod went, and when a pod was not placed by the horizon', () => {
  const out = formatPreviewTable({ ...p, disruptions: [{ ...p.disruptions[0]!, evictions: [{ pod: 'shop/web-a', from: 'n1', predicted: 'default-x', landed: '' }], doneAtMs: undefined }] });
  assert.match(out, /draining\s+shop\/web-a → \(not placed\) \(predicted default-x\)/);
  assert.match(out, /the last command is done at a time past the horizon/);
});
