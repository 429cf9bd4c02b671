// What the user actually pays: replaces catalog prices with negotiated ones and applies
// discounts (a savings plan, an enterprise discount) before the provisioner compares
// offerings. Read from a berth.dev/v1alpha1 PriceOverrides file by io/price-overrides.ts.

import { LABEL_INSTANCE_FAMILY, makeInstanceType, type CapacityType, type InstanceType, type Offering } from './types.js';

/** A fixed hourly price for one instance type, in every zone or one. */
export interface PriceOverride {
  readonly instanceType: string;
  readonly capacityType: CapacityType;
  /** Undefined: every zone the type is offered in. */
  readonly zone?: string;
  readonly price: number;
}

/** A percentage off the catalog price of the offerings it matches. */
export interface PriceDiscount {
  readonly name: string;
  readonly percent: number;
  readonly capacityType: CapacityType;
  /** Undefined: every family. */
  readonly instanceFamilies?: readonly string[];
  readonly instanceTypes?: readonly string[];
}

export interface PriceOverrides {
  readonly prices: readonly PriceOverride[];
  /** The first discount that matches an offering applies; discounts do not stack. */
  readonly discounts: readonly PriceDiscount[];
}

function overrideFor(overrides: PriceOverrides, it: InstanceType, o: Offering): PriceOverride | undefined {
  let any: PriceOverride | undefined;
  for (const p of overrides.prices) {
    if (p.instanceType !== it.name || p.capacityType !== o.capacityType) continue;
    if (p.zone === o.zone) return p;
    if (p.zone === undefined) any = p;
  }
  return any;
}

function discountFor(overrides: PriceOverrides, it: InstanceType, o: Offering): PriceDiscount | undefined {
  const family = it.labels[LABEL_INSTANCE_FAMILY];
  return overrides.discounts.find(
    (d) =>
      d.capacityType === o.capacityType &&
      (d.instanceFamilies === undefined || (family !== undefined && d.instanceFamilies.includes(family))) &&
      (d.instanceTypes === undefined || d.instanceTypes.includes(it.name)),
  );
}

/** The price of one offering under the overrides: an explicit price as written, else the catalog price less the first matching discount. */
export function offeringPrice(overrides: PriceOverrides, it: InstanceType, o: Offering): number {
  const fixed = overrideFor(overrides, it, o);
  if (fixed) return fixed.price;
  const discount = discountFor(overrides, it, o);
  return discount ? o.price * (1 - discount.percent / 100) : o.price;
}

/** The instance types with every offering repriced; types no override touches are returned as they were. */
export function applyPriceOverrides(instanceTypes: readonly InstanceType[], overrides: PriceOverrides): InstanceType[] {
  return instanceTypes.map((it) => {
    const offerings = it.offerings.map((o) => ({ ...o, price: offeringPrice(overrides, it, o) }));
    if (offerings.every((o, i) => o.price === it.offerings[i]!.price)) return it;
    return makeInstanceType({ name: it.name, labels: it.labels, capacity: it.capacity, overhead: it.overhead, offerings, ...(it.ebsVolumeLimit !== undefined ? { ebsVolumeLimit: it.ebsVolumeLimit } : {}) });
  });
}
