import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AffinityManifest } from '../model/manifest.js';
import { compilePod, type Pod } from '../model/pod.js';
import { hasPreferredNodeAffinity, heaviestPreferredTerm, nodeAffinityRequirements, podRequirements, podRequirementsWithPreferences } from './pod-requirements.js';

function pod(nodeSelector: Record<string, string> | undefined, affinity?: AffinityManifest): Pod {
  return compilePod({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }], ...(nodeSelector ? { nodeSelector } : {}), ...(affinity ? { affinity } : {}) } }, { order: 0 });
}

const zoneIn = (...values: string[]) => ({ key: 'topology.kubernetes.io/zone', operator: 'In' as const, values });
const archIn = (...values: string[]) => ({ key: 'kubernetes.io/arch', operator: 'In' as const, values });

describe('podRequirements', () => {
  const cases: { name: string; pod: Pod; required: string; withPreferences: string }[] = [
    { name: 'no constraints', pod: pod(undefined), required: '', withPreferences: '' },
    {
      name: 'nodeSelector entries are In requirements',
      pod: pod({ 'kubernetes.io/arch': 'arm64', team: 'a' }),
      required: 'kubernetes.io/arch In [arm64], team In [a]',
      withPreferences: 'kubernetes.io/arch In [arm64], team In [a]',
    },
    {
      name: 'nodeSelector and the required term intersect',
      pod: pod({ 'topology.kubernetes.io/zone': 'b' }, { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [zoneIn('a', 'b')] }] } } }),
      required: 'topology.kubernetes.io/zone In [b]',
      withPreferences: 'topology.kubernetes.io/zone In [b]',
    },
    {
      name: 'only the first required term counts',
      pod: pod(undefined, {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [zoneIn('a')] }, { matchExpressions: [zoneIn('b'), archIn('amd64')] }] } },
      }),
      required: 'topology.kubernetes.io/zone In [a]',
      withPreferences: 'topology.kubernetes.io/zone In [a]',
    },
    {
      name: 'matchFields add nothing',
      pod: pod(undefined, {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] } },
      }),
      required: '',
      withPreferences: '',
    },
    {
      name: 'the heaviest preferred term joins only with preferences',
      pod: pod(undefined, {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [zoneIn('a', 'b', 'c')] }] },
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 10, preference: { matchExpressions: [zoneIn('c')] } },
            { weight: 50, preference: { matchExpressions: [zoneIn('b'), { key: 'example.com/gpu', operator: 'Exists', values: [] }] } },
            { weight: 50, preference: { matchExpressions: [zoneIn('a')] } },
          ],
        },
      }),
      required: 'topology.kubernetes.io/zone In [a b c]',
      withPreferences: 'example.com/gpu Exists, topology.kubernetes.io/zone In [b]',
    },
    {
      name: 'a preference can contradict the requirement (relaxation removes it)',
      pod: pod({ 'topology.kubernetes.io/zone': 'a' }, { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [zoneIn('b')] } }] } }),
      required: 'topology.kubernetes.io/zone In [a]',
      withPreferences: 'topology.kubernetes.io/zone DoesNotExist',
    },
    {
      name: 'numeric operators from affinity',
      pod: pod(undefined, {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['3'] }] }] } },
      }),
      required: 'karpenter.k8s.aws/instance-cpu Exists >=4',
      withPreferences: 'karpenter.k8s.aws/instance-cpu Exists >=4',
    },
    {
      name: 'aliased keys are normalized from every source',
      pod: pod({ 'failure-domain.beta.kubernetes.io/zone': 'a' }, {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'beta.kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }] } },
      }),
      required: 'kubernetes.io/arch In [amd64], topology.kubernetes.io/zone In [a]',
      withPreferences: 'kubernetes.io/arch In [amd64], topology.kubernetes.io/zone In [a]',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(podRequirements(c.pod).toString(), c.required);
      assert.equal(podRequirementsWithPreferences(c.pod).toString(), c.withPreferences);
    });
  }
});

describe('preferred node affinity terms', () => {
  it('compilePod keeps the raw terms in spec order', () => {
    const p = pod(undefined, {
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 5, preference: { matchExpressions: [zoneIn('a')] } },
          { weight: 7, preference: { matchExpressions: [zoneIn('b')] } },
        ],
      },
    });
    assert.deepEqual(p.preferredNodeAffinityTerms, [
      { weight: 5, preference: { matchExpressions: [zoneIn('a')] } },
      { weight: 7, preference: { matchExpressions: [zoneIn('b')] } },
    ]);
    assert.equal(hasPreferredNodeAffinity(p), true);
    assert.equal(hasPreferredNodeAffinity(pod(undefined)), false);
  });
  const heaviest: { name: string; weights: number[]; want: number | undefined }[] = [
    { name: 'none', weights: [], want: undefined },
    { name: 'the heaviest', weights: [1, 9, 3], want: 1 },
    { name: 'the earliest of equal weights', weights: [2, 8, 8, 1], want: 1 },
  ];
  for (const c of heaviest) {
    it(`heaviestPreferredTerm: ${c.name}`, () => {
      const terms = c.weights.map((weight, i) => ({ weight, preference: { matchExpressions: [zoneIn(String(i))] } }));
      const got = heaviestPreferredTerm(terms);
      assert.equal(got === undefined ? undefined : terms.indexOf(got), c.want);
    });
  }
  it('nodeAffinityRequirements takes the terms still in play', () => {
    const reqs = nodeAffinityRequirements({ team: 'a' }, [{ matchExpressions: [zoneIn('b', 'c')] }], [{ weight: 1, preference: { matchExpressions: [zoneIn('c')] } }]);
    assert.equal(reqs.toString(), 'team In [a], topology.kubernetes.io/zone In [c]');
  });
});
