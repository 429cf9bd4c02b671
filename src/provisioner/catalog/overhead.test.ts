import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ec2Sizing,
  eniLimitedPods,
  evictionThreshold,
  kubeReserved,
  kubeReservedCpu,
  kubeReservedMemory,
  maxPods,
  vmMemoryCapacity,
  type Ec2Facts,
  type SizingOptions,
} from './overhead.js';
import { allocatableOf } from './types.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

const m6iLarge: Ec2Facts = { vcpu: 2, memoryMiB: 8192, arch: 'amd64', maxENIs: 3, ipv4PerENI: 10 };

describe('eniLimitedPods', () => {
  const cases: { name: string; enis: number; ips: number; reserved?: number; want: number }[] = [
    { name: 'm6i.large: 3 ENIs x 10 IPs', enis: 3, ips: 10, want: 29 },
    { name: 't3.medium: 3 ENIs x 6 IPs', enis: 3, ips: 6, want: 17 },
    { name: 'm5.16xlarge: 15 ENIs x 50 IPs', enis: 15, ips: 50, want: 737 },
    { name: 'one reserved ENI drops its IPs', enis: 3, ips: 10, reserved: 1, want: 20 },
    { name: 'all ENIs reserved leaves no pods, not 2', enis: 3, ips: 10, reserved: 3, want: 0 },
    { name: 'reserving more ENIs than exist is zero', enis: 3, ips: 10, reserved: 5, want: 0 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(eniLimitedPods(c.enis, c.ips, c.reserved), c.want));
});

describe('kubeReservedCpu', () => {
  const cases: { name: string; cpu: number; want: number }[] = [
    { name: 'no cpu', cpu: 0, want: 0 },
    { name: 'half a core: 6%', cpu: 500, want: 30 },
    { name: 'one core: 6%', cpu: 1000, want: 60 },
    { name: 'two cores: 6% + 1%', cpu: 2000, want: 70 },
    { name: '3.5 cores: the 0.5% band truncates 7.5m to 7m', cpu: 3500, want: 77 },
    { name: 'four cores: 6% + 1% + 0.5% x 2', cpu: 4000, want: 80 },
    { name: 'eight cores: plus 0.25% of the rest', cpu: 8000, want: 90 },
    { name: '64 cores', cpu: 64000, want: 230 },
    { name: '192 cores', cpu: 192000, want: 550 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(kubeReservedCpu(c.cpu), c.want));
});

describe('kubeReservedMemory', () => {
  const cases: { name: string; pods: number; wantMiB: number }[] = [
    { name: 'no pods: the 255Mi base', pods: 0, wantMiB: 255 },
    { name: '29 pods', pods: 29, wantMiB: 574 },
    { name: '110 pods', pods: 110, wantMiB: 1465 },
    { name: '737 pods', pods: 737, wantMiB: 8362 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(kubeReservedMemory(c.pods), c.wantMiB * MiB));

  it('configured kube-reserved replaces the computed value per resource', () => {
    assert.deepEqual(kubeReserved(2000, 29, { cpu: 500 }), { cpu: 500, memory: 574 * MiB, 'ephemeral-storage': GiB });
  });
});

describe('vmMemoryCapacity', () => {
  const cases: { name: string; mib: number; arch: 'amd64' | 'arm64'; percent?: number; wantMiB: number }[] = [
    { name: '8 GiB amd64: 614.4Mi overhead rounds up to 615Mi', mib: 8192, arch: 'amd64', wantMiB: 7577 },
    { name: '4 GiB arm64: 64Mi CMA first, then 302.4 -> 303Mi', mib: 4096, arch: 'arm64', wantMiB: 3729 },
    { name: '256 GiB amd64', mib: 262144, arch: 'amd64', wantMiB: 242483 },
    { name: 'zero overhead percent keeps the advertised memory', mib: 8192, arch: 'amd64', percent: 0, wantMiB: 8192 },
    { name: 'zero overhead percent still drops the arm64 CMA', mib: 8192, arch: 'arm64', percent: 0, wantMiB: 8128 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(vmMemoryCapacity(c.mib, c.arch, c.percent), c.wantMiB * MiB));
});

describe('evictionThreshold', () => {
  const mem = 7577 * MiB;
  const disk = 20 * GiB;
  const cases: { name: string; hard?: Record<string, string>; want: Record<string, number> }[] = [
    { name: 'defaults: 100Mi and 10% of nodefs', want: { memory: 100 * MiB, 'ephemeral-storage': 2 * GiB } },
    { name: 'memory as a percentage of capacity, rounded up', hard: { 'memory.available': '5%' }, want: { memory: Math.ceil((mem / 100) * 5), 'ephemeral-storage': 2 * GiB } },
    { name: 'memory as a quantity', hard: { 'memory.available': '500Mi' }, want: { memory: 500 * MiB, 'ephemeral-storage': 2 * GiB } },
    { name: '100% disables the nodefs threshold', hard: { 'nodefs.available': '100%' }, want: { memory: 100 * MiB, 'ephemeral-storage': 0 } },
    { name: 'other signals do not touch allocatable', hard: { 'imagefs.available': '50%' }, want: { memory: 100 * MiB, 'ephemeral-storage': 2 * GiB } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(evictionThreshold(mem, disk, c.hard), c.want));

  it('rejects a malformed percentage', () => {
    assert.throws(() => evictionThreshold(mem, disk, { 'memory.available': 'x%' }), /evictionHard memory\.available: expected a percentage/);
  });
});

describe('maxPods', () => {
  const cases: { name: string; options: SizingOptions; want: number }[] = [
    { name: 'AL2023 default: the ENI limit, no 110 cap', options: {}, want: 29 },
    { name: 'maxPods replaces the ENI limit', options: { maxPods: 110 }, want: 110 },
    { name: 'AL2023 caps at podsPerCore x vCPUs', options: { podsPerCore: 4 }, want: 8 },
    { name: 'podsPerCore above the limit changes nothing', options: { podsPerCore: 50 }, want: 29 },
    { name: 'podsPerCore also caps an explicit maxPods', options: { maxPods: 110, podsPerCore: 10 }, want: 20 },
    { name: 'Bottlerocket ignores podsPerCore', options: { amiFamily: 'Bottlerocket', podsPerCore: 4 }, want: 29 },
    { name: 'reserved ENIs shrink the limit', options: { reservedENIs: 1 }, want: 20 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(maxPods(m6iLarge, c.options), c.want));
});

describe('ec2Sizing', () => {
  it('m6i.large under AL2023 defaults, worked by hand', () => {
    const { capacity, overhead } = ec2Sizing(m6iLarge);
    // 8192Mi less ceil(8192 x 0.075) = 615Mi of VM overhead; pods 3 x (10 - 1) + 2.
    assert.deepEqual(capacity, { cpu: 2000, memory: 7577 * MiB, 'ephemeral-storage': 20 * GiB, pods: 29 });
    // cpu 6% of the first core + 1% of the second; memory 11Mi x 29 + 255Mi.
    assert.deepEqual(overhead.kubeReserved, { cpu: 70, memory: 574 * MiB, 'ephemeral-storage': GiB });
    assert.deepEqual(overhead.systemReserved, {});
    assert.deepEqual(overhead.evictionThreshold, { memory: 100 * MiB, 'ephemeral-storage': 2 * GiB });
    // Karpenter's published allocatable for m6i.large: 1930m, 6903Mi, 17Gi, 29 pods.
    assert.deepEqual(allocatableOf(capacity, overhead), { cpu: 1930, memory: 6903 * MiB, 'ephemeral-storage': 17 * GiB, pods: 29 });
  });

  const cases: { name: string; options: SizingOptions; pods: number; kubeMemMiB: number }[] = [
    { name: 'AL2023 charges memory for the ENI limit even when maxPods is higher', options: { maxPods: 110 }, pods: 110, kubeMemMiB: 574 },
    { name: 'AL2023 ignores reserved ENIs when charging memory', options: { reservedENIs: 1 }, pods: 20, kubeMemMiB: 574 },
    { name: 'Bottlerocket charges memory for maxPods', options: { amiFamily: 'Bottlerocket', maxPods: 110 }, pods: 110, kubeMemMiB: 1465 },
    { name: 'Bottlerocket charges memory for the reduced ENI limit', options: { amiFamily: 'Bottlerocket', reservedENIs: 1 }, pods: 20, kubeMemMiB: 475 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { capacity, overhead } = ec2Sizing(m6iLarge, c.options);
      assert.equal(capacity.pods, c.pods);
      assert.equal(overhead.kubeReserved.memory, c.kubeMemMiB * MiB);
    });
  }

  it('honours configured storage, system-reserved and eviction thresholds', () => {
    const { capacity, overhead } = ec2Sizing(m6iLarge, {
      ephemeralStorage: 100 * GiB,
      systemReserved: { cpu: 100, memory: 100 * MiB },
      evictionHard: { 'nodefs.available': '15%' },
    });
    assert.equal(capacity['ephemeral-storage'], 100 * GiB);
    assert.deepEqual(overhead.systemReserved, { cpu: 100, memory: 100 * MiB });
    assert.equal(overhead.evictionThreshold['ephemeral-storage'], 15 * GiB);
    assert.deepEqual(allocatableOf(capacity, overhead), { cpu: 1830, memory: 6803 * MiB, 'ephemeral-storage': 84 * GiB, pods: 29 });
  });
});
