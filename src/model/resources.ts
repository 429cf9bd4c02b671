// Resource lists as integers (cpu in millicores, the rest in whole units) and the
// pod request arithmetic of component-helpers' resource.PodRequests, including
// restartable (sidecar) init containers, pod-level resources and pod overhead.

export type ResourceList = Readonly<Record<string, number>>;

/** Non-zero defaults the scheduler assumes for containers without cpu/memory requests (scoring only). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

/** Resources that pod-level `spec.resources` may set (IsSupportedPodLevelResource). */
export const POD_LEVEL_RESOURCES: ReadonlySet<string> = new Set(['cpu', 'memory', 'hugepages-1Gi', 'hugepages-2Mi']);

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

export interface ContainerResources {
  readonly name: string;
  /** Requests after API defaulting (a limit without a request becomes the request). */
  readonly requests: ResourceList;
  /** True for an init container with restartPolicy: Always (a sidecar). */
  readonly restartable: boolean;
}

export interface PodResourceSpec {
  readonly containers: readonly ContainerResources[];
  readonly initContainers: readonly ContainerResources[];
  /** Pod-level spec.resources.requests, already limited to supported resources; undefined if unset. */
  readonly podLevelRequests?: ResourceList;
  readonly overhead?: ResourceList;
}

function withDefaults(requests: ResourceList, nonMissing: ResourceList | undefined): ResourceList {
  if (!nonMissing) return requests;
  const out: Record<string, number> = { ...requests };
  for (const [k, v] of Object.entries(nonMissing)) if (!(k in out)) out[k] = v;
  return out;
}

function aggregateContainers(spec: PodResourceSpec, nonMissing: ResourceList | undefined): Record<string, number> {
  const result: Record<string, number> = {};
  for (const c of spec.containers) addInto(result, withDefaults(c.requests, nonMissing));
  const sidecars: Record<string, number> = {};
  const initMax: Record<string, number> = {};
  for (const c of spec.initContainers) {
    const reqs = withDefaults(c.requests, nonMissing);
    let effective: ResourceList;
    if (c.restartable) {
      // Sidecars run for the pod's lifetime: they add to the total and to every later init container.
      addInto(result, reqs);
      addInto(sidecars, reqs);
      effective = sidecars;
    } else {
      const combined: Record<string, number> = { ...reqs };
      addInto(combined, sidecars);
      effective = combined;
    }
    maxInto(initMax, effective);
  }
  maxInto(result, initMax);
  return result;
}

function podRequestsWith(spec: PodResourceSpec, nonMissing: ResourceList | undefined): Record<string, number> {
  const reqs = aggregateContainers(spec, nonMissing);
  if (spec.podLevelRequests && Object.keys(spec.podLevelRequests).length > 0) {
    for (const [k, v] of Object.entries(spec.podLevelRequests)) if (POD_LEVEL_RESOURCES.has(k)) reqs[k] = v;
  }
  if (spec.overhead) addInto(reqs, spec.overhead);
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
   * NodeResourcesFit scorer computes them (unlike nonZero*, regardless of pod-level resources).
   */
  readonly scoring: ResourceList;
}

/** framework.PodInfo.CalculateResource. */
export function computePodRequests(spec: PodResourceSpec): PodRequests {
  const requests = podRequestsWith(spec, undefined);
  const podLevelSet = spec.podLevelRequests !== undefined && Object.keys(spec.podLevelRequests).some((k) => POD_LEVEL_RESOURCES.has(k));
  let nonMissing: Record<string, number> | undefined;
  if (!podLevelSet) {
    nonMissing = { cpu: DEFAULT_MILLI_CPU_REQUEST, memory: DEFAULT_MEMORY_REQUEST };
  } else {
    nonMissing = {};
    if (!('cpu' in requests)) nonMissing.cpu = DEFAULT_MILLI_CPU_REQUEST;
    if (!('memory' in requests)) nonMissing.memory = DEFAULT_MEMORY_REQUEST;
    if (Object.keys(nonMissing).length === 0) nonMissing = undefined;
  }
  const nonZero = nonMissing ? podRequestsWith(spec, nonMissing) : requests;
  const scoring = podRequestsWith(spec, { cpu: DEFAULT_MILLI_CPU_REQUEST, memory: DEFAULT_MEMORY_REQUEST });
  return { requests, nonZeroCpu: nonZero.cpu ?? 0, nonZeroMemory: nonZero.memory ?? 0, scoring };
}
