// Instance types and offerings seen through the requirements algebra: whether a NodeClaim's
// requirements leave room for an instance type, which of its offerings they allow, and
// whether enough distinct values survive for requirements with minValues.

import {
  LABEL_ARCH,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_ACCELERATOR_COUNT,
  LABEL_INSTANCE_ACCELERATOR_MANUFACTURER,
  LABEL_INSTANCE_ACCELERATOR_NAME,
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_CPU,
  LABEL_INSTANCE_FAMILY,
  LABEL_INSTANCE_GENERATION,
  LABEL_INSTANCE_GPU_COUNT,
  LABEL_INSTANCE_GPU_MANUFACTURER,
  LABEL_INSTANCE_GPU_MEMORY,
  LABEL_INSTANCE_GPU_NAME,
  LABEL_INSTANCE_HYPERVISOR,
  LABEL_INSTANCE_MEMORY,
  LABEL_INSTANCE_SIZE,
  LABEL_INSTANCE_TYPE,
  LABEL_OS,
  LABEL_REGION,
  LABEL_ZONE,
  type InstanceType,
  type Offering,
} from './catalog/types.js';
import {
  LABEL_CAPACITY_RESERVATION_ID,
  LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE,
  LABEL_CAPACITY_RESERVATION_TYPE,
  LABEL_INSTANCE_CPU_MANUFACTURER,
  LABEL_INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ,
  LABEL_INSTANCE_EBS_BANDWIDTH,
  LABEL_INSTANCE_LOCAL_NVME,
  LABEL_INSTANCE_NETWORK_BANDWIDTH,
  LABEL_WINDOWS_BUILD,
} from './labels.js';
import { Requirement, Requirements } from './requirements.js';

/**
 * Keys the AWS provider defines on every instance type, as DoesNotExist when the type has no
 * such property (no GPU, no local NVMe, not Windows, no reservation...). An instance type
 * here that lacks one gets DoesNotExist too, so a pod asking for a GPU does not match a type
 * without one. Keys AWS always fills with values berth's catalog does not model (tenancy,
 * encryption in transit, nitro enclaves, flex capability, zone id) stay undefined: as
 * well-known keys they are then unconstrained.
 */
export const INSTANCE_DEFINED_LABELS: readonly string[] = [
  LABEL_INSTANCE_TYPE,
  LABEL_ARCH,
  LABEL_OS,
  LABEL_ZONE,
  LABEL_REGION,
  LABEL_WINDOWS_BUILD,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_CPU,
  LABEL_INSTANCE_CPU_MANUFACTURER,
  LABEL_INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ,
  LABEL_INSTANCE_MEMORY,
  LABEL_INSTANCE_EBS_BANDWIDTH,
  LABEL_INSTANCE_NETWORK_BANDWIDTH,
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_FAMILY,
  LABEL_INSTANCE_GENERATION,
  LABEL_INSTANCE_LOCAL_NVME,
  LABEL_INSTANCE_SIZE,
  LABEL_INSTANCE_GPU_NAME,
  LABEL_INSTANCE_GPU_MANUFACTURER,
  LABEL_INSTANCE_GPU_COUNT,
  LABEL_INSTANCE_GPU_MEMORY,
  LABEL_INSTANCE_ACCELERATOR_NAME,
  LABEL_INSTANCE_ACCELERATOR_MANUFACTURER,
  LABEL_INSTANCE_ACCELERATOR_COUNT,
  LABEL_INSTANCE_HYPERVISOR,
  LABEL_CAPACITY_RESERVATION_ID,
  LABEL_CAPACITY_RESERVATION_TYPE,
  LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE,
];

// Instance types are immutable, so their requirements are built once each: keyed by the type's
// label values, which the copies that mark offerings unavailable share with the catalog's type.
const instanceTypeCache = new WeakMap<InstanceType['requirements'], Requirements>();

/**
 * What a node of this type can look like (Karpenter's InstanceType.Requirements): In its
 * values for every key the catalog lists (labels, plus zones and capacity types across all
 * offerings), DoesNotExist for the INSTANCE_DEFINED_LABELS it lacks. Callers must not modify
 * the result (clone() it first).
 */
export function instanceTypeRequirements(it: InstanceType): Requirements {
  let reqs = instanceTypeCache.get(it.requirements);
  if (reqs === undefined) {
    reqs = new Requirements(Object.entries(it.requirements).map(([k, values]) => Requirement.of(k, 'In', values)));
    for (const key of INSTANCE_DEFINED_LABELS) if (!reqs.has(key)) reqs.add(Requirement.of(key, 'DoesNotExist'));
    instanceTypeCache.set(it.requirements, reqs);
  }
  return reqs;
}

/** Why the type cannot satisfy `requirements`, or undefined when it can (the type's requirements must intersect them). */
export function instanceTypeIncompatibility(it: InstanceType, requirements: Requirements): string | undefined {
  return instanceTypeRequirements(it).intersects(requirements);
}

/** Karpenter's `it.Requirements.Intersects(reqs) == nil`. */
export function instanceTypeCompatible(it: InstanceType, requirements: Requirements): boolean {
  return instanceTypeIncompatibility(it, requirements) === undefined;
}

/** Whether `requirements` allow launching this offering (Karpenter: reqs.IsCompatible(offering, AllowUndefinedWellKnownLabels)); availability is not checked. */
export function offeringCompatible(offering: Offering, requirements: Requirements): boolean {
  // The offering's requirements are `In` one zone and one capacity type, both well-known keys: Compatible reduces to
  // each key being undefined here or allowing the value (requirements.test.ts checks this against isCompatible).
  return allows(requirements, LABEL_ZONE, offering.zone) && allows(requirements, LABEL_CAPACITY_TYPE, offering.capacityType);
}

function allows(requirements: Requirements, key: string, value: string): boolean {
  return !requirements.has(key) || requirements.get(key).has(value);
}

/** The type's offerings `requirements` allow, in catalog order; only available ones unless `includeUnavailable`. */
export function compatibleOfferings(it: InstanceType, requirements: Requirements, options: { includeUnavailable?: boolean } = {}): Offering[] {
  return it.offerings.filter((o) => (options.includeUnavailable === true || o.available) && offeringCompatible(o, requirements));
}

/** Whether some available offering of the type is allowed (Karpenter's Offerings.Available().HasCompatible). */
export function hasCompatibleOffering(it: InstanceType, requirements: Requirements): boolean {
  return it.offerings.some((o) => o.available && offeringCompatible(o, requirements));
}

export interface MinValuesResult {
  /** How many of the types, taken in the given order, were needed before every minValues held (all of them when it never did). */
  readonly minNeededInstanceTypes: number;
  /** For each key whose minValues is not met, how many distinct values the types offer; empty when all are met. */
  readonly unsatisfied: ReadonlyMap<string, number>;
  /** Karpenter's message when some are not met: `minValues requirement is not met for label(s) (label(s)=[k1 k2])`. */
  readonly error: string | undefined;
}

/**
 * Karpenter's SatisfiesMinValues: walking the types in order, collect the distinct values each
 * minValues key takes on them (a type's own requirement values for the key; none when it does
 * not define it) and stop at the first prefix that satisfies every minValues. No types, or no
 * minValues, satisfies trivially.
 */
export function satisfiesMinValues(instanceTypes: readonly InstanceType[], requirements: Requirements): MinValuesResult {
  const none = new Map<string, number>();
  if (!requirements.hasMinValues()) return { minNeededInstanceTypes: 0, unsatisfied: none, error: undefined };
  const constrained = requirements.values().filter((r) => r.minValues !== undefined);
  const seen = new Map<string, Set<string>>(constrained.map((r) => [r.key, new Set<string>()]));
  const unsatisfied = new Map<string, number>();
  for (const [i, it] of instanceTypes.entries()) {
    const itReqs = instanceTypeRequirements(it);
    for (const r of constrained) {
      const values = seen.get(r.key) as Set<string>;
      for (const v of itReqs.get(r.key).values()) values.add(v);
      if (values.size < (r.minValues as number)) unsatisfied.set(r.key, values.size);
      else unsatisfied.delete(r.key);
    }
    if (unsatisfied.size === 0) return { minNeededInstanceTypes: i + 1, unsatisfied: none, error: undefined };
  }
  if (unsatisfied.size === 0) return { minNeededInstanceTypes: instanceTypes.length, unsatisfied: none, error: undefined };
  const keys = [...unsatisfied.keys()].sort();
  return { minNeededInstanceTypes: instanceTypes.length, unsatisfied, error: `minValues requirement is not met for label(s) (label(s)=[${keys.join(' ')}])` };
}
