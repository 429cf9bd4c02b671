// Offerings that recently failed with insufficient capacity, kept out of the
// planner's choices for a while (Karpenter's unavailable-offerings cache, 3 min),
// so a claim re-planned after an ICE lands on the next cheapest compatible
// offering instead of the one that just failed. Pure: time is passed in (the
// simulator's clock, or the live controller's wall clock).

import type { CapacityType, InstanceType } from './catalog/types.js';

/** Karpenter keeps an offering that returned insufficient capacity out of its choices for 3 minutes. */
export const UNAVAILABLE_OFFERING_TTL_MS = 180_000;

/** Offerings by instance type, zone and capacity type; an absent field matches any. */
export interface OfferingMatch {
  readonly instanceType?: string;
  readonly zone?: string;
  readonly capacityType?: CapacityType | string;
}

/** Where an offering is: a zone and a capacity type (an Offering, or a NodeClaim's spec). */
export interface OfferingPlace {
  readonly zone: string;
  readonly capacityType: string;
}

export function matchesOffering(m: OfferingMatch, instanceType: string, o: OfferingPlace): boolean {
  return (!m.instanceType || m.instanceType === instanceType) && (!m.zone || m.zone === o.zone) && (!m.capacityType || m.capacityType === o.capacityType);
}

function offeringKey(instanceType: string, o: OfferingPlace): string {
  return `${instanceType}/${o.zone}/${o.capacityType}`;
}

export class UnavailableOfferings {
  /** offering key → until when it is skipped. */
  private readonly until = new Map<string, number>();

  constructor(private readonly ttlMs = UNAVAILABLE_OFFERING_TTL_MS) {}

  mark(instanceType: string, offering: OfferingPlace, now: number): void {
    this.until.set(offeringKey(instanceType, offering), now + this.ttlMs);
  }

  isUnavailable(instanceType: string, offering: OfferingPlace, now: number): boolean {
    return (this.until.get(offeringKey(instanceType, offering)) ?? -1) > now;
  }

  /**
   * The instance types with the offerings still in the cache marked unavailable: `types`
   * itself while nothing is (so the planner can reuse what it derived from them).
   */
  apply(types: readonly InstanceType[], now: number): readonly InstanceType[] {
    for (const [key, until] of this.until) if (until <= now) this.until.delete(key);
    if (this.until.size === 0) return types;
    return types.map((it) => {
      if (!it.offerings.some((o) => this.isUnavailable(it.name, o, now))) return it;
      return { ...it, offerings: it.offerings.map((o) => (this.isUnavailable(it.name, o, now) ? { ...o, available: false } : o)) };
    });
  }
}
