import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnalysisContext } from '../check.js';
import { contextOf, fileText, inputOf, nodesYaml, PREFERRED_HOSTNAME_ANTI, REQUIRED_HOSTNAME_ANTI, webDeployment } from '../test-input.js';
import { requiredVsPreferred } from './required-vs-preferred.js';

const check = (ctx: AnalysisContext) => requiredVsPreferred.run(ctx);

describe('required-vs-preferred', () => {
  it('3 replicas with required anti-affinity on 3 nodes: a node loss leaves one pending and a rollout is stuck; preferred holds both (warning, its remedy re-checks clean)', () => {
    const ctx = contextOf(inputOf(nodesYaml(3), webDeployment({ replicas: 3, affinity: REQUIRED_HOSTNAME_ANTI })));
    const [f, ...rest] = check(ctx);
    assert.equal(rest.length, 0);
    assert.ok(f);
    assert.equal(f.severity, 'warning');
    assert.equal(f.object, 'Deployment/default/web');
    assert.match(f.message, /^preferred pod anti-affinity would hold both node loss and rollout where the current required pod anti-affinity does not; holding both on this cluster: preferred pod anti-affinity$/);
    assert.match(f.evidence[0]!, /^required pod anti-affinity \(current\): node loss fails — node node-\d \(1 of 3 replicas\) fails at t=1m00s: 2\/3 available .*didn't match pod anti-affinity rules.*; rollout fails/);
    assert.match(f.evidence[1]!, /^preferred pod anti-affinity: node loss holds .*; rollout holds/);
    assert.match(f.evidence[2]!, /^topology spread \(maxSkew 1, DoNotSchedule\): node loss fails .*didn't match pod topology spread constraints.*; rollout holds/);
    assert.equal(f.fix[0], 'use preferred pod anti-affinity instead of required pod anti-affinity in Deployment/default/web');
    const after = check({ ...ctx, input: f.remedies![0]!.apply(ctx.input) });
    assert.deepEqual(after, []);
  });

  it('with a spare node, required holds both: nothing to report', () => {
    assert.deepEqual(check(contextOf(inputOf(nodesYaml(4), webDeployment({ replicas: 3, affinity: REQUIRED_HOSTNAME_ANTI })))), []);
  });

  it('preferred on 3 nodes is already the best: nothing to report', () => {
    assert.deepEqual(check(contextOf(inputOf(nodesYaml(3), webDeployment({ replicas: 3, affinity: PREFERRED_HOSTNAME_ANTI })))), []);
  });

  it('workloads without pod anti-affinity, or with one replica, are not compared', () => {
    assert.deepEqual(check(contextOf(inputOf(nodesYaml(3), webDeployment({ replicas: 3 })))), []);
    assert.deepEqual(check(contextOf(inputOf(nodesYaml(3), webDeployment({ replicas: 1, affinity: REQUIRED_HOSTNAME_ANTI })))), []);
  });

  it('examples/kube-dns-required.yaml: preferred lets every replica run and roll out on the one node (warning); no variant survives losing it', () => {
    const ctx = contextOf(inputOf(fileText('examples/kube-dns-required.yaml')));
    const [f] = check(ctx);
    assert.equal(f?.severity, 'warning');
    assert.equal(f.object, 'Deployment/kube-system/kube-dns');
    assert.match(f.message, /none of the variants holds both on this cluster \(it needs more nodes\)$/);
    assert.deepEqual(check({ ...ctx, input: f.remedies![0]!.apply(ctx.input) }), []);
  });
});
