// The default profile's queueing hints, translated from upstream's per-plugin hint
// tables (each case named after upstream's), plus the event extraction.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterState } from '../cluster/state.js';
import type { PodAffinityTermManifest, PodSpecManifest, TaintManifest } from '../model/manifest.js';
import { compileNode, type Node } from '../model/node.js';
import { compilePod, type Pod } from '../model/pod.js';
import { assignedPodUpdateEvents, nodeUpdateEvents, worthRequeuing, type HintEvent } from './queueing-hints.js';

const cluster = new ClusterState();

function mkPod(name: string, o: { labels?: Record<string, string>; node?: string; cpu?: string; spec?: Partial<PodSpecManifest> } = {}): Pod {
  return compilePod(
    {
      metadata: { name, namespace: 'default', labels: o.labels ?? {} },
      spec: { containers: [{ name: 'c', resources: { requests: { cpu: o.cpu ?? '1' } } }], ...(o.node ? { nodeName: o.node } : {}), ...o.spec },
    },
    { order: 0 },
  );
}

function mkNode(name: string, o: { labels?: Record<string, string>; cpu?: string; unschedulable?: boolean; taints?: TaintManifest[] } = {}): Node {
  return compileNode(
    {
      metadata: { name, labels: o.labels ?? {} },
      spec: { ...(o.unschedulable ? { unschedulable: true } : {}), ...(o.taints ? { taints: o.taints } : {}) },
      status: { allocatable: { cpu: o.cpu ?? '4', memory: '8Gi', pods: 110 } },
    },
    0,
  );
}

const hint = (plugin: string, pod: Pod, e: HintEvent) => worthRequeuing(pod, new Set([plugin]), e, cluster);
const term = (key: string, values: string[], topologyKey: string): PodAffinityTermManifest[] => [{ labelSelector: { matchExpressions: [{ key, operator: 'In', values }] }, topologyKey }];
const affinityPod = mkPod('p', { spec: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: term('service', ['securityscan', 'value2'], 'region') } } } });
const antiPod = mkPod('p', { spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: term('service', ['securityscan', 'value2'], 'region') } } } });

describe('InterPodAffinity hints (interpodaffinity Test_isSchedulableAfterAssignedPodChange)', () => {
  const cases: [string, Pod, HintEvent, boolean][] = [
    ['add a pod which matches the pod affinity', affinityPod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('other', { node: 'fake-node', labels: { service: 'securityscan' } }) }, true],
    ["add a pod which doesn't match the pod affinity", affinityPod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('other', { node: 'fake-node', labels: { aaa: 'a' } }) }, false],
    ...assignedPodUpdateEvents(mkPod('other', { node: 'fake-node', labels: { aaa: 'a' } }), mkPod('other', { node: 'fake-node', labels: { service: 'securityscan' } })).map(
      (e): [string, Pod, HintEvent, boolean] => ['update a pod from non-match to match pod affinity', affinityPod, e, true],
    ),
    ...assignedPodUpdateEvents(mkPod('other', { node: 'fake-node', labels: { service: 'securityscan' } }), mkPod('other', { node: 'fake-node', labels: { service: 'aaaa' } })).map(
      (e): [string, Pod, HintEvent, boolean] => ['modify pod label to change it from satisfying pod anti-affinity to not satisfying anti-affinity', antiPod, e, true],
    ),
    ["delete a pod which doesn't match pod's anti-affinity", antiPod, { resource: 'AssignedPod', action: 'Delete', old: mkPod('other', { node: 'fake-node', labels: { aaa: 'a' } }) }, false],
    ["delete a pod which matches pod's anti-affinity", antiPod, { resource: 'AssignedPod', action: 'Delete', old: mkPod('other', { node: 'fake-node', labels: { service: 'securityscan' } }) }, true],
    // berth's own: adding a pod never helps a pod rejected by its anti-affinity (upstream's Add branch reads only affinity terms).
    ['add a pod matching the anti-affinity', antiPod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('other', { node: 'fake-node', labels: { service: 'securityscan' } }) }, false],
  ];
  for (const [name, pod, e, want] of cases) it(name, () => assert.equal(hint('InterPodAffinity', pod, e), want));
});

describe('NodeUnschedulable hints (nodeunschedulable TestIsSchedulableAfterNodeChange)', () => {
  const pod = mkPod('p');
  it('skip-queue-on-unschedulable-node-added', () => assert.equal(hint('NodeUnschedulable', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { unschedulable: true }) }), false));
  it('queue-on-schedulable-node-added', () => assert.equal(hint('NodeUnschedulable', pod, { resource: 'Node', action: 'Add', node: mkNode('n') }), true));
  it('queue-on-unschedulable-field-change', () => {
    const events = nodeUpdateEvents(mkNode('n', { unschedulable: true }), mkNode('n'));
    assert.equal(events.some((e) => hint('NodeUnschedulable', pod, e)), true);
  });
  it('a cordon moves nothing NodeUnschedulable rejected', () => {
    const events = nodeUpdateEvents(mkNode('n'), mkNode('n', { unschedulable: true }));
    assert.deepEqual(events.map((e) => e.resource === 'Node' && e.action), ['UpdateNodeTaint']);
    assert.equal(events.some((e) => hint('NodeUnschedulable', pod, e)), false);
  });
});

describe('TaintToleration hints (tainttoleration TestIsSchedulableAfterNodeChange)', () => {
  const pod = mkPod('p', { spec: { tolerations: [{ key: 'toleratedTaint', operator: 'Exists', effect: 'NoSchedule' }] } });
  const taint = (key: string): TaintManifest[] => [{ key, value: 'v', effect: 'NoSchedule' }];
  it('skip-queue-on-untoleratedtaint-node-added', () => assert.equal(hint('TaintToleration', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { taints: taint('untoleratedTaint') }) }), false));
  it('queue-on-toleratedtaint-node-added', () => assert.equal(hint('TaintToleration', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { taints: taint('toleratedTaint') }) }), true));
  it('skip-unrelated-change', () => {
    const [e] = nodeUpdateEvents(mkNode('n', { taints: taint('untoleratedTaint') }), mkNode('n', { taints: [...taint('untoleratedTaint'), ...taint('toleratedTaint')] }));
    assert.equal(hint('TaintToleration', pod, e!), false);
  });
  it('queue-on-taint-change', () => {
    const [e] = nodeUpdateEvents(mkNode('n', { taints: taint('untoleratedTaint') }), mkNode('n', { taints: taint('toleratedTaint') }));
    assert.equal(hint('TaintToleration', pod, e!), true);
  });
});

describe('NodeResourcesFit hints (noderesources Test_isSchedulableAfterAssignedPodDelete, Test_isSchedulableAfterNodeChange)', () => {
  const pod = mkPod('p', { cpu: '2' });
  it('backoff-wrong-old-object is not possible here; a deleted scheduled pod queues', () => assert.equal(hint('NodeResourcesFit', pod, { resource: 'AssignedPod', action: 'Delete', old: mkPod('o', { node: 'n' }) }), true));
  it('an added scheduled pod does not queue (no Add registration)', () => assert.equal(hint('NodeResourcesFit', pod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('o', { node: 'n' }) }), false));
  it('queue-node-add-when-pod-fits', () => assert.equal(hint('NodeResourcesFit', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { cpu: '4' }) }), true));
  it("skip-node-add-when-pod-doesn't-fit", () => assert.equal(hint('NodeResourcesFit', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { cpu: '1' }) }), false));
  it('queue-on-allocatable-increase', () => {
    const events = nodeUpdateEvents(mkNode('n', { cpu: '1' }), mkNode('n', { cpu: '4' }));
    assert.equal(events.some((e) => hint('NodeResourcesFit', pod, e)), true);
  });
  it('skip-on-allocatable-decrease', () => {
    const events = nodeUpdateEvents(mkNode('n', { cpu: '8' }), mkNode('n', { cpu: '4' }));
    assert.equal(events.some((e) => hint('NodeResourcesFit', pod, e)), false);
  });
});

describe('PodTopologySpread hints (podtopologyspread Test_isSchedulableAfterNodeChange, Test_isSchedulableAfterAssignedPodChange)', () => {
  const pod = mkPod('p', {
    labels: { foo: '' },
    spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchExpressions: [{ key: 'foo', operator: 'Exists', values: [] }] } }] },
  });
  it('add pod with labels match topologySpreadConstraints selector', () => assert.equal(hint('PodTopologySpread', pod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('o', { node: 'n', labels: { foo: '' } }) }), true));
  it("add pod with labels don't match topologySpreadConstraints selector", () => assert.equal(hint('PodTopologySpread', pod, { resource: 'AssignedPod', action: 'Add', pod: mkPod('o', { node: 'n', labels: { bar: '' } }) }), false));
  it('delete pod with labels that match topologySpreadConstraints selector', () => assert.equal(hint('PodTopologySpread', pod, { resource: 'AssignedPod', action: 'Delete', old: mkPod('o', { node: 'n', labels: { foo: '' } }) }), true));
  it("node updates label which isn't related to topologySpreadConstraints", () => {
    const [e] = nodeUpdateEvents(mkNode('n', { labels: { zone: 'zone1' } }), mkNode('n', { labels: { zone: 'zone1', foo: 'bar' } }));
    assert.equal(hint('PodTopologySpread', pod, e!), false);
  });
  it('node updates topology key label value', () => {
    const [e] = nodeUpdateEvents(mkNode('n', { labels: { zone: 'zone1' } }), mkNode('n', { labels: { zone: 'zone2' } }));
    assert.equal(hint('PodTopologySpread', pod, e!), true);
  });
  it('node taint changed', () => {
    const [e] = nodeUpdateEvents(mkNode('n', { labels: { zone: 'zone1' } }), mkNode('n', { labels: { zone: 'zone1' }, taints: [{ key: 'k', effect: 'NoSchedule' }] }));
    assert.equal(hint('PodTopologySpread', pod, e!), true);
  });
  it('node that does not match topology spread constraints is added', () => assert.equal(hint('PodTopologySpread', pod, { resource: 'Node', action: 'Add', node: mkNode('n', { labels: { foo: 'bar' } }) }), false));
});

describe('worthRequeuing', () => {
  const pod = mkPod('p');
  it('a pod no plugin rejected (an error, or no node at all) moves on any event', () => assert.equal(worthRequeuing(pod, new Set(), { resource: 'AssignedPod', action: 'Add', pod: mkPod('o', { node: 'n' }) }, cluster), true));
  it('a plugin without a modelled hint moves on any event but the generic update', () => {
    const add: HintEvent = { resource: 'AssignedPod', action: 'Add', pod: mkPod('o', { node: 'n' }) };
    assert.equal(worthRequeuing(pod, new Set(['VolumeBinding']), add, cluster), true);
    const [update] = assignedPodUpdateEvents(mkPod('o', { node: 'n' }), { ...mkPod('o', { node: 'n' }), phase: 'Running' });
    assert.equal(worthRequeuing(pod, new Set(['VolumeBinding']), update!, cluster), false);
  });
  it('any rejecting plugin whose hint says Queue moves the pod', () =>
    assert.equal(worthRequeuing(pod, new Set(['InterPodAffinity', 'NodeResourcesFit']), { resource: 'AssignedPod', action: 'Delete', old: mkPod('o', { node: 'n' }) }, cluster), true));
});
