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
  /** Bumped whenever a key comes or goes: apply's answer changes only then. */
  private version = 0;
  /** apply's last answer, handed out again while the catalog and the keys are the same. */
  private last?: { readonly types: readonly InstanceType[]; readonly version: number; readonly result: readonly InstanceType[] };

  constructor(private readonly ttlMs = UNAVAILABLE_OFFERING_TTL_MS) {}

  mark(instanceType: string, offering: OfferingPlace, now: number): void {
    const key = offeringKey(instanceType, offering);
    if (!this.until.has(key)) this.version++;
    this.until.set(key, now + this.ttlMs);
  }

  isUnavailable(instanceType: string, offering: OfferingPlace, now: number): boolean {
    return (this.until.get(offeringKey(instanceType, offering)) ?? -1) > now;
  }

  /**
   * The instance types with the offerings still in the cache marked unavailable: `types`
   * itself while nothing is, and the same array again while the cached offerings stay
   * the same (so the planner can reuse what it derived from them: a zone that is down
   * keeps its offerings cached for the whole outage, and each provisioning round used
   * to rebuild every pool template from a new array).
   */
  apply(types: readonly InstanceType[], now: number): readonly InstanceType[] {
    for (const [key, until] of this.until) {
      if (until > now) continue;
      this.until.delete(key);
      this.version++;
    }
    if (this.until.size === 0) return types;
    // Every key left is live (until > now), so the answer depends only on which keys there are.
    if (this.last?.types === types && this.last.version === this.version) return this.last.result;
    const result = types.map((it) => {
      if (!it.offerings.some((o) => this.isUnavailable(it.name, o, now))) return it;
      return { ...it, offerings: it.offerings.map((o) => (this.isUnavailable(it.name, o, now) ? { ...o, available: false } : o)) };
    });
    this.last = { types, version: this.version, result };
    return result;
  }
}
