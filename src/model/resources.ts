// Resource lists as integers (cpu in millicores, the rest in whole units) and the
// pod request arithmetic of component-helpers' resource.PodRequests, including
// restartable (sidecar) init containers, pod-level resources and pod overhead.
// The arithmetic runs on exact amounts (nano-units, as Quantity holds them) and
// converts once at the end, because upstream adds Quantities and only then asks
// for MilliValue()/Value(): two containers of 0.5m cpu request 1m, not 2m.

import { nanosToResourceValue } from './quantity.js';
import { isHugePageResourceName, isNativeResource } from './resource-names.js';

export type ResourceList = Readonly<Record<string, number>>;

/** Amounts in nano-units (1 cpu = 10^9, 1 byte = 10^9), summed exactly. */
export type ExactResourceList = Readonly<Record<string, bigint>>;

/** Non-zero defaults the scheduler assumes for containers without cpu/memory requests (scoring only). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

const NANOS_PER_MILLI = 1_000_000n;
const NANOS_PER_UNIT = 1_000_000_000n;

/** Resources that pod-level `spec.resources` may set (IsSupportedPodLevelResource): cpu, memory and every hugepages size. */
export function isSupportedPodLevelResource(name: string): boolean {
  return name === 'cpu' || name === 'memory' || isHugePageResourceName(name);
}

/** v1helper.IsOvercommitAllowed: requests may be below limits (native resources other than hugepages). */
export function isOvercommitAllowed(name: string): boolean {
  return isNativeResource(name) && !isHugePageResourceName(name);
}

export function addInto(target: Record<string, number>, add: ResourceList): void {
  for (const [k, v] of Object.entries(add)) target[k] = (target[k] ?? 0) + v;
}

export function subtractInto(target: Record<string, number>, sub: ResourceList): void {
  for (const [k, v] of Object.entries(sub)) target[k] = (target[k] ?? 0) - v;
}

export function maxInto(target: Record<string, number>, other: ResourceList): void {
  for (const [k, v] of Object.entries(other)) {
    const cur = target[k];
    if (cur === undefined || v > cur) target[k] = v;
  }
}

function addExact(target: Record<string, bigint>, add: ExactResourceList): void {
  for (const [k, v] of Object.entries(add)) target[k] = (target[k] ?? 0n) + v;
}

function maxExact(target: Record<string, bigint>, other: ExactResourceList): void {
  for (const [k, v] of Object.entries(other)) {
    const cur = target[k];
    if (cur === undefined || v > cur) target[k] = v;
  }
}

/** Converts exact amounts to the scheduler's integers (Resource.Add: MilliValue for cpu, Value otherwise). */
export function toResourceList(exact: ExactResourceList): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(exact)) out[k] = nanosToResourceValue(k, v);
  return out;
}

export interface ContainerResources {
  readonly name: string;
  /** Requests after API defaulting (a limit without a request becomes the request). */
  readonly requests: ExactResourceList;
  readonly limits: ExactResourceList;
  /** True for an init container with restartPolicy: Always (a sidecar). */
  readonly restartable: boolean;
}

export interface PodResourceSpec {
  readonly containers: readonly ContainerResources[];
  readonly initContainers: readonly ContainerResources[];
  /** Pod-level spec.resources.requests after API defaulting; undefined if unset. */
  readonly podLevelRequests?: ExactResourceList;
  readonly overhead?: ExactResourceList;
}

function withDefaults(amounts: ExactResourceList, nonMissing: ExactResourceList | undefined): ExactResourceList {
  if (!nonMissing) return amounts;
  const out: Record<string, bigint> = { ...amounts };
  for (const [k, v] of Object.entries(nonMissing)) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * The KEP-753 formula: regular containers sum; each init container needs its own
 * amount plus every sidecar started before it; sidecars also run alongside the
 * regular containers, so they add to the sum. The pod needs the larger of the two.
 */
function aggregate(
  spec: Pick<PodResourceSpec, 'containers' | 'initContainers'>,
  pick: (c: ContainerResources) => ExactResourceList,
  nonMissing: ExactResourceList | undefined,
): Record<string, bigint> {
  const result: Record<string, bigint> = {};
  for (const c of spec.containers) addExact(result, withDefaults(pick(c), nonMissing));
  const sidecars: Record<string, bigint> = {};
  const initMax: Record<string, bigint> = {};
  for (const c of spec.initContainers) {
    const amounts = withDefaults(pick(c), nonMissing);
    let effective: ExactResourceList;
    if (c.restartable) {
      addExact(result, amounts);
      addExact(sidecars, amounts);
      effective = sidecars;
    } else {
      const combined: Record<string, bigint> = { ...amounts };
      addExact(combined, sidecars);
      effective = combined;
    }
    maxExact(initMax, effective);
  }
  maxExact(result, initMax);
  return result;
}

/** resource.AggregateContainerRequests (exact). */
export function aggregateContainerRequests(spec: Pick<PodResourceSpec, 'containers' | 'initContainers'>): Record<string, bigint> {
  return aggregate(spec, (c) => c.requests, undefined);
}

/** resource.AggregateContainerLimits (exact). */
export function aggregateContainerLimits(spec: Pick<PodResourceSpec, 'containers' | 'initContainers'>): Record<string, bigint> {
  return aggregate(spec, (c) => c.limits, undefined);
}

/** IsPodLevelRequestsSet: pod-level requests name at least one supported resource. */
function podLevelRequestsSet(spec: PodResourceSpec): boolean {
  return spec.podLevelRequests !== undefined && Object.keys(spec.podLevelRequests).some(isSupportedPodLevelResource);
}

function podRequestsWith(spec: PodResourceSpec, nonMissing: ExactResourceList | undefined, skipPodLevel = false): Record<string, bigint> {
  const reqs = aggregate(spec, (c) => c.requests, nonMissing);
  if (!skipPodLevel && podLevelRequestsSet(spec)) {
    for (const [k, v] of Object.entries(spec.podLevelRequests!)) if (isSupportedPodLevelResource(k)) reqs[k] = v;
  }
  if (spec.overhead) addExact(reqs, spec.overhead);
  return reqs;
}

export interface PodRequests {
  /** What the pod asks of a node (NodeResourcesFit filter). */
  readonly requests: ResourceList;
  /** cpu with missing container requests counted as 100m (scoring). */
  readonly nonZeroCpu: number;
  /** memory with missing container requests counted as 200Mi (scoring). */
  readonly nonZeroMemory: number;
  /**
   * Requests with every container's missing cpu/memory defaulted, as the
   * NodeResourcesFit scorer computes them: from containers and overhead only, since
   * upstream never sets enablePodLevelResources on Fit's own resourceAllocationScorer
   * (so SkipPodLevelResources is true there, unlike in BalancedAllocation).
   */
  readonly scoring: ResourceList;
}

const DEFAULT_CPU_NANOS = BigInt(DEFAULT_MILLI_CPU_REQUEST) * NANOS_PER_MILLI;
const DEFAULT_MEMORY_NANOS = BigInt(DEFAULT_MEMORY_REQUEST) * NANOS_PER_UNIT;

/** framework.PodInfo.CalculateResource. */
export function computePodRequests(spec: PodResourceSpec): PodRequests {
  const requests = podRequestsWith(spec, undefined);
  // getNonMissingContainerRequests: per-container defaults, or with pod-level
  // requests only for cpu/memory that neither level sets.
  const nonMissing: Record<string, bigint> = {};
  if (!podLevelRequestsSet(spec) || !('cpu' in requests)) nonMissing.cpu = DEFAULT_CPU_NANOS;
  if (!podLevelRequestsSet(spec) || !('memory' in requests)) nonMissing.memory = DEFAULT_MEMORY_NANOS;
  const nonZero = Object.keys(nonMissing).length > 0 ? podRequestsWith(spec, nonMissing) : requests;
  return {
    requests: toResourceList(requests),
    nonZeroCpu: nanosToResourceValue('cpu', nonZero.cpu ?? 0n),
    nonZeroMemory: nanosToResourceValue('memory', nonZero.memory ?? 0n),
    scoring: toResourceList(podRequestsWith(spec, { cpu: DEFAULT_CPU_NANOS, memory: DEFAULT_MEMORY_NANOS }, true)),
  };
}
