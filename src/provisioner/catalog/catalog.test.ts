import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldError } from '../../model/errors.js';
import { BUNDLED_CATALOG, BUNDLED_REGION, BUNDLED_ZONES, bundledInstanceTypes, parseInstanceTypeCatalog } from './catalog.js';
import type { InstanceType } from './types.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

function byName(its: readonly InstanceType[], name: string): InstanceType {
  const it = its.find((i) => i.name === name);
  assert.ok(it, `${name} is in the catalog`);
  return it;
}

describe('bundled catalog data', () => {
  it('names its source', () => {
    const raw = BUNDLED_CATALOG as unknown as { source: Record<string, string> };
    assert.match(raw.source.facts ?? '', /aws\/karpenter-provider-aws/);
    assert.match(raw.source.spotPrices ?? '', /[Ii]llustrative/);
  });

  it('covers the required families, in us-west-2a..d', () => {
    assert.equal(BUNDLED_REGION, 'us-west-2');
    assert.deepEqual(BUNDLED_ZONES, ['us-west-2a', 'us-west-2b', 'us-west-2c', 'us-west-2d']);
    const families = new Set(BUNDLED_CATALOG.instanceTypes.map((t) => t.family));
    for (const f of ['m5', 'm6i', 'm7i', 'c5', 'c6i', 'c7i', 'r5', 'r6i', 'r7i', 't3', 'm6g', 'c6g', 'r6g', 'm7g', 'c7g', 'r7g', 'm5a', 'c5a']) {
      assert.ok(families.has(f), f);
    }
  });

  it('has unique names and spot prices 55-75% below on-demand in every zone', () => {
    const names = new Set<string>();
    for (const t of BUNDLED_CATALOG.instanceTypes) {
      assert.ok(!names.has(t.name), t.name);
      names.add(t.name);
      assert.deepEqual(Object.keys(t.spot), [...BUNDLED_ZONES], t.name);
      for (const p of Object.values(t.spot)) {
        const discount = 1 - p / t.onDemand;
        assert.ok(discount >= 0.549 && discount <= 0.751, `${t.name}: ${discount}`);
      }
    }
  });
});

describe('bundled instance types', () => {
  const its = bundledInstanceTypes();

  // Facts from the source data and, for allocatable, Karpenter's own published numbers
  // (docs/reference/instance-types.md, AL2023, no block device mappings).
  const cases: {
    name: string;
    vcpu: number;
    memoryMiB: number;
    arch: string;
    onDemand: number;
    pods: number;
    cpu: number;
    memMiB: number;
    /** Extended resources Karpenter lists for the type (EFA interfaces). */
    extended?: Record<string, number>;
  }[] = [
    { name: 'm6i.large', vcpu: 2, memoryMiB: 8192, arch: 'amd64', onDemand: 0.096, pods: 29, cpu: 1930, memMiB: 6903 },
    { name: 'm5.16xlarge', vcpu: 64, memoryMiB: 262144, arch: 'amd64', onDemand: 3.072, pods: 737, cpu: 63770, memMiB: 234021 },
    { name: 't3.medium', vcpu: 2, memoryMiB: 4096, arch: 'amd64', onDemand: 0.0416, pods: 17, cpu: 1930, memMiB: 3246 },
    { name: 't3.2xlarge', vcpu: 8, memoryMiB: 32768, arch: 'amd64', onDemand: 0.3328, pods: 58, cpu: 7910, memMiB: 29317 },
    { name: 'c5.9xlarge', vcpu: 36, memoryMiB: 73728, arch: 'amd64', onDemand: 1.53, pods: 234, cpu: 35840, memMiB: 65269 },
    { name: 'c5a.24xlarge', vcpu: 96, memoryMiB: 196608, arch: 'amd64', onDemand: 3.696, pods: 737, cpu: 95690, memMiB: 173400 },
    { name: 'r5.xlarge', vcpu: 4, memoryMiB: 32768, arch: 'amd64', onDemand: 0.252, pods: 58, cpu: 3920, memMiB: 29317 },
    { name: 'r7i.48xlarge', vcpu: 192, memoryMiB: 1572864, arch: 'amd64', onDemand: 12.7008, pods: 737, cpu: 191450, memMiB: 1446437, extended: { 'vpc.amazonaws.com/efa': 1 } },
    { name: 'c6g.large', vcpu: 2, memoryMiB: 4096, arch: 'arm64', onDemand: 0.068, pods: 29, cpu: 1930, memMiB: 3055 },
    { name: 'm7g.16xlarge', vcpu: 64, memoryMiB: 262144, arch: 'arm64', onDemand: 2.6112, pods: 737, cpu: 63770, memMiB: 233962, extended: { 'vpc.amazonaws.com/efa': 1 } },
    { name: 'r6g.metal', vcpu: 64, memoryMiB: 524288, arch: 'arm64', onDemand: 3.4191, pods: 737, cpu: 63770, memMiB: 476445 },
    { name: 'm7i.metal-48xl', vcpu: 192, memoryMiB: 786432, arch: 'amd64', onDemand: 9.6768, pods: 737, cpu: 191450, memMiB: 718987, extended: { 'vpc.amazonaws.com/efa': 1 } },
  ];
  for (const c of cases) {
    it(`${c.name}: facts and Karpenter's allocatable`, () => {
      const t = byName(its, c.name);
      assert.equal(t.labels['karpenter.k8s.aws/instance-cpu'], String(c.vcpu));
      assert.equal(t.labels['karpenter.k8s.aws/instance-memory'], String(c.memoryMiB));
      assert.equal(t.labels['kubernetes.io/arch'], c.arch);
      assert.equal(t.capacity.cpu, c.vcpu * 1000);
      assert.equal(t.capacity.pods, c.pods);
      assert.deepEqual(t.allocatable, { cpu: c.cpu, memory: c.memMiB * MiB, 'ephemeral-storage': 17 * GiB, pods: c.pods, ...c.extended });
      const od = t.offerings.filter((o) => o.capacityType === 'on-demand');
      assert.deepEqual(od.map((o) => o.price), [c.onDemand, c.onDemand, c.onDemand, c.onDemand]);
    });
  }

  it('labels and requirements of m6i.large', () => {
    const t = byName(its, 'm6i.large');
    assert.deepEqual(t.labels, {
      'node.kubernetes.io/instance-type': 'm6i.large',
      'karpenter.k8s.aws/instance-family': 'm6i',
      'karpenter.k8s.aws/instance-category': 'm',
      'karpenter.k8s.aws/instance-cpu': '2',
      'karpenter.k8s.aws/instance-memory': '8192',
      'karpenter.k8s.aws/instance-generation': '6',
      'karpenter.k8s.aws/instance-size': 'large',
      'karpenter.k8s.aws/instance-hypervisor': 'nitro',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/os': 'linux',
      'topology.kubernetes.io/region': 'us-west-2',
    });
    assert.deepEqual(t.requirements['topology.kubernetes.io/zone'], ['us-west-2a', 'us-west-2b', 'us-west-2c', 'us-west-2d']);
    assert.deepEqual(t.requirements['karpenter.sh/capacity-type'], ['on-demand', 'spot']);
    assert.equal(t.offerings.length, 8);
    assert.ok(t.offerings.every((o) => o.available));
  });

  it('bare-metal types have an empty hypervisor label', () => {
    assert.equal(byName(its, 'm5.metal').labels['karpenter.k8s.aws/instance-hypervisor'], '');
  });

  it('sizing options reach every type', () => {
    const t = byName(bundledInstanceTypes({ maxPods: 110 }), 'm5.16xlarge');
    assert.equal(t.capacity.pods, 110);
  });
});

// ---------------------------------------------------------------------------------------

function catalog(instanceTypes: unknown): unknown {
  return { apiVersion: 'berth.dev/v1alpha1', kind: 'InstanceTypeCatalog', metadata: { name: 'mine' }, spec: { instanceTypes } };
}

const minimal = { name: 'box.large', cpu: '4', memory: '16Gi', offerings: [{ zone: 'zone-a', capacityType: 'on-demand', price: 0.2 }] };

describe('parseInstanceTypeCatalog', () => {
  it('defaults pods, arch, storage and computes Karpenter-style overhead', () => {
    const [t] = parseInstanceTypeCatalog(catalog([minimal]));
    assert.ok(t);
    assert.equal(t.name, 'box.large');
    assert.deepEqual(t.labels, { 'node.kubernetes.io/instance-type': 'box.large', 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux' });
    assert.deepEqual(t.capacity, { cpu: 4000, memory: 16 * GiB, 'ephemeral-storage': 20 * GiB, pods: 110 });
    // cpu 60 + 10 + 10; memory 11Mi x 110 + 255Mi; no VM overhead on stated memory.
    assert.deepEqual(t.overhead, {
      kubeReserved: { cpu: 80, memory: 1465 * MiB, 'ephemeral-storage': GiB },
      systemReserved: {},
      evictionThreshold: { memory: 100 * MiB, 'ephemeral-storage': 2 * GiB },
    });
    assert.deepEqual(t.allocatable, { cpu: 3920, memory: 16 * GiB - 1565 * MiB, 'ephemeral-storage': 17 * GiB, pods: 110 });
    assert.deepEqual(t.offerings, [{ zone: 'zone-a', capacityType: 'on-demand', price: 0.2, available: true }]);
    assert.deepEqual(t.requirements['topology.kubernetes.io/zone'], ['zone-a']);
  });

  it('takes pods, arch, labels, storage, availability and explicit overhead', () => {
    const [t] = parseInstanceTypeCatalog(
      catalog([
        {
          name: 'arm.small',
          cpu: '1500m',
          memory: 4096 * MiB,
          pods: 20,
          arch: 'arm64',
          ephemeralStorage: '50Gi',
          labels: { 'example.com/tier': 'cheap' },
          offerings: [
            { zone: 'z1', capacityType: 'spot', price: 0.01, available: false },
            { zone: 'z1', capacityType: 'on-demand', price: 0.04 },
          ],
          overhead: { kubeReserved: { cpu: '100m', memory: '256Mi' } },
        },
      ]),
    );
    assert.ok(t);
    assert.equal(t.labels['example.com/tier'], 'cheap');
    assert.equal(t.labels['kubernetes.io/arch'], 'arm64');
    assert.deepEqual(t.capacity, { cpu: 1500, memory: 4096 * MiB, 'ephemeral-storage': 50 * GiB, pods: 20 });
    assert.deepEqual(t.overhead, { kubeReserved: { cpu: 100, memory: 256 * MiB }, systemReserved: {}, evictionThreshold: {} });
    assert.deepEqual(t.allocatable, { cpu: 1400, memory: 3840 * MiB, 'ephemeral-storage': 50 * GiB, pods: 20 });
    assert.equal(t.offerings[0]?.available, false);
    assert.deepEqual(t.requirements['karpenter.sh/capacity-type'], ['on-demand', 'spot']);
  });

  const errors: { name: string; input: unknown; message: RegExp; path: (string | number)[] }[] = [
    { name: 'not an object', input: 'nope', message: /expected an object/, path: [] },
    { name: 'wrong apiVersion', input: { apiVersion: 'v1', kind: 'InstanceTypeCatalog', spec: {} }, message: /Unsupported value: "v1": supported values: "berth\.dev\/v1alpha1"/, path: ['apiVersion'] },
    { name: 'wrong kind', input: { apiVersion: 'berth.dev/v1alpha1', kind: 'NodePool', spec: {} }, message: /Unsupported value: "NodePool"/, path: ['kind'] },
    { name: 'no spec', input: { apiVersion: 'berth.dev/v1alpha1', kind: 'InstanceTypeCatalog' }, message: /Required value/, path: ['spec'] },
    { name: 'unknown spec field', input: { apiVersion: 'berth.dev/v1alpha1', kind: 'InstanceTypeCatalog', spec: { types: [] } }, message: /unknown field "types"/, path: ['spec', 'types'] },
    { name: 'no instance types', input: catalog(undefined), message: /at least one instance type/, path: ['spec', 'instanceTypes'] },
    { name: 'empty instance types', input: catalog([]), message: /at least one instance type/, path: ['spec', 'instanceTypes'] },
    { name: 'instance types not a list', input: catalog({}), message: /expected a list/, path: ['spec', 'instanceTypes'] },
    { name: 'missing name', input: catalog([{ ...minimal, name: undefined }]), message: /Required value/, path: ['spec', 'instanceTypes', 0, 'name'] },
    { name: 'name not a label value', input: catalog([{ ...minimal, name: 'has space' }]), message: /valid label value/, path: ['spec', 'instanceTypes', 0, 'name'] },
    { name: 'duplicate name', input: catalog([minimal, minimal]), message: /Duplicate value: "box\.large"/, path: ['spec', 'instanceTypes', 1, 'name'] },
    { name: 'missing cpu', input: catalog([{ ...minimal, cpu: undefined }]), message: /Required value/, path: ['spec', 'instanceTypes', 0, 'cpu'] },
    { name: 'unparsable memory', input: catalog([{ ...minimal, memory: '16GB' }]), message: /unknown suffix "GB"/, path: ['spec', 'instanceTypes', 0, 'memory'] },
    { name: 'zero cpu', input: catalog([{ ...minimal, cpu: 0 }]), message: /must be greater than 0/, path: ['spec', 'instanceTypes', 0, 'cpu'] },
    { name: 'negative memory', input: catalog([{ ...minimal, memory: '-1Gi' }]), message: /greater than or equal to 0/, path: ['spec', 'instanceTypes', 0, 'memory'] },
    { name: 'fractional pods', input: catalog([{ ...minimal, pods: 1.5 }]), message: /whole number/, path: ['spec', 'instanceTypes', 0, 'pods'] },
    { name: 'unknown arch', input: catalog([{ ...minimal, arch: 'x86_64' }]), message: /Unsupported value: "x86_64": supported values: "amd64", "arm64"/, path: ['spec', 'instanceTypes', 0, 'arch'] },
    { name: 'unknown instance type field', input: catalog([{ ...minimal, cpus: 4 }]), message: /unknown field "cpus"/, path: ['spec', 'instanceTypes', 0, 'cpus'] },
    { name: 'label derived from name', input: catalog([{ ...minimal, labels: { 'node.kubernetes.io/instance-type': 'x' } }]), message: /Forbidden: .*taken from name/, path: ['spec', 'instanceTypes', 0, 'labels', 'node.kubernetes.io/instance-type'] },
    { name: 'zone label', input: catalog([{ ...minimal, labels: { 'topology.kubernetes.io/zone': 'a' } }]), message: /set per offering/, path: ['spec', 'instanceTypes', 0, 'labels', 'topology.kubernetes.io/zone'] },
    { name: 'non-string label value', input: catalog([{ ...minimal, labels: { team: 3 } }]), message: /expected a string/, path: ['spec', 'instanceTypes', 0, 'labels', 'team'] },
    { name: 'no offerings', input: catalog([{ ...minimal, offerings: [] }]), message: /at least one offering/, path: ['spec', 'instanceTypes', 0, 'offerings'] },
    { name: 'offering without zone', input: catalog([{ ...minimal, offerings: [{ capacityType: 'spot', price: 1 }] }]), message: /Required value/, path: ['spec', 'instanceTypes', 0, 'offerings', 0, 'zone'] },
    { name: 'unknown capacity type', input: catalog([{ ...minimal, offerings: [{ zone: 'a', capacityType: 'reserved', price: 1 }] }]), message: /Unsupported value: "reserved": supported values: "on-demand", "spot"/, path: ['spec', 'instanceTypes', 0, 'offerings', 0, 'capacityType'] },
    { name: 'missing price', input: catalog([{ ...minimal, offerings: [{ zone: 'a', capacityType: 'spot' }] }]), message: /Required value/, path: ['spec', 'instanceTypes', 0, 'offerings', 0, 'price'] },
    { name: 'negative price', input: catalog([{ ...minimal, offerings: [{ zone: 'a', capacityType: 'spot', price: -1 }] }]), message: /greater than or equal to 0/, path: ['spec', 'instanceTypes', 0, 'offerings', 0, 'price'] },
    { name: 'price as a string', input: catalog([{ ...minimal, offerings: [{ zone: 'a', capacityType: 'spot', price: '0.1' }] }]), message: /must be a number/, path: ['spec', 'instanceTypes', 0, 'offerings', 0, 'price'] },
    { name: 'available not a boolean', input: catalog([{ ...minimal, offerings: [{ zone: 'a', capacityType: 'spot', price: 1, available: 'yes' }] }]), message: /expected a boolean/, path: ['spec', 'instanceTypes', 0, 'offerings', 0, 'available'] },
    {
      name: 'duplicate offering',
      input: catalog([{ ...minimal, offerings: [{ zone: 'a', capacityType: 'spot', price: 1 }, { zone: 'a', capacityType: 'spot', price: 2 }] }]),
      message: /Duplicate value: zone "a" with capacityType "spot"/,
      path: ['spec', 'instanceTypes', 0, 'offerings', 1],
    },
    { name: 'unknown overhead field', input: catalog([{ ...minimal, overhead: { kubereserved: {} } }]), message: /unknown field "kubereserved"/, path: ['spec', 'instanceTypes', 0, 'overhead', 'kubereserved'] },
    { name: 'bad overhead quantity', input: catalog([{ ...minimal, overhead: { systemReserved: { memory: 'lots' } } }]), message: /invalid quantity/, path: ['spec', 'instanceTypes', 0, 'overhead', 'systemReserved', 'memory'] },
  ];
  for (const c of errors) {
    it(`rejects: ${c.name}`, () => {
      assert.throws(
        () => parseInstanceTypeCatalog(c.input),
        (e: unknown) => {
          assert.ok(e instanceof FieldError, String(e));
          assert.match(e.message, c.message);
          assert.deepEqual(e.path, c.path);
          return true;
        },
      );
    });
  }
});

describe('bundled GPU and accelerator types', () => {
  const its = bundledInstanceTypes();

  // Allocatable and labels as Karpenter publishes them (docs/reference/instance-types.md).
  it('g5.xlarge: one NVIDIA A10G, Karpenter GPU labels, allocatable 3920m / 14162Mi / 58 pods', () => {
    const t = byName(its, 'g5.xlarge');
    assert.equal(t.labels['karpenter.k8s.aws/instance-gpu-name'], 'a10g');
    assert.equal(t.labels['karpenter.k8s.aws/instance-gpu-manufacturer'], 'nvidia');
    assert.equal(t.labels['karpenter.k8s.aws/instance-gpu-count'], '1');
    assert.equal(t.labels['karpenter.k8s.aws/instance-gpu-memory'], '22888');
    assert.deepEqual(t.allocatable, { cpu: 3920, memory: 14162 * MiB, 'ephemeral-storage': 17 * GiB, pods: 58, 'nvidia.com/gpu': 1 });
    assert.equal(t.offerings.find((o) => o.capacityType === 'on-demand')!.price, 1.006);
  });

  it('p5.48xlarge: 8 H100s, 32 EFA interfaces, pods limited by its default network card (100)', () => {
    const t = byName(its, 'p5.48xlarge');
    assert.equal(t.labels['karpenter.k8s.aws/instance-gpu-name'], 'h100');
    assert.deepEqual(t.allocatable, { cpu: 191450, memory: 1938410 * MiB, 'ephemeral-storage': 17 * GiB, pods: 100, 'nvidia.com/gpu': 8, 'vpc.amazonaws.com/efa': 32 });
  });

  it('inf2.xlarge: Neuron device and cores, accelerator labels, no GPU labels', () => {
    const t = byName(its, 'inf2.xlarge');
    assert.equal(t.capacity['aws.amazon.com/neuron'], 1);
    assert.equal(t.capacity['aws.amazon.com/neuroncore'], 2);
    assert.equal(t.labels['karpenter.k8s.aws/instance-accelerator-name'], 'inferentia2');
    assert.equal(t.labels['karpenter.k8s.aws/instance-accelerator-manufacturer'], 'aws');
    assert.equal(t.labels['karpenter.k8s.aws/instance-accelerator-count'], '1');
    assert.equal(t.labels['karpenter.k8s.aws/instance-gpu-name'], undefined);
  });

  it('has every requested accelerator family', () => {
    const families = new Set(BUNDLED_CATALOG.instanceTypes.map((t) => t.family));
    for (const f of ['g4dn', 'g5', 'g6', 'p4d', 'p5', 'inf2', 'trn1']) assert.ok(families.has(f), f);
  });
});

describe('bundled regions', () => {
  it('us-east-1: its own zones and prices', () => {
    const its = bundledInstanceTypes({}, 'us-east-1');
    const t = byName(its, 'm5.large');
    assert.equal(t.labels['topology.kubernetes.io/region'], 'us-east-1');
    assert.deepEqual([...new Set(t.offerings.map((o) => o.zone))], ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d', 'us-east-1f']);
    assert.equal(t.offerings[0]!.price, 0.096);
  });

  it('us-gov-west-1: GovCloud prices, and only the types priced there', () => {
    const its = bundledInstanceTypes({}, 'us-gov-west-1');
    assert.equal(byName(its, 'm5.large').offerings[0]!.price, 0.121);
    assert.equal(byName(its, 'g4dn.xlarge').offerings[0]!.price, 0.663);
    assert.equal(its.find((t) => t.name === 'g5.xlarge'), undefined);
  });

  it('an unknown region is refused, naming the bundled ones', () => {
    assert.throws(() => bundledInstanceTypes({}, 'mars-1'), /no bundled catalog for region "mars-1" \(bundled: us-west-2, us-east-1, us-gov-west-1\)/);
  });
});
