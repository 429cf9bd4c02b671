// The StatefulSet controller (pkg/controller/statefulset, MaxUnavailableStatefulSet
// on as in v1.37): pods named `<name>-<ordinal>` with stable identity labels,
// created in ordinal order and removed from the highest ordinal under
// OrderedReady, all at once under Parallel. A rolling update deletes pods at or
// above the partition from the highest ordinal down, keeping at most
// maxUnavailable pods unavailable; the replacement gets the update revision when
// the slot is recreated. Each ordinal's claims are created before its pod
// (statefulset-claims.ts). The Recreate strategy (alpha) is not modelled.

import { templateHash } from '../../model/names.js';
import { CONTROLLER_REVISION_HASH_LABEL, POD_INDEX_LABEL, STATEFULSET_POD_NAME_LABEL } from '../../io/workloads.js';
import type { IntOrString } from '../../model/manifest.js';
import { changedPod, type Pod } from '../../model/pod.js';
import type { Labels, Selector } from '../../model/selector.js';
import type { World } from '../world.js';
import { scaledValue } from './int-or-percent.js';
import { claimsDeletedWithPod, createMissingClaims, ordinalClaims, withOrdinalClaims, type StatefulSetStorage } from './statefulset-claims.js';
import { KeyedController } from './keyed-controller.js';

export type StatefulSetUpdateStrategy =
  | { readonly type: 'RollingUpdate'; readonly partition?: number; readonly maxUnavailable?: IntOrString }
  | { readonly type: 'OnDelete' };

export interface StatefulSetInit {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly replicas: number;
  readonly selector: Selector;
  /** The pod template as written: the revision hash is computed over it. */
  readonly template: unknown;
  /** The template compiled as a pod. */
  readonly templatePod: Pod;
  /** Defaults to OrderedReady. */
  readonly podManagementPolicy?: 'OrderedReady' | 'Parallel';
  /** Defaults to RollingUpdate with partition 0. */
  readonly updateStrategy?: StatefulSetUpdateStrategy;
  readonly minReadySeconds?: number;
  /** spec.ordinals.start */
  readonly ordinalStart?: number;
  /** The revision name the cluster's pods carry for this template (adopted pods); berth's when unset. */
  readonly revision?: string;
  /** volumeClaimTemplates and persistentVolumeClaimRetentionPolicy; no claims when unset. */
  readonly storage?: StatefulSetStorage;
  /** spec.selector.matchLabels: the labels each claim gets. */
  readonly selectorLabels?: Labels;
}

export interface StatefulSetStatus {
  /** Created pods, terminating ones included. */
  readonly replicas: number;
  readonly readyReplicas: number;
  readonly availableReplicas: number;
  readonly currentReplicas: number;
  readonly updatedReplicas: number;
  readonly currentRevision: string;
  readonly updateRevision: string;
}

export interface SimStatefulSet {
  readonly namespace: string;
  readonly name: string;
  readonly key: string;
  readonly uid: string;
  replicas: number;
  readonly selector: Selector;
  readonly podManagementPolicy: 'OrderedReady' | 'Parallel';
  readonly updateStrategy: StatefulSetUpdateStrategy;
  readonly minReadySeconds: number;
  readonly ordinalStart: number;
  /** Revision name → the compiled template of that revision (the ControllerRevisions). */
  readonly revisions: Map<string, Pod>;
  currentRevision: string;
  updateRevision: string;
  status: StatefulSetStatus;
  readonly storage?: StatefulSetStorage;
  readonly selectorLabels: Labels;
}

const ORDINAL_NAME = /^(.*)-([0-9]+)$/;

/** getParentNameAndOrdinal: -1 when the name does not belong to the set. */
function ordinalOf(s: SimStatefulSet, pod: Pod): number {
  const m = ORDINAL_NAME.exec(pod.name);
  if (!m || m[1] !== s.name) return -1;
  const n = Number(m[2]);
  return Number.isSafeInteger(n) && n <= 2147483647 ? n : -1;
}

export class StatefulSetController extends KeyedController<SimStatefulSet> {
  constructor(world: World) {
    super(world, 'statefulset', 'sts-sync');
  }

  /** Pod uid → the claims that go with it (a scaled-down ordinal under whenScaled: Delete). */
  private readonly claimsOwnedByPod = new Map<string, string[]>();
  /** Set uid → the claims it created (its ownerReference is on them under whenDeleted: Delete). */
  private readonly claimsCreatedBy = new Map<string, Set<string>>();

  start(): void {
    this.world.onChange((c) => {
      if (c.kind === 'podDeleted') {
        // The garbage collector deletes the claims the pod owned.
        for (const key of this.claimsOwnedByPod.get(c.pod.uid) ?? []) this.world.deleteClaim(key, 'OwnerPodDeleted');
        this.claimsOwnedByPod.delete(c.pod.uid);
      }
      if (!('pod' in c)) return;
      const s = this.ownerOf(c.pod);
      if (!s) return;
      if (c.kind === 'podReady' && s.minReadySeconds > 0) {
        // IsPodAvailable wants readiness strictly longer than minReadySeconds.
        this.world.engine.after(s.minReadySeconds * 1000 + 1, 'sts-min-ready', () => this.enqueue(s));
      }
      this.enqueue(s);
    });
  }

  add(init: StatefulSetInit): SimStatefulSet {
    const key = `${init.namespace}/${init.name}`;
    this.assertNew(key);
    const revision = init.revision ?? this.revisionName(init.name, init.template);
    const s: SimStatefulSet = {
      namespace: init.namespace,
      name: init.name,
      key,
      uid: init.uid,
      replicas: init.replicas,
      selector: init.selector,
      podManagementPolicy: init.podManagementPolicy ?? 'OrderedReady',
      updateStrategy: init.updateStrategy ?? { type: 'RollingUpdate' },
      minReadySeconds: init.minReadySeconds ?? 0,
      ordinalStart: init.ordinalStart ?? 0,
      revisions: new Map([[revision, init.templatePod]]),
      currentRevision: revision,
      updateRevision: revision,
      status: { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0, currentRevision: revision, updateRevision: revision },
      ...(init.storage ? { storage: init.storage } : {}),
      selectorLabels: init.selectorLabels ?? {},
    };
    this.register(s);
    // PodTopologySpread's system default constraints look owner selectors up here.
    if (!this.world.cluster.statefulSets.some((x) => x.uid === s.uid)) this.world.cluster.addOwners('statefulSets', [{ namespace: s.namespace, name: s.name, uid: s.uid, selector: s.selector }]);
    this.world.engine.record('StatefulSetCreated', { statefulSet: key, replicas: s.replicas, revision });
    this.enqueue(s);
    return s;
  }

  /** `kubectl scale`. */
  scale(key: string, replicas: number): void {
    const s = this.mustGet(key);
    s.replicas = replicas;
    this.world.engine.record('StatefulSetScaled', { statefulSet: key, replicas });
    this.enqueue(s);
  }

  /**
   * `kubectl delete statefulset` (background propagation): the garbage collector
   * deletes its pods, and under whenDeleted: Delete the claims it created and those
   * of its pods' ordinals; each claim a pod still mounts goes once that pod is gone
   * (kubernetes.io/pvc-protection). Under Retain the claims stay for a set re-created
   * with the same name.
   */
  remove(key: string): void {
    const s = this.mustGet(key);
    this.unregister(s);
    this.world.cluster.removeOwner('statefulSets', s.uid);
    this.world.engine.record('StatefulSetDeleted', { statefulSet: key });
    const pods = this.podsOf(s);
    const owned = new Set(this.claimsCreatedBy.get(s.uid));
    this.claimsCreatedBy.delete(s.uid);
    if (s.storage?.whenDeleted === 'Delete') for (const p of pods) for (const c of ordinalClaims(s, ordinalOf(s, p))) owned.add(c);
    else owned.clear();
    for (const p of pods) {
      const mounted = ordinalClaims(s, ordinalOf(s, p)).filter((c) => owned.delete(c));
      if (mounted.length > 0) this.claimsOwnedByPod.set(p.uid, [...(this.claimsOwnedByPod.get(p.uid) ?? []), ...mounted]);
      if (!p.terminating) this.world.deletePod(p.key, 'StatefulSetDeleted');
    }
    for (const c of owned) this.world.deleteClaim(c, 'OwnerStatefulSetDeleted');
  }

  /** A template change: a new update revision, which starts a rollout (or waits for deletions under OnDelete). */
  setTemplate(key: string, template: unknown, templatePod: Pod): void {
    const s = this.mustGet(key);
    const revision = this.revisionName(s.name, template);
    s.revisions.set(revision, templatePod);
    s.updateRevision = revision;
    this.world.engine.record('StatefulSetTemplateChanged', { statefulSet: key, revision });
    this.enqueue(s);
  }

  /** Pods the set controls with an ordinal name, terminating ones included, in store order. */
  podsOf(s: SimStatefulSet): Pod[] {
    return this.world.podsControlledBy(s.uid).filter((p) => ordinalOf(s, p) >= 0);
  }

  private revisionName(name: string, template: unknown): string {
    return `${name}-${templateHash(template)}`;
  }

  private runningAndReady(p: Pod): boolean {
    return p.phase === 'Running' && this.world.isReady(p.key);
  }

  /** podutil.IsPodAvailable: ready for strictly longer than minReadySeconds. */
  private available(s: SimStatefulSet, p: Pod): boolean {
    const since = this.world.readySince(p.key);
    if (since === undefined) return false;
    return s.minReadySeconds === 0 || since + s.minReadySeconds * 1000 < this.world.engine.now;
  }

  private unavailable(s: SimStatefulSet, p: Pod | undefined): boolean {
    return !p || p.terminating || !this.available(s, p);
  }

  private revisionOf(p: Pod): string {
    return p.labels[CONTROLLER_REVISION_HASH_LABEL] ?? '';
  }

  private delete(s: SimStatefulSet, p: Pod, reason: string): void {
    this.world.engine.record('StatefulSetPodDeleted', { statefulSet: s.key, pod: p.key, reason });
    this.world.deletePod(p.key, reason);
  }

  protected sync(s: SimStatefulSet): void {
    this.updateStatefulSet(s);
    this.updateStatus(s);
  }

  /** One pass of establishing the invariant, then the rolling update. */
  private updateStatefulSet(s: SimStatefulSet): void {
    const start = s.ordinalStart;
    const replicas: (Pod | undefined)[] = new Array<Pod | undefined>(s.replicas).fill(undefined);
    const condemned: Pod[] = [];
    for (const p of this.podsOf(s)) {
      const ord = ordinalOf(s, p);
      if (ord >= start && ord < start + s.replicas) replicas[ord - start] = p;
      else condemned.push(p);
    }
    condemned.sort((a, b) => ordinalOf(s, b) - ordinalOf(s, a));
    // The first unavailable pod (slots in ordinal order, then condemned from the lowest) may be deleted out of turn.
    let firstUnavailable: Pod | undefined;
    let found = false;
    for (const p of replicas) {
      if (!this.unavailable(s, p)) continue;
      firstUnavailable = p;
      found = true;
      break;
    }
    for (let i = condemned.length - 1; i >= 0 && !found; i--) {
      const p = condemned[i]!;
      if (!this.unavailable(s, p)) continue;
      firstUnavailable = p;
      found = true;
    }
    const monotonic = s.podManagementPolicy !== 'Parallel';

    for (let i = 0; i < replicas.length; i++) {
      let pod = replicas[i];
      if (pod && (pod.phase === 'Failed' || pod.phase === 'Succeeded')) {
        if (!pod.terminating) this.delete(s, pod, 'TerminalPhase');
        if (monotonic) return;
        continue;
      }
      if (!pod) {
        const created = createMissingClaims(this.world, s, start + i);
        if (created.length > 0) this.claimsCreatedBy.set(s.uid, new Set([...(this.claimsCreatedBy.get(s.uid) ?? []), ...created]));
        pod = this.newPod(s, start + i);
        this.world.createPod(pod);
        replicas[i] = pod;
        if (monotonic) return;
      }
      if (monotonic && (pod.terminating || !this.runningAndReady(pod) || !this.available(s, pod))) return;
    }

    for (const pod of condemned) {
      if (pod.terminating) {
        if (monotonic) return;
        continue;
      }
      if (monotonic && pod !== firstUnavailable && (!this.runningAndReady(pod) || !this.available(s, pod))) return;
      const owned = claimsDeletedWithPod(s, ordinalOf(s, pod));
      if (owned.length > 0) this.claimsOwnedByPod.set(pod.uid, owned);
      this.delete(s, pod, 'ScaledDown');
      if (monotonic) return;
    }

    if (s.updateStrategy.type === 'OnDelete') return;
    this.rollingUpdate(s, replicas.map((p) => (p ? (this.world.cluster.getPod(p.key) ?? p) : p)), s.updateStrategy);
  }

  /** updateStatefulSetAfterInvariantEstablished */
  private rollingUpdate(s: SimStatefulSet, replicas: (Pod | undefined)[], strategy: { readonly partition?: number; readonly maxUnavailable?: IntOrString }): void {
    const updateMin = strategy.partition ?? 0;
    const maxUnavailable = Math.max(1, scaledValue(strategy.maxUnavailable ?? 1, s.replicas, false));
    const parallel = s.podManagementPolicy === 'Parallel';
    const outdated = (p: Pod | undefined): p is Pod => !!p && this.revisionOf(p) !== s.updateRevision;
    let unavailablePods = 0;
    let unavailableNeedingUpdate = 0;
    for (const p of replicas) {
      if (!this.unavailable(s, p)) continue;
      unavailablePods++;
      if (parallel && outdated(p) && !p.terminating) unavailableNeedingUpdate++;
    }
    if (unavailablePods >= maxUnavailable && unavailableNeedingUpdate === 0) return;
    if (parallel) {
      // Outdated pods that are unavailable anyway go first and cost nothing.
      for (let t = replicas.length - 1; t >= updateMin; t--) {
        const p = replicas[t];
        if (outdated(p) && !this.available(s, p) && !p.terminating) this.delete(s, p, 'RollingUpdate');
      }
      let budget = maxUnavailable - unavailablePods;
      for (let t = replicas.length - 1; t >= updateMin && budget > 0; t--) {
        const p = replicas[t];
        if (outdated(p) && !this.unavailable(s, p)) {
          this.delete(s, p, 'RollingUpdate');
          budget--;
        }
      }
      return;
    }
    const toDelete = maxUnavailable - unavailablePods;
    let deleted = 0;
    for (let t = replicas.length - 1; t >= updateMin && deleted < toDelete; t--) {
      const p = replicas[t];
      if (outdated(p) && !p.terminating) {
        this.delete(s, p, 'RollingUpdate');
        deleted++;
      }
    }
  }

  /** newVersionedStatefulSetPod: below the partition a recreated pod keeps the current revision. */
  private newPod(s: SimStatefulSet, ordinal: number): Pod {
    const partition = s.updateStrategy.type === 'RollingUpdate' ? (s.updateStrategy.partition ?? 0) : 0;
    const keepCurrent = s.updateStrategy.type === 'RollingUpdate' && ordinal < s.ordinalStart + partition;
    const revision = keepCurrent ? s.currentRevision : s.updateRevision;
    const template = s.revisions.get(revision)!;
    const name = `${s.name}-${ordinal}`;
    return withOrdinalClaims(s, changedPod(template, {
      namespace: s.namespace,
      name,
      key: `${s.namespace}/${name}`,
      uid: this.world.newUid(),
      labels: { ...template.labels, [STATEFULSET_POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal), [CONTROLLER_REVISION_HASH_LABEL]: revision },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: s.name, uid: s.uid, controller: true }],
      creation: this.world.engine.now,
      nodeName: '',
      nominatedNodeName: '',
      phase: 'Pending',
      terminating: false,
      preemptedByScheduler: false,
    }), ordinal);
  }

  /** updateStatus + completeUpdate, over the pods in the store after the sync's actions. */
  private updateStatus(s: SimStatefulSet): void {
    let replicas = 0;
    let ready = 0;
    let available = 0;
    let current = 0;
    let updated = 0;
    for (const p of this.podsOf(s)) {
      replicas++;
      if (this.runningAndReady(p)) {
        ready++;
        if (this.available(s, p)) available++;
      }
      if (p.terminating) continue;
      const rev = this.revisionOf(p);
      if (rev === s.currentRevision) current++;
      if (rev === s.updateRevision) updated++;
    }
    if (updated === s.replicas && ready === s.replicas && replicas === s.replicas && s.currentRevision !== s.updateRevision) {
      s.currentRevision = s.updateRevision;
      current = updated;
      this.world.engine.record('StatefulSetUpdateComplete', { statefulSet: s.key, revision: s.currentRevision });
    } else if (updated === s.replicas && ready === s.replicas && replicas === s.replicas) {
      current = updated;
    }
    s.status = { replicas, readyReplicas: ready, availableReplicas: available, currentReplicas: current, updatedReplicas: updated, currentRevision: s.currentRevision, updateRevision: s.updateRevision };
  }
}
