import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { checkCases, deploymentYaml, listYaml, loadInput, nodeYaml, type CheckCase } from '../test-input.js';
import { scaleUpCheck } from './scale-up.js';

const hpa = (max: number) => `- {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: web, namespace: default}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: ${max}}}`;
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
