import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SvrScenario } from './scenario.js';
import { simTimes } from './sim-side.js';

const scenario: SvrScenario = {
  name: 't',
  nodes: [{ name: 'node-1', zone: 'zone-a', cpuMilli: 1000 }],
  workloads: [{ name: 'w1', kind: 'Deployment', replicas: 2, cpuMilli: 100, antiAffinity: 'none', zoneSpread: 'none' }],
  steps: [{ scale: { workload: 'w1', replicas: 3 } }],
};

describe('simTimes (the simulator replaying the real phase times)', () => {
  it('starts and observes each phase at the real times', () => {
    assert.deepEqual(simTimes(scenario, { startMs: [0, 2_100], endMs: [2_100, 4_500] }), { start: [0, 2_100], end: [2_100, 4_500] });
  });

  it("shifts them by the real start's milliseconds within its second, so whole seconds fall as on the real side (s1-84)", () => {
    // Ready times compared in whole seconds (ActivePodsWithRanks' log2 buckets of ready age) put
    // a scale-down's victims in the same bucket or not depending on where the seconds begin.
    assert.deepEqual(simTimes(scenario, { startMs: [0, 2_100], endMs: [2_100, 4_500], originMs: 730 }), { start: [730, 2_830], end: [2_830, 5_230] });
  });
});
