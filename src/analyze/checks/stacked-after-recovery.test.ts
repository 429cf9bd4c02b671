import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { checkCases, deploymentYaml, listYaml, loadInput, nodeYaml, type CheckCase } from '../test-input.js';
import { stackedAfterRecovery } from './stacked-after-recovery.js';

const required = `        affinity:
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}`;

const preferred = `        affinity:
          podAntiAffinity:
            preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 100
              podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}`;

const cases: CheckCase[] = [
  {
    name: 'incident 2b on three nodes, one cordoned: after node-1 is lost and returns both kube-dns replicas stay on node-2',
    input: () => loadInput({ file: 'examples/kube-dns-stacked-after-recovery.yaml' }),
    want: ['warning Deployment/kube-system/kube-dns'],
    message: /^after node node-1 is lost and comes back, all 2 replicas share node node-2 and stay there.*only preferred/,
  },
  { name: 'clean: required anti-affinity brings the replica back to the returned node', input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'a'), deploymentYaml('web', 2, required)) }), want: [] },
  { name: 'clean: preferred anti-affinity with a spare node: the lost replica goes to the spare', input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'a'), nodeYaml('n3', 'a'), deploymentYaml('web', 2, preferred)) }), want: [] },
];

describe('stacked-after-recovery', () =>
  checkCases(stackedAfterRecovery, cases, (f) => {
    assert.ok(f.evidence.some((e) => /failNode node-1/.test(e)) && f.evidence.some((e) => /recoverNode node-1/.test(e)), f.evidence.join('\n'));
    assert.match(f.evidence.at(-1)!, /still 2 on node-2; node node-1 runs none of them/);
    assert.ok(f.remedies && f.remedies.length > 0, 'a re-simulated fix');
    assert.match(f.fix[0]!, /^add required pod anti-affinity on kubernetes.io\/hostname/);
  }));
