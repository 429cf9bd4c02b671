// Whether a loss leaves a Deployment or a StatefulSet short at a horizon, known before the run gets
// there. A replica on a lost node stays bound and NotReady until the node lifecycle
// controller gives its node the unreachable NoExecute taint (one node per 10 s per
// zone, in queue order) and its toleration of it runs out; its ReplicaSet replaces
// it only once it is terminating. When more replicas are held past the horizon than
// the Deployment can spare, it cannot be whole again there, whatever else happens:
// a zone of 334 nodes takes 56 minutes to taint, so most groups a 30-minute zone
// loss leaves short are known to be short a minute after the loss. A StatefulSet's
// pod on a lost node is never replaced while its Node stays, so the set is short for
// good as soon as that pod is NotReady.

import type { LoadedInput, WorkloadSummary } from '../io/load.js';
import type { Pod } from '../model/pod.js';
import { tolerationsTolerateTaint } from '../model/taints.js';
import { POD_TEMPLATE_HASH_LABEL } from '../sim/controllers/deployment.js';
import { UNREACHABLE_NO_EXECUTE, UNREACHABLE_NO_SCHEDULE } from '../sim/node-lifecycle.js';
import type { Simulation } from '../sim/simulation.js';
import { evictionDelayMs } from '../sim/taint-eviction.js';
import { groupFinder, type PodGroup } from './pod-groups.js';

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

/** Per input: the workloads of each namespace, and of each namespace, label key and value of their template. */
const templateIndexes = new WeakMap<LoadedInput, { readonly byNamespace: Map<string, WorkloadSummary[]>; readonly byLabel: Map<string, WorkloadSummary[]> }>();
const labelKey = (namespace: string, key: string, value: string) => JSON.stringify([namespace, key, value]);

/** The workloads of the group's namespace whose template the group's selector may match: those with its required label, if it has one. */
function templatesNear(input: LoadedInput, group: PodGroup): readonly WorkloadSummary[] {
  let index = templateIndexes.get(input);
  if (!index) {
    index = { byNamespace: new Map(), byLabel: new Map() };
    for (const w of input.workloads) {
      const { namespace } = w;
      const { labels } = w.templatePod;
      index.byNamespace.set(namespace, [...(index.byNamespace.get(namespace) ?? []), w]);
      for (const [k, v] of Object.entries(labels)) {
        const key = labelKey(namespace, k, v);
        const list = index.byLabel.get(key);
        if (list) list.push(w);
        else index.byLabel.set(key, [w]);
      }
    }
    templateIndexes.set(input, index);
  }
  const r = group.requiredLabel;
  if (!r) return index.byNamespace.get(group.namespace) ?? [];
  return [...new Set(r.values)].flatMap((v) => index.byLabel.get(labelKey(group.namespace, r.key, v)) ?? []);
}

/**
 * Whether shortAtHorizon may prove the group short on this input: a Deployment's
 * or a StatefulSet's, whose template mounts no claim (a replica held by its volume
 * changes the verdict), whose selector matches no other workload's template, on a
 * closed input.
 */
export function provableShortfall(input: LoadedInput, group: PodGroup): boolean {
  const w = group.workload;
  if (!w || !(w.kind === 'Deployment' || (w.kind === 'StatefulSet' && !w.storage)) || !closedInput(input)) return false;
  if ((group.templatePod.volumes ?? []).some((v) => v.kind === 'claim')) return false;
  const own = (x: WorkloadSummary) => x === w || (w.kind === 'Deployment' && x.kind === 'ReplicaSet' && x.owner?.kind === 'Deployment' && x.owner.name === w.name);
  return !templatesNear(input, group).some((x) => !own(x) && x.namespace === w.namespace && w.selector.matches(x.templatePod.labels));
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

/** What a group's live pods may still give at the horizon, counted by shortGroups. */
interface Tally {
  /** The controller whose pods stand for the group's replicas (the ReplicaSet, or the StatefulSet), and how many it keeps. */
  readonly uid: string;
  readonly replicas: number;
  /** A StatefulSet's: whether a pod of its is one of its replicas (an ordinal of its name within them). */
  readonly ordinal?: (pod: Pod) => boolean;
  /** Its live pods, and those of them that cannot be ready at the horizon. */
  live: number;
  held: number;
  /** The group's live pods of other controllers. */
  others: number;
  /** Nothing is proved: a live pod mounts a claim, or a StatefulSet's pod is not one of its replicas. */
  unproven: boolean;
}

/**
 * The controller state shortGroups reasons from: a Deployment settled — one
 * ReplicaSet of its current template at its replicas — or a StatefulSet.
 */
function tallyOf(sim: Simulation, group: PodGroup): Tally | undefined {
  const w = group.workload;
  const count = { live: 0, held: 0, others: 0, unproven: false };
  if (w?.kind === 'StatefulSet') {
    const s = sim.statefulSets.objects.get(w.key);
    if (!s) return undefined;
    const ordinal = (p: Pod) => {
      const n = p.name.slice(s.name.length + 1);
      return p.name.startsWith(`${s.name}-`) && /^[0-9]+$/.test(n) && Number(n) >= s.ordinalStart && Number(n) < s.ordinalStart + s.replicas;
    };
    return { uid: s.uid, replicas: s.replicas, ordinal, ...count };
  }
  const d = w?.kind === 'Deployment' ? sim.deployments.objects.get(w.key) : undefined;
  if (!d) return undefined;
  const scaled = sim.deployments.replicaSetsOf(d).filter((rs) => rs.replicas > 0);
  const rs = scaled[0];
  if (scaled.length !== 1 || rs!.replicas !== d.replicas || rs!.template.labels[POD_TEMPLATE_HASH_LABEL] !== d.hash) return undefined;
  return { uid: rs!.uid, replicas: rs!.replicas, ...count };
}

/**
 * Whether a StatefulSet's pod can never be ready again in the run: it is bound to a
 * node whose kubelet is down and it is not ready. Such a pod leaves only when the
 * kubelet returns or its Node is deleted, and its set never replaces a pod of the
 * same name before it leaves, so its ordinal stays short.
 */
function heldForGood(sim: Simulation, pod: Pod): boolean {
  return pod.nodeName !== undefined && pod.nodeName !== '' && !sim.world.kubeletRunning(pod.nodeName) && !sim.world.isReady(pod.key);
}

/**
 * Which of `groups` (each provableShortfall, with the ready count it must reach)
 * have fewer than that at `horizon` however the run goes on, in a run without node
 * deletions or returning kubelets (no provisioner, node disruption or descheduler;
 * the caller's steps only fail nodes). Read in one pass over the pods.
 *
 * A Deployment must be settled: one ReplicaSet of its current template at its
 * replicas, with no more live pods than that, so the ReplicaSet neither deletes
 * nor creates beyond it. Then at most its replicas less those held past the
 * horizon, plus the group's other live pods, can be ready there. A StatefulSet
 * must have no more live pods than its replicas: at most its replicas less its
 * pods held for good (heldForGood, terminating ones too), plus the group's pods
 * of other controllers, can be ready.
 */
export function shortGroups(sim: Simulation, groups: ReadonlyMap<PodGroup, number>, horizon: number): PodGroup[] {
  if (sim.provisioner || sim.nodeDisruption || sim.descheduler) return [];
  const tallies = new Map<PodGroup, Tally>();
  for (const g of groups.keys()) {
    const t = tallyOf(sim, g);
    if (t) tallies.set(g, t);
  }
  const asked = [...tallies.keys()];
  // One group (the asker, every few simulated seconds) is asked directly; many through an index.
  const find = asked.length === 1 ? (p: Pod) => (asked[0]!.has(p) ? asked : []) : groupFinder(asked);
  for (const p of sim.world.cluster.pods()) {
    for (const g of find(p)) {
      const t = tallies.get(g)!;
      const owned = p.ownerReferences.some((r) => r.controller && r.uid === t.uid);
      if (owned && t.ordinal) {
        if (!t.ordinal(p)) t.unproven = true;
        // Terminating or not, it holds its ordinal.
        else if (heldForGood(sim, p)) t.held++;
      }
      if (p.terminating) continue;
      if ((p.volumes ?? []).some((v) => v.kind === 'claim')) t.unproven = true;
      if (!owned) t.others++;
      else {
        t.live++;
        if (!t.ordinal && heldPast(sim, p, horizon)) t.held++;
      }
    }
  }
  return [...tallies].filter(([g, t]) => !t.unproven && t.live <= t.replicas && t.replicas - t.held + t.others < groups.get(g)!).map(([g]) => g);
}
