// Karpenter's NodeClaims (karpenter.sh/v1) as berth reads them from a cluster dump:
// what the provisioner's cluster state needs of a claim whose Node may not exist or
// may not be initialized yet (its labels, taints, startup taints and the capacity the
// cloud provider reported at launch), and whether it is going away.

import { FieldError } from './errors.js';
import type { ObjectMetaManifest, QuantityMap, TaintManifest } from './manifest.js';
import { resources } from './node.js';
import type { ResourceList } from './resources.js';
import type { Labels } from './selector.js';
import type { Taint } from './taints.js';

export interface NodeClaimManifest {
  apiVersion?: string;
  kind?: 'NodeClaim';
  metadata: ObjectMetaManifest;
  spec?: { taints?: TaintManifest[]; startupTaints?: TaintManifest[] } | null;
  status?: {
    nodeName?: string;
    providerID?: string;
    capacity?: QuantityMap;
    allocatable?: QuantityMap;
    conditions?: { type: string; status: string }[];
  } | null;
}

export interface NodeClaim {
  readonly name: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly taints: readonly Taint[];
  readonly startupTaints: readonly Taint[];
  /** status.capacity / status.allocatable, empty before the cloud provider launched the instance. */
  readonly capacity: ResourceList;
  readonly allocatable: ResourceList;
  /** status.nodeName: the Node it registered as, if any. */
  readonly nodeName?: string;
  readonly providerID?: string;
  /** deletionTimestamp set or the InstanceTerminating condition true: Karpenter counts it as deleting. */
  readonly deleting: boolean;
  /** It has a Drifted condition (of any status): Karpenter's hash-version migration keeps its hash. */
  readonly drifted: boolean;
  readonly creation: number;
}

const taintsOf = (ts: readonly TaintManifest[] | undefined): Taint[] => (ts ?? []).map((t) => ({ key: t.key, value: t.value ?? '', effect: t.effect }));

export function compileNodeClaim(m: NodeClaimManifest, order: number): NodeClaim {
  const name = m.metadata.name ?? '';
  if (!name) throw new FieldError('Required value: name or generateName is required', ['metadata', 'name']);
  const created = m.metadata.creationTimestamp ? Date.parse(m.metadata.creationTimestamp) : NaN;
  const terminating = (m.status?.conditions ?? []).some((c) => c.type === 'InstanceTerminating' && c.status === 'True');
  return {
    name,
    labels: { ...m.metadata.labels },
    annotations: { ...m.metadata.annotations },
    taints: taintsOf(m.spec?.taints),
    startupTaints: taintsOf(m.spec?.startupTaints),
    capacity: resources(m.status?.capacity, ['status', 'capacity']),
    allocatable: resources(m.status?.allocatable, ['status', 'allocatable']),
    ...(m.status?.nodeName ? { nodeName: m.status.nodeName } : {}),
    ...(m.status?.providerID ? { providerID: m.status.providerID } : {}),
    deleting: m.metadata.deletionTimestamp != null || terminating,
    drifted: (m.status?.conditions ?? []).some((c) => c.type === 'Drifted'),
    creation: Number.isNaN(created) ? order : created,
  };
}
