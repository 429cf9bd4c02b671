// Karpenter's provisioning loop in simulated time. Pods the scheduler failed to
// place open a batch that closes after 1 s without new ones or 10 s in all; then
// the planner runs over the cluster as it will be — existing nodes plus the
// nodes of claims still launching, so a pod that fits on one triggers no second
// launch — and each planned claim is launched in the simulated cloud. A launch
// that meets insufficient capacity marks the offering unavailable and opens a new
// batch, so the next plan falls back to other offerings.

import { buildClusterState, type ClusterState } from '../cluster/state.js';
import type { Node } from '../model/node.js';
import type { NodePool } from '../model/nodepool.js';
import type { Pod } from '../model/pod.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import { BatchWindow, DEFAULT_BATCH_IDLE_MS, DEFAULT_BATCH_MAX_MS } from '../provisioner/batch-window.js';
import { launchedNode } from '../provisioner/launched-node.js';
import { planProvisioning } from '../provisioner/plan.js';
import type { SimCloud } from './cloud.js';
import type { SchedulerLoop } from './scheduler-loop.js';
import type { World } from './world.js';

/** What planning new nodes needs, in the provisioner and in consolidation's replacements. */
export interface NodePlanningOptions {
  readonly pools: readonly NodePool[];
  readonly instanceTypes: readonly InstanceType[];
  /** The DaemonSet pods every new node will run (their requests are reserved on it). */
  readonly daemonSetPods?: () => readonly Pod[];
  readonly config?: SchedulerConfig;
}

export interface ProvisionerOptions extends NodePlanningOptions {
  readonly batchIdleMs?: number;
  readonly batchMaxMs?: number;
  readonly enabled?: boolean;
}

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export class ProvisionerLoop {
  enabled: boolean;
  private readonly batch: BatchWindow;
  private armedAt = -1;
  /** Keys of pods that failed scheduling since the last plan. */
  private readonly provisionable = new Set<string>();
  /** Claims launched whose node has not registered yet: what the next plan counts as coming capacity. */
  private readonly inFlight = new Map<string, Node>();
  private readonly usedNames = new Set<string>();
  private pools: readonly NodePool[];

  constructor(
    private readonly world: World,
    private readonly cloud: SimCloud,
    schedulerLoop: SchedulerLoop,
    private readonly opts: ProvisionerOptions,
  ) {
    this.enabled = opts.enabled ?? true;
    this.pools = opts.pools;
    this.batch = new BatchWindow(opts.batchIdleMs ?? DEFAULT_BATCH_IDLE_MS, opts.batchMaxMs ?? DEFAULT_BATCH_MAX_MS);
    schedulerLoop.onUnschedulable((pod) => this.podUnschedulable(pod));
    world.onChange((c) => {
      if (c.kind === 'nodeAdded') this.inFlight.delete(c.node.name);
    });
  }

  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    this.world.engine.record(enabled ? 'ProvisionerEnabled' : 'ProvisionerDisabled');
    if (enabled && this.provisionable.size > 0) this.touchBatch();
  }

  private podUnschedulable(pod: Pod): void {
    this.provisionable.add(pod.key);
    if (this.enabled) this.touchBatch();
  }

  private touchBatch(): void {
    this.batch.touch(this.world.engine.now);
    this.arm();
  }

  private arm(): void {
    const at = this.batch.closesAt();
    if (this.armedAt >= 0 && this.armedAt <= at) return;
    this.armedAt = at;
    this.world.engine.at(at, 'provisioner-batch', () => {
      if (this.armedAt !== at) return;
      this.armedAt = -1;
      if (!this.batch.closeIfDue(this.world.engine.now)) return this.arm();
      if (this.enabled) this.provision();
    });
  }

  /** The cluster as the planner sees it: a copy with in-flight claims as nodes and only provisionable pods pending. */
  private planningCluster(): ClusterState {
    const live = this.world.cluster;
    const pods = [...live.pods()].filter((p) => p.nodeName || (!p.terminating && this.provisionable.has(p.key)));
    const nodes = [...live.nodeInfos().map((i) => this.cloud.planningView(i.node)), ...this.inFlight.values()];
    const { services, replicationControllers, replicaSets, statefulSets } = live;
    const copy = buildClusterState({ nodes, pods, pdbs: live.pdbs, services, replicationControllers, replicaSets, statefulSets });
    for (const [ns, labels] of live.namespaces) copy.namespaces.set(ns, labels);
    return copy;
  }

  private provision(): void {
    const { engine } = this.world;
    for (const key of [...this.provisionable]) {
      const p = this.world.cluster.getPod(key);
      if (!p || p.nodeName || p.terminating) this.provisionable.delete(key);
    }
    if (this.provisionable.size === 0) return;
    const pods = this.provisionable.size;
    const cluster = this.planningCluster();
    this.provisionable.clear();
    const plan = planProvisioning({
      cluster,
      pools: this.pools,
      instanceTypes: this.cloud.availableTypes(this.opts.instanceTypes),
      daemonSetPods: this.opts.daemonSetPods?.() ?? [],
      config: this.opts.config ?? {},
      seed: engine.rand.intn(2 ** 31),
    });
    engine.record('ProvisioningPlanned', { pods, nodeClaims: plan.nodeClaims.length, unschedulable: plan.unschedulable.length, costPerHour: plan.costPerHour });
    for (const u of plan.unschedulable) engine.record('NoNodeForPod', { pod: u.pod, message: u.message });
    let retry = false;
    for (const claim of plan.nodeClaims) {
      const pool = this.pools.find((p) => p.name === claim.nodePool)!;
      const it = this.opts.instanceTypes.find((t) => t.name === claim.instanceType)!;
      const offering = it.offerings.find((o) => o.zone === claim.zone && o.capacityType === claim.capacityType)!;
      const name = this.claimName(pool.name);
      const result = this.cloud.launch({ name, pool, instanceType: it, offering });
      if (result === 'InsufficientCapacity') {
        retry = true;
        for (const p of claim.pods) this.provisionable.add(p);
        continue;
      }
      this.inFlight.set(name, launchedNode(name, pool, it, offering, engine.now));
    }
    if (retry) this.touchBatch();
  }

  /** A changed NodePool (same name): what the next plans launch from. False when there is no such NodePool. */
  updatePool(pool: NodePool): boolean {
    if (!this.pools.some((p) => p.name === pool.name)) return false;
    this.pools = this.pools.map((p) => (p.name === pool.name ? pool : p));
    return true;
  }

  /** Karpenter names claims after their NodePool with a random five-character suffix. */
  claimName(pool: string): string {
    const rand = this.world.engine.rand;
    for (;;) {
      let suffix = '';
      for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[rand.intn(NAME_ALPHABET.length)];
      const name = `${pool}-${suffix}`;
      if (!this.usedNames.has(name) && !this.world.cluster.nodeInfo(name)) {
        this.usedNames.add(name);
        return name;
      }
    }
  }

  /** A launch that will never register (its instance was terminated) stops counting as coming capacity. */
  forget(name: string): void {
    this.inFlight.delete(name);
  }
}
