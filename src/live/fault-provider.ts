// A CloudProvider wrapper that injects the faults a real cloud has, for tests and
// drills (`berth controller --inject-faults '{...}'`): the first N creates fail
// with a generic error, creates for matching offerings fail with insufficient
// capacity, and a create can hang after the instance exists (the answer lost, or
// the controller killed before it records it). Everything else passes through.

import { z } from 'zod';
import { matchesOffering } from '../provisioner/unavailable-offerings.js';
import { InsufficientCapacityError, type CloudProvider, type Instance, type Launch } from './cloud-provider.js';

export const faultsSchema = z
  .object({
    /** The first N creates throw (before reaching the cloud). */
    failCreates: z.number().int().nonnegative().optional(),
    /** Creates for these offerings throw InsufficientCapacityError. */
    insufficientCapacity: z.array(z.object({ instanceType: z.string().optional(), zone: z.string().optional(), capacityType: z.string().optional() }).strict()).optional(),
    /** After the instance exists, the create call takes this long to return. */
    hangAfterCreateMs: z.number().int().nonnegative().optional(),
  })
  .strict();

export type Faults = z.infer<typeof faultsSchema>;

export class FaultInjectingProvider implements CloudProvider {
  private failuresLeft: number;

  constructor(
    private readonly inner: CloudProvider,
    private readonly faults: Faults,
  ) {
    this.failuresLeft = faults.failCreates ?? 0;
  }

  get name(): string {
    return this.inner.name;
  }

  getInstanceTypes() {
    return this.inner.getInstanceTypes();
  }

  async create(launch: Launch): Promise<Instance> {
    const { claim } = launch;
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new Error(`injected fault: create ${claim.name} failed (${this.failuresLeft} more to fail)`);
    }
    if ((this.faults.insufficientCapacity ?? []).some((m) => matchesOffering(m, claim.instanceType, claim))) {
      throw new InsufficientCapacityError(claim.instanceType, claim.zone, claim.capacityType);
    }
    const instance = await this.inner.create(launch);
    if (this.faults.hangAfterCreateMs) await new Promise((r) => setTimeout(r, this.faults.hangAfterCreateMs));
    return instance;
  }

  delete(instance: Pick<Instance, 'nodeName'>): Promise<void> {
    return this.inner.delete(instance);
  }

  list(): Promise<Instance[]> {
    return this.inner.list();
  }
}
