// Nodes compiled for scheduling: allocatable as integers, taints, images.

import { atPath, FieldError } from './errors.js';
import type { NodeManifest } from './manifest.js';
import { resourceValue } from './quantity.js';
import type { ResourceList } from './resources.js';
import type { Labels } from './selector.js';
import type { Taint } from './taints.js';

export interface ImageState {
  readonly names: readonly string[];
  readonly sizeBytes: number;
}

export interface Node {
  readonly name: string;
  readonly uid: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly taints: readonly Taint[];
  readonly unschedulable: boolean;
  /** cpu in millicores, memory/ephemeral-storage in bytes, pods and extended resources as counts. */
  readonly allocatable: ResourceList;
  readonly capacity: ResourceList;
  readonly images: readonly ImageState[];
  readonly creation: number;
  /** metadata.deletionTimestamp is set: the node is going away. */
  readonly deleting?: boolean;
  /** spec.providerID: how Karpenter pairs a Node with its NodeClaim. */
  readonly providerID?: string;
}

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_REGION = 'topology.kubernetes.io/region';
export const LABEL_INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
export const DEFAULT_MAX_PODS = 110;

export function resources(map: Readonly<Record<string, string | number>> | undefined, path: (string | number)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, q] of Object.entries(map ?? {})) {
    const v = atPath([...path, k], () => resourceValue(k, q));
    if (v < 0) throw new FieldError(`Invalid value: ${JSON.stringify(q)}: must be greater than or equal to 0`, [...path, k]);
    out[k] = v;
  }
  return out;
}

export interface NodeCompileOptions {
  /**
   * What a kubelet adds when it registers a node (its kubernetes.io/hostname label, a
   * pod capacity of 110, allocatable equal to capacity), for hand-written nodes that
   * omit them; false takes the Node exactly as written. Default true.
   */
  readonly kubeletDefaults?: boolean;
}

export function compileNode(m: NodeManifest, order: number, opts: NodeCompileOptions = {}): Node {
  const kubelet = opts.kubeletDefaults ?? true;
  const name = m.metadata.name ?? '';
  if (!name) throw new FieldError('Required value: name or generateName is required', ['metadata', 'name']);
  const capacity = resources(m.status?.capacity, ['status', 'capacity']);
  // The kubelet reports allocatable; when a hand-written node omits it, capacity is what it can offer.
  const allocatable = m.status?.allocatable ? resources(m.status.allocatable, ['status', 'allocatable']) : kubelet ? { ...capacity } : {};
  // A kubelet always reports a pod capacity (110 by default); a hand-written node that omits it means the default.
  if (kubelet && !('pods' in capacity)) capacity.pods = DEFAULT_MAX_PODS;
  if (kubelet && !('pods' in allocatable)) allocatable.pods = capacity.pods!;
  const created = m.metadata.creationTimestamp ? Date.parse(m.metadata.creationTimestamp) : NaN;
  return {
    name,
    uid: m.metadata.uid ?? name,
    // The kubelet always registers its hostname label; hand-written nodes often omit it.
    labels: kubelet ? { [LABEL_HOSTNAME]: name, ...m.metadata.labels } : { ...m.metadata.labels },
    annotations: m.metadata.annotations ?? {},
    taints: (m.spec?.taints ?? []).map((t) => ({ key: t.key, value: t.value ?? '', effect: t.effect })),
    unschedulable: m.spec?.unschedulable ?? false,
    allocatable,
    capacity,
    images: (m.status?.images ?? []).map((i) => ({ names: i.names ?? [], sizeBytes: i.sizeBytes ?? 0 })),
    creation: Number.isNaN(created) ? order : created,
    ...(m.metadata.deletionTimestamp ? { deleting: true } : {}),
    ...(m.spec?.providerID ? { providerID: m.spec.providerID } : {}),
  };
}
