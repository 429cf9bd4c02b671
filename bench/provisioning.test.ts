import { test } from 'node:test';
import assert from 'node:assert/strict';
import { provisioningCase, summarise, type ProvisioningResult } from './provisioning.js';

const run = (cpuSeconds: number, costPerHour = 1, nodeClaims = 2): ProvisioningResult => ({ pods: 10, nodeClaims, unschedulable: 0, costPerHour, seconds: cpuSeconds * 2, cpuSeconds, peakRssMiB: cpuSeconds * 100 });

test('summarise: the first plan is the cold one, the median of the rest is measured, $/h and claims span all', () => {
  const s = summarise([run(9, 3, 4), run(2), run(1, 0.5, 1), run(3)]);
  assert.deepEqual(s.cold, { seconds: 18, cpuSeconds: 9 });
  assert.equal(s.cpuSeconds, 2);
  assert.equal(s.seconds, 4);
  assert.equal(s.plans, 4);
  assert.deepEqual(s.costRange, [0.5, 3]);
  assert.deepEqual(s.nodeRange, [1, 4]);
  assert.equal(s.peakRssMiB, 900);
  assert.equal(summarise([run(9), run(2), run(4)]).cpuSeconds, 2, 'an even count takes the lower middle');
  assert.throws(() => summarise([run(1)]));
});

test('the provisioning case mixes plain, zone-spread, hostname anti-affinity and arm64 pods', () => {
  const c = provisioningCase(400);
  const specs = c.pods.map((p) => p['spec'] as { topologySpreadConstraints?: unknown; affinity?: { podAntiAffinity?: unknown; nodeAffinity?: unknown } });
  assert.equal(specs.filter((s) => s.topologySpreadConstraints).length, 100);
  assert.equal(specs.filter((s) => s.affinity?.nodeAffinity).length, 100);
  assert.equal(specs.filter((s) => s.affinity?.podAntiAffinity).length, 10);
  assert.equal(specs.filter((s) => !s.topologySpreadConstraints && !s.affinity).length, 190);
  assert.equal(c.nodePools.length, 1);
});
