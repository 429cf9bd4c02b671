// PodDisruptionBudget status as the disruption controller computes it
// (pkg/controller/disruption), the eviction subresource's budget check
// (pkg/registry/core/pod/storage/eviction.go) and `kubectl drain`'s evict-and-
// retry loop. Budgets are re-synced whenever a pod changes; an eviction reads the
// last synced status and decrements it, as the API server does, so several
// evictions in the same instant share one budget.

import type { IntOrString } from '../../model/manifest.js';
import type { PodDisruptionBudget } from '../../model/pdb.js';
import type { Pod } from '../../model/pod.js';
import type { World } from '../world.js';
import type { DeploymentController } from './deployment.js';
import { scaledValue } from './int-or-percent.js';
import type { ReplicaSetController } from './replicaset.js';
import type { StatefulSetController } from './statefulset.js';

/** DeletionTimeout: an eviction not seen as a deletion by then no longer counts. */
const DELETION_TIMEOUT_MS = 2 * 60 * 1000;
/**
 * A sync that fails (the PDB's pods name a controller not seen yet) is retried as
 * client-go's default controller rate limiter retries a key: 5 ms doubling per
 * consecutive failure, at most 1000 s.
 */
const RETRY_BASE_MS = 5;
const RETRY_MAX_MS = 1000 * 1000;
/** kubectl drain's pause before retrying a refused eviction. */
export const DRAIN_RETRY_MS = 5000;
/**
 * EvictionsRetry's step: an eviction whose budget update conflicts with a concurrent
 * one (both read the budget before either wrote it) is retried inside the API server
 * this much later, reading the budget again (jitter of 10% left out).
 */
export const EVICTION_CONFLICT_RETRY_MS = 500;
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
export const PDB_VIOLATION_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";
export const MULTIPLE_PDBS_MESSAGE = 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';

export interface PdbInit {
  readonly pdb: PodDisruptionBudget;
  /** Defaults to IfHealthyBudget. */
  readonly unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
}

export interface PdbStatus {
  readonly expectedPods: number;
  readonly currentHealthy: number;
  readonly desiredHealthy: number;
  disruptionsAllowed: number;
  /** Pod name → when it was evicted, until the deletion is observed. */
  readonly disruptedPods: Map<string, number>;
  /** Set when the sync failed (failSafe): no disruptions are allowed. */
  readonly syncError?: string;
}

export interface SimPdb {
  readonly pdb: PodDisruptionBudget;
  readonly unhealthyPodEvictionPolicy: 'IfHealthyBudget' | 'AlwaysAllow';
  status: PdbStatus;
}

export type EvictionResult =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly code: 429 | 500 | 403 | 404; readonly message: string; readonly causes: readonly { readonly type: string; readonly message: string }[] };

/** The desired-healthy arithmetic of getExpectedPodCount, given the pods' controllers' total scale. */
export function expectedAndDesired(
  spec: { readonly minAvailable?: IntOrString; readonly maxUnavailable?: IntOrString },
  selectedPods: number,
  scale: () => number,
): { expectedCount: number; desiredHealthy: number } {
  if (spec.maxUnavailable !== undefined) {
    const expectedCount = scale();
    return { expectedCount, desiredHealthy: Math.max(0, expectedCount - scaledValue(spec.maxUnavailable, expectedCount, true)) };
  }
  if (spec.minAvailable !== undefined) {
    if (typeof spec.minAvailable === 'number') return { expectedCount: selectedPods, desiredHealthy: spec.minAvailable };
    const expectedCount = scale();
    return { expectedCount, desiredHealthy: scaledValue(spec.minAvailable, expectedCount, true) };
  }
  return { expectedCount: 0, desiredHealthy: 0 };
}

/** updatePdbStatus: never negative, and nothing to disrupt without expected pods. */
export function allowedDisruptions(currentHealthy: number, desiredHealthy: number, expectedCount: number): number {
  const n = currentHealthy - desiredHealthy;
  return expectedCount <= 0 || n <= 0 ? 0 : n;
}

export class DisruptionController {
  readonly pdbs = new Map<string, SimPdb>();
  private readonly queued = new Set<string>();
  private readonly rechecks = new Set<string>();
  /** Consecutive failed syncs per PDB, for the retry backoff. */
  private readonly failures = new Map<string, number>();
  /** PDB key → when an eviction last took one of its disruptions. */
  private readonly decrementedAt = new Map<string, number>();

  constructor(
    readonly world: World,
    readonly replicaSets: ReplicaSetController,
    readonly deployments: DeploymentController,
    readonly statefulSets: StatefulSetController,
  ) {}

  start(): void {
    this.world.onChange((c) => {
      if (!('pod' in c)) return;
      for (const p of this.pdbs.values()) if (p.pdb.namespace === c.pod.namespace) this.enqueue(p);
    });
    for (const pdb of this.world.cluster.pdbs) if (!this.pdbs.has(pdb.key)) this.add({ pdb });
  }

  add(init: PdbInit): SimPdb {
    const p: SimPdb = {
      pdb: init.pdb,
      unhealthyPodEvictionPolicy: init.unhealthyPodEvictionPolicy ?? 'IfHealthyBudget',
      status: { expectedPods: 0, currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, disruptedPods: new Map() },
    };
    this.pdbs.set(init.pdb.key, p);
    if (!this.world.cluster.pdbs.some((x) => x.key === init.pdb.key)) this.world.cluster.pdbs.push(init.pdb);
    this.sync(p);
    return p;
  }

  private enqueue(p: SimPdb, delayMs = 0): void {
    const key = p.pdb.key;
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.world.engine.at(this.world.engine.now + delayMs, 'pdb-sync', () => {
      this.queued.delete(key);
      this.sync(p);
    });
  }

  /** Each budget's pods, kept up to date by the cluster (a sync follows every pod change in its namespace). */
  private readonly selections = new WeakMap<PodDisruptionBudget, ReadonlyMap<string, Pod>>();

  private selected(pdb: PodDisruptionBudget): Pod[] {
    let pods = this.selections.get(pdb);
    if (!pods) this.selections.set(pdb, (pods = this.world.cluster.selection(pdb.namespace, pdb.selector)));
    return [...pods.values()];
  }

  /** getExpectedScale: the replicas of each distinct controller; unmanaged pods are skipped. */
  private scaleOf(pods: readonly Pod[]): number {
    const scale = new Map<string, number>();
    for (const pod of pods) {
      const ref = pod.ownerReferences.find((r) => r.controller);
      if (!ref || scale.has(ref.uid)) continue;
      const found = this.controllerScale(ref.kind, ref.uid);
      if (!found) throw new Error(`found no controllers for pod ${JSON.stringify(pod.name)}`);
      scale.set(found.uid, found.scale);
    }
    let total = 0;
    for (const n of scale.values()) total += n;
    return total;
  }

  /** The finders: a ReplicaSet not run by a Deployment, the Deployment behind one, a StatefulSet. */
  private controllerScale(kind: string, uid: string): { uid: string; scale: number } | undefined {
    if (kind === 'ReplicaSet') {
      const rs = [...this.replicaSets.objects.values()].find((r) => r.uid === uid);
      if (!rs) return undefined;
      if (!rs.owner) return { uid, scale: rs.replicas };
      const d = [...this.deployments.objects.values()].find((x) => x.uid === rs.owner);
      return d ? { uid: d.uid, scale: d.replicas } : undefined;
    }
    if (kind === 'StatefulSet') {
      const s = [...this.statefulSets.objects.values()].find((x) => x.uid === uid);
      return s ? { uid, scale: s.replicas } : undefined;
    }
    return undefined;
  }

  /** trySync, or failSafe when the expected count cannot be computed. */
  private sync(p: SimPdb): void {
    const now = this.world.engine.now;
    const pods = this.selected(p.pdb);
    const byName = new Map(pods.map((pod) => [pod.name, pod]));
    // buildDisruptedPodMap: drop evictions whose pod is gone or deleting, and expired ones.
    const disrupted = new Map<string, number>();
    for (const [name, at] of p.status.disruptedPods) {
      const pod = byName.get(name);
      // A pod created at or after the eviction is its replacement under the same name (a
      // StatefulSet's): upstream's controller saw the evicted pod go first and dropped the entry.
      if (!pod || pod.terminating || pod.creation >= at || at + DELETION_TIMEOUT_MS < now) continue;
      disrupted.set(name, at);
    }
    let counts: { expectedCount: number; desiredHealthy: number };
    try {
      counts = expectedAndDesired(p.pdb, pods.length, () => this.scaleOf(pods));
    } catch (e) {
      // failSafe: no disruption allowed until a sync succeeds; upstream's work queue retries the key.
      p.status = { ...p.status, disruptionsAllowed: 0, disruptedPods: disrupted, syncError: (e as Error).message };
      const failures = (this.failures.get(p.pdb.key) ?? 0) + 1;
      this.failures.set(p.pdb.key, failures);
      this.enqueue(p, Math.min(RETRY_BASE_MS * 2 ** (failures - 1), RETRY_MAX_MS));
      return;
    }
    this.failures.delete(p.pdb.key);
    let healthy = 0;
    for (const pod of pods) if (!pod.terminating && !disrupted.has(pod.name) && this.world.isReady(pod.key)) healthy++;
    const allowed = allowedDisruptions(healthy, counts.desiredHealthy, counts.expectedCount);
    p.status = { expectedPods: counts.expectedCount, currentHealthy: healthy, desiredHealthy: counts.desiredHealthy, disruptionsAllowed: allowed, disruptedPods: disrupted };
    // Recheck when the oldest eviction expires (once per expiry time).
    const expiry = Math.min(...disrupted.values()) + DELETION_TIMEOUT_MS + 1;
    if (disrupted.size > 0 && !this.rechecks.has(`${p.pdb.key}@${expiry}`)) {
      this.rechecks.add(`${p.pdb.key}@${expiry}`);
      this.world.engine.at(expiry, 'pdb-recheck', () => {
        this.rechecks.delete(`${p.pdb.key}@${expiry}`);
        this.enqueue(p);
      });
    }
  }

  status(key: string): PdbStatus | undefined {
    return this.pdbs.get(key)?.status;
  }

  /** POST pods/eviction: on success the pod is deleted gracefully. */
  evict(podKey: string, reason = 'Evicted'): EvictionResult {
    const pod = this.world.cluster.getPod(podKey);
    if (!pod) return { allowed: false, code: 404, message: `pods ${JSON.stringify(podKey.split('/')[1] ?? podKey)} not found`, causes: [] };
    // canIgnorePDB: pods that are not running or already deleting are deleted without a budget check.
    const ignore = pod.terminating || pod.phase === 'Succeeded' || pod.phase === 'Failed' || pod.phase === 'Pending';
    if (!ignore) {
      const refused = this.checkBudgets(pod);
      if (refused) {
        this.world.engine.record('EvictionRefused', { pod: podKey, code: refused.code, message: refused.message, cause: refused.causes[0]?.message ?? '' });
        return refused;
      }
    }
    this.world.engine.record('Evicted', { pod: podKey });
    this.world.deletePod(podKey, reason);
    return { allowed: true };
  }

  private checkBudgets(pod: Pod): Extract<EvictionResult, { allowed: false }> | undefined {
    const matching = [...this.pdbs.values()].filter((p) => p.pdb.namespace === pod.namespace && p.pdb.selector.matches(pod.labels));
    if (matching.length > 1) return { allowed: false, code: 500, message: MULTIPLE_PDBS_MESSAGE, causes: [] };
    const p = matching[0];
    if (!p) return undefined;
    const s = p.status;
    if (!this.world.isReady(pod.key)) {
      if (p.unhealthyPodEvictionPolicy === 'AlwaysAllow') return undefined;
      if (s.currentHealthy >= s.desiredHealthy && s.desiredHealthy > 0) return undefined;
    }
    const name = p.pdb.name;
    const cause = (message: string) => [{ type: 'DisruptionBudget', message }];
    if (s.disruptionsAllowed < 0) {
      return { allowed: false, code: 403, message: `poddisruptionbudgets.policy ${JSON.stringify(name)} is forbidden: pdb disruptions allowed is negative`, causes: cause(`The disruption budget ${name} does not allow evicting pods currently: pdb disruptions allowed is negative`) };
    }
    if (s.disruptionsAllowed === 0) {
      let msg: string;
      if (s.syncError) msg = `The disruption budget ${name} does not allow evicting pods currently because it failed sync: ${s.syncError}`;
      else if (s.currentHealthy <= s.desiredHealthy) msg = `The disruption budget ${name} needs ${s.desiredHealthy} healthy pods and has ${s.currentHealthy} currently`;
      else msg = `The disruption budget ${name} does not allow evicting pods currently`;
      return { allowed: false, code: 429, message: PDB_VIOLATION_MESSAGE, causes: cause(msg) };
    }
    s.disruptionsAllowed--;
    s.disruptedPods.set(pod.name, this.world.engine.now);
    this.decrementedAt.set(p.pdb.key, this.world.engine.now);
    return undefined;
  }

  /** Whether an eviction at this instant took a disruption from the pod's budget. */
  private budgetTakenNow(pod: Pod): boolean {
    const now = this.world.engine.now;
    return [...this.pdbs.values()].some((p) => p.pdb.namespace === pod.namespace && p.pdb.selector.matches(pod.labels) && this.decrementedAt.get(p.pdb.key) === now);
  }

  /**
   * `kubectl drain`: cordon, then evict every pod on the node except DaemonSet
   * and mirror pods, retrying each refused eviction after 5 s, until all are gone.
   */
  drainNode(nodeName: string): void {
    const { world } = this;
    const node = world.cluster.nodeInfo(nodeName)?.node;
    if (!node) throw new Error(`node ${nodeName} does not exist`);
    if (!node.unschedulable) world.updateNode({ ...node, unschedulable: true }, 'Cordon');
    world.engine.record('DrainStarted', { node: nodeName });
    const targets = [...world.cluster.pods()]
      .filter((p) => p.nodeName === nodeName && !p.terminating)
      .filter((p) => !p.ownerReferences.some((r) => r.controller && r.kind === 'DaemonSet') && p.annotations[MIRROR_POD_ANNOTATION] === undefined);
    const waiting = new Set(targets.map((p) => p.uid));
    const finish = () => {
      if (waiting.size === 0) world.engine.record('DrainComplete', { node: nodeName });
    };
    world.onChange((c) => {
      if (c.kind !== 'podDeleted' || !waiting.has(c.pod.uid)) return;
      waiting.delete(c.pod.uid);
      finish();
    });
    const attempt = (pod: Pod, conflictRetried = false) => {
      const current = world.cluster.getPod(pod.key);
      if (!current || current.uid !== pod.uid || current.terminating) return;
      const r = this.evict(pod.key, 'Drain');
      if (r.allowed) return;
      // kubectl evicts a node's pods concurrently: a budget another eviction of this instant
      // took its last disruption from is a conflicting write, retried by the API server.
      if (r.code === 429 && !conflictRetried && this.budgetTakenNow(current)) {
        world.engine.after(EVICTION_CONFLICT_RETRY_MS, 'eviction-conflict-retry', () => attempt(pod, true));
        return;
      }
      world.engine.record('DrainEvictionRetry', {
        node: nodeName,
        pod: pod.key,
        message: `error when evicting pods/${JSON.stringify(pod.name)} -n ${JSON.stringify(pod.namespace)} (will retry after 5s): ${r.message}`,
      });
      world.engine.after(DRAIN_RETRY_MS, 'drain-retry', () => attempt(pod));
    };
    for (const p of world.deletionOrder(targets)) attempt(p);
    finish();
  }
}
