import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextDisruption } from '../disruption/disrupt.js';
import { boundPod, CATALOG, disruptionPool, launched } from './disruption-fakes.test-support.js';
import { disruptionView, podsToEvict, provisioningInFlight, withDisruptedTaint } from './disruption-view.js';
import { liveObjects, pod, T0 } from './test-objects.test-support.js';
import { LABEL_NODE_INITIALIZED } from '../provisioner/labels.js';

const NOW = T0 + 3_600_000;

function rejections(parts: Parameters<typeof liveObjects>[0]) {
  const view = disruptionView(liveObjects({ nodePools: [disruptionPool()], ...parts }), { instanceTypes: CATALOG, nowMs: NOW, lastPodEventMs: new Map() });
  if (!view.ok) assert.fail(view.errors.join('\n'));
  const { decision, rejected } = nextDisruption(view.input);
  return { decision, reasons: Object.fromEntries(rejected.map((r) => [r.node, r.reason])) };
}

test('the engine sees what the API server says: tainted nodes are being disrupted, PDB status blocks', () => {
  const tainted = withDisruptedTaint(launched('tainted'), true)!;
  const pdb = { metadata: { name: 'web', namespace: 'default' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } }, status: { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 } };
  const { decision, reasons } = rejections({ nodes: [tainted, launched('guarded')], pods: [boundPod('web-1', 'guarded')], pdbs: [pdb] });
  assert.equal(decision, undefined);
  assert.deepEqual(reasons, { tainted: 'Candidate is already being disrupted', guarded: 'Pdb prevents pod evictions (PodDisruptionBudget=[default/web])' });
});

test('a NotReady node stays a candidate but spends a disruption of its NodePool, as Karpenter counts it', () => {
  const notReady = (name: string) => ({ ...launched(name), status: { ...(launched(name).status as object), conditions: [{ type: 'Ready', status: 'Unknown' }] } });
  const objects = { nodes: [notReady('lost'), launched('ready-1'), launched('ready-2'), launched('ready-3')] };
  const view = disruptionView(liveObjects({ nodePools: [disruptionPool({ budgets: [{ nodes: '2' }] })], ...objects }), { instanceTypes: CATALOG, nowMs: NOW, lastPodEventMs: new Map() });
  if (!view.ok) assert.fail(view.errors.join('\n'));
  assert.deepEqual([...(view.input.notReady ?? [])], ['lost']);
  // Four empty nodes and a budget of 2: the NotReady node takes one, so one empty node goes (the NotReady one may be it).
  assert.equal(nextDisruption(view.input).decision?.nodes.length, 1);
  assert.deepEqual(nextDisruption({ ...view.input, notReady: new Set() }).decision?.nodes.length, 2);
});

test('a managed node without karpenter.sh/initialized is initializing: not a candidate, counted toward no budget', () => {
  const booting = (name: string) => {
    const n = launched(name);
    const { [LABEL_NODE_INITIALIZED]: _, ...labels } = n.metadata?.labels ?? {};
    return { ...n, metadata: { ...n.metadata, labels } };
  };
  const objects = { nodes: [booting('booting-1'), booting('booting-2'), launched('ready-1'), launched('ready-2')] };
  const view = disruptionView(liveObjects({ nodePools: [disruptionPool({ budgets: [{ nodes: '50%' }] })], ...objects }), { instanceTypes: CATALOG, nowMs: NOW, lastPodEventMs: new Map() });
  if (!view.ok) assert.fail(view.errors.join('\n'));
  assert.deepEqual([...(view.input.initializing ?? [])], ['booting-1', 'booting-2']);
  const { decision, rejected } = nextDisruption(view.input);
  // 50% of the two initialized nodes, not of all four: one empty node goes, not both.
  assert.deepEqual(decision?.nodes, ['ready-1']);
  assert.deepEqual(rejected.filter((r) => r.node.startsWith('booting')).map((r) => `${r.node}: ${r.reason}`), ["booting-1: Node isn't initialized", "booting-2: Node isn't initialized"]);
});

test('an empty Ready node is an Empty decision; the same node with a pod pinned by do-not-disrupt is not a candidate', () => {
  assert.deepEqual(rejections({ nodes: [launched('n1')] }).decision?.reason, 'Empty');
  const pinned = rejections({ nodes: [launched('n1')], pods: [boundPod('p', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })] });
  assert.equal(pinned.decision, undefined);
  assert.match(pinned.reasons.n1!, /do-not-disrupt/);
});

test('the disrupted taint goes on once and comes off, other taints kept', () => {
  const n = { ...launched('n1'), spec: { taints: [{ key: 'gpu', effect: 'NoSchedule' }] } };
  const on = withDisruptedTaint(n, true)!;
  assert.deepEqual((on.spec as { taints: unknown[] }).taints, [{ key: 'gpu', effect: 'NoSchedule' }, { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }]);
  assert.equal(withDisruptedTaint(on, true), undefined);
  assert.deepEqual((withDisruptedTaint(on, false)!.spec as { taints: unknown[] }).taints, [{ key: 'gpu', effect: 'NoSchedule' }]);
});

test('a drain evicts the node’s own pods, not DaemonSet, mirror or finished ones', () => {
  const pods = [boundPod('web', 'n1'), boundPod('ds', 'n1', { owner: 'DaemonSet' }), boundPod('static', 'n1', { annotations: { 'kubernetes.io/config.mirror': 'h' } }), pod('done', { node: 'n1', phase: 'Succeeded' }), boundPod('other', 'n2')];
  assert.deepEqual(podsToEvict(pods, 'n1').map((p) => p.metadata?.name), ['web']);
});

test('disruption waits while pods wait for capacity or claims launch', () => {
  assert.match(provisioningInFlight(liveObjects({ pods: [pod('p', { unschedulable: true })] }))!, /1 pod\(s\) wait/);
  const claims = [{ metadata: { name: 'c1' }, spec: { nodePool: 'default', instanceType: 'c5a.large', zone: 'us-west-2a', capacityType: 'on-demand' } }];
  assert.match(provisioningInFlight(liveObjects({ nodeClaims: claims }))!, /c1 has no node yet/);
  assert.equal(provisioningInFlight(liveObjects({ nodeClaims: claims, nodes: [launched('c1')] })), undefined);
});
