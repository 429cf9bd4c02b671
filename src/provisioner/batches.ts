// Karpenter's provisioning loop run to a fixed point, as a real cluster would: plan a
// batch, launch its NodeClaims (each the cheapest offering the plan chose, registered
// and initialized: startup taints gone, its DaemonSet pods running), let kube-scheduler
// bind what fits, and plan the pods still pending as the next batch. NodePool limits
// are then spent by the nodes launched, not by the largest type each claim could have
// been, and pods that wait for another pod's node (zone affinity to a pod whose zone
// was still open) find it. Stops after a batch that launches nothing, or after
// `maxBatches`.

import type { ClusterState } from '../cluster/state.js';
import type { NodePool } from '../model/nodepool.js';
import { bindPod, type Pod } from '../model/pod.js';
import type { InstanceType } from './catalog/types.js';
import type { CostLowerBound } from './cost-bound.js';
import { daemonPodsOn } from './daemon-overhead.js';
import { launchedNode } from './launched-node.js';
import { planProvisioning, poolRequirements, roundCost, roundDollars, type NodeClaimPlan, type PlanOptimization, type ProvisionInput, type ProvisionPlan } from './plan.js';

export interface BatchedProvisionInput extends ProvisionInput {
  readonly pools: readonly NodePool[];
  /** At most this many batches (1: the single pass); unbounded when absent. */
  readonly maxBatches?: number;
}

export interface BatchedProvisionPlan extends ProvisionPlan {
  /** Batches planned, the last one included. */
  readonly batches: number;
}

export function provisionInBatches(input: BatchedProvisionInput): BatchedProvisionPlan {
  const placements: ProvisionPlan['placements'] = [];
  const nodeClaims: NodeClaimPlan[] = [];
  let optimization: PlanOptimization | undefined;
  for (let batch = 1; ; batch++) {
    // The input's NodeClaims are in the cluster from the first batch on (in-flight ones as nodes, which
    // have registered by the next batch); later batches only find the nodes still marked for deletion.
    const karpenterState = input.karpenterState && batch > 1 ? { ...input.karpenterState, nodeClaims: [] } : input.karpenterState;
    const plan = planProvisioning({ ...input, karpenterState, firstClaimNumber: nodeClaims.length + (input.firstClaimNumber ?? 1) });
    placements.push(...plan.placements);
    nodeClaims.push(...plan.nodeClaims);
    if (plan.optimization) optimization = optimization ? addOptimizations(optimization, plan.optimization) : plan.optimization;
    if (plan.nodeClaims.length === 0 || batch === input.maxBatches) {
      return { placements, nodeClaims, unschedulable: plan.unschedulable, costPerHour: roundCost(nodeClaims), ...(optimization ? { optimization } : {}), batches: batch };
    }
    for (const claim of plan.nodeClaims) launch(input.cluster, claim, input.pools, input.instanceTypes, input.daemonSetPods);
  }
}

/**
 * The run's optimization report from its batches': costs add up, and so do the lower
 * bounds (each batch's bound holds for the pods that batch placed; the sum is undefined
 * as soon as one batch has none).
 */
function addOptimizations(a: PlanOptimization, b: PlanOptimization): PlanOptimization {
  const lowerBound = a.lowerBound && b.lowerBound ? addBounds(a.lowerBound, b.lowerBound) : undefined;
  return {
    objective: a.objective,
    faithfulCostPerHour: roundDollars(a.faithfulCostPerHour + b.faithfulCostPerHour),
    repacked: a.repacked || b.repacked,
    violations: [...a.violations, ...b.violations],
    ...(lowerBound ? { lowerBound } : {}),
  };
}

function addBounds(a: CostLowerBound, b: CostLowerBound): CostLowerBound {
  const size = { method: a.method, variables: a.variables + b.variables, rows: a.rows + b.rows };
  if (a.costPerHour === undefined) return { ...size, status: a.status };
  if (b.costPerHour === undefined) return { ...size, status: b.status };
  return { ...size, status: a.status, costPerHour: roundDollars(a.costPerHour + b.costPerHour) };
}

/** Replaces the planned claim's node by the node it launches as, with its DaemonSet pods bound. */
function launch(cluster: ClusterState, claim: NodeClaimPlan, pools: readonly NodePool[], types: readonly InstanceType[], daemonSetPods: readonly Pod[]): void {
  const pool = pools.find((p) => p.name === claim.nodePool)!;
  const it = types.find((t) => t.name === claim.instanceType)!;
  const offering = it.offerings.find((o) => o.zone === claim.zone && o.capacityType === claim.capacityType)!;
  const creation = cluster.nodeInfo(claim.name)?.node.creation ?? 0;
  // Initialized: the startup taints are gone by the time the next batch looks. The claim's labels carry
  // its custom requirement keys resolved (a rack In [r1, r2] not narrowed by any pod is still one rack).
  const node = launchedNode(claim.name, pool, it, offering, creation);
  cluster.updateNode({ ...node, labels: { ...claim.labels, ...node.labels }, taints: pool.taints });
  for (const ds of daemonPodsOn(poolRequirements(pool), pool.taints, it, daemonSetPods)) {
    const name = `${ds.name}-${claim.name}`;
    cluster.addPod(bindPod({ ...ds, name, key: `${ds.namespace}/${name}`, uid: `${ds.uid}-${claim.name}` }, claim.name));
  }
}
