// A working copy of a ClusterState for "what if" scheduling: consolidation and
// descheduling simulate on the copy and never touch the caller's state.

import { ClusterState } from '../cluster/state.js';
import type { Pod } from '../model/pod.js';

export interface CopyOptions {
  /** Nodes to leave out; their bound pods become pending in the copy. */
  readonly withoutNodes?: ReadonlySet<string>;
}

/** Copies nodes (node-tree order is preserved: zones keep their first-appearance order), pods, policy and storage objects. */
export function copyCluster(src: ClusterState, opts: CopyOptions = {}): ClusterState {
  const dst = new ClusterState();
  const gone = opts.withoutNodes ?? new Set<string>();
  for (const info of src.nodeInfos()) if (!gone.has(info.node.name)) dst.addNode(info.node);
  for (const pod of src.pods()) dst.addPod(gone.has(pod.nodeName) ? unbind(pod) : pod);
  dst.pdbs = [...src.pdbs];
  for (const [k, v] of src.namespaces) dst.namespaces.set(k, v);
  dst.services.push(...src.services);
  dst.replicationControllers.push(...src.replicationControllers);
  dst.replicaSets.push(...src.replicaSets);
  dst.statefulSets.push(...src.statefulSets);
  dst.volumes = src.volumes.clone();
  return dst;
}

/**
 * The pod as its controller would recreate it: same spec, not bound, not terminating
 * (a terminating StatefulSet pod stands for the one its controller will create).
 */
export function unbind(pod: Pod): Pod {
  return { ...pod, nodeName: '', nominatedNodeName: '', phase: 'Pending', terminating: false };
}
