// The controller's Prometheus metrics, in a registry of its own. Where Karpenter has
// an equivalent, the name is Karpenter's with berth_ for karpenter_ (same subsystem,
// name and meaning: berth_nodeclaims_created_total is karpenter_nodeclaims_created_total);
// docs/live.md lists them all.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Karpenter's DurationBuckets (controller-runtime's, with more above 60 s). */
const DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20,
  25, 30, 40, 50, 60, 120, 150, 300, 450, 600,
];

/** What the gauges read at scrape time: the claims as the informer has them. */
export interface ClaimGaugeSource {
  /** One entry per NodeClaim: its NodePool, its state and its hourly price (null: unknown). */
  claims(): readonly { nodePool: string; state: ClaimState; pricePerHour: number | null }[];
}

export type ClaimState = 'launching' | 'launched' | 'registered' | 'initialized' | 'terminating';

export class Metrics {
  readonly registry = new Registry();
  private source: ClaimGaugeSource | undefined;

  readonly buildInfo = new Gauge({ name: 'berth_build_info', help: "A metric with a constant '1' value labeled by the version berth was built from and the Node.js running it", labelNames: ['version', 'nodeversion'], registers: [this.registry] });
  readonly podsPending = new Gauge({ name: 'berth_pods_pending', help: 'Pods kube-scheduler marked Unschedulable that wait for capacity', registers: [this.registry] });
  readonly claimsCreated = new Counter({ name: 'berth_nodeclaims_created_total', help: 'NodeClaims created, by NodePool and reason (provisioning, disruption)', labelNames: ['nodepool', 'reason'], registers: [this.registry] });
  readonly claimsTerminated = new Counter({ name: 'berth_nodeclaims_terminated_total', help: 'NodeClaims whose termination finished (finalizer removed), by NodePool', labelNames: ['nodepool'], registers: [this.registry] });
  readonly claimsDisrupted = new Counter({ name: 'berth_nodeclaims_disrupted_total', help: 'NodeClaims berth deleted, by reason (InsufficientCapacity, RegistrationTimeout, InstanceTerminated, Expired, and the disruption reasons) and NodePool', labelNames: ['reason', 'nodepool'], registers: [this.registry] });
  readonly claimTerminationSeconds = new Histogram({ name: 'berth_nodeclaims_termination_duration_seconds', help: "Time from a NodeClaim's deletion until its finalizer is removed", labelNames: ['nodepool'], buckets: DURATION_BUCKETS, registers: [this.registry] });
  readonly launchSeconds = new Histogram({ name: 'berth_nodeclaims_launch_duration_seconds', help: "Time from a NodeClaim's creation until the cloud created its instance (Launched)", labelNames: ['nodepool'], buckets: DURATION_BUCKETS, registers: [this.registry] });
  readonly initializedSeconds = new Histogram({ name: 'berth_nodeclaims_initialized_duration_seconds', help: "Time from a NodeClaim's creation until its Node is Ready without startup taints (Initialized)", labelNames: ['nodepool'], buckets: DURATION_BUCKETS, registers: [this.registry] });
  readonly launchFailures = new Counter({ name: 'berth_launch_failures_total', help: 'Cloud creates that failed, by reason (insufficient_capacity: offering skipped and claim re-planned; error: retried with backoff)', labelNames: ['reason'], registers: [this.registry] });
  readonly nodesTerminated = new Counter({ name: 'berth_nodes_terminated_total', help: 'Nodes drained and deleted (finalizer removed), by NodePool', labelNames: ['nodepool'], registers: [this.registry] });
  readonly terminationSeconds = new Histogram({ name: 'berth_nodes_termination_duration_seconds', help: "Time from a Node's deletion until its finalizer is removed (the drain, mostly)", labelNames: ['nodepool'], buckets: DURATION_BUCKETS, registers: [this.registry] });
  readonly orphansDeleted = new Counter({ name: 'berth_nodes_orphaned_deleted_total', help: 'Instances deleted because their NodeClaim had been gone for the orphan grace period', registers: [this.registry] });
  readonly boundSeconds = new Histogram({ name: 'berth_pods_provisioning_bound_duration_seconds', help: 'Time from when berth first saw a pod Unschedulable until it was bound', buckets: DURATION_BUCKETS, registers: [this.registry] });
  readonly simulationSeconds = new Histogram({ name: 'berth_scheduler_scheduling_duration_seconds', help: 'Time to plan one provisioning batch (load, schedule, plan)', buckets: DURATION_BUCKETS, registers: [this.registry] });
  readonly decisions = new Counter({ name: 'berth_pods_provisioning_decisions_total', help: 'Provisioning decisions, once per pod and distinct decision (launch: a NodeClaim was created for it; no_capacity: no NodePool can take it)', labelNames: ['decision'], registers: [this.registry] });
  readonly disruptionDecisions = new Counter({ name: 'berth_voluntary_disruption_decisions_total', help: 'Disruption decisions carried out, by reason (Empty, Underutilized, Drifted) and kind (delete, replace)', labelNames: ['reason', 'kind'], registers: [this.registry] });
  readonly disruptionAbandoned = new Counter({ name: 'berth_voluntary_disruption_abandoned_total', help: 'Disruption decisions given up, by reason and stage (validation, replacement, drain)', labelNames: ['reason', 'stage'], registers: [this.registry] });
  readonly evictions = new Counter({ name: 'berth_pods_eviction_requests_total', help: 'Eviction API calls (and deletions past a terminationGracePeriod), by result (evicted, blocked: refused with 429, gone, deleted)', labelNames: ['result'], registers: [this.registry] });
  readonly leader = new Gauge({ name: 'berth_leader', help: '1 while this replica holds the leader lease', registers: [this.registry] });

  constructor(version = 'unknown') {
    collectDefaultMetrics({ register: this.registry });
    this.buildInfo.set({ version, nodeversion: process.version }, 1);
    const claims = () => this.source?.claims() ?? [];
    new Gauge({
      name: 'berth_nodeclaims',
      help: 'NodeClaims now, by NodePool and state (launching, launched, registered, initialized, terminating)',
      labelNames: ['nodepool', 'state'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const c of claims()) this.inc({ nodepool: c.nodePool, state: c.state });
      },
    });
    new Gauge({
      name: 'berth_nodepools_cost_total',
      help: 'Hourly price of the NodeClaims of each NodePool not terminating, from the catalog (USD/h; not a bill)',
      labelNames: ['nodepool'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const c of claims()) if (c.state !== 'terminating' && c.pricePerHour !== null) this.inc({ nodepool: c.nodePool }, c.pricePerHour);
      },
    });
  }

  /** Where the claim gauges read from (the controller's informers). */
  observeClaims(source: ClaimGaugeSource): void {
    this.source = source;
  }
}
