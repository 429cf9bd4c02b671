// Whether a loss leaves a Deployment short at a horizon, known before the run gets
// there. A replica on a lost node stays bound and NotReady until the node lifecycle
// controller gives its node the unreachable NoExecute taint (one node per 10 s per
// zone, in queue order) and its toleration of it runs out; its ReplicaSet replaces
// it only once it is terminating. When more replicas are held past the horizon than
// the Deployment can spare, it cannot be whole again there, whatever else happens:
// a zone of 334 nodes takes 56 minutes to taint, so most groups a 30-minute zone
// loss leaves short are known to be short a minute after the loss.

import type { LoadedInput } from '../io/load.js';
import type { Pod } from '../model/pod.js';
import { tolerationsTolerateTaint } from '../model/taints.js';
import { POD_TEMPLATE_HASH_LABEL } from '../sim/controllers/deployment.js';
import { UNREACHABLE_NO_EXECUTE, UNREACHABLE_NO_SCHEDULE } from '../sim/node-lifecycle.js';
import type { Simulation } from '../sim/simulation.js';
import { evictionDelayMs } from '../sim/taint-eviction.js';
import type { PodGroup } from './pod-groups.js';

const openInputs = new WeakMap<LoadedInput, boolean>();

/**
 * Whether nothing in the input could add pods a group counts or take a held replica
 * early: no Job or CronJob, and no pod or template (but a DaemonSet's, pinned to its
 * own node) that tolerates the unreachable NoSchedule taint, so none preempts on a
 * lost node (a taint not tolerated makes a node no preemption candidate).
 */
function closedInput(input: LoadedInput): boolean {
  let closed = openInputs.get(input);
  if (closed === undefined) {
    const tolerates = (p: Pod) => tolerationsTolerateTaint(p.tolerations, UNREACHABLE_NO_SCHEDULE);
    closed =
      (input.jobs ?? []).length === 0 &&
      (input.cronJobs ?? []).length === 0 &&
      !input.workloads.some((w) => w.kind !== 'DaemonSet' && tolerates(w.templatePod)) &&
      !input.pods.some((p) => !p.ownerReferences.some((r) => r.kind === 'DaemonSet') && tolerates(p));
    openInputs.set(input, closed);
  }
  return closed;
}

/**
 * Whether shortAtHorizon may prove the group short on this input: a Deployment's,
 * whose template mounts no claim (a replica held by its volume changes the verdict),
 * whose selector matches no other workload's template, on a closed input.
 */
export function provableShortfall(input: LoadedInput, group: PodGroup): boolean {
  const d = group.workload;
  if (d?.kind !== 'Deployment' || !closedInput(input)) return false;
  if ((group.templatePod.volumes ?? []).some((v) => v.kind === 'claim')) return false;
  const own = (w: LoadedInput['workloads'][number]) => w === d || (w.kind === 'ReplicaSet' && w.owner?.kind === 'Deployment' && w.owner.name === d.name);
  return !input.workloads.some((w) => !own(w) && w.namespace === d.namespace && d.selector.matches(w.templatePod.labels));
}

/**
 * Whether the pod stays bound, NotReady and not terminating past `horizon`: its
 * node's kubelet is down and the node waits in its zone's taint queue
 * (NodeLifecycle.noExecuteTaintNotBefore) with no NoExecute taint yet, and the
 * pod's toleration of the unreachable taint outlasts the horizon.
 */
function heldPast(sim: Simulation, pod: Pod, horizon: number): boolean {
  const { world, nodeLifecycle } = sim;
  if (!pod.nodeName || world.kubeletRunning(pod.nodeName)) return false;
  const node = world.cluster.nodeInfo(pod.nodeName)?.node;
  const taintedAt = nodeLifecycle.noExecuteTaintNotBefore(pod.nodeName);
  if (!node || taintedAt === undefined || node.taints.some((t) => t.effect === 'NoExecute')) return false;
  const delay = evictionDelayMs(pod, { ...node, taints: [...node.taints, UNREACHABLE_NO_EXECUTE] });
  return delay < 0 || taintedAt + delay > horizon;
}

/**
 * Whether the group (provableShortfall) has fewer than `whole` ready replicas at
 * `horizon` however the run goes on, in a run without node deletions or returning
 * kubelets (no provisioner, node disruption or descheduler; the caller's steps only
 * fail nodes). The Deployment must be settled: one ReplicaSet of its current template
 * at its replicas, with no more live pods than that, so the ReplicaSet neither
 * deletes nor creates beyond it. Then at most its replicas less those held past the
 * horizon, plus the group's other live pods, can be ready there.
 */
export function shortAtHorizon(sim: Simulation, group: PodGroup, whole: number, horizon: number): boolean {
  if (sim.provisioner || sim.nodeDisruption || sim.descheduler || !group.workload) return false;
  const d = sim.deployments.objects.get(group.workload.key);
  if (!d) return false;
  const scaled = sim.deployments.replicaSetsOf(d).filter((rs) => rs.replicas > 0);
  const rs = scaled[0];
  if (scaled.length !== 1 || rs!.replicas !== d.replicas || rs!.template.labels[POD_TEMPLATE_HASH_LABEL] !== d.hash) return false;
  let live = 0;
  let held = 0;
  let others = 0;
  for (const p of sim.world.cluster.pods()) {
    if (p.terminating || !group.has(p)) continue;
    if ((p.volumes ?? []).some((v) => v.kind === 'claim')) return false;
    if (!p.ownerReferences.some((r) => r.controller && r.uid === rs!.uid)) others++;
    else {
      live++;
      if (heldPast(sim, p, horizon)) held++;
    }
  }
  return live <= rs!.replicas && rs!.replicas - held + others < whole;
}
