// The live provisioner: informers keep a cache of the cluster; pods kube-scheduler
// marks Unschedulable open a batch (provisioner/batch-window.ts), and so does a
// NodePool added or changed while pods wait; when the batch closes, the leader
// plans it (plan-batch.ts: the same planner the simulator uses) and creates a
// NodeClaim per planned node, then launches it through the cloud provider. The
// Node informer records Registered and Initialized on claims (lifecycle.ts);
// deleted claims and Nodes are drained and finalized by termination.ts. A periodic
// pass launches claims that have no instance yet (after a restart too), records
// Launched for an instance whose create was never recorded, and deletes claims
// that expired, whose node never registered or whose instance vanished, and
// instances whose claim has been gone for the orphan grace period. A launch that
// fails for want of capacity marks the offering unavailable for a while and deletes
// the claim, so its pods are planned again on the next offering; other launch
// failures are retried with exponential backoff. Only the leader acts, and it
// checks it still leads before each write; standbys keep their caches warm.

import type { Logger } from 'pino';
import { BatchWindow } from '../provisioner/batch-window.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import { UNAVAILABLE_OFFERING_TTL_MS, UnavailableOfferings } from '../provisioner/unavailable-offerings.js';
import { claimObject, gcDecisions, NODECLAIM_API_VERSION, NODECLAIM_KIND, nodeClaimOf, readClaim, statusDecisions, withCondition, type Claim, type ClaimConditionType } from './claims.js';
import { InsufficientCapacityError, type CloudProvider } from './cloud-provider.js';
import { LiveDisruption, type DisruptionHost, type DisruptionOptions } from './disruption.js';
import { apiEvictor, apiPodDeleter } from './eviction.js';
import { eventObject } from './events.js';
import { errorText, nextBackoff, type Informer, type Kube, type Resource } from './kube.js';
import { lifecycleStep, registeredNode } from './lifecycle.js';
import type { ClaimState, Metrics } from './metrics.js';
import { isBound, isProvisionable, isTerminating, objectKey, type KubeObject } from './objects.js';
import { liveNodePools, planBatch, type LiveObjects } from './plan-batch.js';
import { BatchLog } from './batch-log.js';
import { Termination } from './termination.js';

export interface ControllerOptions {
  readonly batchIdleMs: number;
  readonly batchMaxMs: number;
  /** A claim whose node has not registered after this long is deleted. */
  readonly registrationTtlMs: number;
  /** A node whose claim is missing for this long is deleted. */
  readonly orphanGraceMs: number;
  /** How often claims and instances are reconciled and pending pods looked at again. */
  readonly resyncMs: number;
  /** reportingInstance of the Events the controller writes. */
  readonly identity: string;
  /** Consolidation and emptiness (disruption.ts); off when absent. */
  readonly disruption?: DisruptionOptions;
}

const RESOURCES: Record<keyof LiveObjects, Resource> = {
  pods: { apiVersion: 'v1', kind: 'Pod', path: '/api/v1/pods' },
  nodes: { apiVersion: 'v1', kind: 'Node', path: '/api/v1/nodes' },
  namespaces: { apiVersion: 'v1', kind: 'Namespace', path: '/api/v1/namespaces' },
  nodePools: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', path: '/apis/karpenter.sh/v1/nodepools' },
  nodeClaims: { apiVersion: NODECLAIM_API_VERSION, kind: NODECLAIM_KIND, path: '/apis/berth.dev/v1alpha1/nodeclaims' },
  pdbs: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', path: '/apis/policy/v1/poddisruptionbudgets' },
  services: { apiVersion: 'v1', kind: 'Service', path: '/api/v1/services' },
  replicaSets: { apiVersion: 'apps/v1', kind: 'ReplicaSet', path: '/apis/apps/v1/replicasets' },
  statefulSets: { apiVersion: 'apps/v1', kind: 'StatefulSet', path: '/apis/apps/v1/statefulsets' },
  daemonSets: { apiVersion: 'apps/v1', kind: 'DaemonSet', path: '/apis/apps/v1/daemonsets' },
};

/** Claims created but not seen by the informer yet are kept this long, so the next plan counts them. */
const CREATED_CLAIM_MEMORY_MS = 60_000;
/** How often the leader steps terminations (drains) along while any is under way. */
const TERMINATION_STEP_MS = 1_000;

export class Controller {
  private readonly informers = new Map<keyof LiveObjects, Informer>();
  private readonly batch: BatchWindow;
  private readonly pending = new Set<string>();
  private batchTimer: NodeJS.Timeout | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private leading = false;
  private running: Promise<void> = Promise.resolve();
  private stopping = false;
  private seed = 0;
  /** Claims this process created, until its informer has them. */
  private readonly created = new Map<string, { object: KubeObject; at: number }>();
  /** Claims being launched now, so two passes do not launch one twice at once. */
  private readonly launching = new Set<string>();
  /** pod uid → the last explanation sent as an Event, to send each once. */
  private readonly explained = new Map<string, string>();
  private readonly disruption: LiveDisruption | undefined;
  /** Offerings that just failed with insufficient capacity, kept out of plans for 3 minutes. */
  private readonly unavailable = new UnavailableOfferings();
  /** Claims whose launch failed: the last backoff and when the next attempt may run. */
  private readonly launchRetry = new Map<string, { delayMs: number; at: number }>();
  /** Instance → when a reconcile pass first found its claim gone. */
  private orphanedSince = new Map<string, number>();
  /** pod uid → when it was first seen Unschedulable (for the pending-to-bound histogram). */
  private readonly pendingSince = new Map<string, number>();
  private readonly termination: Termination;
  private terminationTimer: NodeJS.Timeout | undefined;
  private terminating: Promise<void> | undefined;
  /** Nodes whose claim's conditions may need writing; drained by one lifecycle pass at a time. */
  private readonly lifecycleDue = new Set<string>();
  private lifecycleRunning: Promise<void> | undefined;
  private readonly batchLog: BatchLog;

  constructor(
    private readonly kube: Kube,
    private readonly cloud: CloudProvider,
    private readonly opts: ControllerOptions,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {
    this.batch = new BatchWindow(opts.batchIdleMs, opts.batchMaxMs);
    this.batchLog = new BatchLog(log);
    this.termination = new Termination(kube, cloud, {
      objects: () => this.objects(),
      leading: () => this.acting,
      event: (about, reason, message, type) => this.event(about.kind === 'NodeClaim' ? { apiVersion: NODECLAIM_API_VERSION, kind: NODECLAIM_KIND, object: about.object } : about, reason, message, type),
    }, apiEvictor(kube), apiPodDeleter(kube), log.child({ loop: 'termination' }), metrics);
    metrics.observeClaims({ claims: () => this.claimStates() });
    if (opts.disruption) this.disruption = new LiveDisruption(kube, cloud, this.disruptionHost(), apiEvictor(kube), opts.disruption, log.child({ loop: 'disruption' }), metrics);
  }

  /** What the disruption loop sees of this controller: its caches, its lease, the offerings with capacity, and a way to launch replacements. */
  private disruptionHost(): DisruptionHost {
    return {
      objects: () => this.objects(),
      synced: () => this.synced,
      leading: () => this.acting,
      identity: this.opts.identity,
      instanceTypes: () => this.instanceTypes(),
      launched: (object) => {
        const claim = readClaim(object);
        if (!claim) return;
        this.created.set(claim.name, { object, at: Date.now() });
        this.metrics.claimsCreated.inc({ nodepool: claim.nodePool, reason: 'disruption' });
        void this.launch(claim, this.objects());
      },
    };
  }

  start(): void {
    for (const [group, resource] of Object.entries(RESOURCES) as [keyof LiveObjects, Resource][]) {
      const informer = this.kube.informer(
        resource,
        (o, verb) => {
          if (group === 'pods') {
            this.podChanged(o, verb);
            this.disruption?.podChanged(o, verb);
          }
          if (group === 'nodeClaims' && verb !== 'delete' && o.metadata?.name) this.created.delete(o.metadata.name);
          if (group === 'nodes' && verb !== 'delete') this.nodeChanged(o);
          if ((group === 'nodes' || group === 'nodeClaims') && isTerminating(o)) this.stepTerminations();
          if (group === 'nodePools') this.nodePoolChanged(o, verb);
        },
        (e, retryInMs) => this.log.warn({ resource: resource.path, retryInMs, err: errorText(e) }, 'list/watch failed; retrying'),
      );
      this.informers.set(group, informer);
    }
    this.resyncTimer = setInterval(() => this.resync(), this.opts.resyncMs);
    this.terminationTimer = setInterval(() => this.stepTerminations(), TERMINATION_STEP_MS);
    this.disruption?.start();
  }

  get synced(): boolean {
    return [...this.informers.values()].every((i) => i.synced);
  }

  /** Whether this replica may write now; checked again before each write of a pass. */
  private get acting(): boolean {
    return this.leading && !this.stopping && (this.leadership?.() ?? true);
  }

  /**
   * A second, synchronous opinion on leadership (the elector's "renewed within the
   * renew deadline"), so a leader whose renewals stall stops writing at once rather
   * than when its election loop next runs.
   */
  leadership: (() => boolean) | undefined;

  setLeading(leading: boolean): void {
    this.leading = leading;
    this.metrics.leader.set(leading ? 1 : 0);
    this.log.info({ leading }, leading ? 'became leader' : 'not leader');
    if (leading) this.resync();
  }

  private podChanged(pod: KubeObject, verb: 'add' | 'update' | 'delete'): void {
    const key = objectKey(pod);
    const uid = pod.metadata?.uid ?? key;
    if (verb !== 'delete' && isProvisionable(pod)) {
      if (!this.pendingSince.has(uid)) this.pendingSince.set(uid, Date.now());
      if (!this.pending.has(key)) {
        this.pending.add(key);
        this.touch();
      }
    } else {
      this.pending.delete(key);
      const since = this.pendingSince.get(uid);
      if (since !== undefined && (verb === 'delete' || isBound(pod))) {
        if (verb !== 'delete') this.metrics.boundSeconds.observe((Date.now() - since) / 1000);
        this.pendingSince.delete(uid);
      }
      if (verb === 'delete') this.explained.delete(uid);
    }
    this.metrics.podsPending.set(this.pending.size);
  }

  /** A NodePool added or changed while pods wait may take them: plan again now, not at the next resync. */
  private nodePoolChanged(pool: KubeObject, verb: 'add' | 'update' | 'delete'): void {
    if (verb === 'delete' || this.pending.size === 0 || !this.leading) return;
    this.log.info({ nodePool: pool.metadata?.name, verb, pending: this.pending.size }, 'NodePool changed; planning the pending pods again');
    this.touch();
  }

  /** A Node of one of berth's claims changed: its claim may owe Registered or Initialized. */
  private nodeChanged(node: KubeObject): void {
    if (!this.leading || nodeClaimOf(node) === '' || isTerminating(node)) return;
    this.lifecycleDue.add(node.metadata?.name ?? '');
    this.lifecycleRunning ??= this.recordLifecycle().finally(() => (this.lifecycleRunning = undefined));
  }

  private async recordLifecycle(): Promise<void> {
    while (this.lifecycleDue.size > 0) {
      const [name] = this.lifecycleDue;
      this.lifecycleDue.delete(name!);
      if (!this.acting || !this.synced) continue;
      const objects = this.objects();
      const node = objects.nodes.find((n) => n.metadata?.name === name);
      const claimObject = node && objects.nodeClaims.find((c) => c.metadata?.name === nodeClaimOf(node));
      const claim = claimObject && readClaim(claimObject);
      if (!node || !claimObject || !claim || isTerminating(node)) continue;
      const step = lifecycleStep(claim, claimObject, node);
      try {
        // The finalizer first: from here a delete of the Node drains it.
        await this.kube.update('v1', 'Node', name!, (n) => (isTerminating(n) ? undefined : registeredNode(n, claim.initialized || step.initialize, step.register ? claimObject.metadata?.annotations : undefined)));
      } catch (e) {
        this.log.warn({ node: name, err: errorText(e) }, 'labelling registered node failed');
      }
      const seconds = (Date.now() - claim.created) / 1000;
      if (step.register && (await this.record(claim.name, 'Registered', 'Registered', { nodeName: name! }))) {
        this.log.info({ nodeClaim: claim.name, node: name, seconds }, 'registered nodeclaim');
        await this.claimEvent(claim.name, 'Registered', `Status condition transitioned, Type: Registered, Status: True: Node ${name} registered ${seconds.toFixed(1)}s after the NodeClaim was created`, 'Normal');
      }
      if (step.initialize && (await this.record(claim.name, 'Initialized', 'Initialized', {}))) {
        this.metrics.initializedSeconds.observe({ nodepool: claim.nodePool }, seconds);
        this.log.info({ nodeClaim: claim.name, node: name, seconds }, 'initialized nodeclaim');
        await this.claimEvent(claim.name, 'Initialized', `Status condition transitioned, Type: Initialized, Status: True: Node ${name} Ready without startup taints ${seconds.toFixed(1)}s after the NodeClaim was created`, 'Normal');
      }
    }
  }

  /** Steps every termination along once, unless a step is still running; a no-op while none is under way. */
  private stepTerminations(): void {
    if (this.terminating || !this.acting || !this.synced || !this.termination.busy(this.objects())) return;
    this.terminating = this.termination
      .pass()
      .catch((e: unknown) => this.log.error({ err: errorText(e) }, 'termination pass failed'))
      .finally(() => (this.terminating = undefined));
  }

  /** Each claim's state for the berth_nodeclaims and cost gauges. */
  private claimStates(): { nodePool: string; state: ClaimState; pricePerHour: number | null }[] {
    return this.objects().nodeClaims.flatMap((o) => {
      const c = readClaim(o);
      if (!c) return [];
      const state: ClaimState = c.terminating ? 'terminating' : c.initialized ? 'initialized' : c.registered ? 'registered' : c.launched ? 'launched' : 'launching';
      return [{ nodePool: c.nodePool, state, pricePerHour: c.pricePerHour }];
    });
  }

  private touch(): void {
    this.batch.touch(Date.now());
    this.arm();
  }

  private arm(): void {
    clearTimeout(this.batchTimer);
    this.batchTimer = setTimeout(() => {
      if (this.batch.closeIfDue(Date.now())) this.enqueue(() => this.provision());
      else if (this.batch.isOpen) this.arm();
    }, Math.max(0, this.batch.closesAt() - Date.now()));
  }

  /** Passes run one at a time: a plan must see the claims of the plan before it. */
  private enqueue(work: () => Promise<void>): void {
    this.running = this.running.then(work).catch((e: unknown) => this.log.error({ err: errorText(e) }, 'reconcile failed'));
  }

  private resync(): void {
    if (!this.leading || this.stopping) return;
    // Pods still waiting (their claim failed or was collected) are planned again;
    // claims in flight count as capacity, so this launches nothing twice.
    if (this.pending.size > 0 && !this.batch.isOpen) this.touch();
    this.enqueue(() => this.reconcileClaims());
  }

  objects(): LiveObjects {
    const list = (g: keyof LiveObjects) => this.informers.get(g)?.list() ?? [];
    const now = Date.now();
    const claims = [...list('nodeClaims')];
    const names = new Set(claims.map((c) => c.metadata?.name));
    for (const [name, c] of this.created) {
      if (now - c.at > CREATED_CLAIM_MEMORY_MS) this.created.delete(name);
      else if (!names.has(name)) claims.push(c.object);
    }
    return {
      pods: list('pods'), nodes: list('nodes'), namespaces: list('namespaces'), nodePools: list('nodePools'), nodeClaims: claims,
      pdbs: list('pdbs'), services: list('services'), replicaSets: list('replicaSets'), statefulSets: list('statefulSets'), daemonSets: list('daemonSets'),
    };
  }

  private async provision(): Promise<void> {
    if (!this.leading || this.stopping || !this.synced) {
      if (this.pending.size > 0 && !this.stopping) this.touch();
      return;
    }
    const objects = this.objects();
    const podsByKey = new Map(objects.pods.map((p) => [objectKey(p), p]));
    const batch = new Set([...this.pending].filter((k) => podsByKey.has(k)));
    if (batch.size === 0) return;
    const started = performance.now();
    const result = planBatch({ objects, batch, instanceTypes: this.instanceTypes(), seed: this.seed++ });
    this.metrics.simulationSeconds.observe((performance.now() - started) / 1000);
    if (!result.ok) {
      this.log.error({ errors: result.errors.slice(0, 20) }, 'cluster objects berth cannot load; no provisioning this round');
      return;
    }
    const { plan } = result;
    this.batchLog.planned({ pods: [...batch], nodes: objects.nodes.length, inFlight: result.inFlight, plan });
    for (const u of plan.unschedulable) {
      const pod = podsByKey.get(u.pod);
      if (pod) await this.explain(pod, 'FailedProvisioning', u.message, 'Warning', 'no_capacity');
    }
    const pools = liveNodePools(objects);
    for (const planned of plan.nodeClaims) {
      if (!this.acting) {
        this.log.warn({ nodePool: planned.nodePool }, 'no longer leading: the rest of this plan is left to the new leader');
        return;
      }
      let claimObj: KubeObject;
      try {
        claimObj = await this.kube.create(claimObject(planned, pools.find((p) => p.name === planned.nodePool)));
      } catch (e) {
        this.log.error({ nodePool: planned.nodePool, err: errorText(e) }, 'creating NodeClaim failed');
        continue;
      }
      const claim = readClaim(claimObj)!;
      this.created.set(claim.name, { object: claimObj, at: Date.now() });
      this.metrics.claimsCreated.inc({ nodepool: claim.nodePool, reason: 'provisioning' });
      this.log.info({ nodeClaim: claim.name, nodePool: claim.nodePool, instanceType: claim.instanceType, zone: claim.zone, pricePerHour: planned.pricePerHour, pods: planned.pods }, 'created NodeClaim');
      for (const key of planned.pods) {
        const pod = podsByKey.get(key);
        if (pod) await this.explain(pod, 'Nominated', `Pod should schedule on: nodeclaim/${claim.name}`, 'Normal', 'launch');
      }
      // Launches run beside the passes: instances take their time to boot, and the
      // claim already counts as capacity for the next plan.
      void this.launch(claim, objects);
    }
  }

  /** The cloud's instance types, offerings that just ran out of capacity marked unavailable. */
  private instanceTypes(): readonly InstanceType[] {
    return this.unavailable.apply(this.cloud.getInstanceTypes(), Date.now());
  }

  /** Launches a claim in the cloud; failures are retried by the reconcile passes, after a backoff. */
  private async launch(claim: Claim, objects: LiveObjects): Promise<void> {
    if (this.launching.has(claim.name) || !this.acting) return;
    if ((this.launchRetry.get(claim.name)?.at ?? 0) > Date.now()) return;
    const pool = liveNodePools(objects).find((p) => p.name === claim.nodePool);
    const instanceType = this.cloud.getInstanceTypes().find((t) => t.name === claim.instanceType);
    if (!pool || !instanceType) {
      this.log.warn({ nodeClaim: claim.name, nodePool: claim.nodePool, instanceType: claim.instanceType }, 'cannot launch NodeClaim: its NodePool or instance type is unknown');
      return;
    }
    this.launching.add(claim.name);
    try {
      const instance = await this.cloud.create({ claim, pool, instanceType });
      this.launchRetry.delete(claim.name);
      const seconds = (Date.now() - claim.created) / 1000;
      this.log.info({ nodeClaim: claim.name, provider: this.cloud.name, providerID: instance.providerID, instanceType: claim.instanceType, zone: claim.zone, seconds }, 'launched nodeclaim');
      if (await this.record(claim.name, 'Launched', 'Launched', { providerID: instance.providerID })) {
        this.metrics.launchSeconds.observe({ nodepool: claim.nodePool }, seconds);
        await this.claimEvent(claim.name, 'Launched', `Status condition transitioned, Type: Launched, Status: True: ${claim.instanceType} in ${claim.zone} (${claim.capacityType}), ${instance.providerID}`, 'Normal');
      }
    } catch (e) {
      if (e instanceof InsufficientCapacityError) await this.offeringUnavailable(claim, e);
      else await this.launchFailed(claim, e);
    } finally {
      this.launching.delete(claim.name);
    }
  }

  /**
   * No capacity for the claim's offering: keep the offering out of plans for a
   * while and delete the claim, so its pods (still pending) are planned again on
   * the next cheapest offering that fits them.
   */
  private async offeringUnavailable(claim: Claim, e: InsufficientCapacityError): Promise<void> {
    this.unavailable.mark(e.instanceType, e, Date.now());
    this.metrics.launchFailures.inc({ reason: 'insufficient_capacity' });
    const message = `${e.message}: offering unavailable for ${UNAVAILABLE_OFFERING_TTL_MS / 60_000}m, NodeClaim deleted, its pods are planned again without it`;
    this.log.warn({ nodeClaim: claim.name, instanceType: e.instanceType, zone: e.zone, capacityType: e.capacityType }, 'insufficient capacity');
    await this.claimEvent(claim.name, 'InsufficientCapacity', message, 'Warning');
    if (!this.acting) return;
    await this.kube.delete(NODECLAIM_API_VERSION, NODECLAIM_KIND, claim.name).catch((err: unknown) => this.log.error({ nodeClaim: claim.name, err: errorText(err) }, 'deleting NodeClaim failed'));
    this.created.delete(claim.name);
    this.metrics.claimsDisrupted.inc({ reason: 'InsufficientCapacity', nodepool: claim.nodePool });
    if (this.pending.size > 0) this.touch();
  }

  /** Any other failure: retried by the reconcile passes with exponential backoff (0.5 s doubling to 30 s). */
  private async launchFailed(claim: Claim, e: unknown): Promise<void> {
    const delayMs = nextBackoff(this.launchRetry.get(claim.name)?.delayMs ?? 0);
    this.launchRetry.set(claim.name, { delayMs, at: Date.now() + delayMs });
    this.metrics.launchFailures.inc({ reason: 'error' });
    this.log.error({ nodeClaim: claim.name, err: errorText(e), retryInMs: delayMs }, 'launch failed');
    await this.claimEvent(claim.name, 'LaunchFailed', `${errorText(e)}; retrying in ${delayMs / 1000}s`, 'Warning');
  }

  /**
   * Sets a condition on a claim's status; a write that conflicts with another
   * writer is read again and retried. True when this call changed it (so its
   * Event and metric are written once), false when it was already set, the claim
   * is gone or terminating, or the write failed.
   */
  private async record(name: string, type: ClaimConditionType, reason: string, fields: { providerID?: string; nodeName?: string }): Promise<boolean> {
    if (!this.acting) return false;
    let conflicts = 0;
    let changed = false;
    try {
      await this.kube.update(NODECLAIM_API_VERSION, NODECLAIM_KIND, name, (o) => {
        const next = isTerminating(o) ? undefined : withCondition(o, type, reason, fields, Date.now());
        changed = next !== undefined;
        return next;
      }, { onConflict: () => conflicts++ });
      if (conflicts > 0) this.log.info({ nodeClaim: name, condition: type, conflicts }, 'NodeClaim status written after conflicts with another writer');
      return changed;
    } catch (e) {
      // Left for the next reconcile pass, which finds the status still missing.
      this.log.warn({ nodeClaim: name, condition: type, err: errorText(e) }, 'recording NodeClaim status failed');
      return false;
    }
  }

  private async reconcileClaims(): Promise<void> {
    if (!this.leading || this.stopping || !this.synced) return;
    const objects = this.objects();
    const claims = objects.nodeClaims.flatMap((o) => readClaim(o) ?? []);
    const instances = await this.cloud.list();
    const decisions = gcDecisions({
      now: Date.now(),
      claims,
      instances: instances.map((i) => ({ name: i.nodeName, claim: i.claim })),
      registrationTtlMs: this.opts.registrationTtlMs,
      orphanGraceMs: this.opts.orphanGraceMs,
      orphanedSince: this.orphanedSince,
    });
    this.orphanedSince = decisions.orphanedSince;
    for (const name of decisions.launch) {
      const claim = claims.find((c) => c.name === name)!;
      void this.launch(claim, objects);
    }
    // A claim whose create has not answered yet is recorded by its launch.
    const status = statusDecisions(claims.filter((c) => !this.launching.has(c.name)), instances);
    const names = new Set(claims.map((c) => c.name));
    for (const name of this.launchRetry.keys()) if (!names.has(name)) this.launchRetry.delete(name); // claims gone: forget their backoff
    for (const s of status.launched) {
      this.log.info({ nodeClaim: s.name, providerID: s.providerID }, 'adopting an instance whose launch was not recorded');
      await this.record(s.name, 'Launched', 'Launched', { providerID: s.providerID });
    }
    // Nodes that joined while this replica was not leading (or whose informer event was missed).
    for (const n of objects.nodes) if (nodeClaimOf(n) !== '' && !isTerminating(n)) this.nodeChanged(n);
    for (const d of decisions.deleteClaims) {
      if (!this.acting) return;
      const claim = claims.find((c) => c.name === d.name)!;
      this.log.warn({ nodeClaim: d.name, reason: d.reason, why: d.message }, 'deleting NodeClaim');
      await this.claimEvent(d.name, d.reason, `Deleting NodeClaim: ${d.message}`, d.reason === 'Expired' ? 'Normal' : 'Warning');
      // Termination (its finalizer) drains the node, if any, and deletes the instance.
      await this.kube.delete(NODECLAIM_API_VERSION, NODECLAIM_KIND, d.name);
      this.created.delete(d.name);
      this.metrics.claimsDisrupted.inc({ reason: d.reason, nodepool: claim.nodePool });
    }
    for (const d of decisions.deleteNodes) {
      if (!this.acting) return;
      this.log.warn({ node: d.name, reason: d.reason }, 'deleting orphaned instance');
      await this.cloud.delete({ nodeName: d.name });
      this.orphanedSince.delete(d.name);
      this.metrics.orphansDeleted.inc();
    }
  }

  /** An Event on the pod, once per distinct message; the decision counts once per pod and message too. */
  private async explain(pod: KubeObject, reason: string, message: string, type: 'Normal' | 'Warning', decision: 'launch' | 'no_capacity'): Promise<void> {
    const uid = pod.metadata?.uid ?? objectKey(pod);
    if (this.explained.get(uid) === message) return;
    this.explained.set(uid, message);
    this.metrics.decisions.inc({ decision });
    await this.event({ kind: 'Pod', object: pod }, reason, message, type);
  }

  /** An Event on a NodeClaim. */
  private async claimEvent(name: string, reason: string, message: string, type: 'Normal' | 'Warning'): Promise<void> {
    const claim = this.objects().nodeClaims.find((o) => o.metadata?.name === name) ?? { metadata: { name } };
    await this.event({ apiVersion: NODECLAIM_API_VERSION, kind: NODECLAIM_KIND, object: claim }, reason, message, type);
  }

  private async event(about: Parameters<typeof eventObject>[0], reason: string, message: string, type: 'Normal' | 'Warning'): Promise<void> {
    try {
      await this.kube.create(eventObject(about, reason, message, type, this.opts.identity));
    } catch (e) {
      this.log.warn({ object: about.object.metadata?.name, reason, err: errorText(e) }, 'writing Event failed');
    }
  }

  /** Stops taking work, waits for the pass under way, stops the informers. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.batchTimer);
    clearInterval(this.resyncTimer);
    clearInterval(this.terminationTimer);
    await Promise.all([this.running, this.terminating, this.lifecycleRunning]);
    await this.disruption?.stop();
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
