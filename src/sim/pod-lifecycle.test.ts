import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clusterWithNodes, pod } from './test-fixtures.js';
import { createSimulation } from './simulation.js';

describe('pod lifecycle', () => {
  it('a pod the input shows Running on a node is Ready from the start; a pending one only after start and readiness delays', () => {
    const cluster = clusterWithNodes([{ name: 'n' }]);
    cluster.addPod({ ...pod('running', { nodeName: 'n' }), phase: 'Running' });
    cluster.addPod(pod('waiting'));
    const sim = createSimulation(cluster);
    assert.equal(sim.world.isReady('default/running'), true);
    assert.equal(sim.world.isReady('default/waiting'), false);
    sim.engine.run(10_000);
    assert.equal(sim.world.readySince('default/running'), 0);
    assert.equal(sim.world.readySince('default/waiting'), 2000);
  });
});
