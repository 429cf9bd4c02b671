import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { AffinityManifest, NodeSelectorTermManifest } from '../../model/manifest.js';
import type { Pod } from '../../model/pod.js';
import type { Requirement } from '../../model/selector.js';
import { buildPlugin, byName, clusterOf, mkNode, mkPod, nodeInfoWith, scoreNodes, statusOf } from '../../../test/fixtures/plugin-harness.js';
import { CycleState, type FilterPlugin, type PreFilterPlugin, type PreScorePlugin, type ScorePlugin } from '../framework.js';
import { Code } from '../status.js';
import { ERR_REASON_CONFLICT, ERR_REASON_ENFORCED, ERR_REASON_POD, NODE_AFFINITY, newNodeAffinity } from './node-affinity.js';

type NA = PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin;

let seq = 0;
const required = (...terms: NodeSelectorTermManifest[]): AffinityManifest => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });
const withAffinity = (affinity: AffinityManifest, nodeSelector?: Record<string, string>): Pod => mkPod(`p${seq++}`, { affinity, ...(nodeSelector ? { nodeSelector } : {}) });
const expr = (key: string, operator: Requirement['operator'], values: string[] = []): Requirement => ({ key, operator, values });
const nameIn = (name: string): Requirement => ({ key: 'metadata.name', operator: 'In', values: [name] });

const POD_MISMATCH = { code: Code.UnschedulableAndUnresolvable, reasons: ["node(s) didn't match Pod's node affinity/selector"] };
const ENFORCED = { code: Code.UnschedulableAndUnresolvable, reasons: ["node(s) didn't match scheduler-enforced node affinity"] };

describe('NodeAffinity PreFilter and Filter (TestNodeAffinity)', () => {
  const cases: {
    name: string;
    pod: Pod;
    labels?: Record<string, string>;
    nodeName?: string;
    args?: Record<string, unknown>;
    want?: { code: Code; reasons: string[] };
    preFilter?: 'skip' | { code: Code; reasons: string[] };
    preFilterNames?: string[];
    runPreFilter?: boolean;
  }[] = [
    { name: 'missing labels', pod: mkPod('p', { nodeSelector: { foo: 'bar' } }), want: POD_MISMATCH },
    { name: 'same labels', pod: mkPod('p', { nodeSelector: { foo: 'bar' } }), labels: { foo: 'bar' } },
    { name: 'node labels are superset', pod: mkPod('p', { nodeSelector: { foo: 'bar' } }), labels: { foo: 'bar', baz: 'blah' } },
    { name: 'node labels are subset', pod: mkPod('p', { nodeSelector: { foo: 'bar', baz: 'blah' } }), labels: { foo: 'bar' }, want: POD_MISMATCH },
    { name: 'Pod with matchExpressions using In operator that matches the existing node', pod: withAffinity(required({ matchExpressions: [expr('foo', 'In', ['bar', 'value2'])] })), labels: { foo: 'bar' } },
    { name: 'Pod with matchExpressions using Gt operator that matches the existing node', pod: withAffinity(required({ matchExpressions: [expr('kernel-version', 'Gt', ['0204'])] })), labels: { 'kernel-version': '0206' } },
    { name: 'Pod with matchExpressions using NotIn operator that matches the existing node', pod: withAffinity(required({ matchExpressions: [expr('mem-type', 'NotIn', ['DDR', 'DDR2'])] })), labels: { 'mem-type': 'DDR3' } },
    { name: 'Pod with matchExpressions using Exists operator that matches the existing node', pod: withAffinity(required({ matchExpressions: [expr('GPU', 'Exists')] })), labels: { GPU: 'NVIDIA-GRID-K1' } },
    { name: "Pod with affinity that don't match node's labels won't schedule onto the node", pod: withAffinity(required({ matchExpressions: [expr('foo', 'In', ['value1', 'value2'])] })), labels: { foo: 'bar' }, want: POD_MISMATCH },
    { name: 'Pod with empty MatchExpressions is not a valid value will match no objects and won\'t schedule onto the node', pod: withAffinity(required({ matchExpressions: [] })), labels: { foo: 'bar' }, want: POD_MISMATCH },
    { name: 'Pod with no Affinity will schedule onto a node', pod: mkPod('p'), labels: { foo: 'bar' }, preFilter: 'skip' },
    { name: 'Pod with Affinity but nil NodeSelector will schedule onto a node', pod: withAffinity({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: null } }), labels: { foo: 'bar' }, preFilter: 'skip' },
    { name: 'Pod with only preferred node affinity skips filtering', pod: withAffinity({ nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [expr('foo', 'In', ['x'])] } }] } }), preFilter: 'skip' },
    { name: 'Pod with multiple matchExpressions ANDed that matches the existing node', pod: withAffinity(required({ matchExpressions: [expr('GPU', 'Exists'), expr('GPU', 'NotIn', ['AMD', 'INTER'])] })), labels: { GPU: 'NVIDIA-GRID-K1' } },
    { name: "Pod with multiple matchExpressions ANDed that doesn't match the existing node", pod: withAffinity(required({ matchExpressions: [expr('GPU', 'Exists'), expr('GPU', 'In', ['AMD', 'INTER'])] })), labels: { GPU: 'NVIDIA-GRID-K1' }, want: POD_MISMATCH },
    {
      name: "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
      pod: withAffinity(required({ matchExpressions: [expr('foo', 'In', ['bar', 'value2'])] }, { matchExpressions: [expr('diffkey', 'In', ['wrong', 'value2'])] })),
      labels: { foo: 'bar' },
    },
    { name: 'Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node', pod: withAffinity(required({ matchExpressions: [expr('foo', 'Exists')] }), { foo: 'bar' }), labels: { foo: 'bar' } },
    { name: "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node", pod: withAffinity(required({ matchExpressions: [expr('foo', 'Exists')] }), { foo: 'bar' }), labels: { foo: 'barrrrrr' }, want: POD_MISMATCH },
    { name: 'Pod with matchFields using In operator that matches the existing node', pod: withAffinity(required({ matchFields: [nameIn('node1')] })), nodeName: 'node1', preFilterNames: ['node1'] },
    { name: 'Pod with matchFields using In operator that does not match the existing node', pod: withAffinity(required({ matchFields: [nameIn('node1')] })), nodeName: 'node2', want: POD_MISMATCH, preFilterNames: ['node1'] },
    { name: 'Pod with two terms: matchFields does not match, but matchExpressions matches', pod: withAffinity(required({ matchFields: [nameIn('node1')] }, { matchExpressions: [expr('foo', 'In', ['bar'])] })), nodeName: 'node2', labels: { foo: 'bar' } },
    { name: 'Pod with one term: matchFields does not match, but matchExpressions matches', pod: withAffinity(required({ matchFields: [nameIn('node1')], matchExpressions: [expr('foo', 'In', ['bar'])] })), nodeName: 'node2', labels: { foo: 'bar' }, want: POD_MISMATCH, preFilterNames: ['node1'] },
    { name: 'Pod with one term: both matchFields and matchExpressions match', pod: withAffinity(required({ matchFields: [nameIn('node1')], matchExpressions: [expr('foo', 'In', ['bar'])] })), nodeName: 'node1', labels: { foo: 'bar' }, preFilterNames: ['node1'] },
    { name: 'Pod with two terms: both matchFields and matchExpressions do not match', pod: withAffinity(required({ matchFields: [nameIn('node1')] }, { matchExpressions: [expr('foo', 'In', ['not-match-to-bar'])] })), nodeName: 'node2', labels: { foo: 'bar' }, want: POD_MISMATCH },
    { name: 'Pod with two terms of node.Name affinity', pod: withAffinity(required({ matchFields: [nameIn('node1')] }, { matchFields: [nameIn('node2')] })), nodeName: 'node2', preFilterNames: ['node1', 'node2'] },
    {
      name: 'Pod with two conflicting mach field requirements',
      pod: withAffinity(required({ matchFields: [nameIn('node1'), nameIn('node2')] })),
      nodeName: 'node2',
      labels: { foo: 'bar' },
      preFilter: { code: Code.UnschedulableAndUnresolvable, reasons: ['pod affinity terms conflict'] },
      want: POD_MISMATCH,
    },
    { name: 'a NotIn on metadata.name does not restrict the PreFilter node set', pod: withAffinity(required({ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['node1'] }] })), nodeName: 'node2' },
    {
      name: 'Matches added affinity and Pod\'s node affinity',
      pod: withAffinity(required({ matchExpressions: [expr('zone', 'In', ['foo'])] })),
      nodeName: 'node2',
      labels: { zone: 'foo' },
      args: { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [nameIn('node2')] }] } } },
    },
    {
      name: "Matches added affinity but not Pod's node affinity",
      pod: withAffinity(required({ matchExpressions: [expr('zone', 'In', ['bar'])] })),
      nodeName: 'node2',
      labels: { zone: 'foo' },
      args: { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [nameIn('node2')] }] } } },
      want: POD_MISMATCH,
    },
    {
      name: "Doesn't match added affinity",
      pod: mkPod('p'),
      nodeName: 'node2',
      labels: { zone: 'foo' },
      args: { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [expr('zone', 'In', ['bar'])] }] } } },
      want: ENFORCED,
    },
    {
      name: 'added affinity is checked before the pod\'s own affinity',
      pod: withAffinity(required({ matchExpressions: [expr('zone', 'In', ['bar'])] })),
      nodeName: 'node2',
      labels: { zone: 'foo' },
      args: { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [expr('zone', 'In', ['bar'])] }] } } },
      want: ENFORCED,
    },
    { name: 'Matches node selector correctly even if PreFilter is not called', pod: mkPod('p', { nodeSelector: { foo: 'bar' } }), labels: { foo: 'bar', baz: 'blah' }, runPreFilter: false },
    { name: 'Matches node affinity correctly even if PreFilter is not called', pod: withAffinity(required({ matchExpressions: [expr('GPU', 'Exists'), expr('GPU', 'NotIn', ['AMD', 'INTER'])] })), labels: { GPU: 'NVIDIA-GRID-K1' }, runPreFilter: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { plugin } = buildPlugin<NA>(newNodeAffinity, c.args ?? {});
      assert.equal(plugin.name, NODE_AFFINITY);
      const info = nodeInfoWith(mkNode(c.nodeName ?? 'node', { labels: c.labels ?? {} }));
      const state = new CycleState();
      if (c.runPreFilter ?? true) {
        const { result, status } = plugin.preFilter(state, c.pod, [info]);
        if (c.preFilter === 'skip') assert.ok(status.isSkip());
        else if (c.preFilter) assert.deepEqual(statusOf(status), c.preFilter);
        else assert.ok(status.isSuccess(), status.message());
        assert.deepEqual(result?.nodeNames ? [...result.nodeNames].sort() : undefined, c.preFilterNames);
      }
      const status = plugin.filter(state, c.pod, info);
      if (c.want) assert.deepEqual(statusOf(status), c.want);
      else assert.ok(status.isSuccess(), status.message());
    });
  }

  it('addedAffinity alone prevents the PreFilter skip', () => {
    const { plugin } = buildPlugin<NA>(newNodeAffinity, { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [expr('zone', 'Exists')] }] } } });
    assert.ok(plugin.preFilter(new CycleState(), mkPod('p'), []).status.isSuccess());
  });

  it('addedAffinity requirements written without values (Exists) work as in a pod', () => {
    // Config args are not decoded by the manifest schema: `values` is simply absent.
    const exists = { key: 'zone', operator: 'Exists' };
    const { plugin } = buildPlugin<NA>(newNodeAffinity, {
      addedAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [exists] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, preference: { matchExpressions: [exists] } }],
      },
    });
    const state = new CycleState();
    const pod = mkPod('p');
    assert.ok(plugin.preFilter(state, pod, []).status.isSuccess());
    assert.ok(plugin.filter(state, pod, nodeInfoWith(mkNode('a', { labels: { zone: 'z1' } }))).isSuccess());
    assert.deepEqual(statusOf(plugin.filter(state, pod, nodeInfoWith(mkNode('b')))), ENFORCED);
  });

  it('reason strings', () => {
    assert.equal(ERR_REASON_POD, "node(s) didn't match Pod's node affinity/selector");
    assert.equal(ERR_REASON_ENFORCED, "node(s) didn't match scheduler-enforced node affinity");
    assert.equal(ERR_REASON_CONFLICT, 'pod affinity terms conflict');
  });

  it('invalid required addedAffinity names the term and requirement', () => {
    assert.throws(
      () => buildPlugin(newNodeAffinity, { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Bogus', values: [] }] }] } } }),
      { message: 'addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Bogus": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"' },
    );
  });

  it('invalid addedAffinity is rejected with its field path', () => {
    assert.throws(
      () => buildPlugin(newNodeAffinity, { addedAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1', 'node-2'] }] } }] } }),
      { message: 'addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0].values: Invalid value: ["node-1","node-2"]: must have one element' },
    );
  });

  // Messages as kube-scheduler v1.37.2 prints them for these args (checked against the conformance oracle).
  const gt = (v: string) => ({ matchExpressions: [{ key: 'tier', operator: 'Gt', values: [v] }] });
  const REQ = 'addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';
  const argErrors: { name: string; added: Record<string, unknown>; message: string }[] = [
    {
      name: 'every bad requirement is reported, required terms then preferred ones',
      added: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [gt('x'), {}, gt('y')] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 3, preference: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] } }],
      },
      message:
        `[${REQ}[0].matchExpressions[0].values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer, ` +
        `${REQ}[2].matchExpressions[0].values[0]: Invalid value: "y": for 'Gt', 'Lt' operators, the value must be an integer, ` +
        "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchExpressions[0].values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty]",
    },
    {
      name: 'labels.NewRequirement wording for Exists with values',
      added: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }] } },
      message: `${REQ}[0].matchExpressions[0].values: Invalid value: ["x"]: values set must be empty for exists and does not exist`,
    },
    {
      name: 'a Gt with two non-integers: the count and each value',
      added: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Lt', values: ['x', 'y'] }] }] } },
      message:
        `[${REQ}[0].matchExpressions[0].values: Invalid value: ["x","y"]: for 'Gt', 'Lt' operators, exactly one value is required, ` +
        `${REQ}[0].matchExpressions[0].values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer, ` +
        `${REQ}[0].matchExpressions[0].values[1]: Invalid value: "y": for 'Gt', 'Lt' operators, the value must be an integer]`,
    },
    {
      name: 'label values are validated, at values[i][key]',
      added: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['-bad-'] }] }] } },
      message: `${REQ}[0].matchExpressions[0].values[0][a]: Invalid value: "-bad-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    },
    {
      name: 'a field selector operator other than In/NotIn',
      added: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'Exists' }] }] } },
      message: `${REQ}[0].matchFields[0].operator: Unsupported value: "Exists": supported values: "In", "NotIn"`,
    },
  ];
  for (const c of argErrors) {
    it(`addedAffinity: ${c.name}`, () => assert.throws(() => buildPlugin(newNodeAffinity, { addedAffinity: c.added }), { message: c.message }));
  }

  it('addedAffinity: field selector keys are not validated; a node has no field but metadata.name', () => {
    const term = (operator: string) => ({ requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'spec.x', operator, values: ['a'] }] }] } });
    const info = nodeInfoWith(mkNode('a'));
    for (const [operator, passes] of [['In', false], ['NotIn', true]] as const) {
      const { plugin } = buildPlugin<NA>(newNodeAffinity, { addedAffinity: term(operator) });
      const state = new CycleState();
      plugin.preFilter(state, mkPod('p'), [info]);
      assert.equal(plugin.filter(state, mkPod('p'), info).isSuccess(), passes, operator);
    }
  });

  it('addedAffinity: a preferred term of weight 0 is neither checked nor scored, but keeps PreScore from skipping', () => {
    const { plugin } = buildPlugin<NA>(newNodeAffinity, { addedAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: gt('x') }] } });
    assert.ok(plugin.preScore(new CycleState(), mkPod('p'), []).isSuccess());
    assert.equal(plugin.score(new CycleState(), mkPod('p'), nodeInfoWith(mkNode('a', { labels: { tier: '9' } }))), 0);
  });
});

describe('NodeAffinity Score (TestNodeAffinityPriority)', () => {
  const label1 = { foo: 'bar' };
  const label2 = { key: 'value' };
  const label3 = { az: 'az1' };
  const label4 = { abc: 'az11', def: 'az22' };
  const label5 = { foo: 'bar', key: 'value', az: 'az1' };
  const affinity1: AffinityManifest = { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 2, preference: { matchExpressions: [expr('foo', 'In', ['bar'])] } }] } };
  const affinity2: AffinityManifest = {
    nodeAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 2, preference: { matchExpressions: [expr('foo', 'In', ['bar'])] } },
        { weight: 4, preference: { matchExpressions: [expr('key', 'In', ['value'])] } },
        { weight: 5, preference: { matchExpressions: [expr('foo', 'In', ['bar']), expr('key', 'In', ['value']), expr('az', 'In', ['az1'])] } },
      ],
    },
  };
  const nodes = (...specs: [string, Record<string, string>][]) => specs.map(([name, labels]) => mkNode(name, { labels }));
  const cases: { name: string; pod: Pod; nodes: ReturnType<typeof nodes>; args?: Record<string, unknown>; want?: Record<string, number>; skip?: boolean; runPreScore?: boolean }[] = [
    { name: 'all nodes are same priority as NodeAffinity is nil', pod: mkPod('p'), nodes: nodes(['node1', label1], ['node2', label2], ['node3', label3]), want: { node1: 0, node2: 0, node3: 0 }, runPreScore: false },
    { name: 'Skip is returned in PreScore when NodeAffinity is nil', pod: mkPod('p'), nodes: nodes(['node1', label1]), skip: true },
    { name: "no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero", pod: withAffinity(affinity1), nodes: nodes(['node1', label4], ['node2', label2], ['node3', label3]), want: { node1: 0, node2: 0, node3: 0 } },
    { name: 'only node1 matches the preferred scheduling requirements of pod', pod: withAffinity(affinity1), nodes: nodes(['node1', label1], ['node2', label2], ['node3', label3]), want: { node1: 100, node2: 0, node3: 0 } },
    { name: 'all nodes matches the preferred scheduling requirements of pod but with different priorities', pod: withAffinity(affinity2), nodes: nodes(['node1', label1], ['node5', label5], ['node2', label2]), want: { node1: 18, node5: 100, node2: 36 } },
    { name: 'added affinity', pod: mkPod('p'), nodes: nodes(['node1', label1], ['node2', label2]), args: { addedAffinity: affinity1.nodeAffinity }, want: { node1: 100, node2: 0 } },
    {
      name: 'added affinity and pod has default affinity',
      pod: withAffinity(affinity1),
      nodes: nodes(['node1', label1], ['node2', label2], ['node3', label5]),
      args: { addedAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 3, preference: { matchExpressions: [expr('key', 'In', ['value'])] } }] } },
      want: { node1: 40, node2: 60, node3: 100 },
    },
    { name: 'calculate the priorities correctly even if PreScore is not called', pod: withAffinity(affinity2), nodes: nodes(['node1', label1], ['node5', label5], ['node2', label2]), want: { node1: 18, node5: 100, node2: 36 }, runPreScore: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cluster = clusterOf(c.nodes);
      const { plugin } = buildPlugin<NA>(newNodeAffinity, c.args ?? {}, cluster);
      const { scores, preScore } = scoreNodes(plugin, c.pod, cluster, c.runPreScore ?? true);
      if (c.skip) {
        assert.ok(preScore?.isSkip());
        return;
      }
      if (c.runPreScore ?? true) assert.ok(preScore?.isSuccess());
      assert.deepEqual(byName(scores), c.want);
    });
  }
});
