// The simulated cluster: a ClusterState plus what the scheduler's model does not
// carry (readiness), changed only through these methods so that every change is
// logged and every subscriber (scheduler queue, controllers, pod lifecycle) hears
// of it in the same order.

import { copyMap } from '../cluster/node-info.js';
import type { ClusterState } from '../cluster/state.js';
import type { Node } from '../model/node.js';
import { changedPod, type Pod } from '../model/pod.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../model/volumes.js';
import { DEFAULT_TOLERATION_SECONDS, withDefaultTolerationSeconds } from './admission.js';
import type { Engine } from './engine.js';
import { LayeredMap } from './layered-map.js';

export type ClusterChange =
  | { readonly kind: 'podAdded'; readonly pod: Pod }
  | { readonly kind: 'podUpdated'; readonly old: Pod; readonly pod: Pod }
  | { readonly kind: 'podDeleted'; readonly pod: Pod }
  | { readonly kind: 'podReady'; readonly pod: Pod }
  | { readonly kind: 'podNotReady'; readonly pod: Pod }
  /** The pod's containers exited for good (a Job's pod): Succeeded or Failed; it is then removed. */
  | { readonly kind: 'podFinished'; readonly pod: Pod; readonly phase: 'Succeeded' | 'Failed'; readonly exitCode: number }
  | { readonly kind: 'kubelet'; readonly node: string; readonly running: boolean }
  | { readonly kind: 'nodeAdded'; readonly node: Node }
  | { readonly kind: 'nodeUpdated'; readonly old: Node; readonly node: Node }
  | { readonly kind: 'nodeDeleted'; readonly node: Node }
  /** A PersistentVolume, claim or StorageClass was added, changed or removed. */
  /** A claim, volume or StorageClass added, updated or deleted (the scheduler's storage cluster events). */
  | { readonly kind: 'storage'; readonly resource: StorageResource; readonly action: 'Add' | 'Update' | 'Delete'; readonly name: string };

/** The storage objects whose changes are scheduler cluster events. */
export type StorageResource = 'PersistentVolumeClaim' | 'PersistentVolume' | 'StorageClass';

export type ChangeListener = (change: ClusterChange) => void;

const NO_PODS: ReadonlyMap<string, Pod> = new Map();

/** Between two requests of one batch (World.inTurn). */
export const REQUEST_SPACING_MS = 1;

/**
 * What a World files of its cluster's pods when it starts (by controller, and
 * which have been ready since before the start): the same for every copy of one
 * cluster, so it is worked out once (World.indexPods) and copied for each.
 */
export interface PodIndex {
  readonly byOwner: ReadonlyMap<string, ReadonlyMap<string, Pod>>;
  readonly ownerListSeq: ReadonlyMap<string, number>;
  readonly ready: ReadonlyMap<string, number>;
}

export class World {
  private readonly listeners: ChangeListener[] = [];
  /** Pod key → when its Ready condition turned True (over the pod index's, which every copy of a cluster shares). */
  private readonly readyAt: LayeredMap<string, number>;
  private uidSeq = 0;
  /** Nodes whose kubelet has stopped (crashed, partitioned or its instance gone). */
  private readonly kubeletDown = new Set<string>();

  /** Pod uid → why it was deleted (the reason given to deletePod or removePod). */
  private readonly deletionReasons = new Map<string, string>();

  /** Controller uid → its pods by key, in store order (an update moves a pod to the end, as in the store): a controller's entry is copied from startOwners when first changed. */
  private readonly byOwner = new Map<string, Map<string, Pod>>();
  /** The pod index's: shared with every World over a copy of the same cluster, never changed. */
  private readonly startOwners: ReadonlyMap<string, ReadonlyMap<string, Pod>>;
  /** Controllers some of whose pods turned ready or not ready here (other changes copy the controller's list into byOwner). */
  private readonly readinessMoved = new Set<string>();
  /** Owned pod key → when it last moved to the end of its controller's list in byOwner. */
  private readonly ownerListSeq: LayeredMap<string, number>;
  private ownerListMoves: number;

  constructor(
    readonly engine: Engine,
    readonly cluster: ClusterState,
    /** The API server's --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds. */
    private readonly defaultTolerationSeconds = DEFAULT_TOLERATION_SECONDS,
    /**
     * The order in which a batch of pods deleted at one instant goes, where upstream's
     * is random: kubectl drain evicts a node's pods concurrently, pod GC walks its
     * informer's list (a map), the taint manager's evictions due at once race. The
     * batch's own order by default.
     */
    readonly deletionOrder: (pods: readonly Pod[]) => readonly Pod[] = (pods) => pods,
    /** indexPods of a cluster this one is a copy of (the same pods, in the same order). */
    podIndex: PodIndex = World.indexPods(cluster),
  ) {
    this.startOwners = podIndex.byOwner;
    this.ownerListSeq = new LayeredMap(podIndex.ownerListSeq);
    this.ownerListMoves = podIndex.ownerListSeq.size;
    this.readyAt = new LayeredMap(podIndex.ready);
  }

  /** How a World over this cluster files its pods at the start. */
  static indexPods(cluster: ClusterState): PodIndex {
    const byOwner = new Map<string, Map<string, Pod>>();
    const ownerListSeq = new Map<string, number>();
    const ready = new Map<string, number>();
    for (const p of cluster.pods()) {
      const uid = p.ownerReferences.find((r) => r.controller)?.uid;
      if (uid !== undefined) {
        let pods = byOwner.get(uid);
        if (!pods) byOwner.set(uid, (pods = new Map()));
        pods.set(p.key, p);
        ownerListSeq.set(p.key, ownerListSeq.size + 1);
      }
      // A pod already running when the simulation starts has been ready since before it.
      if (p.nodeName && p.phase === 'Running' && !p.terminating) ready.set(p.key, Number.NEGATIVE_INFINITY);
    }
    return { byOwner, ownerListSeq, ready };
  }

  private index(pod: Pod): void {
    const uid = pod.ownerReferences.find((r) => r.controller)?.uid;
    if (uid === undefined) return;
    const pods = this.ownedBy(uid);
    pods.delete(pod.key);
    pods.set(pod.key, pod);
    this.ownerListSeq.set(pod.key, ++this.ownerListMoves);
  }

  private unindex(pod: Pod): void {
    const uid = pod.ownerReferences.find((r) => r.controller)?.uid;
    if (uid === undefined) return;
    this.ownedBy(uid).delete(pod.key);
    this.ownerListSeq.delete(pod.key);
  }

  /** This World's own list of a controller's pods, to change. */
  private ownedBy(uid: string): Map<string, Pod> {
    let pods = this.byOwner.get(uid);
    if (!pods) this.byOwner.set(uid, (pods = copyMap(this.startOwners.get(uid) ?? NO_PODS)));
    return pods;
  }

  /** Orders pods of one controller as podsControlledBy lists them, without listing them all. */
  readonly byControllerOrder = (a: Pod, b: Pod): number => (this.ownerListSeq.get(a.key) ?? 0) - (this.ownerListSeq.get(b.key) ?? 0);

  /** The pods whose controller has this uid, terminating ones included, in store order: what controllers list. */
  podsControlledBy(uid: string): Pod[] {
    return [...this.controlledPods(uid)];
  }

  /** podsControlledBy without the copy, for a reader that only counts (it must not change the pods while it reads). */
  controlledPods(uid: string): IterableIterator<Pod> {
    return ((this.byOwner.get(uid) ?? this.startOwners.get(uid)) ?? NO_PODS).values();
  }

  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /**
   * Runs `request` for each pod of a batch, in deletionOrder, one API request after
   * another (REQUEST_SPACING_MS apart): the controllers and the scheduler see each
   * before the next, as with upstream's serial deletions (pod GC), whose
   * replacements the real cluster schedules in between.
   */
  inTurn(pods: readonly Pod[], what: string, request: (pod: Pod) => void): void {
    const now = this.engine.now;
    this.deletionOrder(pods).forEach((pod, i) => {
      if (i === 0) request(pod);
      else this.engine.at(now + i * REQUEST_SPACING_MS, what, () => request(pod));
    });
  }

  private notify(change: ClusterChange): void {
    for (const l of this.listeners) l(change);
  }

  /** A fresh uid, unique within the run (names can be reused after a deletion). */
  newUid(): string {
    return `sim-uid-${++this.uidSeq}`;
  }

  /** A pod created through the API: admission adds the default NoExecute tolerations. */
  createPod(created: Pod): void {
    const pod = withDefaultTolerationSeconds(created, this.defaultTolerationSeconds);
    this.cluster.addPod(pod);
    this.index(pod);
    this.engine.record('PodCreated', { pod: pod.key });
    this.notify({ kind: 'podAdded', pod });
  }

  private replacePod(old: Pod, pod: Pod): void {
    this.cluster.updatePod(pod);
    this.unindex(old);
    this.index(pod);
    this.notify({ kind: 'podUpdated', old, pod });
  }

  /** The binding the scheduler writes: nodeName set, phase still Pending until the kubelet starts it. */
  bindPod(key: string, nodeName: string): void {
    const old = this.mustGet(key);
    this.engine.record('Scheduled', { pod: key, node: nodeName });
    this.replacePod(old, changedPod(old, { nodeName, nominatedNodeName: '' }));
  }

  setNominatedNode(key: string, nodeName: string): void {
    const old = this.mustGet(key);
    this.replacePod(old, changedPod(old, { nominatedNodeName: nodeName }));
  }

  markRunning(key: string): void {
    const old = this.cluster.getPod(key);
    if (!old || old.terminating || old.phase === 'Running') return;
    this.engine.record('PodRunning', { pod: key, node: old.nodeName });
    this.replacePod(old, changedPod(old, { phase: 'Running', startTime: this.engine.now }));
  }

  markReady(key: string): void {
    const pod = this.cluster.getPod(key);
    if (!pod || pod.terminating || this.readyAt.has(key)) return;
    this.readyAt.set(key, this.engine.now);
    this.readinessChanged(pod);
    this.engine.record('PodReady', { pod: key });
    this.notify({ kind: 'podReady', pod });
  }

  /** The Ready condition turning False (node controller on a lost node, or a crash). */
  markNotReady(key: string, reason: string): void {
    const pod = this.cluster.getPod(key);
    if (!pod || !this.readyAt.delete(key)) return;
    this.readinessChanged(pod);
    this.engine.record('PodNotReady', { pod: key, reason });
    this.notify({ kind: 'podNotReady', pod });
  }

  private readinessChanged(pod: Pod): void {
    const uid = pod.ownerReferences.find((r) => r.controller)?.uid;
    if (uid !== undefined) this.readinessMoved.add(uid);
  }

  /**
   * The controller's pods as every World over a copy of this cluster starts with them,
   * while none of them has changed here (added, removed, updated, turned ready or not
   * ready): a reader may then use what it worked out from them in another such World.
   * Each of them has been ready since before the start or is not ready.
   */
  unchangedStartPods(uid: string): ReadonlyMap<string, Pod> | undefined {
    return this.byOwner.has(uid) || this.readinessMoved.has(uid) ? undefined : this.startOwners.get(uid);
  }

  isReady(key: string): boolean {
    return this.readyAt.has(key);
  }

  /** When the pod became ready, or undefined when it is not ready. */
  readySince(key: string): number | undefined {
    return this.readyAt.get(key);
  }

  /**
   * A delete request. A pod not bound to a node goes at once (no kubelet has to
   * stop it); a bound pod becomes terminating — it keeps its resources until the
   * lifecycle removes it after its grace period — and stops being ready. A
   * preemption victim also gets the DisruptionTarget condition
   * (PreemptionByScheduler), which preemption reads on later attempts.
   */
  deletePod(key: string, reason: string, opts: { readonly preemptedByScheduler?: boolean } = {}): void {
    const old = this.cluster.getPod(key);
    if (!old || old.terminating) return;
    if (!old.nodeName) {
      this.engine.record('PodDeleted', { pod: key, reason });
      this.removePod(key, reason);
      return;
    }
    this.readyAt.delete(key);
    this.deletionReasons.set(old.uid, reason);
    this.engine.record('PodTerminating', { pod: key, node: old.nodeName, reason, gracePeriodSeconds: old.terminationGracePeriodSeconds });
    this.replacePod(old, changedPod(old, { terminating: true, ...(opts.preemptedByScheduler ? { preemptedByScheduler: true } : {}) }));
  }

  /** Removes a pod from the store (the end of graceful termination, or a force deletion for `reason`). */
  removePod(key: string, reason?: string): void {
    const pod = this.cluster.removePod(key);
    if (!pod) return;
    if (reason !== undefined && !this.deletionReasons.has(pod.uid)) this.deletionReasons.set(pod.uid, reason);
    this.unindex(pod);
    this.readyAt.delete(key);
    this.notify({ kind: 'podDeleted', pod });
  }

  /** The kubelet restarted the pod's containers after a failed run (restartPolicy OnFailure): one more restart counted. */
  restartContainers(key: string, exitCode: number): void {
    const old = this.cluster.getPod(key);
    if (!old || old.terminating) return;
    const containers = old.status?.containers.length ? old.status.containers : [{ restartCount: 0 }];
    const status = { reason: old.status?.reason ?? '', initContainers: old.status?.initContainers ?? [], containers: containers.map((c) => ({ ...c, restartCount: c.restartCount + 1, exitCode })) };
    this.engine.record('ContainerRestarted', { pod: key, exitCode, restarts: status.containers[0]!.restartCount });
    this.replacePod(old, changedPod(old, { status }));
  }

  /** Why the pod with this uid was deleted, when it was (its DisruptionTarget reason, for the Job controller). */
  deletionReason(uid: string): string | undefined {
    return this.deletionReasons.get(uid);
  }

  /**
   * The kubelet reports the pod terminal (its containers exited and will not
   * restart): Succeeded with exit code 0, else Failed. A terminal pod holds no
   * resources, so it leaves the store at once; the Job controller counts it first.
   */
  finishPod(key: string, exitCode: number): void {
    const pod = this.cluster.getPod(key);
    if (!pod || pod.terminating) return;
    const phase = exitCode === 0 ? 'Succeeded' : 'Failed';
    this.readyAt.delete(key);
    this.engine.record(phase === 'Succeeded' ? 'PodSucceeded' : 'PodFailed', { pod: key, node: pod.nodeName, exitCode });
    this.notify({ kind: 'podFinished', pod, phase, exitCode });
    this.removePod(key);
  }

  addNode(node: Node): void {
    this.cluster.addNode(node);
    this.engine.record('NodeAdded', { node: node.name });
    this.notify({ kind: 'nodeAdded', node });
  }

  /** A new version of a node (taints, labels, cordon); `reason` goes to the log. */
  updateNode(node: Node, reason: string): void {
    const old = this.cluster.nodeInfo(node.name)?.node;
    if (!old) throw new Error(`node ${node.name} does not exist`);
    this.cluster.updateNode(node);
    this.engine.record('NodeUpdated', { node: node.name, reason });
    this.notify({ kind: 'nodeUpdated', old, node });
  }

  /**
   * Deletes the Node object. Pods bound to it stay in the store, bound to a node
   * that no longer exists, until pod garbage collection removes them.
   */
  deleteNode(name: string, reason: string): void {
    const node = this.cluster.nodeInfo(name)?.node;
    if (!node) return;
    this.cluster.removeNode(name);
    this.cluster.volumes.removeCSINode(name);
    this.engine.record('NodeDeleted', { node: name, reason });
    this.notify({ kind: 'nodeDeleted', node });
  }

  /** Adds or replaces a claim (created by a controller or a step, bound by the PV controller); `event` goes to the log. */
  setClaim(pvc: PersistentVolumeClaim, event: string, fields: Record<string, unknown> = {}): void {
    const action = this.cluster.volumes.claim(pvc.namespace, pvc.name) ? 'Update' : 'Add';
    this.cluster.volumes.setClaim(pvc);
    this.engine.record(event, { claim: pvc.key, ...fields });
    this.notify({ kind: 'storage', resource: 'PersistentVolumeClaim', action, name: pvc.key });
  }

  deleteClaim(key: string, reason: string): void {
    const [namespace, name] = splitKey(key);
    if (!this.cluster.volumes.claim(namespace, name)) return;
    this.cluster.volumes.removeClaim(namespace, name);
    this.engine.record('ClaimDeleted', { claim: key, reason });
    this.notify({ kind: 'storage', resource: 'PersistentVolumeClaim', action: 'Delete', name: key });
  }

  setPersistentVolume(pv: PersistentVolume, event: string, fields: Record<string, unknown> = {}): void {
    const action = this.cluster.volumes.persistentVolume(pv.name) ? 'Update' : 'Add';
    this.cluster.volumes.setPersistentVolume(pv);
    this.engine.record(event, { volume: pv.name, ...fields });
    this.notify({ kind: 'storage', resource: 'PersistentVolume', action, name: pv.name });
  }

  deletePersistentVolume(name: string, reason: string): void {
    if (!this.cluster.volumes.persistentVolume(name)) return;
    this.cluster.volumes.removePersistentVolume(name);
    this.engine.record('VolumeDeleted', { volume: name, reason });
    this.notify({ kind: 'storage', resource: 'PersistentVolume', action: 'Delete', name });
  }

  setStorageClass(sc: StorageClass): void {
    const action = this.cluster.volumes.storageClass(sc.name) ? 'Update' : 'Add';
    this.cluster.volumes.setStorageClass(sc);
    this.engine.record('StorageClassAdded', { storageClass: sc.name });
    this.notify({ kind: 'storage', resource: 'StorageClass', action, name: sc.name });
  }

  deleteStorageClass(name: string): void {
    if (!this.cluster.volumes.storageClass(name)) return;
    this.cluster.volumes.removeStorageClass(name);
    this.engine.record('StorageClassDeleted', { storageClass: name });
    this.notify({ kind: 'storage', resource: 'StorageClass', action: 'Delete', name });
  }

  /** Stops or restarts a node's kubelet; what follows is up to the node and pod lifecycles. */
  setKubeletRunning(node: string, running: boolean): void {
    if (running === !this.kubeletDown.has(node)) return;
    if (running) this.kubeletDown.delete(node);
    else this.kubeletDown.add(node);
    this.engine.record(running ? 'KubeletStarted' : 'KubeletStopped', { node });
    this.notify({ kind: 'kubelet', node, running });
  }

  kubeletRunning(node: string): boolean {
    return !this.kubeletDown.has(node);
  }

  private mustGet(key: string): Pod {
    const pod = this.cluster.getPod(key);
    if (!pod) throw new Error(`pod ${key} does not exist`);
    return pod;
  }
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}
