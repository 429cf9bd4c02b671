// ClusterState: the store the engine schedules against, with incremental indexes.
// Node order follows kube-scheduler's node tree (nodes interleaved across zones),
// which decides where the round-robin filter search starts and how ties break.

import { LABEL_REGION, LABEL_ZONE, type ImageState, type Node } from '../model/node.js';
import type { PodDisruptionBudget } from '../model/pdb.js';
import type { Pod } from '../model/pod.js';
import type { Labels, Selector } from '../model/selector.js';
import { copyMap, NO_IMAGES, NodeInfo, type ImageSummary } from './node-info.js';
import { VolumeStore, type StorageInput } from './volumes.js';

const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const BETA_REGION = 'failure-domain.beta.kubernetes.io/region';

/** utilnode.GetZoneKey: region and zone joined, beta labels first; '' when neither is set. */
export function zoneKey(labels: Labels): string {
  const zone = labels[BETA_ZONE] ?? labels[LABEL_ZONE] ?? '';
  const region = labels[BETA_REGION] ?? labels[LABEL_REGION] ?? '';
  if (region === '' && zone === '') return '';
  return `${region}:\x00:${zone}`;
}

/** A Service, ReplicationController, ReplicaSet or StatefulSet as seen by selector-defaulting plugins. */
export interface OwnerSelector {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** Services and RCs select with a plain map; ReplicaSets and StatefulSets with a label selector. */
  readonly selector: Selector;
}

/** ClusterState's owner lists: each changes only through addOwners and removeOwner, which move its revision. */
export const OWNER_KINDS = ['services', 'replicationControllers', 'replicaSets', 'statefulSets'] as const;
export type OwnerKind = (typeof OWNER_KINDS)[number];

/** Per image list: node objects that differ only in taints or labels share it, and each state built from the same nodes reuses its names. */
const imageNamesByList = new WeakMap<readonly ImageState[], ReadonlyMap<string, number>>();

/** A node's image names, each once, with the size of its first listing (NodeInfo.imageNames). */
function imageNamesOf(node: Node): ReadonlyMap<string, number> {
  if (node.images.length === 0) return NO_IMAGES;
  let names = imageNamesByList.get(node.images);
  if (!names) {
    const first = new Map<string, number>();
    for (const image of node.images) for (const name of image.names) if (!first.has(name)) first.set(name, image.sizeBytes);
    imageNamesByList.set(node.images, (names = first));
  }
  return names;
}

const isPending = (p: Pod): boolean => !p.nodeName && !p.terminating;

/** The pods of a namespace a selector matches, kept up to date (ClusterState.selection). */
interface LiveSelection {
  readonly namespace: string;
  readonly selector: Selector;
  readonly pods: Map<string, Pod>;
}

export class ClusterState {
  private readonly infos = new Map<string, NodeInfo>();
  /** zone key → node names in insertion order; zones in order of first appearance. */
  private readonly tree = new Map<string, string[]>();
  private orderCache: NodeInfo[] | null = null;
  /** Nodes hosting pods with (required anti-)affinity terms, in node-tree order; built once per node list, then kept up to date as pods come and go. */
  private affinityNodesCache: NodeInfo[] | null = null;
  private requiredAntiAffinityNodesCache: NodeInfo[] | null = null;
  private podsByKey = new Map<string, Pod>();
  /**
   * The same pods by namespace, each map in podsByKey's order (PDBs select within one
   * namespace). Null until first asked in a copy: it follows from podsByKey, and most
   * simulation copies never ask.
   */
  private podsByNamespace: Map<string, Map<string, Pod>> | null = new Map();
  private readonly images = new Map<string, ImageSummary>();
  /** topology key → value → number of nodes carrying it. */
  private readonly domainIndex = new Map<string, Map<string, number>>();
  readonly namespaces = new Map<string, Labels>();
  pdbs: PodDisruptionBudget[] = [];
  /** Selectors of the objects that can own or front pods, for PodTopologySpread's system defaults (helper.DefaultSelector). */
  private readonly owners: Record<OwnerKind, OwnerSelector[]> = { services: [], replicationControllers: [], replicaSets: [], statefulSets: [] };
  /** Per owner list, bumped by every change to it (addOwners, removeOwner): what is derived from a list holds while its revision does. */
  private readonly ownerRevisions: Record<OwnerKind, number> = { services: 0, replicationControllers: 0, replicaSets: 0, statefulSets: 0 };
  /** PersistentVolumes, claims, StorageClasses and CSI objects (the volume plugins' listers). */
  volumes = new VolumeStore();
  /** Bumped on every change; lets callers cache derived data. */
  version = 0;
  /**
   * Bumped on every change but a pending pod's (unbound, not terminating) arrival or
   * departure: what placing pods onto the nodes reads, for caches that set pending pods aside.
   */
  boundVersion = 0;
  /**
   * Nodes whose pods or node object changed, in order (repeats allowed), so that
   * tallies refresh just those instead of checking every node's generation. Cleared
   * when it grows long; the epoch then moves and readers fall back to a full check.
   */
  private changeLog: NodeInfo[] = [];
  private changeEpoch = 0;

  get services(): readonly OwnerSelector[] {
    return this.owners.services;
  }

  get replicationControllers(): readonly OwnerSelector[] {
    return this.owners.replicationControllers;
  }

  get replicaSets(): readonly OwnerSelector[] {
    return this.owners.replicaSets;
  }

  get statefulSets(): readonly OwnerSelector[] {
    return this.owners.statefulSets;
  }

  /** The revision of an owner list: moves on every change to the list, so derived indexes know when to rebuild. */
  ownerRevision(kind: OwnerKind): number {
    return this.ownerRevisions[kind];
  }

  /** Appends entries to an owner list. */
  addOwners(kind: OwnerKind, entries: readonly OwnerSelector[]): void {
    if (entries.length === 0) return;
    // A loop, not push(...entries): a dump may hold more ReplicaSets than a call takes arguments.
    const list = this.owners[kind];
    for (const entry of entries) list.push(entry);
    this.ownerRevisions[kind]++;
  }

  /** Takes the first entry with this uid out of an owner list, if there is one. */
  removeOwner(kind: OwnerKind, uid: string): void {
    const list = this.owners[kind];
    const at = list.findIndex((o) => o.uid === uid);
    if (at < 0) return;
    list.splice(at, 1);
    this.ownerRevisions[kind]++;
  }

  addNode(node: Node): NodeInfo {
    if (this.infos.has(node.name)) throw new Error(`node ${node.name} already exists`);
    const info = new NodeInfo(node);
    this.infos.set(node.name, info);
    const zone = zoneKey(node.labels);
    const names = this.tree.get(zone);
    if (names) names.push(node.name);
    else this.tree.set(zone, [node.name]);
    this.indexLabels(node.labels, 1);
    this.attachImages(info, 1);
    this.changed();
    return info;
  }

  /**
   * Replaces a node object (a taint, label or cordon change) keeping its pods. A
   * node whose zone changed moves to the end of its new zone, as upstream's node
   * tree does on update. Otherwise the node list stays the same object (the node's
   * generation moves), so what is kept per node list (tallies) is refreshed, not rebuilt.
   */
  updateNode(node: Node): void {
    const found = this.infos.get(node.name);
    if (!found) throw new Error(`node ${node.name} does not exist`);
    const info = this.own(found);
    const oldZone = zoneKey(info.node.labels);
    const newZone = zoneKey(node.labels);
    if (oldZone !== newZone) {
      this.untree(oldZone, node.name);
      const names = this.tree.get(newZone);
      if (names) names.push(node.name);
      else this.tree.set(newZone, [node.name]);
    }
    this.indexLabels(info.node.labels, -1);
    this.attachImages(info, -1);
    info.replaceNode(node);
    this.logChange(info);
    this.indexLabels(node.labels, 1);
    this.attachImages(info, 1);
    if (oldZone !== newZone) this.changed();
    else {
      this.version++;
      this.boundVersion++;
    }
  }

  private untree(zone: string, name: string): void {
    const names = this.tree.get(zone) ?? [];
    names.splice(names.indexOf(name), 1);
    if (names.length === 0) this.tree.delete(zone);
  }

  private indexLabels(labels: Labels, sign: 1 | -1): void {
    // for-in: no entry arrays for each of a node's labels on every build of a state (unsatisfiable builds one per pod group).
    for (const k in labels) {
      if (!Object.hasOwn(labels, k)) continue;
      const v = labels[k]!;
      let values = this.domainIndex.get(k);
      if (!values) this.domainIndex.set(k, (values = new Map()));
      const n = (values.get(v) ?? 0) + sign;
      if (n > 0) values.set(v, n);
      else values.delete(v);
    }
  }

  /** Removes a node and returns the pods that were bound to it (they stay in the store, still bound). */
  removeNode(name: string): Pod[] {
    const info = this.infos.get(name);
    if (!info) return [];
    this.infos.delete(name);
    this.borrowed?.delete(info);
    for (const pod of info.pods) this.countClaimUsers(pod, -1);
    // Its pods stay in the store, bound to a node there is no NodeInfo for now.
    this.detachedPods += info.pods.length;
    this.untree(zoneKey(info.node.labels), name);
    this.indexLabels(info.node.labels, -1);
    this.attachImages(info, -1);
    this.changed();
    return [...info.pods];
  }

  /**
   * Image states as the scheduler cache keeps them (addNodeImageStates): node image names
   * as reported (not normalized), counted once per node, an image's size the one it was
   * first seen with. A node's names are its own (imageNames); only the counts live here.
   */
  private attachImages(info: NodeInfo, sign: 1 | -1): void {
    if (sign > 0) info.imageNames = imageNamesOf(info.node);
    // forEach: no entry array per name.
    info.imageNames.forEach((sizeBytes, name) => {
      let summary = this.images.get(name);
      if (!summary) this.images.set(name, (summary = { sizeBytes, numNodes: 0 }));
      summary.numNodes += sign;
      if (summary.numNodes === 0) this.images.delete(name);
    });
  }

  /** ImageLocality's state of an image on a node (NodeInfo.ImageStates[name]): its size and how many nodes have it, or undefined when this node does not report it. */
  imageState(info: NodeInfo, name: string): ImageSummary | undefined {
    return info.imageNames.has(name) ? this.images.get(name) : undefined;
  }

  private changed(): void {
    this.boundVersion++;
    this.orderCache = null;
    this.positionCache = null;
    this.affinityNodesCache = null;
    this.requiredAntiAffinityNodesCache = null;
    this.version++;
  }

  /** Changes a node's pods through `change`, updating the affinity node lists when the node enters or leaves them. */
  private changePods(shared: NodeInfo, change: (info: NodeInfo) => void): void {
    const info = this.own(shared);
    const hadAffinity = info.podsWithAffinity.length > 0;
    const hadRequiredAnti = info.podsWithRequiredAntiAffinity.length > 0;
    change(info);
    this.logChange(info);
    const hasAffinity = info.podsWithAffinity.length > 0;
    const hasRequiredAnti = info.podsWithRequiredAntiAffinity.length > 0;
    if (hadAffinity !== hasAffinity && this.affinityNodesCache !== null) this.toggleInOrder(this.affinityNodesCache, info, hasAffinity);
    if (hadRequiredAnti !== hasRequiredAnti && this.requiredAntiAffinityNodesCache !== null) this.toggleInOrder(this.requiredAntiAffinityNodesCache, info, hasRequiredAnti);
  }

  private logChange(info: NodeInfo): void {
    if (this.changeLog.length >= 1024 + 2 * this.infos.size) {
      this.changeLog = [];
      this.changeEpoch++;
    }
    this.changeLog.push(info);
  }

  /** Where the change log stands now, for a later nodesChangedSince. */
  changeMark(): { readonly epoch: number; readonly position: number } {
    return { epoch: this.changeEpoch, position: this.changeLog.length };
  }

  /**
   * The nodes changed (pods added or removed, node replaced) since `mark`, possibly
   * with repeats, or null when the log no longer reaches back that far.
   */
  nodesChangedSince(mark: { readonly epoch: number; readonly position: number }): readonly NodeInfo[] | null {
    if (mark.epoch !== this.changeEpoch) return null;
    return this.changeLog.slice(mark.position);
  }

  /** The position of a node in nodeInfos(). */
  nodePosition(name: string): number | undefined {
    return this.positions().get(name);
  }

  /** Inserts `info` into (or removes it from) a list kept in node-tree order, found by binary search on node positions. */
  private toggleInOrder(list: NodeInfo[], info: NodeInfo, present: boolean): void {
    const positions = this.positions();
    const pos = positions.get(info.node.name)!;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (positions.get(list[mid]!.node.name)! < pos) lo = mid + 1;
      else hi = mid;
    }
    if (present) list.splice(lo, 0, info);
    else list.splice(lo, 1);
  }

  /** Adds a pod; a bound pod is accounted on its node when that node exists. */
  /** Live selections (selection()): not carried over by clone, they belong to whoever asked. */
  private readonly selections: LiveSelection[] = [];

  /**
   * The pods of `namespace` that `selector` matches, in the order podsInNamespace
   * lists them, and kept so from now on (every pod added or removed updates it):
   * for a reader that asks after every pod change, such as the disruption
   * controller's PDBs, which walked the whole namespace each time (100,000 pods).
   */
  selection(namespace: string, selector: Selector): ReadonlyMap<string, Pod> {
    const source = this.unchangedSource();
    const sel = { namespace, selector, pods: source ? new Map(source.matching(namespace, selector)) : new Map<string, Pod>() };
    if (!source) this.fillSelection(sel);
    this.selections.push(sel);
    return sel.pods;
  }

  /**
   * The state this one is a clone or fork of, and its version then: while neither has
   * changed since, both hold the same pods in the same order. Held weakly: a copy
   * kept long after it changed (a what-if run a check keeps) must not keep alive the
   * built cluster it came from; one collected is worked out afresh, to the same answer.
   */
  private copiedFrom: { readonly state: WeakRef<ClusterState>; readonly version: number } | null = null;

  /**
   * The state this one is a clone or fork of (held weakly) and its version at the copy,
   * or null: while that state's version is still the same, what it has worked out holds
   * for this copy as it was made (indexes built once on a shared base cluster).
   */
  copySource(): { readonly state: WeakRef<ClusterState>; readonly version: number } | null {
    return this.copiedFrom;
  }

  /** The state this one is a copy of, while neither has changed since the copy (they then hold the same pods in the same orders). */
  private unchangedSource(): ClusterState | undefined {
    const from = this.copiedFrom;
    if (from === null || this.version !== from.version) return undefined;
    const state = from.state.deref();
    return state?.version === from.version ? state : undefined;
  }

  /** What matching() worked out, by selector and namespace, for the version it was worked out at. */
  private readonly matched = new Map<Selector, Map<string, { readonly version: number; readonly pods: ReadonlyMap<string, Pod> }>>();

  /**
   * The pods of `namespace` that `selector` matches, in podsInNamespace order, worked
   * out once per version: what each copy of this state asks for its live selections
   * (every simulation over a copy of one built cluster starts the disruption
   * controller, whose PDBs would each walk their namespace again).
   */
  private matching(namespace: string, selector: Selector): ReadonlyMap<string, Pod> {
    let byNamespace = this.matched.get(selector);
    if (!byNamespace) this.matched.set(selector, (byNamespace = new Map()));
    const known = byNamespace.get(namespace);
    if (known?.version === this.version) return known.pods;
    const sel = { namespace, selector, pods: new Map<string, Pod>() };
    this.fillSelection(sel);
    byNamespace.set(namespace, { version: this.version, pods: sel.pods });
    return sel.pods;
  }

  /** A selection's pods afresh, in podsInNamespace order. */
  private fillSelection(sel: LiveSelection): void {
    sel.pods.clear();
    for (const p of this.podsInNamespace(sel.namespace)) if (sel.selector.matches(p.labels)) sel.pods.set(p.key, p);
  }

  /**
   * What some readers need of every stored pod, kept as pods come and go so that they
   * need not walk them all (a removal simulation plans on a fork of the cluster once per
   * consolidation candidate): the topology keys of the pods' spread constraints (with
   * how many constraints name each), how many pods have required anti-affinity terms,
   * and how many are bound to a node name the state has no NodeInfo for.
   */
  private spreadKeyCounts = new Map<string, number>();
  private antiAffinityPods = 0;
  private detachedPods = 0;

  /** Accounts a pod entering (1) or leaving (-1) the store, `attached` when it is (or was) on its node's NodeInfo. */
  private countPod(pod: Pod, sign: 1 | -1, attached: boolean): void {
    for (const c of pod.topologySpreadConstraints) {
      const n = (this.spreadKeyCounts.get(c.topologyKey) ?? 0) + sign;
      if (n > 0) this.spreadKeyCounts.set(c.topologyKey, n);
      else this.spreadKeyCounts.delete(c.topologyKey);
    }
    if (pod.requiredAntiAffinity.length > 0) this.antiAffinityPods += sign;
    if (pod.nodeName && !attached) this.detachedPods += sign;
  }

  /** The topology keys some stored pod's spread constraint names, bound or pending. */
  spreadTopologyKeys(): IterableIterator<string> {
    return this.spreadKeyCounts.keys();
  }

  /** Whether some stored pod, bound or pending, has required anti-affinity terms. */
  hasAntiAffinityPods(): boolean {
    return this.antiAffinityPods > 0;
  }

  /**
   * The stored pods bound to one of `names`: those on the nodes' NodeInfos, unless some
   * pod may be bound to a node name without one (a node removed while its pods stay):
   * then every stored pod is checked.
   */
  podsBoundTo(names: ReadonlySet<string>): Pod[] {
    if (this.detachedPods > 0) return [...this.podsByKey.values()].filter((p) => names.has(p.nodeName));
    const out: Pod[] = [];
    for (const name of names) out.push(...(this.infos.get(name)?.pods ?? []));
    return out;
  }

  /** Adds an input's pods as buildClusterState does: Succeeded and Failed pods are left out, as kube-scheduler's pod informer filters them out. */
  addInputPods(pods: readonly Pod[]): void {
    for (const pod of pods) if (pod.phase !== 'Succeeded' && pod.phase !== 'Failed') this.addPod(pod);
  }

  addPod(pod: Pod): void {
    if (this.podsByKey.has(pod.key)) throw new Error(`pod ${pod.key} already exists`);
    this.podsByKey.set(pod.key, pod);
    if (this.podsByNamespace) {
      let inNamespace = this.podsByNamespace.get(pod.namespace);
      if (!inNamespace) this.podsByNamespace.set(pod.namespace, (inNamespace = new Map()));
      inNamespace.set(pod.key, pod);
    }
    for (const s of this.selections) if (s.namespace === pod.namespace && s.selector.matches(pod.labels)) s.pods.set(pod.key, pod);
    const info = pod.nodeName ? this.infos.get(pod.nodeName) : undefined;
    if (info) {
      this.changePods(info, (i) => i.addPod(pod));
      this.countClaimUsers(pod, 1);
    }
    this.countPod(pod, 1, info !== undefined);
    this.version++;
    if (!isPending(pod)) this.boundVersion++;
  }

  removePod(key: string): Pod | undefined {
    const pod = this.podsByKey.get(key);
    if (!pod) return undefined;
    this.podsByKey.delete(key);
    this.podsByNamespace?.get(pod.namespace)?.delete(key);
    for (const s of this.selections) if (s.namespace === pod.namespace) s.pods.delete(key);
    const info = pod.nodeName ? this.infos.get(pod.nodeName) : undefined;
    if (info) {
      this.changePods(info, (i) => i.removePod(pod));
      this.countClaimUsers(pod, -1);
    }
    this.countPod(pod, -1, info !== undefined);
    this.version++;
    if (!isPending(pod)) this.boundVersion++;
    return pod;
  }

  /** namespace/claim → how many pods on nodes mount it through a persistentVolumeClaim volume (the snapshot's PVC ref counts). */
  private readonly claimUsers = new Map<string, number>();

  private countClaimUsers(pod: Pod, sign: 1 | -1): void {
    for (const v of pod.volumes ?? []) {
      if (v.kind !== 'claim' || v.ephemeral) continue;
      const key = `${pod.namespace}/${v.claimName}`;
      const n = (this.claimUsers.get(key) ?? 0) + sign;
      if (n > 0) this.claimUsers.set(key, n);
      else this.claimUsers.delete(key);
    }
  }

  /** Snapshot.IsPVCUsedByPods: some pod on a node mounts the claim `namespace/name`. */
  isClaimUsedByPods(key: string): boolean {
    return this.claimUsers.has(key);
  }

  /** Replaces a pod (e.g. when binding it), keeping indexes consistent. */
  updatePod(pod: Pod): void {
    this.removePod(pod.key);
    this.addPod(pod);
  }

  /**
   * Replaces a pod keeping its place in the store's order (pods(), pendingPods()), as
   * a state built with the new pod in the old one's place would have it.
   */
  replacePodInPlace(pod: Pod): void {
    const old = this.podsByKey.get(pod.key);
    if (!old) throw new Error(`pod ${pod.key} does not exist`);
    const from = old.nodeName ? this.infos.get(old.nodeName) : undefined;
    if (from) {
      this.changePods(from, (i) => i.removePod(old));
      this.countClaimUsers(old, -1);
    }
    this.countPod(old, -1, from !== undefined);
    this.podsByKey.set(pod.key, pod);
    this.podsByNamespace?.get(pod.namespace)!.set(pod.key, pod);
    for (const sel of this.selections) {
      if (sel.namespace !== pod.namespace) continue;
      const was = sel.pods.has(pod.key);
      if (sel.selector.matches(pod.labels)) {
        if (was) sel.pods.set(pod.key, pod);
        // Joins in the store's order, which a Map can only give by filling again.
        else this.fillSelection(sel);
      } else if (was) sel.pods.delete(pod.key);
    }
    const to = pod.nodeName ? this.infos.get(pod.nodeName) : undefined;
    if (to) {
      this.changePods(to, (i) => i.addPod(pod));
      this.countClaimUsers(pod, 1);
    }
    this.countPod(pod, 1, to !== undefined);
    this.version++;
    if (!isPending(old) || !isPending(pod)) this.boundVersion++;
  }

  getPod(key: string): Pod | undefined {
    return this.podsByKey.get(key);
  }

  pods(): IterableIterator<Pod> {
    return this.podsByKey.values();
  }

  /** The pods of one namespace, in the order pods() lists them. */
  podsInNamespace(namespace: string): Iterable<Pod> {
    if (!this.podsByNamespace) {
      const byNamespace = new Map<string, Map<string, Pod>>();
      this.podsByKey.forEach((pod, key) => {
        let inNamespace = byNamespace.get(pod.namespace);
        if (!inNamespace) byNamespace.set(pod.namespace, (inNamespace = new Map()));
        inNamespace.set(key, pod);
      });
      this.podsByNamespace = byNamespace;
    }
    return this.podsByNamespace.get(namespace)?.values() ?? [];
  }

  nodeInfo(name: string): NodeInfo | undefined {
    return this.infos.get(name);
  }

  get numNodes(): number {
    return this.infos.size;
  }

  /** Node name → position in nodeInfos(). */
  private positionCache: Map<string, number> | null = null;

  /** The nodes named in `names` that exist, in node-tree order, without walking every node when the set is small. */
  nodeInfosNamed(names: ReadonlySet<string>): NodeInfo[] {
    const all = this.nodeInfos();
    if (names.size * 4 > all.length) return all.filter((n) => names.has(n.node.name));
    const positions = this.positions();
    const found: number[] = [];
    for (const name of names) {
      const i = positions.get(name);
      if (i !== undefined) found.push(i);
    }
    return found.sort((a, b) => a - b).map((i) => all[i]!);
  }

  private positions(): Map<string, number> {
    if (this.positionCache === null) {
      const positions = new Map<string, number>();
      this.nodeInfos().forEach((n, i) => positions.set(n.node.name, i));
      this.positionCache = positions;
    }
    return this.positionCache;
  }

  /** All nodes in node-tree order: the first node of each zone, then the second of each, and so on. */
  nodeInfos(): readonly NodeInfo[] {
    if (this.orderCache) return this.orderCache;
    const zones = [...this.tree.values()];
    const out: NodeInfo[] = [];
    for (let i = 0; out.length < this.infos.size; i++) {
      for (const names of zones) {
        const name = names[i];
        if (name !== undefined) out.push(this.infos.get(name)!);
      }
    }
    this.orderCache = out;
    return out;
  }

  /** Nodes that have at least one pod with affinity or anti-affinity terms. */
  nodesWithAffinityPods(): readonly NodeInfo[] {
    return (this.affinityNodesCache ??= this.nodeInfos().filter((n) => n.podsWithAffinity.length > 0));
  }

  /** Nodes that have at least one pod with required anti-affinity terms. */
  nodesWithRequiredAntiAffinityPods(): readonly NodeInfo[] {
    return (this.requiredAntiAffinityNodesCache ??= this.nodeInfos().filter((n) => n.podsWithRequiredAntiAffinity.length > 0));
  }

  /** Whether some node reports an image under this name. */
  hasImage(name: string): boolean {
    return this.images.has(name);
  }

  /** Values of a node label key with how many nodes carry each. */
  topologyDomains(key: string): ReadonlyMap<string, number> {
    return this.domainIndex.get(key) ?? new Map();
  }

  namespaceLabels(name: string): Labels {
    return this.namespaces.get(name) ?? { 'kubernetes.io/metadata.name': name };
  }

  /**
   * An independent copy in exactly this state: the same nodes, pods and indexes in
   * the same orders (each node's pod lists included, which removals have
   * permuted), so a simulation on the copy runs as one on a state built the same
   * way would. Pods and nodes are shared (immutable); every container is copied.
   */
  clone(): ClusterState {
    const c = new ClusterState();
    const infos = new Map<NodeInfo, NodeInfo>();
    for (const [name, info] of this.infos) {
      const copy = info.clone();
      infos.set(info, copy);
      c.infos.set(name, copy);
    }
    this.copyAllButNodesTo(c);
    c.changeLog = this.changeLog.map((info) => infos.get(info) ?? info.clone());
    c.changeEpoch = this.changeEpoch;
    c.copiedFrom = { state: new WeakRef(this), version: this.version };
    return c;
  }

  /** The state this one is a fork of (fork()), whose NodeInfos it shares until it changes them; undefined for a state that is none. */
  forkParent(): ClusterState | undefined {
    return this.forkedFrom?.state;
  }

  /** NodeInfos a fork shares with the state it came from: copied before their first change here. */
  private borrowed: Set<NodeInfo> | null = null;
  private forkedFrom: { readonly state: ClusterState; readonly version: number } | null = null;

  /**
   * A copy like clone() for a short-lived what-if: the NodeInfos (pod lists, sums and
   * the counts kept on them) are shared until the copy changes one, which copies it
   * first. Valid only while this state does not change (checked when the copy
   * changes a shared node).
   */
  fork(): ClusterState {
    const c = new ClusterState();
    for (const [name, info] of this.infos) c.infos.set(name, info);
    c.borrowed = new Set(this.infos.values());
    c.forkedFrom = { state: this, version: this.version };
    c.copiedFrom = { state: new WeakRef(this), version: this.version };
    this.copyAllButNodesTo(c);
    return c;
  }

  /** Copies into `c` everything but the NodeInfos and the change log: node tree, pods, indexes, policy and storage objects, versions. */
  private copyAllButNodesTo(c: ClusterState): void {
    for (const [zone, names] of this.tree) c.tree.set(zone, [...names]);
    for (const [name, summary] of this.images) c.images.set(name, { ...summary });
    c.podsByKey = copyMap(this.podsByKey);
    c.podsByNamespace = null;
    for (const [key, values] of this.domainIndex) c.domainIndex.set(key, copyMap(values));
    for (const [name, labels] of this.namespaces) c.namespaces.set(name, labels);
    c.pdbs = [...this.pdbs];
    for (const kind of OWNER_KINDS) c.addOwners(kind, this.owners[kind]);
    c.volumes = this.volumes.clone();
    c.version = this.version;
    c.boundVersion = this.boundVersion;
    for (const [claim, n] of this.claimUsers) c.claimUsers.set(claim, n);
    c.spreadKeyCounts = new Map(this.spreadKeyCounts);
    c.antiAffinityPods = this.antiAffinityPods;
    c.detachedPods = this.detachedPods;
  }

  /** The NodeInfo this state may change: a shared one is replaced by its copy (in the node lists too). */
  private own(info: NodeInfo): NodeInfo {
    if (!this.borrowed?.delete(info)) return info;
    if (this.forkedFrom && this.forkedFrom.state.version !== this.forkedFrom.version) throw new Error('cluster state changed while a fork of it was in use');
    const copy = info.clone();
    this.infos.set(copy.node.name, copy);
    for (const list of [this.orderCache, this.affinityNodesCache, this.requiredAntiAffinityNodesCache]) {
      const i = list?.indexOf(info) ?? -1;
      if (i >= 0) list![i] = copy;
    }
    return copy;
  }

  /** Pods not bound to a node and not terminating, in store order. */
  pendingPods(): Pod[] {
    return [...(this.unchangedSource() ?? this).pendingAsOfVersion()];
  }

  private pendingMemo: { readonly version: number; readonly pods: readonly Pod[] } | null = null;

  /** pendingPods() worked out once per version: for the copies that ask before they change (every simulation's scheduler queue at its start), and for a state each of whose many simulations asks. */
  private pendingAsOfVersion(): readonly Pod[] {
    if (this.pendingMemo?.version !== this.version) {
      const pods: Pod[] = [];
      this.podsByKey.forEach((p) => isPending(p) && pods.push(p));
      this.pendingMemo = { version: this.version, pods };
    }
    return this.pendingMemo.pods;
  }
}

/** Model objects to fill a ClusterState with (what io/'s loader produces). */
export interface ClusterInput {
  readonly nodes: readonly Node[];
  readonly pods: readonly Pod[];
  readonly namespaces?: readonly { readonly name: string; readonly labels: Labels }[];
  readonly pdbs?: readonly PodDisruptionBudget[];
  readonly services?: readonly OwnerSelector[];
  readonly replicationControllers?: readonly OwnerSelector[];
  readonly replicaSets?: readonly OwnerSelector[];
  readonly statefulSets?: readonly OwnerSelector[];
  /** PersistentVolumes, claims, classes and CSI objects the volume plugins read. */
  readonly storage?: StorageInput;
}

const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * A ClusterState holding `input`: nodes in input order, then pods (a pod bound to a
 * node that is not in the input is stored but counted on no node). Succeeded and
 * Failed pods are left out, as kube-scheduler's pod informer filters them out.
 */
export function buildClusterState(input: ClusterInput): ClusterState {
  const state = new ClusterState();
  for (const node of input.nodes) state.addNode(node);
  for (const ns of input.namespaces ?? []) state.namespaces.set(ns.name, { ...ns.labels, [NAMESPACE_NAME_LABEL]: ns.name });
  state.addInputPods(input.pods);
  state.pdbs = [...(input.pdbs ?? [])];
  for (const kind of OWNER_KINDS) state.addOwners(kind, input[kind] ?? []);
  state.volumes = new VolumeStore(input.storage);
  return state;
}
