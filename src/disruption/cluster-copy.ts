// Working copies of a ClusterState for "what if" scheduling: consolidation and
// descheduling simulate on a copy and never touch the caller's state.

import { ClusterState, OWNER_KINDS } from '../cluster/state.js';
import { changedPod, type Pod } from '../model/pod.js';

/** Copies nodes (node-tree order is preserved: zones keep their first-appearance order), pods, policy and storage objects. */
export function copyCluster(src: ClusterState): ClusterState {
  const dst = new ClusterState();
  for (const info of src.nodeInfos()) dst.addNode(info.node);
  for (const pod of src.pods()) dst.addPod(pod);
  dst.pdbs = [...src.pdbs];
  for (const [k, v] of src.namespaces) dst.namespaces.set(k, v);
  for (const kind of OWNER_KINDS) dst.addOwners(kind, src[kind]);
  dst.volumes = src.volumes.clone();
  return dst;
}

/**
 * A copy without the nodes `gone`: their bound pods that `moves` accepts pending in it
 * (each in its place in the store's order), the others gone with their node. Made with
 * ClusterState.fork: the other nodes share their pod lists and the counts kept on them
 * (a removal simulation runs once per candidate, and adding every pod again was most of it).
 */
export function copyWithout(src: ClusterState, gone: ReadonlySet<string>, moves: (pod: Pod) => boolean = () => true): ClusterState {
  const dst = src.fork();
  for (const name of gone) dst.removeNode(name);
  for (const pod of src.podsBoundTo(gone)) {
    if (moves(pod)) dst.replacePodInPlace(unbind(pod));
    else dst.removePod(pod.key);
  }
  return dst;
}

/**
 * The pod as its controller would recreate it: same spec, not bound, not terminating
 * (a terminating StatefulSet pod stands for the one its controller will create).
 */
export function unbind(pod: Pod): Pod {
  return changedPod(pod, { nodeName: '', nominatedNodeName: '', phase: 'Pending', terminating: false });
}
