// Checks a provisioning plan as if its NodeClaims had launched: each planned claim
// becomes the Node its instance type and offering register as, and every pod placed
// on a claim is judged there by kube-scheduler's filter plugins (the pod taken off
// its node first, so the others are its neighbours) and by Karpenter's own checks of
// a pod against a NodeClaim (requirements, every taint, the offering the NodePool
// allows). An optimized plan must pass it with no violation; tests run it on both planners.

import type { ClusterState } from '../cluster/state.js';
import type { Node } from '../model/node.js';
import type { Pod } from '../model/pod.js';
import { tolerationsTolerateTaint } from '../model/taints.js';
import { CycleState, type Framework } from '../scheduler/framework.js';
import { LABEL_CAPACITY_TYPE, LABEL_ZONE, type CapacityType, type InstanceType } from './catalog/types.js';
import { compatibleOfferings, instanceTypeCompatible } from './instance-requirements.js';
import { offeringNodeLabels } from './launched-node.js';
import type { PoolTemplate } from './nodeclaim.js';
import { podRequirements } from './pod-requirements.js';
import { ALLOW_UNDEFINED_WELL_KNOWN, Requirement, Requirements } from './requirements.js';

/** What a claim launches as. */
export interface LaunchedClaim {
  readonly name: string;
  readonly pool: PoolTemplate;
  /** The pool's copy of the type: its allocatable already leaves room for the pool's DaemonSet pods. */
  readonly instanceType: InstanceType;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly creation: number;
}

export interface PlanViolation {
  readonly pod: string;
  readonly node: string;
  readonly reason: string;
}

/** The Node the claim registers as, labelled and sized as the pool's template type. */
export function claimNode(c: LaunchedClaim): Node {
  const labels = offeringNodeLabels({ ...c.pool.requirements.singleValueLabels(), ...c.pool.labels }, c.pool.name, c.instanceType, c, c.name);
  return { name: c.name, uid: c.name, labels, annotations: {}, taints: c.pool.taints, unschedulable: false, allocatable: c.instanceType.allocatable, capacity: c.instanceType.allocatable, images: [], creation: c.creation };
}

/** Why the pool cannot launch the claim's type and offering, or undefined. */
function offeringProblem(c: LaunchedClaim): string | undefined {
  if (!instanceTypeCompatible(c.instanceType, c.pool.requirements)) return `instance type ${c.instanceType.name} does not meet nodepool "${c.pool.name}"'s requirements`;
  const reqs = c.pool.requirements.clone();
  reqs.add(Requirement.of(LABEL_ZONE, 'In', [c.zone]));
  reqs.add(Requirement.of(LABEL_CAPACITY_TYPE, 'In', [c.capacityType]));
  if (compatibleOfferings(c.instanceType, reqs).length === 0) return `no available ${c.capacityType} offering of ${c.instanceType.name} in ${c.zone} that nodepool "${c.pool.name}" allows`;
  return undefined;
}

/**
 * Replaces each claim's node in `cluster` by the node it launches as (the cluster keeps
 * them) and returns every violation: a pod the filter plugins refuse on its node, or a
 * pod or claim Karpenter would refuse.
 */
export function checkLaunchedPlan(cluster: ClusterState, framework: Framework, claims: readonly LaunchedClaim[]): PlanViolation[] {
  const violations: PlanViolation[] = [];
  for (const c of claims) {
    const node = claimNode(c);
    if (cluster.nodeInfo(c.name)) cluster.updateNode(node);
    else cluster.addNode(node);
  }
  for (const c of claims) {
    const problem = offeringProblem(c);
    const info = cluster.nodeInfo(c.name)!;
    const pods = [...info.pods];
    if (problem) violations.push({ pod: '', node: c.name, reason: problem });
    const nodeReqs = Requirements.fromLabels(info.node.labels);
    for (const pod of pods) {
      const taint = c.pool.taints.find((t) => !tolerationsTolerateTaint(pod.tolerations, t));
      if (taint) violations.push({ pod: pod.key, node: c.name, reason: `does not tolerate taint ${taint.key}:${taint.effect}` });
      const incompatible = nodeReqs.compatible(podRequirements(pod), ALLOW_UNDEFINED_WELL_KNOWN);
      if (incompatible !== undefined) violations.push({ pod: pod.key, node: c.name, reason: `incompatible requirements, ${incompatible}` });
      const status = filterOnOwnNode(cluster, framework, pod);
      if (!status.ok) violations.push({ pod: pod.key, node: c.name, reason: status.reason });
    }
  }
  return violations;
}

/** The filter plugins' verdict on the pod's node with its neighbours, the pod itself taken off first. */
function filterOnOwnNode(cluster: ClusterState, framework: Framework, pod: Pod): { ok: true } | { ok: false; reason: string } {
  cluster.removePod(pod.key);
  try {
    const state = new CycleState();
    const pre = framework.runPreFilterPlugins(state, pod, cluster.nodeInfos());
    if (!pre.status.isSuccess()) return { ok: false, reason: `PreFilter: ${pre.status.message()}` };
    if (pre.nodeNames !== null && !pre.nodeNames.has(pod.nodeName)) return { ok: false, reason: 'PreFilter: node not among the eligible nodes' };
    const status = framework.runFilterPlugins(state, pod, cluster.nodeInfo(pod.nodeName)!);
    return status.isSuccess() ? { ok: true } : { ok: false, reason: status.message() };
  } finally {
    cluster.addPod(pod);
  }
}
