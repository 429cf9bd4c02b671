// What the controller asks of a cloud: the instance types it can launch, and
// instances created, listed and deleted by NodeClaim. `create` must be idempotent
// (the controller launches a claim again after a restart when it finds no
// instance) and tag the instance with its claim, so an instance whose create
// returned but was never recorded (a crash in between) is found by `list`.
// A create that fails for want of capacity throws InsufficientCapacityError.

import type { NodePool } from '../model/nodepool.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import type { Claim } from './claims.js';

export interface Launch {
  readonly claim: Claim;
  readonly pool: NodePool;
  readonly instanceType: InstanceType;
}

export interface Instance {
  /** The Node the instance registers as. */
  readonly nodeName: string;
  /** The NodeClaim it was launched for. */
  readonly claim: string;
  readonly created: number;
  readonly providerID: string;
}

/** The cloud has no capacity for this offering now; the claim should be re-planned without it. */
export class InsufficientCapacityError extends Error {
  constructor(
    readonly instanceType: string,
    readonly zone: string,
    readonly capacityType: string,
  ) {
    super(`insufficient capacity for ${instanceType} in ${zone} (${capacityType})`);
    this.name = 'InsufficientCapacityError';
  }
}

export interface CloudProvider {
  readonly name: string;
  getInstanceTypes(): readonly InstanceType[];
  create(launch: Launch): Promise<Instance>;
  delete(instance: Pick<Instance, 'nodeName'>): Promise<void>;
  list(): Promise<Instance[]>;
}
