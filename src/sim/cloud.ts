// A simulated cloud: instances launched for NodeClaims that boot, register their
// Node (with the not-ready taint the kubelet registers with), turn Ready and lose
// their startup taints after configurable delays; insufficient-capacity windows
// per offering; termination (the instance and its kubelet are gone, and the cloud
// node controller deletes the Node once the node controller has seen it NotReady);
// spot interruptions with their two-minute notice.

import { hashAnnotations } from '../disruption/drift.js';
import type { Node } from '../model/node.js';
import type { NodePool } from '../model/nodepool.js';
import type { Taint } from '../model/taints.js';
import type { CapacityType, InstanceType, Offering } from '../provisioner/catalog/types.js';
import { initializingTaints } from '../provisioner/cluster-state.js';
import { launchedNode } from '../provisioner/launched-node.js';
import { ebsCsiNode } from './ebs-csi-node.js';
import { matchesOffering, UnavailableOfferings, type OfferingMatch } from '../provisioner/unavailable-offerings.js';
import { TAINT_NOT_READY } from './admission.js';
import type { NodeLifecycle } from './node-lifecycle.js';
import type { World } from './world.js';

export interface LaunchTiming {
  /** CreateFleet to a booted instance whose kubelet starts. */
  readonly launchMs: number;
  /** Kubelet start to the Node object registered. */
  readonly registerMs: number;
  /** Registration to Ready (CNI up, not-ready taint removed). */
  readonly readyMs: number;
  /** Ready to the NodePool's startup taints removed (by the agents that own them). */
  readonly startupTaintMs: number;
}

export const DEFAULT_LAUNCH_TIMING: LaunchTiming = { launchMs: 15_000, registerMs: 15_000, readyMs: 10_000, startupTaintMs: 5_000 };
export const SPOT_INTERRUPTION_NOTICE_MS = 120_000;

export interface IceWindow extends OfferingMatch {
  readonly capacityType?: CapacityType;
  readonly from: number;
  readonly until: number;
}

export interface Instance {
  readonly name: string;
  readonly nodePool: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly pricePerHour: number;
  readonly launchedAt: number;
  state: 'launching' | 'running' | 'terminated';
  registered: boolean;
  /** Ready with the startup taints gone: until then Karpenter ignores its ephemeral taints. */
  initialized: boolean;
}

export interface LaunchRequest {
  readonly name: string;
  readonly pool: NodePool;
  readonly instanceType: InstanceType;
  readonly offering: Offering;
}

const NOT_READY_NO_SCHEDULE: Taint = { key: TAINT_NOT_READY, value: '', effect: 'NoSchedule' };

export class SimCloud {
  readonly instances = new Map<string, Instance>();
  private readonly iceWindows: IceWindow[] = [];
  /** Zones that are down: no launch there succeeds until the zone returns. */
  private readonly zonesDown = new Set<string>();
  /** Offerings that failed with insufficient capacity, skipped for a while. */
  private readonly unavailable = new UnavailableOfferings();
  private readonly startupTaints = new Map<string, readonly Taint[]>();
  private readonly interruptionListeners: ((instance: Instance) => void)[] = [];

  constructor(
    private readonly world: World,
    nodeLifecycle: NodeLifecycle,
    private readonly timing: (instanceType: string) => LaunchTiming = () => DEFAULT_LAUNCH_TIMING,
  ) {
    // The cloud node controller deletes a NotReady node whose instance no longer exists.
    nodeLifecycle.onNotReady((name) => {
      if (this.instances.get(name)?.state === 'terminated') world.deleteNode(name, 'InstanceTerminated');
    });
  }

  addIceWindow(w: IceWindow): void {
    this.iceWindows.push(w);
  }

  /**
   * A zone outage: every offering there reports insufficient capacity until
   * zoneUp (as EC2 does for an impaired AZ), and instances still launching there
   * never come up.
   */
  zoneDown(zone: string): void {
    this.zonesDown.add(zone);
    for (const i of this.instances.values()) if (i.zone === zone && i.state === 'launching') this.terminate(i.name, 'ZoneOutage');
  }

  zoneUp(zone: string): void {
    this.zonesDown.delete(zone);
  }

  /** The instance types with offerings marked unavailable while they are known to lack capacity. */
  availableTypes(types: readonly InstanceType[]): readonly InstanceType[] {
    return this.unavailable.apply(types, this.world.engine.now);
  }

  private insufficientCapacity(it: string, o: Offering): boolean {
    const now = this.world.engine.now;
    if (this.zonesDown.has(o.zone)) return true;
    return this.iceWindows.some((w) => w.from <= now && now < w.until && matchesOffering(w, it, o));
  }

  /** Launches an instance, or reports insufficient capacity (and remembers the offering as unavailable). */
  launch(req: LaunchRequest): Instance | 'InsufficientCapacity' {
    const { engine } = this.world;
    const { name, pool, instanceType: it, offering } = req;
    if (this.insufficientCapacity(it.name, offering)) {
      this.unavailable.mark(it.name, offering, engine.now);
      engine.record('InsufficientCapacity', { nodeClaim: name, instanceType: it.name, zone: offering.zone, capacityType: offering.capacityType });
      return 'InsufficientCapacity';
    }
    const instance: Instance = {
      name,
      nodePool: pool.name,
      instanceType: it.name,
      zone: offering.zone,
      capacityType: offering.capacityType,
      pricePerHour: offering.price,
      launchedAt: engine.now,
      state: 'launching',
      registered: false,
      initialized: false,
    };
    this.instances.set(name, instance);
    this.startupTaints.set(name, pool.startupTaints);
    engine.record('NodeClaimLaunched', { nodeClaim: name, nodePool: pool.name, instanceType: it.name, zone: offering.zone, capacityType: offering.capacityType, pricePerHour: offering.price });
    const t = this.timing(it.name);
    const alive = () => instance.state !== 'terminated';
    engine.after(t.launchMs, 'instance-running', () => {
      if (!alive()) return;
      instance.state = 'running';
      engine.after(t.registerMs, 'node-register', () => {
        if (!alive()) return;
        instance.registered = true;
        const node = launchedNode(name, pool, it, offering, engine.now);
        // The NodeClaim remembers the template it came from: a later NodePool change drifts it.
        const annotations = { ...node.annotations, ...hashAnnotations(pool) };
        const ebs = ebsCsiNode(this.world.cluster.volumes, node, it);
        this.world.addNode({ ...node, labels: { ...node.labels, ...ebs?.labels }, annotations, taints: [...node.taints, NOT_READY_NO_SCHEDULE] });
        if (ebs) this.world.cluster.volumes.setCSINode(ebs.csiNode);
        engine.after(t.readyMs, 'node-ready', () => {
          if (!alive()) return;
          this.removeTaints(name, [NOT_READY_NO_SCHEDULE], 'KubeletReady');
          if (pool.startupTaints.length === 0) instance.initialized = true;
          else
            engine.after(t.startupTaintMs, 'startup-taints', () => {
              if (!alive()) return;
              this.removeTaints(name, pool.startupTaints, 'StartupTaintsRemoved');
              instance.initialized = true;
            });
        });
      });
    });
    return instance;
  }

  /**
   * The node as Karpenter plans with it: one still initializing is shown without
   * the known ephemeral taints (not-ready...) and its NodePool's startup taints, which
   * will go away (initializingTaints).
   */
  planningView(node: Node): Node {
    const instance = this.instances.get(node.name);
    if (!instance || instance.initialized || instance.state === 'terminated') return node;
    const taints = initializingTaints(node.taints, this.startupTaintsOf(node.name));
    return taints.length === node.taints.length ? node : { ...node, taints };
  }

  /** The startup taints of the instance's NodeClaim (its NodePool's when it launched). */
  startupTaintsOf(name: string): readonly Taint[] {
    return this.startupTaints.get(name) ?? [];
  }

  private removeTaints(name: string, remove: readonly Taint[], reason: string): boolean {
    const node = this.world.cluster.nodeInfo(name)?.node;
    if (!node) return false;
    const taints = node.taints.filter((t) => !remove.some((r) => r.key === t.key && r.effect === t.effect && r.value === t.value));
    if (taints.length !== node.taints.length) this.world.updateNode({ ...node, taints }, reason);
    return true;
  }

  /** The instance is gone at once: its kubelet stops; the Node goes once it is seen NotReady. */
  terminate(name: string, reason: string): void {
    const instance = this.instances.get(name);
    if (instance) {
      if (instance.state === 'terminated') return;
      instance.state = 'terminated';
      this.world.engine.record('InstanceTerminated', { instance: name, reason });
    }
    this.world.setKubeletRunning(name, false);
  }

  onInterruption(listener: (instance: Instance) => void): void {
    this.interruptionListeners.push(listener);
  }

  /** A spot interruption: the warning now, the instance reclaimed two minutes later. */
  interrupt(name: string): void {
    const instance = this.instances.get(name);
    const { engine } = this.world;
    engine.record('SpotInterruptionWarning', { instance: name, capacityType: instance?.capacityType ?? 'unknown' });
    for (const l of this.interruptionListeners) if (instance) l(instance);
    engine.after(SPOT_INTERRUPTION_NOTICE_MS, 'spot-reclaim', () => this.terminate(name, 'SpotInterruption'));
  }

  /** $/h of the instances not terminated. */
  costPerHour(): number {
    let sum = 0;
    for (const i of this.instances.values()) if (i.state !== 'terminated') sum += i.pricePerHour;
    return Math.round(sum * 1e6) / 1e6;
  }
}
