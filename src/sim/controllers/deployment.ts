// The Deployment controller (pkg/controller/deployment): one ReplicaSet per pod
// template (named <deployment>-<pod-template-hash>), rolling updates bounded by
// maxSurge/maxUnavailable, Recreate, proportional scaling of every active
// ReplicaSet when spec.replicas changes mid-rollout, and the Progressing /
// Available conditions with progressDeadlineSeconds. Left out: pausing,
// rollback objects, revisionHistoryLimit cleanup of old ReplicaSets, and hash
// collisions (collisionCount stays unset).

import { templateHash } from '../../model/names.js';
import type { IntOrString, LabelSelectorManifest } from '../../model/manifest.js';
import { changedPod, type Pod } from '../../model/pod.js';
import { compileLabelSelector, type Selector } from '../../model/selector.js';
import { goSortSlice } from '../../scheduler/go-sort.js';
import type { World } from '../world.js';
import { resolveFenceposts, validateRollingUpdate } from './int-or-percent.js';
import { KeyedController } from './keyed-controller.js';
import type { ReplicaSetController, SimReplicaSet } from './replicaset.js';

export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
export const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;

export type DeploymentStrategy =
  | { readonly type: 'RollingUpdate'; readonly maxSurge?: IntOrString; readonly maxUnavailable?: IntOrString }
  | { readonly type: 'Recreate' };

export interface DeploymentInit {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly replicas: number;
  readonly selector: LabelSelectorManifest;
  /** The pod template as written: what the template hash is computed over. */
  readonly template: unknown;
  /** The template compiled as a pod (WorkloadSummary.templatePod). */
  readonly templatePod: Pod;
  /** Defaults to RollingUpdate with 25% / 25%. */
  readonly strategy?: DeploymentStrategy;
  readonly minReadySeconds?: number;
  /** Defaults to 600; null disables the deadline. */
  readonly progressDeadlineSeconds?: number | null;
  /** The pod-template-hash the cluster's ReplicaSet for this template already has (adopted pods); berth's hash when unset. */
  readonly podTemplateHash?: string;
}

export type ConditionType = 'Progressing' | 'Available';

export interface DeploymentCondition {
  readonly type: ConditionType;
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
  readonly lastUpdateTime: number;
  readonly lastTransitionTime: number;
}

export interface DeploymentStatus {
  readonly replicas: number;
  readonly updatedReplicas: number;
  readonly readyReplicas: number;
  readonly availableReplicas: number;
  readonly unavailableReplicas: number;
  readonly conditions: readonly DeploymentCondition[];
}

export interface SimDeployment {
  readonly namespace: string;
  readonly name: string;
  readonly key: string;
  readonly uid: string;
  replicas: number;
  readonly selector: LabelSelectorManifest;
  template: unknown;
  templatePod: Pod;
  /** pod-template-hash of the current template. */
  hash: string;
  readonly strategy: { readonly type: 'RollingUpdate'; readonly maxSurge: IntOrString; readonly maxUnavailable: IntOrString } | { readonly type: 'Recreate' };
  readonly minReadySeconds: number;
  readonly progressDeadlineSeconds: number | null;
  status: DeploymentStatus;
}

// Condition reasons and messages (deployment util).
const NEW_RS_CREATED = 'NewReplicaSetCreated';
const FOUND_NEW_RS = 'FoundNewReplicaSet';
const RS_UPDATED = 'ReplicaSetUpdated';
const NEW_RS_AVAILABLE = 'NewReplicaSetAvailable';
const TIMED_OUT = 'ProgressDeadlineExceeded';
const MIN_AVAILABLE = 'MinimumReplicasAvailable';
const MIN_UNAVAILABLE = 'MinimumReplicasUnavailable';

export function maxSurge(d: SimDeployment): number {
  if (d.strategy.type !== 'RollingUpdate') return 0;
  return resolveFenceposts(d.strategy.maxSurge, d.strategy.maxUnavailable, d.replicas).maxSurge;
}

export function maxUnavailable(d: SimDeployment): number {
  if (d.strategy.type !== 'RollingUpdate' || d.replicas === 0) return 0;
  const { maxUnavailable: u } = resolveFenceposts(d.strategy.maxSurge, d.strategy.maxUnavailable, d.replicas);
  return Math.min(u, d.replicas);
}

/** Go's math.Round: halves away from zero. */
function goRound(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}

function byCreation(a: SimReplicaSet, b: SimReplicaSet): boolean {
  return a.creation !== b.creation ? a.creation < b.creation : a.name < b.name;
}

function sortRS(list: SimReplicaSet[], less: (a: SimReplicaSet, b: SimReplicaSet) => boolean): SimReplicaSet[] {
  // Most Deployments have one ReplicaSet: nothing to sort (and every sync sorts twice).
  if (list.length > 1) goSortSlice(list, less);
  return list;
}

const specReplicas = (list: readonly SimReplicaSet[]) => list.reduce((s, rs) => s + rs.replicas, 0);

/**
 * The ReplicaSet status race: upstream's Deployment controller counts a ReplicaSet's
 * available pods from the status the ReplicaSet controller last wrote, and that write
 * races the readiness of a batch of pods within a few milliseconds: it may count one
 * of them, several, or all. The simulator reads readiness in its own order of events.
 * Before a rolling update scales its oldest active old ReplicaSet down from `from`, the
 * guide is offered what the race can give: `tos[0]`, the simulator's own new size, then
 * the size when counting one, two, … fewer of the pods that became available at this
 * instant (never none of them: the status write that started the sync had one); and,
 * when `canWait`, 'wait': the sync runs after the events already queued at this instant
 * (a later status write, which can only count more pods that are really available). It
 * returns one of `tos`, 'wait', or undefined for the simulator's own. Only a harness
 * comparing with a real cluster sets it.
 */
export type StatusRaceGuide = (deployment: string, replicaSet: string, from: number, tos: readonly number[], canWait: boolean) => number | 'wait' | undefined;

/** A sync that upstream ends with an error: the Deployment is requeued with backoff. */
class SyncError extends Error {}

export class DeploymentController extends KeyedController<SimDeployment> {
  /** Consecutive failed syncs per Deployment (the workqueue's NumRequeues). */
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, number>();

  constructor(
    world: World,
    readonly rsc: ReplicaSetController,
    private readonly statusRace?: StatusRaceGuide,
  ) {
    super(world, 'deployment', 'deployment-sync');
  }

  start(): void {
    this.rsc.onReplicaSetChange((rs) => {
      const d = this.withUid(rs.owner);
      if (d) this.enqueue(d);
    });
  }

  add(init: DeploymentInit): SimDeployment {
    const strategy = init.strategy ?? { type: 'RollingUpdate' };
    const resolved =
      strategy.type === 'Recreate' ? strategy : { type: 'RollingUpdate' as const, maxSurge: strategy.maxSurge ?? '25%', maxUnavailable: strategy.maxUnavailable ?? '25%' };
    if (resolved.type === 'RollingUpdate') validateRollingUpdate(resolved.maxSurge, resolved.maxUnavailable);
    const key = `${init.namespace}/${init.name}`;
    const d: SimDeployment = {
      namespace: init.namespace,
      name: init.name,
      key,
      uid: init.uid,
      replicas: init.replicas,
      selector: init.selector,
      template: init.template,
      templatePod: init.templatePod,
      hash: init.podTemplateHash ?? templateHash(init.template),
      strategy: resolved,
      minReadySeconds: init.minReadySeconds ?? 0,
      progressDeadlineSeconds: init.progressDeadlineSeconds === undefined ? DEFAULT_PROGRESS_DEADLINE_SECONDS : init.progressDeadlineSeconds,
      status: { replicas: 0, updatedReplicas: 0, readyReplicas: 0, availableReplicas: 0, unavailableReplicas: 0, conditions: [] },
    };
    this.register(d);
    this.enqueue(d);
    return d;
  }

  /** `kubectl scale`. */
  scaleDeployment(key: string, replicas: number): void {
    const d = this.mustGet(key);
    d.replicas = replicas;
    this.world.engine.record('DeploymentScaled', { deployment: key, replicas });
    this.enqueue(d);
  }

  /** A template change: starts a rollout. */
  setTemplate(key: string, template: unknown, templatePod: Pod): void {
    const d = this.mustGet(key);
    d.template = template;
    d.templatePod = templatePod;
    d.hash = templateHash(template);
    this.world.engine.record('DeploymentTemplateChanged', { deployment: key, hash: d.hash });
    this.enqueue(d);
  }

  replicaSetsOf(d: SimDeployment): SimReplicaSet[] {
    return [...this.rsc.ownedBy(d.uid)];
  }

  condition(d: SimDeployment, type: ConditionType): DeploymentCondition | undefined {
    return d.status.conditions.find((c) => c.type === type);
  }

  protected sync(d: SimDeployment): void {
    try {
      this.syncDeployment(d);
      this.failures.delete(d.key);
    } catch (e) {
      if (!(e instanceof SyncError)) throw e;
      // A failed sync is retried with the workqueue's per-item backoff: 5 ms doubling, at most 1000 s.
      const n = this.failures.get(d.key) ?? 0;
      this.failures.set(d.key, n + 1);
      this.world.engine.record('DeploymentSyncError', { deployment: d.key, message: e.message });
      this.enqueueAt(d, this.world.engine.now + Math.min(5 * 2 ** n, 1_000_000));
    }
  }

  /** enqueueAfter with one timer per Deployment: a later request is covered by the pending earlier one. */
  private enqueueAt(d: SimDeployment, at: number): void {
    const pending = this.timers.get(d.key);
    if (pending !== undefined && pending >= this.world.engine.now && pending <= at) return;
    this.timers.set(d.key, at);
    this.world.engine.at(at, 'deployment-resync', () => {
      if (this.timers.get(d.key) === at) this.timers.delete(d.key);
      this.enqueue(d);
    });
  }

  // --- syncDeployment ---

  private syncDeployment(d: SimDeployment): void {
    const { newRS, oldRSs } = this.splitReplicaSets(d);
    if (this.isScalingEvent(d, [...oldRSs, ...(newRS ? [newRS] : [])])) {
      this.proportionalScale(d, newRS, oldRSs);
      this.syncStatusOnly(d, newRS, oldRSs);
      return;
    }
    if (d.strategy.type === 'Recreate') this.rolloutRecreate(d);
    else this.rolloutRolling(d);
  }

  private currentHash(d: SimDeployment): string {
    return d.hash;
  }

  /** The ReplicaSet whose template is the current one, and the others (newest rules are upstream's FindNewReplicaSet/FindOldReplicaSets). */
  private splitReplicaSets(d: SimDeployment): { newRS: SimReplicaSet | undefined; oldRSs: SimReplicaSet[] } {
    const hash = this.currentHash(d);
    const all = sortRS(this.replicaSetsOf(d), byCreation);
    const newRS = all.find((rs) => rs.template.labels[POD_TEMPLATE_HASH_LABEL] === hash);
    return { newRS, oldRSs: all.filter((rs) => rs !== newRS) };
  }

  private isScalingEvent(d: SimDeployment, all: readonly SimReplicaSet[]): boolean {
    return all.some((rs) => rs.replicas > 0 && rs.desiredReplicasAnnotation !== undefined && rs.desiredReplicasAnnotation !== d.replicas);
  }

  /** getNewReplicaSet(createIfNotExisted = true) */
  private ensureNewReplicaSet(d: SimDeployment, oldRSs: readonly SimReplicaSet[]): SimReplicaSet {
    const existing = this.splitReplicaSets(d).newRS;
    const maxRevision = Math.max(0, ...oldRSs.map((rs) => rs.revision ?? 0));
    if (existing) {
      if ((existing.revision ?? 0) <= maxRevision) existing.revision = maxRevision + 1;
      if (d.progressDeadlineSeconds !== null && !this.condition(d, 'Progressing')) {
        this.setCondition(d, 'Progressing', 'True', FOUND_NEW_RS, `Found new replica set ${JSON.stringify(existing.name)}`);
      }
      return existing;
    }
    const hash = this.currentHash(d);
    const name = `${d.name}-${hash}`;
    const selector: Selector = compileLabelSelector({ ...d.selector, matchLabels: { ...d.selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash } });
    const template = changedPod(d.templatePod, { labels: { ...d.templatePod.labels, [POD_TEMPLATE_HASH_LABEL]: hash } });
    const replicas = this.newRSNewReplicas(d, oldRSs, undefined);
    const rs = this.rsc.add({
      namespace: d.namespace,
      name,
      uid: `${d.uid}/${hash}`,
      replicas,
      selector,
      template,
      minReadySeconds: d.minReadySeconds,
      owner: d.uid,
      desiredReplicasAnnotation: d.replicas,
      maxReplicasAnnotation: d.replicas + maxSurge(d),
      revision: maxRevision + 1,
    });
    if (replicas > 0) this.world.engine.record('ScalingReplicaSet', { deployment: d.key, replicaSet: rs.key, from: 0, to: replicas });
    if (d.progressDeadlineSeconds !== null) {
      this.setCondition(d, 'Progressing', 'True', NEW_RS_CREATED, `Created new replica set ${JSON.stringify(name)}`);
    }
    return rs;
  }

  /** NewRSNewReplicas */
  private newRSNewReplicas(d: SimDeployment, oldRSs: readonly SimReplicaSet[], newRS: SimReplicaSet | undefined): number {
    if (d.strategy.type === 'Recreate') return d.replicas;
    const current = newRS?.replicas ?? 0;
    const allPods = specReplicas(oldRSs) + current;
    const maxTotal = d.replicas + maxSurge(d);
    if (allPods >= maxTotal) return current;
    const scaleUp = Math.min(maxTotal - allPods, d.replicas - current);
    return current + scaleUp;
  }

  /** scaleReplicaSetAndRecordEvent: nothing when the size is already right. */
  private scaleAndRecord(d: SimDeployment, rs: SimReplicaSet, to: number): boolean {
    if (rs.replicas === to) return false;
    return this.scaleReplicaSet(d, rs, to);
  }

  /** scaleReplicaSet: sets the size and the desired/max replicas annotations. */
  private scaleReplicaSet(d: SimDeployment, rs: SimReplicaSet, to: number): boolean {
    const from = rs.replicas;
    rs.desiredReplicasAnnotation = d.replicas;
    rs.maxReplicasAnnotation = d.replicas + maxSurge(d);
    if (from === to) return false;
    this.world.engine.record('ScalingReplicaSet', { deployment: d.key, replicaSet: rs.key, from, to });
    this.rsc.scale(rs, to);
    return true;
  }

  // --- rolling ---

  private rolloutRolling(d: SimDeployment): void {
    const { oldRSs } = this.splitReplicaSets(d);
    const newRS = this.ensureNewReplicaSet(d, oldRSs);
    const all = [...oldRSs, newRS];
    if (this.reconcileNewReplicaSet(d, oldRSs, newRS)) return this.syncRolloutStatus(d, newRS, all);
    const activeOld = oldRSs.filter((rs) => rs.replicas > 0);
    this.reconcileOldReplicaSets(d, all, activeOld, newRS);
    this.syncRolloutStatus(d, newRS, all);
  }

  private reconcileNewReplicaSet(d: SimDeployment, oldRSs: readonly SimReplicaSet[], newRS: SimReplicaSet): boolean {
    if (newRS.replicas === d.replicas) return false;
    if (newRS.replicas > d.replicas) return this.scaleAndRecord(d, newRS, d.replicas);
    return this.scaleAndRecord(d, newRS, this.newRSNewReplicas(d, oldRSs, newRS));
  }

  private reconcileOldReplicaSets(d: SimDeployment, all: readonly SimReplicaSet[], oldRSs: readonly SimReplicaSet[], newRS: SimReplicaSet): boolean {
    if (specReplicas(oldRSs) === 0) return false;
    const allPods = specReplicas(all);
    const minAvailable = d.replicas - maxUnavailable(d);
    const newUnavailable = newRS.replicas - this.rsc.status(newRS).availableReplicas;
    const maxScaledDown = allPods - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    const cleaned = this.cleanupUnhealthyReplicas(d, oldRSs, maxScaledDown);
    const scaledDown = this.scaleDownOldForRollingUpdate(d, all, oldRSs);
    return cleaned + scaledDown > 0;
  }

  /** Scales old ReplicaSets down by their unavailable pods first, oldest first. */
  private cleanupUnhealthyReplicas(d: SimDeployment, oldRSs: readonly SimReplicaSet[], maxCleanup: number): number {
    let total = 0;
    for (const rs of sortRS([...oldRSs], byCreation)) {
      if (total >= maxCleanup) break;
      if (rs.replicas === 0) continue;
      const available = this.rsc.status(rs).availableReplicas;
      if (rs.replicas === available) continue;
      const count = Math.min(maxCleanup - total, rs.replicas - available);
      const to = rs.replicas - count;
      // Upstream errors out (and retries) when the status still counts more available pods than the new spec.
      if (to > rs.replicas) throw new SyncError(`when cleaning up unhealthy replicas, got invalid request to scale down ${rs.key} ${rs.replicas} -> ${to}`);
      this.scaleAndRecord(d, rs, to);
      total += count;
    }
    return total;
  }

  /** Scales old ReplicaSets down while more than minAvailable pods are available, oldest first. */
  private scaleDownOldForRollingUpdate(d: SimDeployment, all: readonly SimReplicaSet[], oldRSs: readonly SimReplicaSet[]): number {
    const minAvailable = d.replicas - maxUnavailable(d);
    const available = all.reduce((s, rs) => s + this.rsc.status(rs).availableReplicas, 0);
    if (available <= minAvailable) return 0;
    const active = sortRS([...oldRSs], byCreation).filter((rs) => rs.replicas > 0);
    const totalScaleDown = this.statusRace && active[0] ? this.racedScaleDown(d, all, active[0], available - minAvailable) : available - minAvailable;
    if (totalScaleDown === undefined) {
      this.enqueue(d);
      return 0;
    }
    let total = 0;
    for (const rs of active) {
      if (total >= totalScaleDown) break;
      const count = Math.min(rs.replicas, totalScaleDown - total);
      this.scaleAndRecord(d, rs, rs.replicas - count);
      total += count;
    }
    return total;
  }

  /** The scale-down the guide picks in the ReplicaSet status race (StatusRaceGuide); undefined when the sync waits. */
  private racedScaleDown(d: SimDeployment, all: readonly SimReplicaSet[], first: SimReplicaSet, own: number): number | undefined {
    const now = this.world.engine.now;
    const availableNow = (rs: SimReplicaSet) => this.rsc.podsOf(rs).filter((p) => !p.terminating && this.world.readySince(p.key) === now - rs.minReadySeconds * 1000).length;
    const justAvailable = all.reduce((s, rs) => s + availableNow(rs), 0);
    const tos: number[] = [];
    for (let fewer = 0; fewer === 0 || (fewer < justAvailable && own - fewer > 0); fewer++) tos.push(first.replicas - Math.min(first.replicas, own - fewer));
    const choice = this.statusRace!(d.key, first.key, first.replicas, tos, this.world.engine.busyNow);
    if (choice === 'wait') return this.world.engine.busyNow ? undefined : own;
    const fewer = choice === undefined ? -1 : tos.indexOf(choice);
    return own - Math.max(fewer, 0);
  }

  // --- recreate ---

  private rolloutRecreate(d: SimDeployment): void {
    const { newRS, oldRSs } = this.splitReplicaSets(d);
    const all = [...oldRSs, ...(newRS ? [newRS] : [])];
    let scaledDown = false;
    for (const rs of oldRSs.filter((r) => r.replicas > 0)) if (this.scaleAndRecord(d, rs, 0)) scaledDown = true;
    if (scaledDown) return this.syncRolloutStatus(d, newRS, all);
    // oldPodsRunning: wait until every pod of an old ReplicaSet (terminating ones too) is gone.
    if (oldRSs.some((rs) => this.rsc.podsOf(rs).length > 0)) return this.syncRolloutStatus(d, newRS, all);
    const rs = this.ensureNewReplicaSet(d, oldRSs);
    this.scaleAndRecord(d, rs, d.replicas);
    this.syncRolloutStatus(d, rs, [...oldRSs, rs]);
  }

  // --- proportional scaling (sync → scale) ---

  private proportionalScale(d: SimDeployment, newRS: SimReplicaSet | undefined, oldRSs: readonly SimReplicaSet[]): void {
    const activeOrLatest = this.findActiveOrLatest(newRS, oldRSs);
    if (activeOrLatest) {
      if (activeOrLatest.replicas !== d.replicas) this.scaleAndRecord(d, activeOrLatest, d.replicas);
      return;
    }
    if (newRS && this.isSaturated(d, newRS)) {
      for (const rs of oldRSs) if (rs.replicas > 0) this.scaleAndRecord(d, rs, 0);
      return;
    }
    if (d.strategy.type !== 'RollingUpdate') return;
    const all = [...oldRSs, ...(newRS ? [newRS] : [])].filter((rs) => rs.replicas > 0);
    const allowed = d.replicas > 0 ? d.replicas + maxSurge(d) : 0;
    const toAdd = allowed - specReplicas(all);
    if (toAdd > 0) sortRS(all, (a, b) => (a.replicas !== b.replicas ? a.replicas > b.replicas : byCreation(b, a)));
    else if (toAdd < 0) sortRS(all, (a, b) => (a.replicas !== b.replicas ? a.replicas > b.replicas : byCreation(a, b)));
    let added = 0;
    const sizes = new Map<SimReplicaSet, number>();
    for (const rs of all) {
      if (toAdd !== 0) {
        const p = this.proportion(d, rs, toAdd, added);
        sizes.set(rs, rs.replicas + p);
        added += p;
      } else sizes.set(rs, rs.replicas);
    }
    if (added !== toAdd && all.length > 0) {
      const first = all[0]!;
      sizes.set(first, Math.max(0, sizes.get(first)! + toAdd - added));
    }
    for (const rs of all) this.scaleReplicaSet(d, rs, sizes.get(rs)!);
  }

  private findActiveOrLatest(newRS: SimReplicaSet | undefined, oldRSs: readonly SimReplicaSet[]): SimReplicaSet | undefined {
    if (!newRS && oldRSs.length === 0) return undefined;
    const newestFirst = sortRS([...oldRSs], (a, b) => byCreation(b, a));
    const active = [...newestFirst, ...(newRS ? [newRS] : [])].filter((rs) => rs.replicas > 0);
    if (active.length === 0) return newRS ?? newestFirst[0];
    if (active.length === 1) return active[0];
    return undefined;
  }

  private isSaturated(d: SimDeployment, rs: SimReplicaSet): boolean {
    return rs.desiredReplicasAnnotation === d.replicas && rs.replicas === d.replicas && this.rsc.status(rs).availableReplicas === d.replicas;
  }

  /** GetProportion / getReplicaSetFraction */
  private proportion(d: SimDeployment, rs: SimReplicaSet, toAdd: number, added: number): number {
    if (rs.replicas === 0 || toAdd === 0 || toAdd === added) return 0;
    let fraction: number;
    if (d.replicas === 0) fraction = -rs.replicas;
    else {
      const deploymentReplicas = d.replicas + maxSurge(d);
      const annotated = rs.maxReplicasAnnotation ?? d.status.replicas;
      fraction = goRound((rs.replicas * deploymentReplicas) / annotated) - rs.replicas;
    }
    const allowed = toAdd - added;
    return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
  }

  // --- status and conditions ---

  private calculateStatus(d: SimDeployment, newRS: SimReplicaSet | undefined, all: readonly SimReplicaSet[]): DeploymentStatus {
    const statuses = all.map((rs) => this.rsc.status(rs));
    const available = statuses.reduce((s, x) => s + x.availableReplicas, 0);
    // The new ReplicaSet is one of `all`: its status is read once.
    const at = newRS ? all.indexOf(newRS) : -1;
    const status: DeploymentStatus = {
      replicas: statuses.reduce((s, x) => s + x.replicas, 0),
      updatedReplicas: at >= 0 ? statuses[at]!.replicas : newRS ? this.rsc.status(newRS).replicas : 0,
      readyReplicas: statuses.reduce((s, x) => s + x.readyReplicas, 0),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, d.replicas - available),
      conditions: d.status.conditions,
    };
    const cond =
      available >= d.replicas - maxUnavailable(d)
        ? this.newCondition(d, 'Available', 'True', MIN_AVAILABLE, 'Deployment has minimum availability.')
        : this.newCondition(d, 'Available', 'False', MIN_UNAVAILABLE, 'Deployment does not have minimum availability.');
    return { ...status, conditions: withCondition(status.conditions, cond) };
  }

  private syncStatusOnly(d: SimDeployment, newRS: SimReplicaSet | undefined, oldRSs: readonly SimReplicaSet[]): void {
    this.writeStatus(d, this.calculateStatus(d, newRS, [...oldRSs, ...(newRS ? [newRS] : [])]));
  }

  private syncRolloutStatus(d: SimDeployment, newRS: SimReplicaSet | undefined, all: readonly SimReplicaSet[]): void {
    let status = this.calculateStatus(d, newRS, all);
    const now = this.world.engine.now;
    if (d.progressDeadlineSeconds !== null) {
      const current = status.conditions.find((c) => c.type === 'Progressing');
      const complete = status.replicas === status.updatedReplicas && current?.reason === NEW_RS_AVAILABLE;
      // Upstream names the Deployment while there is no new ReplicaSet yet (Recreate waiting for old pods to go).
      const subject = newRS ? `ReplicaSet ${JSON.stringify(newRS.name)}` : `Deployment ${JSON.stringify(d.name)}`;
      if (!complete) {
        if (this.deploymentComplete(d, status)) {
          status = { ...status, conditions: withCondition(status.conditions, this.newCondition(d, 'Progressing', 'True', NEW_RS_AVAILABLE, `${subject} has successfully progressed.`)) };
        } else if (this.deploymentProgressing(d, status)) {
          const c = this.newCondition(d, 'Progressing', 'True', RS_UPDATED, `${subject} is progressing.`);
          const kept = current?.status === 'True' ? { ...c, lastTransitionTime: current.lastTransitionTime } : c;
          // Removed first, so the update time moves even when the reason stays.
          status = { ...status, conditions: withCondition(status.conditions.filter((x) => x.type !== 'Progressing'), kept) };
        } else if (this.timedOut(d, current)) {
          status = { ...status, conditions: withCondition(status.conditions, this.newCondition(d, 'Progressing', 'False', TIMED_OUT, `${subject} has timed out progressing.`)) };
        }
      }
    }
    this.writeStatus(d, status);
    this.requeueStuck(d, status, now);
  }

  private deploymentComplete(d: SimDeployment, s: DeploymentStatus): boolean {
    return s.updatedReplicas === d.replicas && s.replicas === d.replicas && s.availableReplicas === d.replicas;
  }

  private deploymentProgressing(d: SimDeployment, s: DeploymentStatus): boolean {
    const old = d.status;
    return (
      s.updatedReplicas > old.updatedReplicas ||
      s.replicas - s.updatedReplicas < old.replicas - old.updatedReplicas ||
      s.readyReplicas > old.readyReplicas ||
      s.availableReplicas > old.availableReplicas
    );
  }

  private timedOut(d: SimDeployment, c: DeploymentCondition | undefined): boolean {
    if (d.progressDeadlineSeconds === null || !c || c.reason === NEW_RS_AVAILABLE) return false;
    if (c.reason === TIMED_OUT) return true;
    return c.lastUpdateTime + d.progressDeadlineSeconds * 1000 < this.world.engine.now;
  }

  /** requeueStuckDeployment: look again one second after the deadline would pass. */
  private requeueStuck(d: SimDeployment, s: DeploymentStatus, now: number): void {
    const c = s.conditions.find((x) => x.type === 'Progressing');
    if (d.progressDeadlineSeconds === null || !c) return;
    if (this.deploymentComplete(d, s) || c.reason === TIMED_OUT) return;
    // Upstream would still requeue (rate-limited) here, but a NewReplicaSetAvailable
    // condition never times out, so that requeue cannot change anything.
    if (c.reason === NEW_RS_AVAILABLE) return;
    const after = c.lastUpdateTime + d.progressDeadlineSeconds * 1000 - now;
    // Under a second left, upstream requeues rate-limited (from 5 ms, doubling); berth
    // looks again at the first millisecond past the deadline instead.
    this.enqueueAt(d, after < 1000 ? now + Math.max(after + 1, 1) : now + after + 1000);
  }

  private newCondition(d: SimDeployment, type: ConditionType, status: 'True' | 'False', reason: string, message: string): DeploymentCondition {
    const now = this.world.engine.now;
    const current = d.status.conditions.find((c) => c.type === type);
    const lastTransitionTime = current && current.status === status ? current.lastTransitionTime : now;
    return { type, status, reason, message, lastUpdateTime: now, lastTransitionTime };
  }

  private setCondition(d: SimDeployment, type: ConditionType, status: 'True' | 'False', reason: string, message: string): void {
    this.writeStatus(d, { ...d.status, conditions: withCondition(d.status.conditions, this.newCondition(d, type, status, reason, message)) });
  }

  private writeStatus(d: SimDeployment, s: DeploymentStatus): void {
    for (const c of s.conditions) {
      const before = d.status.conditions.find((x) => x.type === c.type);
      if (!before || before.status !== c.status || before.reason !== c.reason) {
        this.world.engine.record('DeploymentCondition', { deployment: d.key, condition: c.type, status: c.status, reason: c.reason, message: c.message });
      }
    }
    const o = d.status;
    if (o.replicas !== s.replicas || o.updatedReplicas !== s.updatedReplicas || o.readyReplicas !== s.readyReplicas || o.availableReplicas !== s.availableReplicas) {
      this.world.engine.record('DeploymentStatus', { deployment: d.key, replicas: s.replicas, updated: s.updatedReplicas, ready: s.readyReplicas, available: s.availableReplicas });
    }
    d.status = s;
  }
}

/** SetDeploymentCondition: unchanged when status and reason are the same; otherwise replaced (transition time kept when the status is). */
function withCondition(conditions: readonly DeploymentCondition[], c: DeploymentCondition): DeploymentCondition[] {
  const current = conditions.find((x) => x.type === c.type);
  if (current && current.status === c.status && current.reason === c.reason) return [...conditions];
  const next = current && current.status === c.status ? { ...c, lastTransitionTime: current.lastTransitionTime } : c;
  return [...conditions.filter((x) => x.type !== c.type), next];
}
