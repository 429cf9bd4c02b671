// kube-scheduler's queueing hints (v1.37, QueueingHints on): when a cluster event
// happens, a pod waiting in the unschedulable pool is moved back to the queue only
// if one of the plugins that rejected it in its last attempt registered for the
// event (EventsToRegister) and that registration's hint says the event may make the
// pod schedulable; a registration without a hint always does. A plugin that did not
// register for the event moves nothing. The registrations below are the default
// profile's filter plugins'; a rejecting plugin not listed is asked nothing and moves
// the pod on any event but the generic update (the conservative answer upstream
// gives when a hint fails).

import type { ClusterState } from '../cluster/state.js';
import { HostPortSet, NodeInfo } from '../cluster/node-info.js';
import type { Node } from '../model/node.js';
import { matchesRequiredNodeAffinity, type Pod, type PodAffinityTerm } from '../model/pod.js';
import { sameLabels, type Labels } from '../model/selector.js';
import { doNotScheduleTaints, findUntoleratedTaint, type Taint } from '../model/taints.js';
import { INTER_POD_AFFINITY } from '../scheduler/plugins/inter-pod-affinity/filtering.js';
import { mergeTermNamespaces, matchesAllTerms, termMatches, type MergedTerm } from '../scheduler/plugins/inter-pod-affinity/terms.js';
import { NODE_AFFINITY } from '../scheduler/plugins/node-affinity.js';
import { NODE_NAME } from '../scheduler/plugins/node-name.js';
import { NODE_PORTS } from '../scheduler/plugins/node-ports.js';
import { NODE_RESOURCES_FIT, insufficientResources } from '../scheduler/plugins/node-resources-fit.js';
import { NODE_UNSCHEDULABLE } from '../scheduler/plugins/node-unschedulable.js';
import { NODE_VOLUME_LIMITS } from '../scheduler/plugins/node-volume-limits.js';
import { POD_TOPOLOGY_SPREAD } from '../scheduler/plugins/pod-topology-spread.js';
import { TAINT_TOLERATION } from '../scheduler/plugins/taint-toleration.js';
import { VOLUME_BINDING } from '../scheduler/plugins/volume-binding.js';
import { persistentClaimVolumes } from '../scheduler/plugins/volume-lookups.js';
import { VOLUME_RESTRICTIONS, diskConflicts } from '../scheduler/plugins/volume-restrictions.js';
import { VOLUME_ZONE } from '../scheduler/plugins/volume-zone.js';
import type { StorageResource } from './world.js';

/** The cluster events the queue reacts to (framework.ClusterEvent): an assigned pod's or a node's, or a wildcard. */
export type HintEvent =
  | { readonly resource: 'AssignedPod'; readonly action: 'Add'; readonly pod: Pod }
  | { readonly resource: 'AssignedPod'; readonly action: 'Delete'; readonly old: Pod }
  /** PodSchedulingPropertiesChange of an assigned pod: UpdatePodLabel, UpdatePodScaleDown, or the generic Update when nothing scheduling reads changed. */
  | { readonly resource: 'AssignedPod'; readonly action: 'UpdatePodLabel' | 'UpdatePodScaleDown' | 'Update'; readonly old: Pod; readonly pod: Pod }
  | { readonly resource: 'Node'; readonly action: 'Add'; readonly node: Node }
  | { readonly resource: 'Node'; readonly action: 'Delete'; readonly old: Node }
  /** NodeSchedulingPropertiesChange: one event per kind of change. */
  | { readonly resource: 'Node'; readonly action: 'UpdateNodeTaint' | 'UpdateNodeLabel' | 'UpdateNodeAllocatable'; readonly old: Node; readonly node: Node }
  /** A claim, volume or StorageClass event: the volume plugins register some; their hints are not modelled (they queue). */
  | { readonly resource: StorageResource; readonly action: 'Add' | 'Update' | 'Delete' };

type Hint = (pod: Pod, event: HintEvent, cluster: ClusterState) => boolean;

/** The events an assigned pod's update stands for (PodSchedulingPropertiesChange, isTargetPod false). */
export function assignedPodUpdateEvents(old: Pod, pod: Pod): HintEvent[] {
  const out: HintEvent[] = [];
  if (!sameLabels(old.labels, pod.labels)) out.push({ resource: 'AssignedPod', action: 'UpdatePodLabel', old, pod });
  if (Object.entries(old.resources.requests).some(([k, v]) => (pod.resources.requests[k] ?? -1) < v)) out.push({ resource: 'AssignedPod', action: 'UpdatePodScaleDown', old, pod });
  return out.length > 0 ? out : [{ resource: 'AssignedPod', action: 'Update', old, pod }];
}

/**
 * The events a node update stands for. A cordon counts as a taint change: upstream's
 * node lifecycle controller adds node.kubernetes.io/unschedulable at once, which this
 * simulation does not write on the node; an uncordon is UpdateNodeTaint upstream too.
 */
export function nodeUpdateEvents(old: Node, node: Node): HintEvent[] {
  const out: HintEvent[] = [];
  if (!sameTaints(old.taints, node.taints) || old.unschedulable !== node.unschedulable) out.push({ resource: 'Node', action: 'UpdateNodeTaint', old, node });
  if (!sameLabels(old.labels, node.labels)) out.push({ resource: 'Node', action: 'UpdateNodeLabel', old, node });
  if (JSON.stringify(old.allocatable) !== JSON.stringify(node.allocatable)) out.push({ resource: 'Node', action: 'UpdateNodeAllocatable', old, node });
  return out;
}

/**
 * isPodWorthRequeuing: whether the event moves a pod that `rejectors` (its last
 * attempt's unschedulable plugins) turned down. No rejector (an error, or no node
 * at all) moves on any event.
 */
export function worthRequeuing(pod: Pod, rejectors: ReadonlySet<string>, event: HintEvent, cluster: ClusterState): boolean {
  if (rejectors.size === 0) return true;
  for (const plugin of rejectors) {
    const registrations = REGISTRATIONS.get(plugin);
    if (!registrations) {
      if (!(event.resource === 'AssignedPod' && event.action === 'Update')) return true;
      continue;
    }
    for (const r of registrations) {
      if (r.resource === event.resource && r.actions.includes(event.action) && (!r.hint || r.hint(pod, event, cluster))) return true;
    }
  }
  return false;
}

/** One ClusterEventWithHint: the resource, the action types it matches, and its hint (none: always queue). */
interface Registration {
  readonly resource: HintEvent['resource'];
  readonly actions: readonly string[];
  readonly hint?: Hint;
}

/** EventsToRegister of the default profile's filter plugins, kube-scheduler v1.37.2. */
const REGISTRATIONS = new Map<string, readonly Registration[]>([
  [NODE_UNSCHEDULABLE, [{ resource: 'Node', actions: ['Add', 'UpdateNodeTaint'], hint: nodeUnschedulableHint }]],
  [TAINT_TOLERATION, [{ resource: 'Node', actions: ['Add', 'UpdateNodeTaint'], hint: taintTolerationHint }]],
  [
    NODE_RESOURCES_FIT,
    [
      { resource: 'AssignedPod', actions: ['Delete', 'UpdatePodScaleDown'], hint: nodeResourcesFitHint },
      { resource: 'Node', actions: ['Add', 'UpdateNodeAllocatable'], hint: nodeResourcesFitHint },
    ],
  ],
  [
    INTER_POD_AFFINITY,
    [
      { resource: 'AssignedPod', actions: ['Add', 'UpdatePodLabel', 'Delete'], hint: interPodAffinityHint },
      { resource: 'Node', actions: ['Add', 'UpdateNodeLabel'], hint: interPodAffinityHint },
    ],
  ],
  [
    POD_TOPOLOGY_SPREAD,
    [
      { resource: 'AssignedPod', actions: ['Add', 'UpdatePodLabel', 'Delete'], hint: podTopologySpreadHint },
      { resource: 'Node', actions: ['Add', 'Delete', 'UpdateNodeLabel', 'UpdateNodeTaint'], hint: podTopologySpreadHint },
    ],
  ],
  [NODE_AFFINITY, [{ resource: 'Node', actions: ['Add', 'UpdateNodeLabel'], hint: nodeAffinityHint }]],
  [NODE_NAME, [{ resource: 'Node', actions: ['Add'] }]],
  [
    NODE_PORTS,
    [
      { resource: 'AssignedPod', actions: ['Delete'], hint: nodePortsHint },
      { resource: 'Node', actions: ['Add'] },
    ],
  ],
  [
    VOLUME_RESTRICTIONS,
    [
      { resource: 'AssignedPod', actions: ['Delete'], hint: volumeRestrictionsHint },
      { resource: 'Node', actions: ['Add'] },
      { resource: 'PersistentVolumeClaim', actions: ['Add'] },
    ],
  ],
  [
    NODE_VOLUME_LIMITS,
    [
      { resource: 'AssignedPod', actions: ['Delete'], hint: nodeVolumeLimitsHint },
      { resource: 'PersistentVolumeClaim', actions: ['Add'] },
    ],
  ],
  [
    VOLUME_BINDING,
    [
      { resource: 'StorageClass', actions: ['Add', 'Update'] },
      { resource: 'PersistentVolumeClaim', actions: ['Add', 'Update'] },
      { resource: 'PersistentVolume', actions: ['Add', 'Update'] },
      { resource: 'Node', actions: ['Add', 'UpdateNodeLabel'] },
    ],
  ],
  [
    VOLUME_ZONE,
    [
      { resource: 'StorageClass', actions: ['Add'] },
      { resource: 'Node', actions: ['Add', 'UpdateNodeLabel'] },
      { resource: 'PersistentVolumeClaim', actions: ['Add', 'Update'] },
      { resource: 'PersistentVolume', actions: ['Add', 'Update'] },
    ],
  ],
]);

/**
 * Node Add|UpdateNodeLabel: the node matches the pod's nodeSelector and required node
 * affinity, and (an update) did not before. The profile's addedAffinity is not read
 * here: a node it excludes still queues the pod, which then fails again.
 */
function nodeAffinityHint(pod: Pod, e: HintEvent): boolean {
  if (e.resource !== 'Node' || (e.action !== 'Add' && e.action !== 'UpdateNodeLabel')) return false;
  if (!matchesRequiredNodeAffinity(pod, e.node)) return false;
  return e.action === 'Add' || !matchesRequiredNodeAffinity(pod, e.old);
}

/** AssignedPod Delete: the deleted pod held a host port the pod asks for. */
function nodePortsHint(pod: Pod, e: HintEvent): boolean {
  if (e.resource !== 'AssignedPod' || e.action !== 'Delete' || e.old.hostPorts.length === 0) return false;
  const inUse = new HostPortSet();
  for (const p of e.old.hostPorts) inUse.add(p);
  return pod.hostPorts.some((p) => inUse.conflicts(p));
}

/** AssignedPod Delete of a pod in the pod's namespace with a disk the pod's conflicts with, or one of the pod's claims. */
function volumeRestrictionsHint(pod: Pod, e: HintEvent): boolean {
  if (e.resource !== 'AssignedPod' || e.action !== 'Delete' || e.old.namespace !== pod.namespace) return false;
  if (diskConflicts(pod, e.old)) return true;
  const claims = new Set(persistentClaimVolumes(pod).map((v) => v.claimName));
  return persistentClaimVolumes(e.old).some((v) => claims.has(v.claimName));
}

/** AssignedPod Delete of a pod with a claim (persistent or ephemeral) or an in-tree disk that migrates to CSI. */
function nodeVolumeLimitsHint(_pod: Pod, e: HintEvent): boolean {
  if (e.resource !== 'AssignedPod' || e.action !== 'Delete') return false;
  return (e.old.volumes ?? []).some((v) => v.kind === 'claim' || v.source.kind === 'awsElasticBlockStore' || v.source.kind === 'gcePersistentDisk');
}

/** Node Add|UpdateNodeTaint: the node is (now) schedulable. */
function nodeUnschedulableHint(_pod: Pod, e: HintEvent): boolean {
  if (e.resource !== 'Node') return false;
  if (e.action === 'Add') return !e.node.unschedulable;
  if (e.action === 'UpdateNodeTaint') return e.old.unschedulable && !e.node.unschedulable;
  return false;
}

/** Node Add|UpdateNodeTaint: the node had a NoSchedule/NoExecute taint the pod does not tolerate and has none now. */
function taintTolerationHint(pod: Pod, e: HintEvent): boolean {
  if (e.resource !== 'Node' || (e.action !== 'Add' && e.action !== 'UpdateNodeTaint')) return false;
  const untolerated = (taints: readonly Taint[]) => findUntoleratedTaint(taints, pod.tolerations, doNotScheduleTaints) !== undefined;
  const was = e.action === 'Add' ? true : untolerated(e.old.taints);
  return was && !untolerated(e.node.taints);
}

/** AssignedPod Delete|UpdatePodScaleDown (a pod's room freed), Node Add|UpdateNodeAllocatable (the pod fits the node alone, and it grew). */
function nodeResourcesFitHint(pod: Pod, e: HintEvent): boolean {
  if (e.resource === 'AssignedPod') {
    if (e.action === 'Delete') return true;
    if (e.action !== 'UpdatePodScaleDown') return false;
    return Object.entries(pod.resources.requests).some(([k, v]) => v > 0 && (e.pod.resources.requests[k] ?? 0) < (e.old.resources.requests[k] ?? 0));
  }
  if (e.resource !== 'Node' || (e.action !== 'Add' && e.action !== 'UpdateNodeAllocatable')) return false;
  if (insufficientResources(pod, new NodeInfo(e.node)).length > 0) return false;
  if (e.action === 'Add') return true;
  const grew = (k: string) => (e.node.allocatable[k] ?? 0) > (e.old.allocatable[k] ?? 0);
  return grew('pods') || Object.entries(pod.resources.requests).some(([k, v]) => v > 0 && grew(k));
}

/**
 * AssignedPod Add|UpdatePodLabel|Delete: an added or relabelled pod now matches every
 * affinity term, a relabelled or deleted pod matched an anti-affinity term (or the
 * deleted pod's own anti-affinity matched the pod). Node Add|UpdateNodeLabel: a node
 * joins or moves between topology domains of a term.
 */
function interPodAffinityHint(pod: Pod, e: HintEvent, cluster: ClusterState): boolean {
  const nsLabels = (ns: string) => cluster.namespaceLabels(ns);
  const terms = () => pod.requiredAffinity.map((t) => mergeTermNamespaces(t, nsLabels));
  const antiTerms = () => pod.requiredAntiAffinity.map((t) => mergeTermNamespaces(t, nsLabels));
  const matchesAny = (ts: readonly MergedTerm[], p: Pod) => ts.some((t) => t.matches(p));
  if (e.resource === 'AssignedPod') {
    if (e.action === 'Add') return matchesAllTerms(terms(), e.pod);
    if (e.action === 'Delete') {
      if (matchesAny(antiTerms(), e.old)) return true;
      const own = nsLabels(pod.namespace);
      return e.old.requiredAntiAffinity.some((t: PodAffinityTerm) => termMatches(t, pod, own));
    }
    if (e.action !== 'UpdatePodLabel') return false;
    const ts = terms();
    if (!matchesAllTerms(ts, e.old) && matchesAllTerms(ts, e.pod)) return true;
    const anti = antiTerms();
    return matchesAny(anti, e.old) && !matchesAny(anti, e.pod);
  }
  if (e.resource !== 'Node' || (e.action !== 'Add' && e.action !== 'UpdateNodeLabel')) return false;
  if (e.action === 'Add') return pod.requiredAntiAffinity.length > 0 || pod.requiredAffinity.some((t) => Object.hasOwn(e.node.labels, t.topologyKey));
  for (const t of pod.requiredAffinity) {
    const was = e.old.labels[t.topologyKey];
    const now = e.node.labels[t.topologyKey];
    if (now !== undefined && was !== now) return true;
  }
  for (const t of pod.requiredAntiAffinity) {
    const was = e.old.labels[t.topologyKey];
    if (was !== undefined && was !== e.node.labels[t.topologyKey]) return true;
  }
  return false;
}

/**
 * AssignedPod Add|UpdatePodLabel|Delete of a pod in the pod's namespace whose labels
 * match (or stop or start matching) a DoNotSchedule constraint's selector; Node
 * Add|Delete of a node carrying every topology key, UpdateNodeLabel or
 * UpdateNodeTaint of such a node (any taint change).
 */
function podTopologySpreadHint(pod: Pod, e: HintEvent): boolean {
  const constraints = pod.topologySpreadConstraints.filter((c) => c.whenUnsatisfiable === 'DoNotSchedule');
  const matching = (labels: Labels) => constraints.some((c) => c.selector.matches(labels));
  const hasKeys = (labels: Labels) => constraints.every((c) => Object.hasOwn(labels, c.topologyKey));
  if (e.resource === 'AssignedPod') {
    if (e.action === 'Update' || e.action === 'UpdatePodScaleDown') return false;
    if (e.action === 'Add') return e.pod.namespace === pod.namespace && matching(e.pod.labels);
    if (e.action === 'Delete') return e.old.namespace === pod.namespace && matching(e.old.labels);
    return e.pod.namespace === pod.namespace && constraints.some((c) => c.selector.matches(e.old.labels) !== c.selector.matches(e.pod.labels));
  }
  if (e.resource !== 'Node') return false;
  if (e.action === 'Add') return hasKeys(e.node.labels);
  if (e.action === 'Delete') return hasKeys(e.old.labels);
  if (e.action === 'UpdateNodeAllocatable') return false;
  const was = hasKeys(e.old.labels);
  const now = hasKeys(e.node.labels);
  if (was !== now) return true;
  if (!now) return false;
  if (e.action === 'UpdateNodeTaint') return true;
  return constraints.some((c) => e.old.labels[c.topologyKey] !== e.node.labels[c.topologyKey]);
}

const taintKey = (t: Taint) => `${t.key}=${t.value}:${t.effect}`;

function sameTaints(a: readonly Taint[], b: readonly Taint[]): boolean {
  return a.length === b.length && a.every((t, i) => taintKey(t) === taintKey(b[i]!));
}
