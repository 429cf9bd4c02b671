import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePod, type Pod } from '../model/pod.js';
import { bundledInstanceTypes } from './catalog/catalog.js';
import { compatibleOfferings, instanceTypeCompatible } from './instance-requirements.js';
import { fits, PlannedClaim } from './nodeclaim.js';
import { cachedPoolTemplate, poolTemplate } from './plan.js';
import { podRequirements } from './pod-requirements.js';

const pool = poolTemplate(
  {
    name: 'default',
    weight: 0,
    labels: {},
    requirements: [{ key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm'] }],
    taints: [],
    limits: {},
  },
  bundledInstanceTypes(),
  [],
);

function pod(i: number, cpu: string, arm64: boolean): Pod {
  const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In' as const, values: ['arm64'] }] }] } } };
  return compilePod({ metadata: { name: `p${i}`, namespace: 'default' }, spec: { ...(arm64 ? { affinity } : {}), containers: [{ name: 'c', resources: { requests: { cpu, memory: '1Gi' } } }] } }, { order: i });
}

describe('PlannedClaim', () => {
  it('canAdd keeps exactly the options that suit the merged requirements and fit, whether or not the pod narrows them', () => {
    const claim = new PlannedClaim('c', pool, pool.requirements.clone(), pool.instanceTypes, 0);
    const sizes = ['4', '8', '2', '16', '1'];
    let refused = 0;
    for (let i = 0; i < 40; i++) {
      const p = pod(i, sizes[i % sizes.length]!, i % 7 === 3);
      const reqs = podRequirements(p);
      const got = claim.canAdd(p, reqs);
      const merged = claim.requirements.clone();
      merged.addAll(reqs);
      const requests = { ...claim.requests };
      for (const [k, v] of Object.entries(p.resources.requests)) requests[k] = (requests[k] ?? 0) + v;
      assert.equal(claim.hasRoomFor(p), claim.options.some((it) => fits(requests, claim.podCount + 1, it)), `room for pod ${i}`);
      const want = claim.options.filter((it) => instanceTypeCompatible(it, merged) && compatibleOfferings(it, merged).length > 0 && fits(requests, claim.podCount + 1, it));
      assert.equal('reason' in got, want.length === 0, `pod ${i}`);
      if (want.length > 0 && !('reason' in got)) {
        assert.deepEqual(got.options.map((it) => it.name), want.map((it) => it.name), `pod ${i}`);
        claim.add(p, got);
      } else refused++;
      // The kept node, reused while the options only shrink without changing it, always reads as a fresh one.
      assert.deepEqual(claim.node(), claim.toNode(claim.seq), `node after pod ${i}`);
      const inZone = { 'topology.kubernetes.io/zone': 'us-west-2b' };
      assert.deepEqual(claim.node(inZone), claim.toNode(claim.seq, inZone), `node in a zone after pod ${i}`);
    }
    assert.ok(claim.pods.length > 5 && refused > 0, `${claim.pods.length} pods joined, ${refused} refused`);
    assert.ok(claim.options.every((it) => it.labels['kubernetes.io/arch'] === 'arm64'), 'an arm64 pod narrowed the claim');
  });

  it('hasRoomFor is false once no remaining option can hold the pod on top of the claim, and canAdd then refuses it', () => {
    const claim = new PlannedClaim('c', pool, pool.requirements.clone(), pool.instanceTypes, 0);
    const big = pod(0, '64', false);
    let i = 1;
    while (claim.hasRoomFor(big)) {
      const next = claim.canAdd(big, podRequirements(big));
      assert.ok(!('reason' in next), 'room means the plain pod joins');
      claim.add({ ...big, key: `default/p${i}`, name: `p${i++}` }, next);
    }
    assert.ok(claim.pods.length >= 1);
    assert.ok('reason' in claim.canAdd(big, podRequirements(big)));
    assert.equal(claim.hasRoomFor(pod(99, '100m', false)), claim.options.some((it) => fits({ ...claim.requests, cpu: (claim.requests.cpu ?? 0) + 100, memory: (claim.requests.memory ?? 0) + 2 ** 30 }, claim.podCount + 1, it)));
  });
});

describe('cachedPoolTemplate', () => {
  const spec = { name: 'cached', weight: 0, labels: {}, requirements: [], taints: [], limits: {} };
  const types = bundledInstanceTypes();
  const daemon = pod(99, '100m', false);
  it('answers the same template for the same catalog array and the same DaemonSet pods (a new array of them included)', () => {
    const a = cachedPoolTemplate(spec, types, [daemon]);
    assert.equal(cachedPoolTemplate(spec, types, [daemon]), a);
  });
  it('computes it again when the catalog array, the DaemonSet pods or the minValues policy change', () => {
    const a = cachedPoolTemplate(spec, types, []);
    const b = cachedPoolTemplate(spec, types, [daemon]);
    assert.notEqual(b, a);
    assert.notEqual(b.daemonLoad, a.daemonLoad);
    const c = cachedPoolTemplate(spec, types.slice(0, 10), [daemon]);
    assert.equal(c.instanceTypes.length <= 10, true);
    assert.equal(cachedPoolTemplate(spec, types.slice(0, 10), [daemon], 'BestEffort').minValuesPolicy, 'BestEffort');
  });
});
