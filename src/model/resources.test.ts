import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quantityNanos } from './quantity.js';
import {
  aggregateContainerLimits,
  aggregateContainerRequests,
  computePodRequests,
  isOvercommitAllowed,
  isSupportedPodLevelResource,
  toResourceList,
  type ContainerResources,
  type ExactResourceList,
  type PodResourceSpec,
} from './resources.js';

const exact = (m: Record<string, string> = {}): ExactResourceList => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, quantityNanos(v)]));
const ctr = (requests: Record<string, string>, opts: { limits?: Record<string, string>; sidecar?: boolean } = {}): ContainerResources => ({
  name: 'c',
  requests: exact(requests),
  limits: exact(opts.limits),
  restartable: opts.sidecar ?? false,
});
const sidecar = (requests: Record<string, string>) => ctr(requests, { sidecar: true });
const MI = 1024 * 1024;

// Cases from component-helpers' resource helpers_test.go (TestPodResourceRequests,
// TestPodLevelResourceRequests), reproduced with berth's own numbers.
describe('computePodRequests: container aggregation (PodRequests)', () => {
  const cases: { name: string; spec: PodResourceSpec; want: Record<string, number> }[] = [
    { name: 'nothing requested', spec: { containers: [ctr({})], initContainers: [] }, want: {} },
    { name: 'containers sum', spec: { containers: [ctr({ cpu: '1' }), ctr({ cpu: '500m', memory: '1Gi' })], initContainers: [] }, want: { cpu: 1500, memory: 1024 * MI } },
    { name: 'larger init container wins', spec: { containers: [ctr({ cpu: '1' })], initContainers: [ctr({ cpu: '4' })] }, want: { cpu: 4000 } },
    { name: 'larger containers win', spec: { containers: [ctr({ cpu: '2' }), ctr({ cpu: '3' })], initContainers: [ctr({ cpu: '4' })] }, want: { cpu: 5000 } },
    { name: 'init containers take the max, not the sum', spec: { containers: [ctr({ cpu: '1' })], initContainers: [ctr({ cpu: '2' }), ctr({ cpu: '3' })] }, want: { cpu: 3000 } },
    { name: 'restartable init container adds to the containers', spec: { containers: [ctr({ cpu: '1' })], initContainers: [sidecar({ cpu: '1' })] }, want: { cpu: 2000 } },
    {
      // max(5, sidecars 3+2+1 + regular 1) = 7
      name: 'multiple restartable init containers',
      spec: { containers: [ctr({ cpu: '1' })], initContainers: [ctr({ cpu: '5' }), sidecar({ cpu: '1' }), sidecar({ cpu: '2' }), sidecar({ cpu: '3' })] },
      want: { cpu: 7000 },
    },
    {
      // init-2 needs 5 + the sidecars started before it (1+2) = 8; the sidecar after it does not count
      name: 'multiple restartable and regular init containers',
      spec: { containers: [ctr({ cpu: '1' })], initContainers: [ctr({ cpu: '5' }), sidecar({ cpu: '1' }), sidecar({ cpu: '2' }), ctr({ cpu: '5' }), sidecar({ cpu: '3' })] },
      want: { cpu: 8000 },
    },
    { name: 'restartable-init, init and regular', spec: { containers: [ctr({ cpu: '100' })], initContainers: [sidecar({ cpu: '10' }), ctr({ cpu: '200' })] }, want: { cpu: 210_000 } },
    {
      name: 'per resource the max is taken separately',
      spec: { containers: [ctr({ cpu: '1', memory: '1Gi' })], initContainers: [ctr({ cpu: '2', memory: '100Mi' })] },
      want: { cpu: 2000, memory: 1024 * MI },
    },
    { name: 'overhead is added', spec: { containers: [ctr({ cpu: '1' })], initContainers: [], overhead: exact({ cpu: '250m', memory: '120Mi' }) }, want: { cpu: 1250, memory: 120 * MI } },
    { name: 'extended resources are summed', spec: { containers: [ctr({ 'example.com/gpu': '1' }), ctr({ 'example.com/gpu': '2' })], initContainers: [] }, want: { 'example.com/gpu': 3 } },
    { name: 'sums are exact before rounding (0.5m + 0.5m = 1m)', spec: { containers: [ctr({ cpu: '0.5m' }), ctr({ cpu: '0.5m' })], initContainers: [] }, want: { cpu: 1 } },
    {
      name: 'fractional bytes add up before rounding',
      spec: { containers: [ctr({ memory: '0.1Gi' }), ctr({ memory: '0.1Gi' })], initContainers: [] },
      // 2 × 107374182.4 = 214748364.8 → 214748365 (rounding each first would give 214748366)
      want: { memory: 214_748_365 },
    },
    { name: 'overhead joins the exact sum', spec: { containers: [ctr({ cpu: '0.5m' })], initContainers: [], overhead: exact({ cpu: '0.5m' }) }, want: { cpu: 1 } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(computePodRequests(c.spec).requests, c.want));
});

describe('computePodRequests: pod-level requests', () => {
  const cases: { name: string; spec: PodResourceSpec; want: Record<string, number> }[] = [
    { name: 'pod-level memory alone', spec: { containers: [], initContainers: [], podLevelRequests: exact({ memory: '2Mi' }) }, want: { memory: 2 * MI } },
    {
      name: 'pod-level memory with container cpu',
      spec: { containers: [ctr({ cpu: '2m' })], initContainers: [], podLevelRequests: exact({ memory: '2Mi' }) },
      want: { memory: 2 * MI, cpu: 2 },
    },
    {
      name: 'unsupported pod-level resource is ignored',
      spec: { containers: [ctr({ storage: '3Mi' })], initContainers: [], podLevelRequests: exact({ storage: '2Mi' }) },
      want: { storage: 3 * MI },
    },
    {
      name: 'pod-level values replace the aggregate, sidecars included',
      spec: {
        containers: [ctr({ memory: '3Mi', cpu: '2m' })],
        initContainers: [sidecar({ memory: '5Mi', cpu: '4m' }), ctr({ memory: '6Mi', cpu: '8m' })],
        podLevelRequests: exact({ memory: '15Mi', cpu: '18m' }),
      },
      want: { memory: 15 * MI, cpu: 18 },
    },
    {
      name: 'hugepages of any size are pod-level resources',
      spec: { containers: [ctr({ 'hugepages-1Gi': '1Gi', memory: '4Mi' })], initContainers: [], podLevelRequests: exact({ cpu: '1', 'hugepages-2Mi': '10Mi', 'hugepages-32Mi': '64Mi' }) },
      want: { cpu: 1000, memory: 4 * MI, 'hugepages-1Gi': 1024 * MI, 'hugepages-2Mi': 10 * MI, 'hugepages-32Mi': 64 * MI },
    },
    { name: 'overhead is added on top of pod-level requests', spec: { containers: [], initContainers: [], podLevelRequests: exact({ cpu: '1' }), overhead: exact({ cpu: '100m' }) }, want: { cpu: 1100 } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(computePodRequests(c.spec).requests, c.want));
});

// PodInfo.CalculateResource: Non0CPU/Non0Mem with getNonMissingContainerRequests.
describe('computePodRequests: non-zero requests', () => {
  const cases: { name: string; spec: PodResourceSpec; cpu: number; memory: number }[] = [
    { name: 'best-effort container gets 100m and 200Mi', spec: { containers: [ctr({})], initContainers: [] }, cpu: 100, memory: 200 * MI },
    { name: 'defaults apply per container', spec: { containers: [ctr({}), ctr({})], initContainers: [] }, cpu: 200, memory: 400 * MI },
    { name: 'explicit zero stays zero', spec: { containers: [ctr({ cpu: '0', memory: '0' })], initContainers: [] }, cpu: 0, memory: 0 },
    { name: 'only the missing resource is defaulted', spec: { containers: [ctr({ cpu: '1' })], initContainers: [] }, cpu: 1000, memory: 200 * MI },
    {
      name: 'init containers get defaults too (max of init and sum)',
      spec: { containers: [ctr({ cpu: '50m', memory: '50Mi' })], initContainers: [ctr({})] },
      cpu: 100,
      memory: 200 * MI,
    },
    {
      name: 'pod-level cpu: containers are not defaulted for cpu, memory still is',
      spec: { containers: [ctr({}), ctr({})], initContainers: [], podLevelRequests: exact({ cpu: '300m' }) },
      cpu: 300,
      memory: 400 * MI,
    },
    {
      name: 'pod-level cpu and memory: no defaults',
      spec: { containers: [ctr({})], initContainers: [], podLevelRequests: exact({ cpu: '1', memory: '1Mi' }) },
      cpu: 1000,
      memory: MI,
    },
    { name: 'overhead counts', spec: { containers: [ctr({})], initContainers: [], overhead: exact({ cpu: '10m' }) }, cpu: 110, memory: 200 * MI },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = computePodRequests(c.spec);
      assert.deepEqual([r.nonZeroCpu, r.nonZeroMemory], [c.cpu, c.memory]);
    });
  }

  it('scoring requests default every container and ignore pod-level requests (Fit scorer skips them upstream)', () => {
    const r = computePodRequests({ containers: [ctr({}), ctr({ cpu: '1' })], initContainers: [], podLevelRequests: exact({ memory: '1Gi' }), overhead: exact({ memory: '1Mi' }) });
    assert.deepEqual(r.scoring, { cpu: 1100, memory: 401 * MI });
    assert.deepEqual([r.nonZeroCpu, r.nonZeroMemory], [1000, 1025 * MI]);
  });
});

describe('aggregate helpers and resource classes', () => {
  it('limits aggregate with the same formula', () => {
    const spec = { containers: [ctr({}, { limits: { cpu: '1' } })], initContainers: [ctr({}, { limits: { cpu: '3' } }), ctr({}, { limits: { cpu: '1' }, sidecar: true })] };
    assert.deepEqual(toResourceList(aggregateContainerLimits(spec)), { cpu: 3000 });
    assert.deepEqual(aggregateContainerRequests(spec), {});
  });
  const supported: [string, boolean][] = [
    ['cpu', true],
    ['memory', true],
    ['hugepages-2Mi', true],
    ['hugepages-32Mi', true],
    ['ephemeral-storage', false],
    ['example.com/gpu', false],
  ];
  for (const [name, want] of supported) it(`isSupportedPodLevelResource(${name})`, () => assert.equal(isSupportedPodLevelResource(name), want));
  const overcommit: [string, boolean][] = [
    ['cpu', true],
    ['memory', true],
    ['hugepages-2Mi', false],
    ['example.com/gpu', false],
    ['kubernetes.io/foo', true],
  ];
  for (const [name, want] of overcommit) it(`isOvercommitAllowed(${name})`, () => assert.equal(isOvercommitAllowed(name), want));
});
