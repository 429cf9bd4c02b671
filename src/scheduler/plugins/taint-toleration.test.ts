import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { TolerationManifest } from '../../model/manifest.js';
import type { Node } from '../../model/node.js';
import { buildPlugin, byName, clusterOf, mkNode, mkPod, nodeInfoWith, scoreNodes, statusOf } from '../../../test/fixtures/plugin-harness.js';
import type { FeatureGates } from '../feature-gates.js';
import { CycleState, type FilterPlugin, type PreFilterPlugin, type PreScorePlugin, type ScorePlugin } from '../framework.js';
import { Code } from '../status.js';
import { ERR_REASON_UNTOLERATED, newTaintToleration, TAINT_TOLERATION } from './taint-toleration.js';

type TT = PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin;
type Taint = { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' };

const nodeWithTaints = (name: string, taints: Taint[]): Node => mkNode(name, { taints });
const podWithTolerations = (tolerations: TolerationManifest[]) => mkPod('pod1', { tolerations });
const SLA = 'node.kubernetes.io/sla';
const PRIORITY = 'node.example.com/priority-level';
const COMPARISON_ON: FeatureGates = { TaintTolerationComparisonOperators: true };

describe('TaintToleration Score (TestTaintTolerationScore)', () => {
  const cases: { name: string; tolerations: TolerationManifest[]; nodes: Node[]; want: Record<string, number>; features?: FeatureGates }[] = [
    {
      name: 'node with taints tolerated by the pod, gets a higher score than those node with intolerable taints',
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
      nodes: [nodeWithTaints('nodeA', [{ key: 'foo', value: 'bar', effect: 'PreferNoSchedule' }]), nodeWithTaints('nodeB', [{ key: 'foo', value: 'blah', effect: 'PreferNoSchedule' }])],
      want: { nodeA: 100, nodeB: 0 },
    },
    {
      name: 'the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable taints a node has',
      tolerations: [
        { key: 'cpu-type', operator: 'Equal', value: 'arm64', effect: 'PreferNoSchedule' },
        { key: 'disk-type', operator: 'Equal', value: 'ssd', effect: 'PreferNoSchedule' },
      ],
      nodes: [
        nodeWithTaints('nodeA', []),
        nodeWithTaints('nodeB', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }]),
        nodeWithTaints('nodeC', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }, { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' }]),
      ],
      want: { nodeA: 100, nodeB: 100, nodeC: 100 },
    },
    {
      name: 'the more intolerable taints a node has, the lower score it gets.',
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
      nodes: [
        nodeWithTaints('nodeA', []),
        nodeWithTaints('nodeB', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }]),
        nodeWithTaints('nodeC', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }, { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' }]),
      ],
      want: { nodeA: 100, nodeB: 50, nodeC: 0 },
    },
    {
      name: 'only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations priority function',
      tolerations: [
        { key: 'cpu-type', operator: 'Equal', value: 'arm64', effect: 'NoSchedule' },
        { key: 'disk-type', operator: 'Equal', value: 'ssd', effect: 'NoSchedule' },
      ],
      nodes: [
        nodeWithTaints('nodeA', []),
        nodeWithTaints('nodeB', [{ key: 'cpu-type', value: 'arm64', effect: 'NoSchedule' }]),
        nodeWithTaints('nodeC', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }, { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' }]),
      ],
      want: { nodeA: 100, nodeB: 100, nodeC: 0 },
    },
    {
      name: 'Default behaviour No taints and tolerations, lands on node with no taints',
      tolerations: [],
      nodes: [nodeWithTaints('nodeA', []), nodeWithTaints('nodeB', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }])],
      want: { nodeA: 100, nodeB: 0 },
    },
    {
      name: 'a toleration without effect tolerates PreferNoSchedule taints',
      tolerations: [{ key: 'foo', operator: 'Exists' }],
      nodes: [nodeWithTaints('nodeA', [{ key: 'foo', value: 'x', effect: 'PreferNoSchedule' }]), nodeWithTaints('nodeB', [{ key: 'bar', effect: 'PreferNoSchedule' }])],
      want: { nodeA: 100, nodeB: 0 },
    },
    {
      name: 'Numeric Gt operator: pod with Gt toleration prefers nodes with matching SLA taint',
      tolerations: [{ key: SLA, operator: 'Gt', value: '950', effect: 'PreferNoSchedule' }],
      nodes: [nodeWithTaints('nodeA', [{ key: SLA, value: '800', effect: 'PreferNoSchedule' }]), nodeWithTaints('nodeB', [{ key: SLA, value: '999', effect: 'PreferNoSchedule' }])],
      want: { nodeA: 0, nodeB: 100 },
      features: COMPARISON_ON,
    },
    {
      name: 'Numeric Lt operator: pod with Lt toleration prefers nodes with matching SLA taint',
      tolerations: [{ key: SLA, operator: 'Lt', value: '800', effect: 'PreferNoSchedule' }],
      nodes: [nodeWithTaints('nodeA', [{ key: SLA, value: '950', effect: 'PreferNoSchedule' }]), nodeWithTaints('nodeB', [{ key: SLA, value: '700', effect: 'PreferNoSchedule' }])],
      want: { nodeA: 0, nodeB: 100 },
      features: COMPARISON_ON,
    },
    {
      name: 'with the gate off a Gt toleration tolerates no PreferNoSchedule taint',
      tolerations: [{ key: SLA, operator: 'Gt', value: '950', effect: 'PreferNoSchedule' }],
      nodes: [nodeWithTaints('nodeA', []), nodeWithTaints('nodeB', [{ key: SLA, value: '999', effect: 'PreferNoSchedule' }])],
      want: { nodeA: 100, nodeB: 0 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cluster = clusterOf(c.nodes);
      const { plugin } = buildPlugin<TT>(newTaintToleration, {}, cluster, c.features);
      assert.equal(plugin.name, TAINT_TOLERATION);
      const pod = podWithTolerations(c.tolerations);
      assert.deepEqual(byName(scoreNodes(plugin, pod, cluster).scores), c.want);
    });
  }
});

describe('TaintToleration Filter (TestTaintTolerationFilter)', () => {
  const UNTOLERATED = { code: Code.UnschedulableAndUnresolvable, reasons: ['node(s) had untolerated taint(s)'] };
  const cases: { name: string; tolerations: TolerationManifest[]; taints: Taint[]; want: typeof UNTOLERATED | null; features?: FeatureGates }[] = [
    { name: "A pod having no tolerations can't be scheduled onto a node with nonempty taints", tolerations: [], taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }], want: UNTOLERATED },
    { name: 'A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule', tolerations: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }], taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }], want: null },
    { name: "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule", tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }], taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }], want: UNTOLERATED },
    { name: 'A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node', tolerations: [{ key: 'foo', operator: 'Exists', effect: 'NoSchedule' }], taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }], want: null },
    {
      name: 'A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node',
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }, { key: 'foo', operator: 'Exists', effect: 'NoSchedule' }],
      taints: [{ key: 'dedicated', value: 'user2', effect: 'NoSchedule' }, { key: 'foo', value: 'bar', effect: 'NoSchedule' }],
      want: null,
    },
    {
      name: "A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, can't be scheduled onto the node",
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
      taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
      want: UNTOLERATED,
    },
    {
      name: 'The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node',
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar' }],
      taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
      want: null,
    },
    {
      name: "The pod has a toleration that key and value don't match the taint on the node, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'PreferNoSchedule' }],
      want: null,
    },
    { name: 'The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node', tolerations: [], taints: [{ key: 'dedicated', value: 'user1', effect: 'PreferNoSchedule' }], want: null },
    { name: 'NoExecute taints also filter', tolerations: [], taints: [{ key: 'evict', effect: 'NoExecute' }], want: UNTOLERATED },
    { name: 'an empty key with Exists tolerates every taint', tolerations: [{ operator: 'Exists' }], taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', value: 'c', effect: 'NoExecute' }], want: null },
    { name: 'Pod with Gt toleration cannot be scheduled on node when taint value is lower than threshold', tolerations: [{ key: PRIORITY, operator: 'Gt', value: '950', effect: 'NoSchedule' }], taints: [{ key: PRIORITY, value: '800', effect: 'NoSchedule' }], want: UNTOLERATED, features: COMPARISON_ON },
    { name: 'Pod with Gt toleration can be scheduled on node when taint value is higher than threshold', tolerations: [{ key: SLA, operator: 'Gt', value: '750', effect: 'NoSchedule' }], taints: [{ key: SLA, value: '950', effect: 'NoSchedule' }], want: null, features: COMPARISON_ON },
    { name: 'Pod with Lt toleration cannot be scheduled on node when taint value is higher than threshold', tolerations: [{ key: PRIORITY, operator: 'Lt', value: '800', effect: 'NoSchedule' }], taints: [{ key: PRIORITY, value: '950', effect: 'NoSchedule' }], want: UNTOLERATED, features: COMPARISON_ON },
    { name: 'Pod with Lt toleration can be scheduled on node when taint value is lower than threshold', tolerations: [{ key: SLA, operator: 'Lt', value: '950', effect: 'NoSchedule' }], taints: [{ key: SLA, value: '800', effect: 'NoSchedule' }], want: null, features: COMPARISON_ON },
    { name: 'Pod with Gt toleration cannot be scheduled on node with non-numeric taint value', tolerations: [{ key: SLA, operator: 'Gt', value: '950', effect: 'NoSchedule' }], taints: [{ key: SLA, value: 'high', effect: 'NoSchedule' }], want: UNTOLERATED, features: COMPARISON_ON },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { plugin } = buildPlugin<TT>(newTaintToleration, {}, undefined, c.features);
      const pod = podWithTolerations(c.tolerations);
      const state = new CycleState();
      const info = nodeInfoWith(nodeWithTaints('nodeA', c.taints));
      assert.ok(plugin.preFilter(state, pod, [info]).status.isSuccess());
      const status = plugin.filter(state, pod, info);
      if (c.want === null) assert.ok(status.isSuccess());
      else assert.deepEqual(statusOf(status), c.want);
    });
  }
  it('exports the reason string', () => assert.equal(ERR_REASON_UNTOLERATED, 'node(s) had untolerated taint(s)'));
});

describe('TaintToleration Filter and the gate (TestTaintTolerationFilterWithFeatureGate)', () => {
  const UNTOLERATED = { code: Code.UnschedulableAndUnresolvable, reasons: ['node(s) had untolerated taint(s)'] };
  const cases: { name: string; tolerations: TolerationManifest[]; taints: Taint[]; on: boolean; want: typeof UNTOLERATED | null }[] = [
    { name: 'Pod with Gt toleration can be scheduled when feature gate is enabled and taint value is higher', tolerations: [{ key: SLA, operator: 'Gt', value: '750', effect: 'NoSchedule' }], taints: [{ key: SLA, value: '950', effect: 'NoSchedule' }], on: true, want: null },
    { name: 'Pod with Gt toleration cannot be scheduled when feature gate is disabled', tolerations: [{ key: SLA, operator: 'Gt', value: '750', effect: 'NoSchedule' }], taints: [{ key: SLA, value: '950', effect: 'NoSchedule' }], on: false, want: UNTOLERATED },
    { name: 'Pod with Lt toleration can be scheduled when feature gate is enabled and taint value is lower', tolerations: [{ key: SLA, operator: 'Lt', value: '950', effect: 'NoSchedule' }], taints: [{ key: SLA, value: '800', effect: 'NoSchedule' }], on: true, want: null },
    { name: 'Pod with Lt toleration cannot be scheduled when feature gate is disabled', tolerations: [{ key: SLA, operator: 'Lt', value: '950', effect: 'NoSchedule' }], taints: [{ key: SLA, value: '800', effect: 'NoSchedule' }], on: false, want: UNTOLERATED },
    {
      name: 'Pod with mixed tolerations (Equal and Gt) when feature gate is disabled - only Equal is honored',
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user1', effect: 'NoSchedule' }, { key: SLA, operator: 'Gt', value: '750', effect: 'NoSchedule' }],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
      on: false,
      want: null,
    },
    {
      name: 'Pod with mixed tolerations, Gt toleration needed but filtered out when feature gate is disabled',
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user1', effect: 'NoSchedule' }, { key: SLA, operator: 'Gt', value: '750', effect: 'NoSchedule' }],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }, { key: SLA, value: '950', effect: 'NoSchedule' }],
      on: false,
      want: UNTOLERATED,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { plugin } = buildPlugin<TT>(newTaintToleration, {}, undefined, c.on ? COMPARISON_ON : undefined);
      const pod = podWithTolerations(c.tolerations);
      const status = plugin.filter(new CycleState(), pod, nodeInfoWith(nodeWithTaints('nodeA', c.taints)));
      if (c.want === null) assert.ok(status.isSuccess());
      else assert.deepEqual(statusOf(status), c.want);
    });
  }
});
