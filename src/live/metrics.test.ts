import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Metrics } from './metrics.js';

test('claims by NodePool and state, and $/h of the claims not terminating, read at scrape time', async () => {
  const m = new Metrics('1.2.3');
  m.observeClaims({
    claims: () => [
      { nodePool: 'a', state: 'initialized', pricePerHour: 0.077 },
      { nodePool: 'a', state: 'initialized', pricePerHour: 0.085 },
      { nodePool: 'a', state: 'terminating', pricePerHour: 0.5 },
      { nodePool: 'b', state: 'launching', pricePerHour: null },
    ],
  });
  const text = await m.registry.metrics();
  assert.match(text, /^berth_nodeclaims\{nodepool="a",state="initialized"\} 2$/m);
  assert.match(text, /^berth_nodeclaims\{nodepool="a",state="terminating"\} 1$/m);
  assert.match(text, /^berth_nodeclaims\{nodepool="b",state="launching"\} 1$/m);
  assert.match(text, /^berth_nodepools_cost_total\{nodepool="a"\} 0\.162$/m);
  assert.match(text, /^berth_build_info\{version="1\.2\.3",nodeversion="v\d+\.\d+\.\d+"\} 1$/m);
});
