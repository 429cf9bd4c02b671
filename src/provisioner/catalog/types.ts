// The provisioner's instance type: what a new node of this type would report (capacity),
// what it keeps for itself (overhead), what pods can use (allocatable), and where and at
// what price it can be launched (offerings). Shaped after Karpenter's cloudprovider.InstanceType.

import type { ResourceList } from '../../model/resources.js';
import type { Labels } from '../../model/selector.js';

export { LABEL_INSTANCE_TYPE } from '../../model/node.js';
export const LABEL_ARCH = 'kubernetes.io/arch';
export const LABEL_OS = 'kubernetes.io/os';
export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_REGION = 'topology.kubernetes.io/region';
export const LABEL_CAPACITY_TYPE = 'karpenter.sh/capacity-type';
export const LABEL_INSTANCE_FAMILY = 'karpenter.k8s.aws/instance-family';
export const LABEL_INSTANCE_CATEGORY = 'karpenter.k8s.aws/instance-category';
export const LABEL_INSTANCE_CPU = 'karpenter.k8s.aws/instance-cpu';
export const LABEL_INSTANCE_MEMORY = 'karpenter.k8s.aws/instance-memory';
export const LABEL_INSTANCE_GENERATION = 'karpenter.k8s.aws/instance-generation';
export const LABEL_INSTANCE_SIZE = 'karpenter.k8s.aws/instance-size';
export const LABEL_INSTANCE_HYPERVISOR = 'karpenter.k8s.aws/instance-hypervisor';
export const LABEL_INSTANCE_GPU_NAME = 'karpenter.k8s.aws/instance-gpu-name';
export const LABEL_INSTANCE_GPU_MANUFACTURER = 'karpenter.k8s.aws/instance-gpu-manufacturer';
export const LABEL_INSTANCE_GPU_COUNT = 'karpenter.k8s.aws/instance-gpu-count';
export const LABEL_INSTANCE_GPU_MEMORY = 'karpenter.k8s.aws/instance-gpu-memory';
export const LABEL_INSTANCE_ACCELERATOR_NAME = 'karpenter.k8s.aws/instance-accelerator-name';
export const LABEL_INSTANCE_ACCELERATOR_MANUFACTURER = 'karpenter.k8s.aws/instance-accelerator-manufacturer';
export const LABEL_INSTANCE_ACCELERATOR_COUNT = 'karpenter.k8s.aws/instance-accelerator-count';

export type CapacityType = 'on-demand' | 'spot';
export const CAPACITY_TYPES: readonly CapacityType[] = ['on-demand', 'spot'];

export type Arch = 'amd64' | 'arm64';
export const ARCHES: readonly Arch[] = ['amd64', 'arm64'];

/** One place an instance type can be launched: a zone and a capacity type, with its hourly price. */
export interface Offering {
  readonly zone: string;
  readonly capacityType: CapacityType;
  /** USD per hour. */
  readonly price: number;
  /** False while the cloud reports no capacity here (e.g. after an insufficient-capacity error). */
  readonly available: boolean;
}

/** The three slices of capacity a node withholds from pods; allocatable is capacity minus their sum. */
export interface InstanceTypeOverhead {
  readonly kubeReserved: ResourceList;
  readonly systemReserved: ResourceList;
  readonly evictionThreshold: ResourceList;
}

export interface InstanceType {
  readonly name: string;
  /** Labels a node of this type carries whichever offering launched it. */
  readonly labels: Labels;
  /**
   * Values each well-known key can take on a node of this type: every label with its one
   * value, plus zone and capacity type with the values its offerings span.
   */
  readonly requirements: Readonly<Record<string, readonly string[]>>;
  /** cpu in millicores, memory and ephemeral-storage in bytes, pods as a count. */
  readonly capacity: ResourceList;
  readonly overhead: InstanceTypeOverhead;
  readonly allocatable: ResourceList;
  readonly offerings: readonly Offering[];
  /** The EBS CSI driver's allocatable count on a new node of this type (ebs-limits.ts); absent when the catalog does not say. */
  readonly ebsVolumeLimit?: number;
}

/**
 * Capacity minus the summed overhead, per resource the capacity lists. As in Karpenter,
 * overhead for a resource the capacity lacks is ignored and nothing is clamped at zero.
 */
export function allocatableOf(capacity: ResourceList, overhead: InstanceTypeOverhead): ResourceList {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(capacity)) {
    const withheld = (overhead.kubeReserved[name] ?? 0) + (overhead.systemReserved[name] ?? 0) + (overhead.evictionThreshold[name] ?? 0);
    out[name] = value - withheld;
  }
  return out;
}

function distinct(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** Assembles an InstanceType, deriving its requirements and allocatable from the other parts. */
export function makeInstanceType(parts: {
  name: string;
  labels: Labels;
  capacity: ResourceList;
  overhead: InstanceTypeOverhead;
  offerings: readonly Offering[];
  ebsVolumeLimit?: number;
}): InstanceType {
  const requirements: Record<string, readonly string[]> = {};
  for (const [key, value] of Object.entries(parts.labels)) requirements[key] = [value];
  requirements[LABEL_ZONE] = distinct(parts.offerings.map((o) => o.zone));
  requirements[LABEL_CAPACITY_TYPE] = distinct(parts.offerings.map((o) => o.capacityType));
  return { ...parts, requirements, allocatable: allocatableOf(parts.capacity, parts.overhead) };
}
