// The controller's Prometheus metrics, in a registry of its own.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  readonly podsPending = new Gauge({ name: 'berth_pods_pending', help: 'Pods kube-scheduler marked Unschedulable that wait for capacity', registers: [this.registry] });
  readonly claimsLaunched = new Counter({ name: 'berth_nodeclaims_launched_total', help: 'NodeClaims created, by NodePool', labelNames: ['nodepool'], registers: [this.registry] });
  readonly claimsDeleted = new Counter({ name: 'berth_nodeclaims_deleted_total', help: 'NodeClaims garbage-collected, by reason', labelNames: ['reason'], registers: [this.registry] });
  readonly launchFailures = new Counter({ name: 'berth_launch_failures_total', help: 'Cloud creates that failed, by reason (insufficient_capacity: offering skipped and claim re-planned; error: retried with backoff)', labelNames: ['reason'], registers: [this.registry] });
  readonly nodesDeleted = new Counter({ name: 'berth_nodes_deleted_total', help: 'Nodes deleted because their NodeClaim is gone', registers: [this.registry] });
  readonly simulationSeconds = new Histogram({
    name: 'berth_scheduling_simulation_duration_seconds',
    help: 'Time to plan one provisioning batch (load, schedule, plan)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly decisions = new Counter({ name: 'berth_decisions_total', help: 'Provisioning decisions per pod, by outcome', labelNames: ['decision'], registers: [this.registry] });
  readonly disruptionDecisions = new Counter({ name: 'berth_disruption_decisions_total', help: 'Disruption decisions carried out, by reason (Empty, Underutilized, Drifted) and kind (delete, replace)', labelNames: ['reason', 'kind'], registers: [this.registry] });
  readonly disruptionAbandoned = new Counter({ name: 'berth_disruption_abandoned_total', help: 'Disruption decisions given up, by reason and stage (validation, replacement, drain)', labelNames: ['reason', 'stage'], registers: [this.registry] });
  readonly nodesDisrupted = new Counter({ name: 'berth_nodes_disrupted_total', help: 'Nodes drained and deleted by disruption, by reason', labelNames: ['reason'], registers: [this.registry] });
  readonly evictions = new Counter({ name: 'berth_pod_evictions_total', help: 'Eviction API calls by disruption, by result (evicted, blocked: refused with 429, gone)', labelNames: ['result'], registers: [this.registry] });
  readonly leader = new Gauge({ name: 'berth_leader', help: '1 while this replica holds the leader lease', registers: [this.registry] });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
