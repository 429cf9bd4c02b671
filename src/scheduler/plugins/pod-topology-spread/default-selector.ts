// helper.DefaultSelector: the label selector deduced for a pod from the Services
// that select it and the ReplicationController, ReplicaSet or StatefulSet that
// controls it. System-default spreading counts pods with this selector.

import type { ClusterState, OwnerSelector } from '../../../cluster/state.js';
import type { Pod } from '../../../model/pod.js';
import { selectorFromRequirements, type Requirement, type Selector } from '../../../model/selector.js';

/** An owner list's first entry per namespace/name, with the length and last entry it was built at. */
interface OwnerIndex {
  readonly length: number;
  readonly last: OwnerSelector | undefined;
  readonly byName: ReadonlyMap<string, OwnerSelector>;
}

const ownerIndexes = new WeakMap<readonly OwnerSelector[], OwnerIndex>();

/**
 * The first entry of `list` named `namespace/name`. Looked up in an index of the list
 * rather than by a scan per scheduled pod (thousands of ReplicaSets at 5,000 nodes):
 * owner lists only grow by push and shrink by splice, so an unchanged length and last
 * entry mean an unchanged list.
 */
function findOwned(list: readonly OwnerSelector[], namespace: string, name: string): OwnerSelector | undefined {
  let index = ownerIndexes.get(list);
  if (index === undefined || index.length !== list.length || index.last !== list[list.length - 1]) {
    const byName = new Map<string, OwnerSelector>();
    for (const o of list) {
      const key = `${o.namespace}/${o.name}`;
      if (!byName.has(key)) byName.set(key, o);
    }
    ownerIndexes.set(list, (index = { length: list.length, last: list[list.length - 1], byName }));
  }
  return index.byName.get(`${namespace}/${name}`);
}

/**
 * The selector shared by every object that fronts or controls `pod`; it has no
 * requirements (selector.everything) when nothing does.
 */
export function defaultSelector(pod: Pod, cluster: ClusterState): Selector {
  // Services and RCs select with plain label maps, merged key by key; whatever
  // selects the pod agrees with its labels, so the merge cannot conflict.
  const labelSet = new Map<string, Requirement>();
  for (const svc of cluster.services) {
    // A Service without a selector selects nothing (its compiled selector never matches).
    if (svc.namespace !== pod.namespace || !svc.selector.matches(pod.labels)) continue;
    for (const r of svc.selector.requirements) labelSet.set(r.key, r);
  }
  const extra: Requirement[] = [];
  // Only the managing controller counts (metav1.GetControllerOf), and only as the
  // exact group/version upstream looks up: core/v1 RCs, apps/v1 ReplicaSets and StatefulSets.
  const owner = pod.ownerReferences.find((o) => o.controller);
  if (owner) {
    switch (`${owner.apiVersion}/${owner.kind}`) {
      case 'v1/ReplicationController': {
        const rc = findOwned(cluster.replicationControllers, pod.namespace, owner.name);
        for (const r of rc?.selector.requirements ?? []) labelSet.set(r.key, r);
        break;
      }
      case 'apps/v1/ReplicaSet':
      case 'apps/v1/StatefulSet': {
        const list = owner.kind === 'ReplicaSet' ? cluster.replicaSets : cluster.statefulSets;
        // A nil workload selector contributes nothing (it has no requirements).
        extra.push(...(findOwned(list, pod.namespace, owner.name)?.selector.requirements ?? []));
        break;
      }
      default:
        break;
    }
  }
  return selectorFromRequirements([...labelSet.values(), ...extra]);
}
