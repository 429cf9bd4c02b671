// How Karpenter's AWS provider sizes a node before it exists: the capacity it expects the
// kubelet to report and the overhead it expects the kubelet to withhold. The numbers and
// the order of float operations follow pkg/providers/instancetype/types.go of
// aws/karpenter-provider-aws (v1.14), so allocatable matches Karpenter's to the byte.

import type { ResourceList } from '../../model/resources.js';
import { resourceValue } from '../../model/quantity.js';
import type { Arch, InstanceTypeOverhead } from './types.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Share of the advertised memory lost to the hypervisor and firmware (operator flag --vm-memory-overhead-percent). */
export const DEFAULT_VM_MEMORY_OVERHEAD_PERCENT = 0.075;
/** Graviton kernels reserve this much contiguous (CMA) memory that the OS never reports as usable. */
export const ARM64_CMA_RESERVED_MIB = 64;
/** Root volume size of the AL2023 and Bottlerocket block device mappings when an EC2NodeClass sets none. */
export const DEFAULT_EPHEMERAL_STORAGE = 20 * GiB;
/** The kubelet's own default pod limit, used where pod density is not tied to ENIs. */
export const DEFAULT_MAX_PODS = 110;
/** Karpenter's default kube-reserved ephemeral-storage. */
export const KUBE_RESERVED_EPHEMERAL_STORAGE = 1 * GiB;
/** The kubelet's default hard eviction threshold memory.available<100Mi. */
export const DEFAULT_EVICTION_MEMORY = 100 * MiB;
/** The kubelet's default hard eviction threshold nodefs.available<10%. */
export const DEFAULT_EVICTION_NODEFS_PERCENT = 10;

export const EVICTION_MEMORY_AVAILABLE = 'memory.available';
export const EVICTION_NODEFS_AVAILABLE = 'nodefs.available';

/**
 * The AMI families whose sizing differs. AL2023 (Karpenter's default family) charges
 * kube-reserved memory for the ENI pod limit even when maxPods overrides it, and honours
 * podsPerCore; Bottlerocket charges it for the effective pod limit and ignores podsPerCore.
 * Both cap pods by ENIs rather than at 110.
 */
export type AmiFamily = 'AL2023' | 'Bottlerocket';

/** The kubelet settings of a NodePool/EC2NodeClass that change sizing; all optional. */
export interface SizingOptions {
  readonly amiFamily?: AmiFamily;
  /** kubelet maxPods: replaces the ENI-derived pod limit. */
  readonly maxPods?: number;
  /** kubelet podsPerCore: caps pods at podsPerCore × vCPUs (AL2023 only). */
  readonly podsPerCore?: number;
  /** ENIs kept out of the pod limit (operator flag --reserved-enis, default 0). */
  readonly reservedENIs?: number;
  readonly vmMemoryOverheadPercent?: number;
  /** Ephemeral storage in bytes (the root volume size). */
  readonly ephemeralStorage?: number;
  /** kubelet kubeReserved: replaces the computed value per resource. */
  readonly kubeReserved?: ResourceList;
  /** kubelet systemReserved (nothing by default). */
  readonly systemReserved?: ResourceList;
  /** kubelet evictionHard signals, e.g. {"memory.available": "5%"}; only memory and nodefs affect allocatable. */
  readonly evictionHard?: Readonly<Record<string, string>>;
}

/**
 * Pods the VPC CNI can address on the default network card: each usable ENI gives all
 * but its primary IP to pods, and two host-network pods need no IP of their own.
 */
export function eniLimitedPods(maxENIs: number, ipv4PerENI: number, reservedENIs = 0): number {
  const usable = Math.max(maxENIs - reservedENIs, 0);
  if (usable === 0) return 0;
  return usable * (ipv4PerENI - 1) + 2;
}

// GKE-style tiers (as adopted by Bottlerocket and Karpenter): the share of each core band
// reserved for the kubelet and container runtime.
const CPU_TIERS: readonly { start: number; end: number; fraction: number }[] = [
  { start: 0, end: 1000, fraction: 0.06 },
  { start: 1000, end: 2000, fraction: 0.01 },
  { start: 2000, end: 4000, fraction: 0.005 },
  { start: 4000, end: 2 ** 31, fraction: 0.0025 },
];

/** kube-reserved cpu in millicores for a node with `cpuMillis` of capacity. */
export function kubeReservedCpu(cpuMillis: number): number {
  let reserved = 0;
  for (const tier of CPU_TIERS) {
    if (cpuMillis < tier.start) continue;
    const band = cpuMillis < tier.end ? cpuMillis - tier.start : tier.end - tier.start;
    // Each band's share is truncated to whole millicores on its own (Go's int64 conversion).
    reserved += Math.trunc(band * tier.fraction);
  }
  return reserved;
}

/** kube-reserved memory in bytes: 255 MiB for the kubelet plus 11 MiB per pod it may run. */
export function kubeReservedMemory(pods: number): number {
  return (11 * pods + 255) * MiB;
}

/**
 * Memory capacity in bytes Karpenter expects the node to report: the advertised MiB, less
 * the Graviton CMA reservation, less the VM overhead share rounded up to a whole MiB.
 */
export function vmMemoryCapacity(memoryMiB: number, arch: Arch, overheadPercent = DEFAULT_VM_MEMORY_OVERHEAD_PERCENT): number {
  const mib = arch === 'arm64' ? memoryMiB - ARM64_CMA_RESERVED_MIB : memoryMiB;
  const overheadMiB = Math.ceil((mib * MiB * overheadPercent) / 1024 / 1024);
  return (mib - overheadMiB) * MiB;
}

function percentValue(signal: string, key: string): number {
  const text = signal.slice(0, -1);
  const p = Number(text);
  if (text.trim() === '' || !Number.isFinite(p)) throw new Error(`evictionHard ${key}: expected a percentage, got ${JSON.stringify(signal)}`);
  // The kubelet reads 100% as "threshold disabled".
  return p === 100 ? 0 : p;
}

/** One eviction signal as bytes: a percentage of `capacity` rounded up, or a plain quantity. */
function evictionSignal(capacity: number, signal: string, key: string): number {
  if (signal.endsWith('%')) return Math.ceil((capacity / 100) * percentValue(signal, key));
  return resourceValue('memory', signal);
}

/** Hard-eviction reserve: 100Mi of memory and 10% of ephemeral storage unless evictionHard says otherwise. */
export function evictionThreshold(memory: number, ephemeralStorage: number, evictionHard?: Readonly<Record<string, string>>): ResourceList {
  const out: Record<string, number> = {
    memory: DEFAULT_EVICTION_MEMORY,
    'ephemeral-storage': Math.ceil((ephemeralStorage / 100) * DEFAULT_EVICTION_NODEFS_PERCENT),
  };
  const mem = evictionHard?.[EVICTION_MEMORY_AVAILABLE];
  if (mem !== undefined) out.memory = evictionSignal(memory, mem, EVICTION_MEMORY_AVAILABLE);
  const fs = evictionHard?.[EVICTION_NODEFS_AVAILABLE];
  if (fs !== undefined) out['ephemeral-storage'] = evictionSignal(ephemeralStorage, fs, EVICTION_NODEFS_AVAILABLE);
  return out;
}

/** Kubelet kube-reserved: computed cpu, memory and ephemeral-storage, then any configured values on top. */
export function kubeReserved(cpuMillis: number, podsForMemory: number, configured?: ResourceList): ResourceList {
  return {
    cpu: kubeReservedCpu(cpuMillis),
    memory: kubeReservedMemory(podsForMemory),
    'ephemeral-storage': KUBE_RESERVED_EPHEMERAL_STORAGE,
    ...configured,
  };
}

/** The facts about an EC2 instance type that sizing needs. */
export interface Ec2Facts {
  readonly vcpu: number;
  readonly memoryMiB: number;
  readonly arch: Arch;
  readonly maxENIs: number;
  readonly ipv4PerENI: number;
}

/** The pod capacity of a node: maxPods if set, else the ENI limit, then podsPerCore where the family honours it. */
export function maxPods(facts: Ec2Facts, options: SizingOptions = {}): number {
  const family = options.amiFamily ?? 'AL2023';
  let pods = options.maxPods ?? eniLimitedPods(facts.maxENIs, facts.ipv4PerENI, options.reservedENIs ?? 0);
  const perCore = options.podsPerCore ?? 0;
  if (perCore > 0 && family === 'AL2023') pods = Math.min(perCore * facts.vcpu, pods);
  return pods;
}

export interface Sizing {
  readonly capacity: ResourceList;
  readonly overhead: InstanceTypeOverhead;
}

/** Capacity and overhead Karpenter computes for an EC2 instance type under the given kubelet settings. */
export function ec2Sizing(facts: Ec2Facts, options: SizingOptions = {}): Sizing {
  const family = options.amiFamily ?? 'AL2023';
  const cpu = facts.vcpu * 1000;
  const memory = vmMemoryCapacity(facts.memoryMiB, facts.arch, options.vmMemoryOverheadPercent);
  const ephemeralStorage = options.ephemeralStorage ?? DEFAULT_EPHEMERAL_STORAGE;
  const pods = maxPods(facts, options);
  // AL2023 sizes kube-reserved memory for every pod the ENIs could hold (reserved ENIs
  // ignored), so lowering maxPods does not shrink it; Bottlerocket uses the pod capacity.
  const podsForMemory = family === 'AL2023' ? eniLimitedPods(facts.maxENIs, facts.ipv4PerENI, 0) : pods;
  return {
    capacity: { cpu, memory, 'ephemeral-storage': ephemeralStorage, pods },
    overhead: {
      kubeReserved: kubeReserved(cpu, podsForMemory, options.kubeReserved),
      systemReserved: { ...options.systemReserved },
      evictionThreshold: evictionThreshold(memory, ephemeralStorage, options.evictionHard),
    },
  };
}
