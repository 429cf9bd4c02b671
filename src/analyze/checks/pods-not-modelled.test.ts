import { describe } from 'node:test';
import { checkCases, deploymentYaml, listYaml, loadInput, nodeYaml, type CheckCase } from '../test-input.js';
import { podsNotModelled } from './pods-not-modelled.js';

const prometheus = (name: string) => `- {apiVersion: monitoring.coreos.com/v1, kind: Prometheus, metadata: {name: ${name}, namespace: monitoring}, spec: {replicas: 2}}`;
const job = '- {apiVersion: batch/v1, kind: Job, metadata: {name: migrate, namespace: default}, spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: m}]}}}}';
const widget = '- {apiVersion: example.com/v1, kind: Widget, metadata: {name: w1, namespace: default}}';
const ownedSts = `- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: db-a, namespace: default, ownerReferences: [{apiVersion: example.com/v1, kind: Database, name: a, uid: u1, controller: true}]}
  spec:
    replicas: 1
    selector: {matchLabels: {app: db}}
    template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: db}]}}`;
const database = (name: string) => `- {apiVersion: example.com/v1, kind: Database, metadata: {name: ${name}, namespace: default}}`;

const cases: CheckCase[] = [
  { name: 'one finding per kind: two Prometheus objects; a Job is simulated, not reported', input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), prometheus('k8s'), prometheus('user'), job) }), want: ['info Prometheus'], message: /^pods created by Prometheus \(2: monitoring\/k8s, monitoring\/user\) are not modelled/ },
  { name: 'a custom kind that creates no pod we know of is not reported', input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), widget, deploymentYaml('web', 1)) }), want: [] },
  {
    name: 'a custom kind the input shows owning a workload: its objects without one are reported',
    input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), ownedSts, database('a'), database('b')) }),
    want: ['info Database'],
    message: /^pods created by Database \(1: default\/b\)/,
  },
];

describe('pods-not-modelled', () => checkCases(podsNotModelled, cases));
