// The ReplicaSet controller (pkg/controller/replicaset): keeps the number of
// active pods it controls at spec.replicas, creating pods from its template and
// deleting surplus ones in ActivePodsWithRanks order. Creations and deletions
// take effect at once in the simulation, so upstream's expectations bookkeeping
// and slow-start batches (burstReplicas) have nothing to wait for and are left
// out. Status is computed from the store whenever it is read.
//
// New pods are copies of the compiled template Pod with a new identity (name,
// uid, owner reference, creation time, unbound and Pending); the template is
// not recompiled, so matchLabelKeys in the template see only the labels the
// template itself carries (not ones added after compilation).

import type { Pod } from '../../model/pod.js';
import type { Selector } from '../../model/selector.js';
import type { World } from '../world.js';
import { podsToDelete, type RankingRaceGuide, type VictimGuide } from './active-pods.js';
import { KeyedController } from './keyed-controller.js';
import { newControlledPod } from './new-pod.js';

export interface SimReplicaSet {
  readonly namespace: string;
  readonly name: string;
  /** namespace/name */
  readonly key: string;
  readonly uid: string;
  replicas: number;
  readonly selector: Selector;
  /** The compiled pod template (labels included) new pods copy. */
  readonly template: Pod;
  readonly minReadySeconds: number;
  /** uid of the controlling Deployment, '' when none. */
  readonly owner: string;
  readonly creation: number;
  /** deployment.kubernetes.io/desired-replicas and max-replicas, when set. */
  desiredReplicasAnnotation?: number;
  maxReplicasAnnotation?: number;
  /** deployment.kubernetes.io/revision */
  revision?: number;
}

export interface ReplicaSetStatus {
  /** Active (not terminating) pods. */
  readonly replicas: number;
  readonly readyReplicas: number;
  /** Ready for at least minReadySeconds. */
  readonly availableReplicas: number;
}

export type ReplicaSetInit = Omit<SimReplicaSet, 'key' | 'creation'> & { readonly creation?: number };

/** ReplicaSet statuses by the start pods they were counted from (World.unchangedStartPods): one count for every run over a copy of one cluster. */
const startStatuses = new WeakMap<ReadonlyMap<string, Pod>, ReplicaSetStatus>();

export class ReplicaSetController extends KeyedController<SimReplicaSet> {
  /** Owner uid → its ReplicaSets in creation order (ReplicaSets are never removed). */
  private readonly byOwner = new Map<string, SimReplicaSet[]>();
  private readonly listeners: ((rs: SimReplicaSet) => void)[] = [];

  /** `victimGuide`: picks among scale-down victims upstream orders at random; `rankingRace`: ranks with related pods bound meanwhile (active-pods.ts). */
  constructor(
    world: World,
    private readonly victimGuide?: VictimGuide,
    private readonly rankingRace?: RankingRaceGuide,
  ) {
    super(world, 'replicaset', 'rs-sync');
  }

  start(): void {
    this.world.onChange((c) => {
      if (!('pod' in c)) return;
      const rs = this.ownerOf(c.pod);
      if (!rs) return;
      if (c.kind === 'podReady' && rs.minReadySeconds > 0) {
        // Availability changes minReadySeconds after readiness: requeue then.
        this.world.engine.after(rs.minReadySeconds * 1000, 'rs-min-ready', () => this.changed(rs));
      }
      this.enqueue(rs);
      this.changed(rs);
    });
  }

  /** Subscribes to changes of a ReplicaSet's spec or of its pods (what a Deployment watches). */
  onReplicaSetChange(listener: (rs: SimReplicaSet) => void): void {
    this.listeners.push(listener);
  }

  private changed(rs: SimReplicaSet): void {
    if (!this.withUid(rs.uid)) return;
    for (const l of this.listeners) l(rs);
  }

  add(init: ReplicaSetInit): SimReplicaSet {
    const key = `${init.namespace}/${init.name}`;
    const rs: SimReplicaSet = { ...init, key, creation: init.creation ?? this.world.engine.now };
    this.register(rs);
    const siblings = this.byOwner.get(rs.owner);
    if (siblings) siblings.push(rs);
    else this.byOwner.set(rs.owner, [rs]);
    // Selector-defaulting plugins (PodTopologySpread's system defaults) look owners up here.
    this.world.cluster.addOwners('replicaSets', [{ namespace: rs.namespace, name: rs.name, uid: rs.uid, selector: rs.selector }]);
    this.world.engine.record('ReplicaSetCreated', { replicaSet: key, replicas: rs.replicas });
    this.enqueue(rs);
    this.changed(rs);
    return rs;
  }

  /** The ReplicaSets whose owner has this uid, in the order they were added. */
  ownedBy(owner: string): readonly SimReplicaSet[] {
    return this.byOwner.get(owner) ?? [];
  }

  scale(rs: SimReplicaSet, replicas: number): void {
    if (rs.replicas === replicas) return;
    rs.replicas = replicas;
    this.enqueue(rs);
    this.changed(rs);
  }

  /** Pods the ReplicaSet controls, terminating ones included, in store order. */
  podsOf(rs: SimReplicaSet): Pod[] {
    return this.world.podsControlledBy(rs.uid);
  }

  status(rs: SimReplicaSet): ReplicaSetStatus {
    // Pods ready since before the start are available at any time: their status is that of every run over the same cluster.
    const start = this.world.unchangedStartPods(rs.uid);
    if (!start) return this.countStatus(rs);
    let s = startStatuses.get(start);
    if (!s) startStatuses.set(start, (s = this.countStatus(rs)));
    return s;
  }

  private countStatus(rs: SimReplicaSet): ReplicaSetStatus {
    const now = this.world.engine.now;
    let replicas = 0;
    let ready = 0;
    let available = 0;
    for (const p of this.world.controlledPods(rs.uid)) {
      if (p.terminating) continue;
      replicas++;
      const since = this.world.readySince(p.key);
      if (since === undefined) continue;
      ready++;
      if (now - since >= rs.minReadySeconds * 1000) available++;
    }
    return { replicas, readyReplicas: ready, availableReplicas: available };
  }

  /** manageReplicas */
  protected sync(rs: SimReplicaSet): void {
    let count = 0;
    for (const p of this.world.controlledPods(rs.uid)) if (!p.terminating) count++;
    const diff = count - rs.replicas;
    if (diff < 0) {
      for (let i = 0; i < -diff; i++) this.world.createPod(this.newPod(rs));
    } else if (diff > 0) {
      const active = this.podsOf(rs).filter((p) => !p.terminating);
      const related = rs.owner ? this.ownedBy(rs.owner).flatMap((r) => this.podsOf(r)) : active;
      const victims = podsToDelete(active, related, diff, (k) => this.world.readySince(k), this.world.engine.now, this.victimGuide, this.rankingRace);
      for (const v of victims) this.world.deletePod(v.key, 'ScaledDown');
    }
  }

  private newPod(rs: SimReplicaSet): Pod {
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.name, uid: rs.uid, controller: true };
    return newControlledPod(this.world, rs.template, { namespace: rs.namespace, prefix: `${rs.name}-`, labels: { ...rs.template.labels }, owner });
  }
}
