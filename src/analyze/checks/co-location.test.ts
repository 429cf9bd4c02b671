import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podGroups, podsOf } from '../pod-groups.js';
import { checkCases, contextFor, deploymentYaml, listYaml, loadInput, nodeYaml, type CheckCase } from '../test-input.js';
import { simulateWhatIf } from '../what-if.js';
import { coLocationCheck } from './co-location.js';

const cases: CheckCase[] = [
  {
    name: 'incident 1a: spread with maxSkew 1 on a one-node control plane stacks all three apiservers',
    input: () => loadInput({ file: 'examples/apiserver-spread-only.yaml' }),
    want: ['error Pod/kube-system/apiserver-0'],
    message: /all 3 replicas share node cp-1.*topology spread constraint on kubernetes\.io\/hostname \(maxSkew 1\) counts only the 1 node\(s\) that exist.*provisioner is never asked/,
  },
  { name: 'incident 2b: preferred anti-affinity is only a score', input: () => loadInput({ file: 'examples/kube-dns-preferred.yaml' }), want: ['error Deployment/kube-system/kube-dns'], message: /only preferred/ },
  { name: 'after scale-up (--scale-up 2): one replica today, two on the only node at twice the replicas', scaleUp: 2, input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), deploymentYaml('web', 1)) }), want: ['error Deployment/default/web'], message: /^after scale-up, all 2 replicas share node n1.*nothing in its pod spec/ },
  {
    name: 'both replicas in zone a while zone b has no room: a zone warning',
    input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'a'), nodeYaml('n3', 'b', '0.2'), deploymentYaml('web', 2)) }),
    want: ['warning Deployment/default/web'],
    message: /all 2 replicas share zone a/,
  },
  { name: 'without --scale-up or an autoscaler, a single replica is not scaled up', input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), deploymentYaml('web', 1)) }), want: [] },
  { name: 'clean: incident 1b, minDomains keeps the new replicas pending', input: () => loadInput({ file: 'examples/apiserver-min-domains.yaml' }), want: [] },
  { name: 'clean: incident 1c, required anti-affinity over three nodes', input: () => loadInput({ file: 'examples/apiserver-anti-affinity.yaml' }), want: [] },
];

describe('co-location', () => {
  checkCases(coLocationCheck, cases, (f) => {
    assert.ok(f.evidence.some((e) => /Scheduled/.test(e)));
    assert.equal(f.fix.filter((x) => !x.startsWith('advice: ')).length, f.remedies?.length ?? 0, 'every fix but advice is a re-simulated remedy');
  });

  it('bare pods all bound to one node: advice to recreate them, and no spec change is re-simulated (none could move them)', () => {
    const pod = (name: string) => `- {apiVersion: v1, kind: Pod, metadata: {name: ${name}, namespace: default, labels: {app: cache}}, spec: {nodeName: n1, containers: [{name: c, image: cache:v1}]}}`;
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'a'), pod('cache-0'), pod('cache-1')) });
    const findings = coLocationCheck.run(contextFor(input));
    assert.deepEqual(findings.map((f) => `${f.severity} ${f.object}`), ['error Pod/default/cache-0']);
    assert.deepEqual(findings[0]!.remedies, []);
    assert.match(findings[0]!.fix.join('\n'), /^advice: these pods have no controller and are all bound, so no change to their spec moves them: recreate them .*required pod anti-affinity on kubernetes\.io\/hostname/);
  });

  it('incident 1a with a NodePool: after the first fix the provisioner launches nodes and the three apiservers run on three nodes', () => {
    const input = loadInput({ file: 'examples/apiserver-spread-only.yaml' }, { file: 'examples/nodepools/default.yaml' });
    const ctx = contextFor(input, { provisioner: true });
    const [f] = coLocationCheck.run(ctx);
    assert.equal(f?.severity, 'error', 'a NodePool does not help: nothing is pending');
    const fixed = f.remedies![0]!.apply(input);
    assert.deepEqual(coLocationCheck.run(contextFor(fixed, { provisioner: true })), []);
    const run = simulateWhatIf(contextFor(fixed, { provisioner: true }), { name: 'fixed', steps: [], untilMs: 300_000 });
    const apiserver = podGroups(fixed)[0]!;
    const nodes = new Set(podsOf(apiserver, run.sim.world.cluster.pods()).map((p) => p.nodeName));
    assert.equal(nodes.size, 3);
    assert.ok(!nodes.has(''));
  });
});
