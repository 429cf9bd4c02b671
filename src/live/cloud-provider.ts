// What the controller asks of a cloud: the instance types it can launch, and
// instances created, listed and deleted by NodeClaim. `create` must be idempotent
// (the controller launches a claim again after a restart when it finds no node).

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
}

export interface CloudProvider {
  readonly name: string;
  getInstanceTypes(): readonly InstanceType[];
  create(launch: Launch): Promise<void>;
  delete(instance: Pick<Instance, 'nodeName'>): Promise<void>;
  list(): Promise<Instance[]>;
}
