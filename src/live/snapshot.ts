// The read-only face of live mode: one paged list of every kind berth reads,
// turned into a `kind: List` that io/ loads exactly as it loads a kubectl dump.
// Nothing here writes: it needs only get/list (deploy/readonly-rbac.yaml).
//
// Consistency: each kind is one list at one resourceVersion (its pages are read
// with the continue token of the first, so the API server serves them all from
// that revision; the next page is asked for while one is still arriving); different kinds are read one after another, as kubectl does
// for `get nodes,pods,...`. Each kind's revision is recorded in the result.

import type { Kube, ListPageRead } from './kube.js';
import { statusCode } from './kube.js';
import type { KubeObject } from './objects.js';

export interface SnapshotKind {
  readonly apiVersion: string;
  readonly kind: string;
  /** The resource name in the URL path (and in RBAC rules). */
  readonly resource: string;
  readonly namespaced: boolean;
  /**
   * Whether `--namespace` and `--selector` narrow it. Only the objects under review
   * are narrowed: nodes, every pod (other namespaces' pods take room on the nodes),
   * DaemonSets (they decide a new node's overhead), claims and volumes (the pods
   * that use them need them) are always read whole.
   */
  readonly scoped: boolean;
}

const kind = (apiVersion: string, kindName: string, resource: string, namespaced: boolean, scoped = false): SnapshotKind => ({ apiVersion, kind: kindName, resource, namespaced, scoped });

/** Every kind berth reads (io/kinds.ts), plus Jobs and CronJobs, whose pods berth must know about. */
export const SNAPSHOT_KINDS: readonly SnapshotKind[] = [
  kind('v1', 'Namespace', 'namespaces', false),
  kind('v1', 'Node', 'nodes', false),
  kind('scheduling.k8s.io/v1', 'PriorityClass', 'priorityclasses', false),
  kind('storage.k8s.io/v1', 'StorageClass', 'storageclasses', false),
  kind('storage.k8s.io/v1', 'CSIDriver', 'csidrivers', false),
  kind('storage.k8s.io/v1', 'CSINode', 'csinodes', false),
  kind('storage.k8s.io/v1', 'VolumeAttachment', 'volumeattachments', false),
  kind('v1', 'PersistentVolume', 'persistentvolumes', false),
  kind('v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true),
  kind('storage.k8s.io/v1', 'CSIStorageCapacity', 'csistoragecapacities', true),
  kind('karpenter.sh/v1', 'NodePool', 'nodepools', false),
  kind('karpenter.sh/v1', 'NodeClaim', 'nodeclaims', false),
  kind('v1', 'Pod', 'pods', true),
  kind('apps/v1', 'DaemonSet', 'daemonsets', true),
  kind('v1', 'Service', 'services', true, true),
  kind('v1', 'ReplicationController', 'replicationcontrollers', true, true),
  kind('apps/v1', 'Deployment', 'deployments', true, true),
  kind('apps/v1', 'ReplicaSet', 'replicasets', true, true),
  kind('apps/v1', 'StatefulSet', 'statefulsets', true, true),
  kind('batch/v1', 'Job', 'jobs', true, true),
  kind('batch/v1', 'CronJob', 'cronjobs', true, true),
  kind('policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true, true),
  kind('autoscaling/v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true, true),
];

export interface SnapshotOptions {
  /** Narrows the scoped kinds to one namespace (default: all namespaces). */
  readonly namespace?: string;
  /** A label selector (kubectl's -l syntax, passed to the API server) for the scoped kinds. */
  readonly labelSelector?: string;
  /** Objects per page (kubectl's --chunk-size; default 500). */
  readonly pageSize?: number;
  /** Told after each page: the kind and how many of it have been read so far. */
  readonly onPage?: (kind: string, count: number) => void;
}

export interface KindRead {
  readonly kind: string;
  readonly resourceVersion: string;
  readonly count: number;
}

export interface Snapshot {
  /** Every object read, as a v1 List (apiVersion and kind set on each item, managedFields dropped, as `kubectl get -o yaml` shows them). */
  readonly list: { apiVersion: 'v1'; kind: 'List'; metadata: Record<string, never>; items: KubeObject[] };
  /** Per kind read: the revision it was listed at and the number of objects. */
  readonly kinds: readonly KindRead[];
  /** Kinds the API server does not serve (their CRD is not installed, or an older API version). */
  readonly notServed: readonly string[];
}

/** A list the reader cannot use, with the kind it was reading and what to do about it. */
export class SnapshotError extends Error {}

interface ListPage {
  readonly items?: KubeObject[];
}

function collectionPath(k: SnapshotKind, namespace: string | undefined): string {
  const base = k.apiVersion.includes('/') ? `/apis/${k.apiVersion}` : `/api/${k.apiVersion}`;
  return k.namespaced && k.scoped && namespace !== undefined ? `${base}/namespaces/${encodeURIComponent(namespace)}/${k.resource}` : `${base}/${k.resource}`;
}

/** The object as kubectl prints it: typed (list items come without apiVersion and kind) and without managedFields. */
function asPrinted(o: KubeObject, k: SnapshotKind): KubeObject {
  const { managedFields: _dropped, ...metadata } = (o.metadata ?? {}) as Record<string, unknown>;
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = o;
  return { apiVersion: k.apiVersion, kind: k.kind, metadata, ...rest };
}

/** A continue token older than the API server's compaction window: the list starts again (kubectl gives up; a snapshot can afford one more try). */
const LIST_ATTEMPTS = 3;

async function readKind(kube: Kube, k: SnapshotKind, opts: SnapshotOptions): Promise<{ items: KubeObject[]; resourceVersion: string } | 'not-served'> {
  const path = collectionPath(k, opts.namespace);
  const ask = (token: string | undefined): ListPageRead => {
    const query = new URLSearchParams({ limit: String(opts.pageSize ?? 500) });
    if (token) query.set('continue', token);
    if (k.scoped && opts.labelSelector) query.set('labelSelector', opts.labelSelector);
    return kube.getListPage(`${path}?${query}`);
  };
  for (let attempt = 1; ; attempt++) {
    const items: KubeObject[] = [];
    let resourceVersion: string | undefined;
    let next: ListPageRead | undefined = ask(undefined);
    try {
      // Pipelined: the next page is asked for as soon as this one's continue token
      // has arrived, so the API server encodes it while this one is parsed; at most
      // two pages are in flight.
      while (next) {
        const current: ListPageRead = next;
        next = undefined;
        const head = await current.head;
        resourceVersion ??= head?.resourceVersion ?? '';
        if (head?.continue) next = ask(head.continue);
        const page = (await current.page) as ListPage;
        for (const o of page.items ?? []) items.push(asPrinted(o, k));
        opts.onPage?.(k.kind, items.length);
      }
      return { items, resourceVersion: resourceVersion ?? '' };
    } catch (e) {
      next?.abort();
      const code = statusCode(e);
      if (code === 404) return 'not-served';
      if (code === 410 && attempt < LIST_ATTEMPTS) continue;
      if (code === 403) throw new SnapshotError(`cannot list ${k.resource}.${k.apiVersion.includes('/') ? k.apiVersion.split('/')[0] : 'core'}: forbidden (berth needs get and list on it: deploy/readonly-rbac.yaml grants exactly what it reads)`);
      throw new SnapshotError(`cannot list ${k.resource}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** Reads every kind of SNAPSHOT_KINDS, one after another, read-only. */
export async function readSnapshot(kube: Kube, opts: SnapshotOptions = {}): Promise<Snapshot> {
  const items: KubeObject[] = [];
  const kinds: KindRead[] = [];
  const notServed: string[] = [];
  for (const k of SNAPSHOT_KINDS) {
    const read = await readKind(kube, k, opts);
    if (read === 'not-served') {
      notServed.push(`${k.kind}.${k.apiVersion}`);
      continue;
    }
    for (const o of read.items) items.push(o);
    kinds.push({ kind: k.kind, resourceVersion: read.resourceVersion, count: read.items.length });
  }
  return { list: { apiVersion: 'v1', kind: 'List', metadata: {}, items }, kinds, notServed };
}
