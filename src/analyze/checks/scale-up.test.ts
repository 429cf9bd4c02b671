import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkCases, contextFor, deploymentYaml, listYaml, loadInput, nodeYaml, statefulSetYaml, type CheckCase } from '../test-input.js';
import { scaleUpCheck } from './scale-up.js';

const hpa = (max: number) => `- {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: web, namespace: default}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: ${max}}}`;
const csiNode = (node: string, count: number) => `- {apiVersion: storage.k8s.io/v1, kind: CSINode, metadata: {name: ${node}}, spec: {drivers: [{name: ebs.csi.aws.com, nodeID: ${node}, allocatable: {count: ${count}}}]}}`;
const gp3 = '- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: gp3, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}, provisioner: ebs.csi.aws.com, volumeBindingMode: WaitForFirstConsumer}';
const pool = () => loadInput({ file: 'examples/nodepools/default.yaml' }).nodePools;

const cases: CheckCase[] = [
  { name: 'clean: twice the replicas (--scale-up 2) fit on the nodes there are', scaleUp: 2, input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'b'), deploymentYaml('web', 3)) }), want: [] },
  { name: 'the HPA maximum does not fit and there is no NodePool: an error', input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), deploymentYaml('web', 2), hpa(12)) }), want: ['error Deployment/default/web'], message: /at 12 replicas \(HorizontalPodAutoscaler web maxReplicas\) 4 of 10 new replica\(s\) cannot be placed/ },
  { name: 'twice the replicas (--scale-up 2) do not fit: a warning', scaleUp: 2, input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a', '2'), deploymentYaml('web', 3)) }), want: ['warning Deployment/default/web'], message: /at 6 replicas \(--scale-up 2 of its 3 replicas\) 2 of 3 new replica\(s\) cannot be placed/ },
  { name: 'no autoscaler and no --scale-up: not scaled, so nothing to report', input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a', '2'), deploymentYaml('web', 3)) }), want: [] },
  {
    name: 'with a NodePool the provisioner adds nodes: how many and at what cost',
    input: () => ({ ...loadInput({ text: listYaml(nodeYaml('n1', 'us-west-2a', '2'), deploymentYaml('web', 3), hpa(12)) }), nodePools: pool() }),
    provisioner: true,
    want: ['info Deployment/default/web'],
    message: /at 12 replicas \(HorizontalPodAutoscaler web maxReplicas\) the provisioner adds 1 node\(s\) \(.+\), \+\$\d+\.\d{3}\/h/,
  },
];

describe('scale-up', () =>
  checkCases(scaleUpCheck, cases, (f) => {
    assert.match(f.evidence[0]!, /^planned: scale Deployment\/default\/web/);
    if (f.severity !== 'info') assert.ok(f.remedies && f.remedies.length > 0);
  }));

describe('scale-up with volumes', () => {
  it('a StatefulSet whose new ordinals\' claims exceed the node\'s CSI attach limit: the finding carries NodeVolumeLimits\' reason', () => {
    // 3 EBS attachments allowed on n1, 2 replicas mount 2: of the 2 new ordinals (each with its own new claim) one fits.
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'us-west-2a'), csiNode('n1', 3), gp3, statefulSetYaml('db', 2)) });
    const [f, ...rest] = scaleUpCheck.run(contextFor(input, { scaleUp: 2 }));
    assert.equal(rest.length, 0);
    assert.equal(`${f!.severity} ${f!.object}`, 'warning StatefulSet/default/db');
    assert.equal(f!.message, "at 4 replicas (--scale-up 2 of its 2 replicas) 1 of 2 new replica(s) cannot be placed: their volumes exceed the nodes' CSI attach limit");
    assert.deepEqual(f!.evidence.slice(1), [
      '1 of 2 new replica(s) fit on existing nodes',
      '1 replica(s) unschedulable: could not schedule pod: no NodePool to launch a node from; on the existing nodes: 0/1 nodes are available: 1 node(s) exceed max volume count. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
      'node n1: CSI driver ebs.csi.aws.com attaches at most 3 volume(s) (CSINode allocatable.count)',
    ]);
  });

  it('a StatefulSet whose claims are of an Immediate class: the new ordinals mount no claim (not modelled), so VolumeBinding does not turn them away', () => {
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'us-west-2a'), csiNode('n1', 3), gp3.replace('WaitForFirstConsumer', 'Immediate'), statefulSetYaml('db', 2)) });
    assert.deepEqual(scaleUpCheck.run(contextFor(input, { scaleUp: 2 })), []);
  });

  it('a StatefulSet without volumeClaimTemplates scales without claims: no attach limit in the way', () => {
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'us-west-2a'), csiNode('n1', 0), gp3, statefulSetYaml('db', 2, false)) });
    assert.deepEqual(scaleUpCheck.run(contextFor(input, { scaleUp: 2 })), []);
  });
});
