// Label keys the provisioner reasons about, with the sets Karpenter core and its AWS provider
// build from them: which keys are "well known" (a NodePool or pod may narrow them without an
// instance type having to define them), which are restricted, which aliases are rewritten.
// The instance-type keys the catalog defines live in catalog/types.ts; import them from there.

import {
  LABEL_ARCH,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_CPU,
  LABEL_INSTANCE_FAMILY,
  LABEL_INSTANCE_GENERATION,
  LABEL_INSTANCE_HYPERVISOR,
  LABEL_INSTANCE_GPU_NAME,
  LABEL_INSTANCE_GPU_MANUFACTURER,
  LABEL_INSTANCE_GPU_COUNT,
  LABEL_INSTANCE_GPU_MEMORY,
  LABEL_INSTANCE_ACCELERATOR_NAME,
  LABEL_INSTANCE_ACCELERATOR_MANUFACTURER,
  LABEL_INSTANCE_ACCELERATOR_COUNT,
  LABEL_INSTANCE_MEMORY,
  LABEL_INSTANCE_SIZE,
  LABEL_INSTANCE_TYPE,
  LABEL_OS,
  LABEL_REGION,
  LABEL_ZONE,
} from './catalog/types.js';

// Kubernetes
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_WINDOWS_BUILD = 'node.kubernetes.io/windows-build';

// Karpenter core (group karpenter.sh)
export const KARPENTER_GROUP = 'karpenter.sh';
export const LABEL_NODEPOOL = 'karpenter.sh/nodepool';
export const LABEL_NODE_REGISTERED = 'karpenter.sh/registered';
export const LABEL_NODE_INITIALIZED = 'karpenter.sh/initialized';

// Karpenter's AWS provider (group karpenter.k8s.aws)
export const AWS_GROUP = 'karpenter.k8s.aws';
export const LABEL_CAPACITY_RESERVATION_ID = 'karpenter.k8s.aws/capacity-reservation-id';
export const LABEL_CAPACITY_RESERVATION_TYPE = 'karpenter.k8s.aws/capacity-reservation-type';
export const LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE = 'karpenter.k8s.aws/capacity-reservation-interruptible';
export const LABEL_INSTANCE_ENCRYPTION_IN_TRANSIT_SUPPORTED = 'karpenter.k8s.aws/instance-encryption-in-transit-supported';
export const LABEL_INSTANCE_NITRO_ENCLAVES_SUPPORTED = 'karpenter.k8s.aws/nitro-sandbox';
export const LABEL_INSTANCE_CAPABILITY_FLEX = 'karpenter.k8s.aws/instance-capability-flex';
export const LABEL_INSTANCE_LOCAL_NVME = 'karpenter.k8s.aws/instance-local-nvme';
export const LABEL_INSTANCE_CPU_MANUFACTURER = 'karpenter.k8s.aws/instance-cpu-manufacturer';
export const LABEL_INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ = 'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz';
export const LABEL_INSTANCE_EBS_BANDWIDTH = 'karpenter.k8s.aws/instance-ebs-bandwidth';
export const LABEL_INSTANCE_NETWORK_BANDWIDTH = 'karpenter.k8s.aws/instance-network-bandwidth';
export const LABEL_INSTANCE_TENANCY = 'karpenter.k8s.aws/instance-tenancy';
export const LABEL_PLACEMENT_GROUP_ID = 'karpenter.k8s.aws/placement-group-id';
export const LABEL_PLACEMENT_GROUP_PARTITION = 'karpenter.k8s.aws/placement-group-partition';
export const LABEL_TOPOLOGY_ZONE_ID = 'topology.k8s.aws/zone-id';

/**
 * Well-known labels, core first and then the AWS provider's additions, each in the order its
 * source lists them. The order matters only for typo hints: the first key that looks like a
 * misspelt one is suggested (Karpenter walks a Go set, so its pick among several is random).
 */
export const WELL_KNOWN_LABEL_LIST: readonly string[] = [
  LABEL_NODEPOOL,
  LABEL_ZONE,
  LABEL_REGION,
  LABEL_INSTANCE_TYPE,
  LABEL_ARCH,
  LABEL_OS,
  LABEL_CAPACITY_TYPE,
  LABEL_WINDOWS_BUILD,
  LABEL_CAPACITY_RESERVATION_ID,
  LABEL_CAPACITY_RESERVATION_TYPE,
  LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE,
  LABEL_INSTANCE_HYPERVISOR,
  LABEL_INSTANCE_ENCRYPTION_IN_TRANSIT_SUPPORTED,
  LABEL_INSTANCE_NITRO_ENCLAVES_SUPPORTED,
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_CAPABILITY_FLEX,
  LABEL_INSTANCE_FAMILY,
  LABEL_INSTANCE_GENERATION,
  LABEL_INSTANCE_SIZE,
  LABEL_INSTANCE_LOCAL_NVME,
  LABEL_INSTANCE_CPU,
  LABEL_INSTANCE_CPU_MANUFACTURER,
  LABEL_INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ,
  LABEL_INSTANCE_MEMORY,
  LABEL_INSTANCE_EBS_BANDWIDTH,
  LABEL_INSTANCE_NETWORK_BANDWIDTH,
  LABEL_INSTANCE_GPU_NAME,
  LABEL_INSTANCE_GPU_MANUFACTURER,
  LABEL_INSTANCE_GPU_COUNT,
  LABEL_INSTANCE_GPU_MEMORY,
  LABEL_INSTANCE_ACCELERATOR_NAME,
  LABEL_INSTANCE_ACCELERATOR_MANUFACTURER,
  LABEL_INSTANCE_ACCELERATOR_COUNT,
  LABEL_TOPOLOGY_ZONE_ID,
  LABEL_INSTANCE_TENANCY,
  LABEL_PLACEMENT_GROUP_ID,
  LABEL_PLACEMENT_GROUP_PARTITION,
];

/** Keys a NodePool or pod may constrain even though no instance type or template defines them. */
export const WELL_KNOWN_LABELS: ReadonlySet<string> = new Set(WELL_KNOWN_LABEL_LIST);

/** Keys that never become NodeClaim labels and are left out of requirement strings (the hostname is a placeholder while planning). */
export const RESTRICTED_LABELS: ReadonlySet<string> = new Set([LABEL_HOSTNAME]);

/** Label domains reserved for Karpenter itself (core and the AWS provider). */
export const RESTRICTED_LABEL_DOMAINS: readonly string[] = [KARPENTER_GROUP, AWS_GROUP];

/** Requirement keys the planner adds only so DaemonSet affinity is evaluated as on a ready node; never NodeClaim labels. */
export const SCHEDULING_SIMULATION_LABELS: ReadonlySet<string> = new Set([LABEL_NODE_REGISTERED, LABEL_NODE_INITIALIZED]);

/**
 * Deprecated aliases rewritten to their current key whenever a requirement is built, so a pod
 * asking for failure-domain.beta.kubernetes.io/zone constrains topology.kubernetes.io/zone.
 * The AWS provider adds the EBS CSI driver's zone key.
 */
export const NORMALIZED_LABELS: Readonly<Record<string, string>> = {
  'failure-domain.beta.kubernetes.io/zone': LABEL_ZONE,
  'beta.kubernetes.io/arch': LABEL_ARCH,
  'beta.kubernetes.io/os': LABEL_OS,
  'beta.kubernetes.io/instance-type': LABEL_INSTANCE_TYPE,
  'failure-domain.beta.kubernetes.io/region': LABEL_REGION,
  'topology.ebs.csi.aws.com/zone': LABEL_ZONE,
};

/** The key a requirement on `key` is stored under (its normalized alias, or itself). */
export function normalizeLabelKey(key: string): string {
  return Object.hasOwn(NORMALIZED_LABELS, key) ? (NORMALIZED_LABELS[key] as string) : key;
}

/** The part of a label key before the '/', or '' when it has no prefix. */
export function labelDomain(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

function goList(values: Iterable<string>): string {
  return `[${[...values].sort().join(' ')}]`;
}

/**
 * Why a NodePool may not use `key` (Karpenter's IsRestrictedLabel), or undefined when it may:
 * well-known keys are allowed, keys in a restricted domain (or a subdomain of one) and the
 * restricted keys are not.
 */
export function restrictedLabelError(key: string): string | undefined {
  if (WELL_KNOWN_LABELS.has(key)) return undefined;
  const domain = labelDomain(key);
  const inRestrictedDomain = RESTRICTED_LABEL_DOMAINS.some((d) => domain === d || domain.endsWith(`.${d}`));
  if (!inRestrictedDomain && !RESTRICTED_LABELS.has(key)) return undefined;
  return (
    `using label ${key} is not allowed as it might interfere with the internal provisioning logic; ` +
    `specify a well known label: ${goList(WELL_KNOWN_LABELS)}, or a custom label that does not use a restricted domain: ${goList(RESTRICTED_LABEL_DOMAINS)}`
  );
}
