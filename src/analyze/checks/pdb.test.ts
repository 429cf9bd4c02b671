import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkCases, contextFor, deploymentYaml, listYaml, loadInput, nodeYaml, type CheckCase } from '../test-input.js';
import { simulateWhatIf } from '../what-if.js';
import { pdbCheck } from './pdb.js';

const pdb = (name: string, spec: string, app = 'web') => `- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: ${name}, namespace: default}, spec: {${spec}, selector: {matchLabels: {app: ${app}}}}}`;
const cluster = (...pdbs: string[]) => loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'b'), nodeYaml('n3', 'c'), deploymentYaml('web', 2), ...pdbs) });

const cases: CheckCase[] = [
  { name: 'minAvailable equal to the replicas: the drain hangs', input: () => cluster(pdb('web', 'minAvailable: 2')), want: ['error PodDisruptionBudget/default/web'], message: /minAvailable 2 with 2 pod\(s\) allows no disruption/ },
  { name: 'maxUnavailable 0: the drain hangs', input: () => cluster(pdb('web', 'maxUnavailable: 0')), want: ['error PodDisruptionBudget/default/web'], message: /maxUnavailable 0/ },
  { name: 'a selector that matches no pod protects nothing', input: () => cluster(pdb('web', 'maxUnavailable: 1', 'wbe')), want: ['warning PodDisruptionBudget/default/web'], message: /protects nothing/ },
  { name: 'two budgets on the same pods', input: () => cluster(pdb('web', 'maxUnavailable: 1'), pdb('web-2', 'minAvailable: 1')), want: ['error PodDisruptionBudget/default/web-2'], message: /PodDisruptionBudget\/default\/web selects too/ },
  {
    name: 'a budget over the pods of a Prometheus custom resource: not "protects nothing" but not modelled',
    input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), pdb('prometheus-k8s', 'minAvailable: 1', 'prometheus'), '- {apiVersion: monitoring.coreos.com/v1, kind: Prometheus, metadata: {name: k8s, namespace: default}, spec: {replicas: 2}}') }),
    want: ['info PodDisruptionBudget/default/prometheus-k8s'],
    message: /matches no pod of the input, but Prometheus\/k8s in default create pods berth does not model/,
  },
  { name: 'clean: one disruption at a time', input: () => cluster(pdb('web', 'maxUnavailable: 1')), want: [] },
];

describe('pdb', () => {
  checkCases(pdbCheck, cases);

  it('the evidence of a blocking budget is a simulated drain refused until the end, and the fix lets it complete', () => {
    const input = cluster(pdb('web', 'minAvailable: 2'));
    const [f] = pdbCheck.run(contextFor(input));
    assert.ok(f!.evidence.some((e) => /Cannot evict pod as it would violate the pod's disruption budget/.test(e)), f!.evidence.join('\n'));
    assert.ok(f!.evidence.some((e) => /still draining/.test(e)));
    const fixed = f!.remedies![0]!.apply(input);
    const node = f!.evidence.find((e) => /drain n\d/.test(e))!.match(/drain (n\d)/)![1]!;
    const run = simulateWhatIf(contextFor(fixed), { name: 'drain', steps: [{ at: 30_000, action: { type: 'drain', node } }], untilMs: 300_000 });
    assert.ok(run.events.some((e) => e.type === 'DrainComplete'));
  });
});
