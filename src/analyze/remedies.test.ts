import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LABEL_HOSTNAME, LABEL_ZONE } from '../model/node.js';
import { podGroups, podsOf } from './pod-groups.js';
import { addNodesLike, isSharedInput, requireAntiAffinity, scaleTo, setMinDomains, spreadAcross } from './remedies.js';
import { contextFor, deploymentYaml, listYaml, loadInput, nodeYaml } from './test-input.js';
import { simulateWhatIf } from './what-if.js';

const twoNodes = () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'b'), deploymentYaml('web', 2)) });

describe('remedies', () => {
  it('requireAntiAffinity changes the written template, the compiled template pod and the pods, and the simulation obeys it', () => {
    const input = loadInput({ file: 'examples/kube-dns-preferred.yaml' });
    const [dns] = podGroups(input);
    const before = simulateWhatIf(contextFor(input), { name: 'before', steps: [], untilMs: 60_000 });
    assert.equal(before.final.nodes[0]!.pods.length, 2, 'preferred anti-affinity stacks both replicas on the one node');
    const fixed = requireAntiAffinity(dns!, LABEL_HOSTNAME).apply(input);
    const w = fixed.workloads[0]!;
    assert.equal(w.template.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0]?.topologyKey, LABEL_HOSTNAME);
    assert.equal(w.templatePod.requiredAntiAffinity.length, 1);
    assert.equal(input.workloads[0]!.templatePod.requiredAntiAffinity.length, 0, 'the original input is unchanged');
    const after = simulateWhatIf(contextFor(fixed), { name: 'after', steps: [], untilMs: 60_000 });
    assert.equal(after.final.nodes[0]!.pods.length, 1);
    assert.equal(after.final.pending.length, 1, 'the second replica waits for a node of its own');
  });

  it('addNodesLike gives the same input for the same change of one input, whoever proposes it (loss proofs share its simulations); a group change does not', () => {
    const input = twoNodes();
    const [web] = podGroups(input);
    const model = input.nodes[0]!;
    const once = addNodesLike(model, 2, 'b').apply(input);
    assert.equal(addNodesLike(model, 2, 'b').apply(input), once);
    assert.ok(isSharedInput(once));
    assert.deepEqual(once.nodes.map((n) => `${n.name}/${n.labels[LABEL_ZONE]}`), ['n1/a', 'n2/b', 'n1-spare-1/b', 'n1-spare-2/b']);
    assert.notEqual(addNodesLike(model, 1, 'b').apply(input), once);
    assert.notEqual(addNodesLike(model, 2, 'b').apply(twoNodes()), once);
    assert.ok(!isSharedInput(scaleTo(web!, 3).apply(input)));
  });

  it('spreadAcross adds a DoNotSchedule constraint; setMinDomains changes the existing one', () => {
    const input = twoNodes();
    const [web] = podGroups(input);
    const spread = spreadAcross(web!, LABEL_ZONE, { minDomains: 2, honorTaints: true }).apply(input);
    assert.deepEqual(spread.workloads[0]!.templatePod.topologySpreadConstraints.map((c) => [c.topologyKey, c.maxSkew, c.minDomains, c.whenUnsatisfiable, c.nodeTaintsPolicy]), [[LABEL_ZONE, 1, 2, 'DoNotSchedule', 'Honor']]);
    const [spreadWeb] = podGroups(spread);
    const raised = setMinDomains(spreadWeb!, LABEL_ZONE, 3).apply(spread);
    assert.equal(raised.workloads[0]!.templatePod.topologySpreadConstraints[0]!.minDomains, 3);
    assert.equal(raised.workloads[0]!.template.spec.topologySpreadConstraints?.[0]?.minDomains, 3);
  });

  it('scaleTo sets the workload replicas; controller-less pods cannot be scaled', () => {
    const input = twoNodes();
    const [web] = podGroups(input);
    assert.equal(scaleTo(web!, 4).apply(input).workloads[0]!.replicas, 4);
    const bare = podGroups(loadInput({ file: 'examples/apiserver-spread-only.yaml' }))[0]!;
    assert.throws(() => scaleTo(bare, 3), /no controller/);
    const fixed = requireAntiAffinity(bare, LABEL_HOSTNAME).apply(loadInput({ file: 'examples/apiserver-spread-only.yaml' }));
    assert.ok(podsOf(bare, fixed.pods).every((p) => p.requiredAntiAffinity.length === 1));
  });
});
