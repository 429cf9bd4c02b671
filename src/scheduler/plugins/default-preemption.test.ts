import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { Pod } from '../../model/pod.js';
import { filtered, harness, mkNode, mkPod, type Setup } from '../../../test/fixtures/preemption-harness.js';
import { Code } from '../status.js';
import { DEFAULT_PREEMPTION, parseDefaultPreemptionArgs } from './default-preemption.js';

describe('parseDefaultPreemptionArgs', () => {
  const ok = [
    { name: 'defaults', args: {}, want: { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 } },
    { name: 'null means default', args: { minCandidateNodesPercentage: null }, want: { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 } },
    { name: 'explicit values', args: { minCandidateNodesPercentage: 50, minCandidateNodesAbsolute: 3 }, want: { minCandidateNodesPercentage: 50, minCandidateNodesAbsolute: 3 } },
    { name: 'zero percentage with an absolute', args: { minCandidateNodesPercentage: 0 }, want: { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 100 } },
    { name: 'zero absolute with a percentage', args: { minCandidateNodesAbsolute: 0 }, want: { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 0 } },
  ];
  for (const c of ok) it(c.name, () => assert.deepEqual(parseDefaultPreemptionArgs(c.args), c.want));

  const bad = [
    { name: 'percentage above 100', args: { minCandidateNodesPercentage: 101 }, message: 'minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]' },
    { name: 'negative percentage', args: { minCandidateNodesPercentage: -1 }, message: 'minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]' },
    { name: 'negative absolute', args: { minCandidateNodesAbsolute: -5 }, message: 'minCandidateNodesAbsolute: Invalid value: -5: not in valid range [0, inf)' },
    {
      name: 'both zero',
      args: { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0 },
      message:
        '[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage]',
    },
    {
      name: 'both out of range',
      args: { minCandidateNodesPercentage: 200, minCandidateNodesAbsolute: -1 },
      message: '[minCandidateNodesPercentage: Invalid value: 200: not in valid range [0, 100], minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)]',
    },
    { name: 'not an integer', args: { minCandidateNodesPercentage: 2.5 }, message: 'DefaultPreemptionArgs.minCandidateNodesPercentage: must be a 32-bit integer, got 2.5' },
    { name: 'not a number', args: { minCandidateNodesAbsolute: '3' }, message: 'DefaultPreemptionArgs.minCandidateNodesAbsolute: must be a 32-bit integer, got "3"' },
  ];
  for (const c of bad) it(`rejects: ${c.name}`, () => assert.throws(() => parseDefaultPreemptionArgs(c.args), { message: c.message }));
});

/** The FailedScheduling message for `preemptor`, with DefaultPreemption's part at the end. */
function message(setup: Setup, preemptor: Pod): string {
  const h = harness({ ...setup, pods: [...(setup.pods ?? []), preemptor] });
  const outcome = h.scheduler.schedulePod(preemptor);
  if (outcome.kind !== 'unschedulable') throw new Error('expected the preemptor not to fit');
  return outcome.message;
}

const zoneA = { 'topology.kubernetes.io/zone': 'a' };

describe('DefaultPreemption messages', () => {
  const cases: { name: string; setup: Setup; preemptor: Pod; want: string }[] = [
    {
      name: 'success names the node and the number of victims',
      setup: { nodes: [mkNode('n1')], pods: [mkPod('low', { node: 'n1', priority: 1 }), mkPod('mid', { node: 'n1', priority: 5 })] },
      preemptor: mkPod('hi', { priority: 10 }),
      want: '0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 1 victims',
    },
    {
      name: 'no lower-priority pods anywhere',
      setup: { nodes: ['n1', 'n2', 'n3'].map((n) => mkNode(n, { cpu: '1' })), pods: ['n1', 'n2', 'n3'].map((n) => mkPod(`x-${n}`, { node: n, priority: 10 })) },
      preemptor: mkPod('hi', { priority: 10 }),
      want: '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
    },
    {
      name: 'only unresolvable nodes: preemption is not helpful',
      setup: { nodes: [mkNode('n1', { zone: 'b' })], pods: [] },
      preemptor: mkPod('hi', { priority: 10, nodeSelector: zoneA }),
      want: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
    },
    {
      name: 'mixed: unresolvable, no victims, too big even when emptied',
      setup: {
        nodes: [mkNode('n1', { zone: 'b' }), mkNode('n2', { cpu: '1', zone: 'a' }), mkNode('n3', { cpu: '1', zone: 'a' })],
        pods: [mkPod('same', { node: 'n2', priority: 10 }), mkPod('low', { node: 'n3', priority: 1 })],
      },
      preemptor: mkPod('hi', { priority: 10, cpu: '2', nodeSelector: zoneA }),
      want:
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu. " +
        'preemption: 0/3 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.',
    },
    {
      name: 'preemptionPolicy Never',
      setup: { nodes: [mkNode('n1', { cpu: '1' })], pods: [mkPod('low', { node: 'n1', priority: 1 })] },
      preemptor: mkPod('hi', { priority: 10, policy: 'Never' }),
      want: '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.',
    },
    {
      name: 'a victim of an earlier preemption is still terminating on the nominated node',
      setup: { nodes: [mkNode('n1', { cpu: '1' })], pods: [mkPod('victim', { node: 'n1', priority: 1, terminating: true, preempted: true })] },
      preemptor: mkPod('hi', { priority: 10, nominated: 'n1' }),
      want: '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to a terminating pod on the nominated node.',
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(message(c.setup, c.preemptor), c.want));
});

describe('PodEligibleToPreemptOthers', () => {
  const notEligible = 'preemption: not eligible due to a terminating pod on the nominated node.';
  const cases: { name: string; setup: Setup; preemptor: Pod; eligible: boolean }[] = [
    {
      name: 'terminating for another reason than preemption does not block',
      setup: { nodes: [mkNode('n1', { cpu: '1' })], pods: [mkPod('dying', { node: 'n1', priority: 1, terminating: true })] },
      preemptor: mkPod('hi', { priority: 10, nominated: 'n1' }),
      eligible: true,
    },
    {
      name: 'the DisruptionTarget condition alone (not deleted) does not block',
      setup: { nodes: [mkNode('n1', { cpu: '1' })], pods: [mkPod('marked', { node: 'n1', priority: 1, preempted: true })] },
      preemptor: mkPod('hi', { priority: 10, nominated: 'n1' }),
      eligible: true,
    },
    {
      name: 'a terminating victim of higher priority does not block',
      setup: { nodes: [mkNode('n1', { cpu: '1' }), mkNode('n2', { cpu: '1' })], pods: [mkPod('v', { node: 'n1', priority: 20, terminating: true, preempted: true }), mkPod('low', { node: 'n2', priority: 1 })] },
      preemptor: mkPod('hi', { priority: 10, nominated: 'n1' }),
      eligible: true,
    },
    {
      name: 'a terminating victim on another node does not block',
      setup: { nodes: [mkNode('n1', { cpu: '1' }), mkNode('n2', { cpu: '1' })], pods: [mkPod('low', { node: 'n1', priority: 1 }), mkPod('v', { node: 'n2', priority: 1, terminating: true, preempted: true })] },
      preemptor: mkPod('hi', { priority: 10, nominated: 'n1' }),
      eligible: true,
    },
    {
      name: 'an unresolvable nominated node lets the pod preempt elsewhere',
      setup: {
        nodes: [mkNode('n1', { cpu: '1', zone: 'b' }), mkNode('n2', { cpu: '1', zone: 'a' })],
        pods: [mkPod('v', { node: 'n1', priority: 1, terminating: true, preempted: true }), mkPod('low', { node: 'n2', priority: 1 })],
      },
      preemptor: mkPod('hi', { priority: 10, nominated: 'n1', nodeSelector: zoneA }),
      eligible: true,
    },
    {
      name: "a nomination kept only by the scheduler's nominator counts",
      setup: { nodes: [mkNode('n1', { cpu: '1' })], pods: [mkPod('victim', { node: 'n1', priority: 1, terminating: true, preempted: true })] },
      preemptor: mkPod('hi', { priority: 10 }),
      eligible: false,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const setup = c.name.includes('nominator') ? { ...c.setup, nominated: { n1: [c.preemptor] } } : c.setup;
      assert.equal(message(setup, c.preemptor).endsWith(notEligible), !c.eligible);
    });
  }
});

describe('DefaultPreemption plugin', () => {
  it('is named DefaultPreemption', () => {
    assert.equal(harness({ nodes: [mkNode('n1')] }).preemption.name, DEFAULT_PREEMPTION);
    assert.equal(DEFAULT_PREEMPTION, 'DefaultPreemption');
  });

  it('rejects invalid args when built', () => {
    assert.throws(() => harness({ nodes: [mkNode('n1')], args: { minCandidateNodesPercentage: 101 } }), /not in valid range \[0, 100\]/);
  });

  it('asks to clear the nomination when preemption cannot help', () => {
    const h = harness({ nodes: [mkNode('n1', { zone: 'b' })] });
    const preemptor = mkPod('hi', { priority: 10, nodeSelector: zoneA, nominated: 'n1' });
    const { state, statuses } = filtered(h, preemptor);
    const r = h.preemption.postFilter(state, preemptor, statuses);
    assert.equal(r.status.code, Code.Unschedulable);
    assert.deepEqual(r.result, { nominatedNodeName: '', victims: [] });
  });

  it('leaves the nomination alone when the pod may not preempt', () => {
    const h = harness({ nodes: [mkNode('n1', { cpu: '1' })], pods: [mkPod('low', { node: 'n1', priority: 1 })] });
    const preemptor = mkPod('hi', { priority: 10, policy: 'Never' });
    const { state, statuses } = filtered(h, preemptor);
    const r = h.preemption.postFilter(state, preemptor, statuses);
    assert.equal(r.status.code, Code.Unschedulable);
    assert.equal(r.result, undefined);
  });

  it('succeeds with the nominated node and its victims', () => {
    const h = harness({ nodes: [mkNode('n1', { cpu: '1' })], pods: [mkPod('low', { node: 'n1', priority: 1 })] });
    const preemptor = mkPod('hi', { priority: 10 });
    const { state, statuses } = filtered(h, preemptor);
    const r = h.preemption.postFilter(state, preemptor, statuses);
    assert.equal(r.status.code, Code.Success);
    assert.equal(r.result?.nominatedNodeName, 'n1');
    assert.deepEqual(
      r.result?.victims.map((p) => p.name),
      ['low'],
    );
  });
});
