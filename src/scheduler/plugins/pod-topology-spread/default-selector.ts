// helper.DefaultSelector: the label selector deduced for a pod from the Services
// that select it and the ReplicationController, ReplicaSet or StatefulSet that
// controls it. System-default spreading counts pods with this selector.

import type { ClusterState, OwnerKind, OwnerSelector } from '../../../cluster/state.js';
import type { Pod } from '../../../model/pod.js';
import { selectorFromRequirements, type Requirement, type Selector } from '../../../model/selector.js';

/** Entries of an owner list by key, each group in list order. */
type Groups = ReadonlyMap<string, readonly OwnerSelector[]>;

/** The groups of `entries` (a copy of an owner list when it was indexed). */
interface PrefixIndex {
  readonly entries: readonly OwnerSelector[];
  readonly groups: Groups;
}

/** An owner list's index as of a revision: a prefix index shared with the lists it came from, and the groups of the entries after it. */
interface ListIndex {
  readonly revision: number;
  readonly prefix: PrefixIndex;
  readonly rest: Groups;
}

function startsWith(list: readonly OwnerSelector[], entries: readonly OwnerSelector[]): boolean {
  if (entries.length === 0 || entries.length > list.length) return false;
  for (let i = 0; i < entries.length; i++) if (list[i] !== entries[i]) return false;
  return true;
}

/**
 * Owner lists grouped by a key, looked up in an index rather than by a scan per
 * scheduled pod (thousands of ReplicaSets and Services at 5,000 nodes). An index
 * holds while its list's revision does (ClusterState.ownerRevision). A simulation's
 * copy of a list starts as the built cluster's: the index of that shared start is
 * kept among the recent ones and only the entries after it are grouped again.
 */
class OwnerLists {
  private readonly indexes = new WeakMap<readonly OwnerSelector[], ListIndex>();
  /** The prefix indexes built last, most recent first (about one per kind of list this groups). */
  private readonly recent: PrefixIndex[] = [];

  constructor(
    private readonly keyOf: (o: OwnerSelector) => string,
    private readonly recentKept: number,
  ) {}

  /** The first entry of `cluster`'s `kind` list with this key. */
  first(cluster: ClusterState, kind: OwnerKind, key: string): OwnerSelector | undefined {
    const index = this.current(cluster, kind);
    return index.prefix.groups.get(key)?.[0] ?? index.rest.get(key)?.[0];
  }

  /** The entries of `cluster`'s `kind` list with this key, in list order. */
  all(cluster: ClusterState, kind: OwnerKind, key: string): readonly OwnerSelector[] {
    const index = this.current(cluster, kind);
    const head = index.prefix.groups.get(key);
    const tail = index.rest.get(key);
    if (tail === undefined) return head ?? [];
    return head === undefined ? tail : [...head, ...tail];
  }

  private current(cluster: ClusterState, kind: OwnerKind): ListIndex {
    const list = cluster[kind];
    const revision = cluster.ownerRevision(kind);
    let index = this.indexes.get(list);
    if (index?.revision !== revision) this.indexes.set(list, (index = this.index(list, revision)));
    return index;
  }

  private index(list: readonly OwnerSelector[], revision: number): ListIndex {
    let prefix = this.recent.find((p) => startsWith(list, p.entries));
    if (prefix === undefined) {
      prefix = { entries: list.slice(), groups: this.group(list, 0) };
      this.recent.unshift(prefix);
      this.recent.length = Math.min(this.recent.length, this.recentKept);
    }
    return { revision, prefix, rest: this.group(list, prefix.entries.length) };
  }

  private group(list: readonly OwnerSelector[], from: number): Groups {
    const groups = new Map<string, OwnerSelector[]>();
    for (let i = from; i < list.length; i++) {
      const o = list[i]!;
      const key = this.keyOf(o);
      const group = groups.get(key);
      if (group) group.push(o);
      else groups.set(key, [o]);
    }
    return groups;
  }
}

/** ReplicationControllers, ReplicaSets and StatefulSets by namespace/name (the first of a name counts). */
const controllers = new OwnerLists((o) => `${o.namespace}/${o.name}`, 4);
/** Services by namespace. */
const services = new OwnerLists((o) => o.namespace, 2);

/**
 * The selector shared by every object that fronts or controls `pod`; it has no
 * requirements (selector.everything) when nothing does.
 */
export function defaultSelector(pod: Pod, cluster: ClusterState): Selector {
  // Services and RCs select with plain label maps, merged key by key; whatever
  // selects the pod agrees with its labels, so the merge cannot conflict.
  const labelSet = new Map<string, Requirement>();
  for (const svc of services.all(cluster, 'services', pod.namespace)) {
    // A Service without a selector selects nothing (its compiled selector never matches).
    if (!svc.selector.matches(pod.labels)) continue;
    for (const r of svc.selector.requirements) labelSet.set(r.key, r);
  }
  const extra: Requirement[] = [];
  // Only the managing controller counts (metav1.GetControllerOf), and only as the
  // exact group/version upstream looks up: core/v1 RCs, apps/v1 ReplicaSets and StatefulSets.
  const owner = pod.ownerReferences.find((o) => o.controller);
  if (owner) {
    switch (`${owner.apiVersion}/${owner.kind}`) {
      case 'v1/ReplicationController': {
        const rc = controllers.first(cluster, 'replicationControllers', `${pod.namespace}/${owner.name}`);
        for (const r of rc?.selector.requirements ?? []) labelSet.set(r.key, r);
        break;
      }
      case 'apps/v1/ReplicaSet':
      case 'apps/v1/StatefulSet': {
        const kind = owner.kind === 'ReplicaSet' ? 'replicaSets' : 'statefulSets';
        // A nil workload selector contributes nothing (it has no requirements).
        extra.push(...(controllers.first(cluster, kind, `${pod.namespace}/${owner.name}`)?.selector.requirements ?? []));
        break;
      }
      default:
        break;
    }
  }
  return selectorFromRequirements([...labelSet.values(), ...extra]);
}
