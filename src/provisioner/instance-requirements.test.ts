import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bundledInstanceTypes } from './catalog/catalog.js';
import { makeInstanceType, type InstanceType, type Offering } from './catalog/types.js';
import {
  compatibleOfferings,
  hasCompatibleOffering,
  instanceTypeCompatible,
  instanceTypeIncompatibility,
  instanceTypeRequirements,
  offeringCompatible,
  satisfiesMinValues,
} from './instance-requirements.js';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_FAMILY, LABEL_INSTANCE_GPU_NAME, LABEL_INSTANCE_TYPE, LABEL_ZONE } from './catalog/types.js';
import { LABEL_INSTANCE_TENANCY } from './labels.js';
import { Requirement, Requirements, type NodeSelectorRequirementWithMinValues } from './requirements.js';

const none = { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} };

function type(name: string, family: string, offerings: Partial<Offering>[] = [{}], extra: Record<string, string> = {}): InstanceType {
  return makeInstanceType({
    name,
    labels: { [LABEL_INSTANCE_TYPE]: name, [LABEL_INSTANCE_FAMILY]: family, 'kubernetes.io/arch': 'amd64', ...extra },
    capacity: { cpu: 2000, memory: 8 << 30, pods: 29 },
    overhead: none,
    offerings: offerings.map((o) => ({ zone: 'a', capacityType: 'on-demand', price: 1, available: true, ...o })),
  });
}

const reqs = (...rs: NodeSelectorRequirementWithMinValues[]) => Requirements.fromNodeSelectorRequirements(rs);

describe('instanceTypeRequirements', () => {
  const m5 = type('m5.large', 'm5', [{ zone: 'a' }, { zone: 'b', capacityType: 'spot' }]);
  it('lists labels, and zones and capacity types across offerings', () => {
    const r = instanceTypeRequirements(m5);
    assert.equal(r.get(LABEL_INSTANCE_TYPE).toString(), 'node.kubernetes.io/instance-type In [m5.large]');
    assert.equal(r.get(LABEL_ZONE).toString(), 'topology.kubernetes.io/zone In [a b]');
    assert.equal(r.get(LABEL_CAPACITY_TYPE).toString(), 'karpenter.sh/capacity-type In [on-demand spot]');
  });
  it('defines properties the type lacks as DoesNotExist', () => {
    assert.equal(instanceTypeRequirements(m5).get(LABEL_INSTANCE_GPU_NAME).operator(), 'DoesNotExist');
  });
  it('leaves properties the catalog does not model undefined', () => {
    assert.equal(instanceTypeRequirements(m5).has(LABEL_INSTANCE_TENANCY), false);
  });
  it('is built once per instance type', () => {
    assert.equal(instanceTypeRequirements(m5), instanceTypeRequirements(m5));
  });
});

describe('instanceTypeCompatible', () => {
  const m5 = type('m5.large', 'm5', [{ zone: 'a' }, { zone: 'b', capacityType: 'spot' }], { 'example.com/rack': 'r1' });
  const cases: { name: string; reqs: Requirements; want: string | undefined }[] = [
    { name: 'no requirements', reqs: new Requirements(), want: undefined },
    { name: 'matching family', reqs: reqs({ key: LABEL_INSTANCE_FAMILY, operator: 'In', values: ['m5', 'c5'] }), want: undefined },
    {
      name: 'other family',
      reqs: reqs({ key: LABEL_INSTANCE_FAMILY, operator: 'In', values: ['c5'] }),
      want: 'key karpenter.k8s.aws/instance-family, karpenter.k8s.aws/instance-family In [c5] not in karpenter.k8s.aws/instance-family In [m5]',
    },
    { name: 'a zone some offering has', reqs: reqs({ key: LABEL_ZONE, operator: 'In', values: ['b'] }), want: undefined },
    {
      name: 'a zone no offering has',
      reqs: reqs({ key: LABEL_ZONE, operator: 'In', values: ['c'] }),
      want: 'key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [c] not in topology.kubernetes.io/zone In [a b]',
    },
    {
      name: 'a GPU the type lacks',
      reqs: reqs({ key: LABEL_INSTANCE_GPU_NAME, operator: 'Exists', values: [] }),
      want: 'key karpenter.k8s.aws/instance-gpu-name, karpenter.k8s.aws/instance-gpu-name Exists not in karpenter.k8s.aws/instance-gpu-name DoesNotExist',
    },
    { name: 'no GPU wanted', reqs: reqs({ key: LABEL_INSTANCE_GPU_NAME, operator: 'DoesNotExist', values: [] }), want: undefined },
    { name: 'a custom label the type has', reqs: reqs({ key: 'example.com/rack', operator: 'In', values: ['r1'] }), want: undefined },
    { name: 'a custom key the type does not define is not its concern', reqs: reqs({ key: 'example.com/team', operator: 'In', values: ['x'] }), want: undefined },
    { name: 'an unmodelled well-known key is unconstrained', reqs: reqs({ key: LABEL_INSTANCE_TENANCY, operator: 'In', values: ['dedicated'] }), want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(instanceTypeIncompatibility(m5, c.reqs), c.want);
      assert.equal(instanceTypeCompatible(m5, c.reqs), c.want === undefined);
    });
  }
});

describe('offerings', () => {
  const it1 = type('m5.large', 'm5', [
    { zone: 'a', capacityType: 'on-demand' },
    { zone: 'a', capacityType: 'spot', available: false },
    { zone: 'b', capacityType: 'spot' },
  ]);
  const [odA, spotA, spotB] = it1.offerings as [Offering, Offering, Offering];
  const cases: { name: string; reqs: Requirements; compatible: Offering[]; all: Offering[] }[] = [
    { name: 'unconstrained allows every available offering', reqs: new Requirements(), compatible: [odA, spotB], all: [odA, spotA, spotB] },
    { name: 'by zone', reqs: reqs({ key: LABEL_ZONE, operator: 'In', values: ['a'] }), compatible: [odA], all: [odA, spotA] },
    { name: 'by capacity type', reqs: reqs({ key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['spot'] }), compatible: [spotB], all: [spotA, spotB] },
    { name: 'excluding a zone', reqs: reqs({ key: LABEL_ZONE, operator: 'NotIn', values: ['b'] }), compatible: [odA], all: [odA, spotA] },
    { name: 'nothing left', reqs: reqs({ key: LABEL_ZONE, operator: 'In', values: ['c'] }), compatible: [], all: [] },
    {
      name: 'keys offerings do not define are ignored',
      reqs: reqs({ key: LABEL_INSTANCE_FAMILY, operator: 'In', values: ['c5'] }, { key: 'example.com/team', operator: 'In', values: ['x'] }),
      compatible: [odA, spotB],
      all: [odA, spotA, spotB],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(compatibleOfferings(it1, c.reqs), c.compatible);
      assert.deepEqual(compatibleOfferings(it1, c.reqs, { includeUnavailable: true }), c.all);
      assert.deepEqual(it1.offerings.filter((o) => offeringCompatible(o, c.reqs)), c.all);
      assert.equal(hasCompatibleOffering(it1, c.reqs), c.compatible.length > 0);
    });
  }
});

describe('offeringCompatible', () => {
  it('answers as Compatible with the offering requirements would, for every shape of zone and capacity-type requirement', () => {
    const offerings: Offering[] = ['a', 'b'].flatMap((zone) => (['on-demand', 'spot'] as const).map((capacityType) => ({ zone, capacityType, price: 1, available: true })));
    const shapes = (key: string, values: string[]): (Requirement | undefined)[] => [
      undefined,
      Requirement.of(key, 'In', values),
      Requirement.of(key, 'In', [values[0] as string]),
      Requirement.of(key, 'NotIn', [values[0] as string]),
      Requirement.of(key, 'Exists'),
      Requirement.of(key, 'DoesNotExist'),
      Requirement.of(key, 'Gt', ['3']),
    ];
    let checked = 0;
    for (const zone of shapes(LABEL_ZONE, ['a', 'b'])) {
      for (const ct of shapes(LABEL_CAPACITY_TYPE, ['on-demand', 'spot'])) {
        const r = new Requirements([zone, ct, Requirement.of(LABEL_INSTANCE_FAMILY, 'In', ['c5'])].filter((x) => x !== undefined));
        for (const o of offerings) {
          const want = r.isCompatible(new Requirements([Requirement.of(LABEL_ZONE, 'In', [o.zone]), Requirement.of(LABEL_CAPACITY_TYPE, 'In', [o.capacityType])]), { allowUndefinedWellKnownLabels: true });
          assert.equal(offeringCompatible(o, r), want, `${r.toString()} / ${o.zone} ${o.capacityType}`);
          checked++;
        }
      }
    }
    assert.equal(checked, 7 * 7 * 4);
  });
});

describe('satisfiesMinValues', () => {
  // Karpenter's worked example: c4.large, c5.xlarge, m4.2xlarge span three families; c4.large, c4.xlarge, c5.2xlarge two.
  const t = (name: string) => type(name, name.split('.')[0] as string);
  const minTypes = reqs(
    { key: LABEL_INSTANCE_TYPE, operator: 'In', values: ['c4.large', 'c4.xlarge', 'c5.large', 'c5.xlarge', 'm4.large', 'm4.xlarge'], minValues: 3 },
    { key: LABEL_INSTANCE_FAMILY, operator: 'In', values: ['c4', 'c5', 'm4'], minValues: 3 },
  );
  const cases: { name: string; types: InstanceType[]; reqs: Requirements; needed: number; unsatisfied: [string, number][]; error?: string }[] = [
    { name: 'three families pass', types: [t('c4.large'), t('c5.xlarge'), t('m4.2xlarge')], reqs: minTypes, needed: 3, unsatisfied: [] },
    {
      name: 'two families fail',
      types: [t('c4.large'), t('c4.xlarge'), t('c5.2xlarge')],
      reqs: minTypes,
      needed: 3,
      unsatisfied: [[LABEL_INSTANCE_FAMILY, 2]],
      error: 'minValues requirement is not met for label(s) (label(s)=[karpenter.k8s.aws/instance-family])',
    },
    { name: 'stops at the first prefix that satisfies', types: [t('c4.large'), t('c5.large'), t('m4.large'), t('m4.xlarge')], reqs: minTypes, needed: 3, unsatisfied: [] },
    {
      name: 'every failing key is reported',
      types: [t('c4.large'), t('c4.xlarge')],
      reqs: minTypes,
      needed: 2,
      unsatisfied: [[LABEL_INSTANCE_TYPE, 2], [LABEL_INSTANCE_FAMILY, 1]],
      error: 'minValues requirement is not met for label(s) (label(s)=[karpenter.k8s.aws/instance-family node.kubernetes.io/instance-type])',
    },
    {
      name: 'a key the types do not define offers no values',
      types: [t('c4.large'), t('c5.large')],
      reqs: reqs({ key: 'example.com/team', operator: 'Exists', values: [], minValues: 1 }),
      needed: 2,
      unsatisfied: [['example.com/team', 0]],
      error: 'minValues requirement is not met for label(s) (label(s)=[example.com/team])',
    },
    { name: 'no minValues', types: [t('c4.large')], reqs: reqs({ key: LABEL_INSTANCE_FAMILY, operator: 'In', values: ['c4'] }), needed: 0, unsatisfied: [] },
    { name: 'no instance types', types: [], reqs: minTypes, needed: 0, unsatisfied: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = satisfiesMinValues(c.types, c.reqs);
      assert.equal(got.minNeededInstanceTypes, c.needed);
      assert.deepEqual([...got.unsatisfied].sort(), [...c.unsatisfied].sort());
      assert.equal(got.error, c.error);
    });
  }
});

describe('the bundled catalog', () => {
  const all = bundledInstanceTypes();
  it('arm64 in us-west-2a on spot leaves only Graviton types', () => {
    const r = new Requirements([Requirement.of('kubernetes.io/arch', 'In', ['arm64']), Requirement.of(LABEL_ZONE, 'In', ['us-west-2a']), Requirement.of(LABEL_CAPACITY_TYPE, 'In', ['spot'])]);
    const fit = all.filter((it) => instanceTypeCompatible(it, r) && hasCompatibleOffering(it, r));
    assert.ok(fit.length > 0);
    for (const it of fit) assert.match(it.name, /^[mcr][67]g\./);
  });
  it('instance-cpu Gt 63 leaves only types with 64 or more vCPUs', () => {
    const r = reqs({ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['63'] });
    const fit = all.filter((it) => instanceTypeCompatible(it, r));
    assert.ok(fit.length > 0);
    for (const it of fit) assert.ok(Number(it.labels['karpenter.k8s.aws/instance-cpu']) >= 64, it.name);
  });
});
