// helper.DefaultSelector: the label selector deduced for a pod from the Services
// that select it and the ReplicationController, ReplicaSet or StatefulSet that
// controls it. System-default spreading counts pods with this selector.

import type { ClusterState, OwnerSelector } from '../../../cluster/state.js';
import type { Pod } from '../../../model/pod.js';
import { selectorFromRequirements, type Requirement, type Selector } from '../../../model/selector.js';

/** First entry per namespace/name of `entries[0, length)` (entries: a copy of an owner list when it was indexed). */
interface PrefixIndex {
  readonly entries: readonly OwnerSelector[];
  readonly byName: ReadonlyMap<string, OwnerSelector>;
}

/** An owner list's index: a prefix index shared with the lists it came from, and the entries after it. */
interface OwnerIndex {
  readonly length: number;
  readonly last: OwnerSelector | undefined;
  readonly prefix: PrefixIndex;
  readonly rest: ReadonlyMap<string, OwnerSelector>;
}

const ownerIndexes = new WeakMap<readonly OwnerSelector[], OwnerIndex>();
/** The prefix indexes built last (one per kind of owner, most recent first): a simulation's copy of an owner list starts as the built cluster's. */
const recentPrefixes: PrefixIndex[] = [];
const RECENT_PREFIXES = 4;

function firstByName(list: readonly OwnerSelector[], from: number, byName = new Map<string, OwnerSelector>()): Map<string, OwnerSelector> {
  for (let i = from; i < list.length; i++) {
    const o = list[i]!;
    const key = `${o.namespace}/${o.name}`;
    if (!byName.has(key)) byName.set(key, o);
  }
  return byName;
}

function startsWith(list: readonly OwnerSelector[], entries: readonly OwnerSelector[]): boolean {
  if (entries.length === 0 || entries.length > list.length) return false;
  for (let i = 0; i < entries.length; i++) if (list[i] !== entries[i]) return false;
  return true;
}

/** The index of `list`: a recent prefix index whose entries `list` starts with (compared by identity), or a new one. */
function indexOwners(list: readonly OwnerSelector[]): OwnerIndex {
  let prefix = recentPrefixes.find((p) => startsWith(list, p.entries));
  if (prefix === undefined) {
    prefix = { entries: list.slice(), byName: firstByName(list, 0) };
    recentPrefixes.unshift(prefix);
    recentPrefixes.length = Math.min(recentPrefixes.length, RECENT_PREFIXES);
  }
  return { length: list.length, last: list[list.length - 1], prefix, rest: firstByName(list, prefix.entries.length) };
}

/**
 * The first entry of `list` named `namespace/name`. Looked up in an index of the list
 * rather than by a scan per scheduled pod (thousands of ReplicaSets at 5,000 nodes):
 * owner lists only grow by push and shrink by splice, so an unchanged length and last
 * entry mean an unchanged list.
 */
function findOwned(list: readonly OwnerSelector[], namespace: string, name: string): OwnerSelector | undefined {
  let index = ownerIndexes.get(list);
  if (index === undefined || index.length !== list.length || index.last !== list[list.length - 1]) ownerIndexes.set(list, (index = indexOwners(list)));
  const key = `${namespace}/${name}`;
  return index.prefix.byName.get(key) ?? index.rest.get(key);
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
