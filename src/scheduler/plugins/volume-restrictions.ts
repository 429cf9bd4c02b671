// VolumeRestrictions: an in-tree disk (GCE PD, EBS, iSCSI, RBD) mounted by a pod
// on the node conflicts with the same disk in the new pod (unless both mount it
// read-only, where the disk type allows that), and a ReadWriteOncePod claim
// already used by any pod in the cluster blocks every node. The RWOP count
// follows pods added and removed during preemption (PreFilter extensions).

import type { Pod } from '../../model/pod.js';
import type { VolumeSource } from '../../model/volumes.js';
import type { CycleState, FilterPlugin, PreFilterExtensions, PreFilterPlugin, StateData } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { Status } from '../status.js';
import { claimNotFound, inlineVolumes, persistentClaimVolumes } from './volume-lookups.js';

export const VOLUME_RESTRICTIONS = 'VolumeRestrictions';
const STATE_KEY = `PreFilter${VOLUME_RESTRICTIONS}`;
export const ERR_REASON_DISK_CONFLICT = 'node(s) had no available disk';
export const ERR_REASON_RWOP_CONFLICT = 'node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod';

class RestrictionsState implements StateData {
  constructor(
    /** Names (not namespaced, as upstream keeps them) of the pod's ReadWriteOncePod claims. */
    readonly rwopClaims: ReadonlySet<string>,
    public conflicting: number,
  ) {}
  clone(): StateData {
    return new RestrictionsState(this.rwopClaims, this.conflicting);
  }

  /** How many of `pod`'s claim volumes name one of the RWOP claims. */
  conflictsOf(pod: Pod): number {
    return persistentClaimVolumes(pod).filter((v) => this.rwopClaims.has(v.claimName)).length;
  }
}

function needsCheck(source: VolumeSource): boolean {
  return source.kind === 'gcePersistentDisk' || source.kind === 'awsElasticBlockStore' || source.kind === 'iscsi' || source.kind === 'rbd';
}

/** isVolumeConflict for one pair of volume sources. */
function conflicts(a: VolumeSource, b: VolumeSource): boolean {
  if (a.kind === 'gcePersistentDisk' && b.kind === 'gcePersistentDisk') return a.pdName === b.pdName && !(a.readOnly && b.readOnly);
  if (a.kind === 'awsElasticBlockStore' && b.kind === 'awsElasticBlockStore') return a.volumeID === b.volumeID;
  if (a.kind === 'iscsi' && b.kind === 'iscsi') return a.iqn === b.iqn && !(a.readOnly && b.readOnly);
  if (a.kind === 'rbd' && b.kind === 'rbd') {
    return a.monitors.some((m) => b.monitors.includes(m)) && a.pool === b.pool && a.image === b.image && !(a.readOnly && b.readOnly);
  }
  return false;
}

/** satisfyVolumeConflicts turned around: whether a disk of `pod` that needs the check conflicts with one of `existing`'s. */
export function diskConflicts(pod: Pod, existing: Pod): boolean {
  const theirs = inlineVolumes(existing);
  return inlineVolumes(pod).some((v) => needsCheck(v.source) && theirs.some((e) => conflicts(v.source, e.source)));
}

export const newVolumeRestrictions: PluginFactory = ({ handle }): PreFilterPlugin & FilterPlugin & { preFilterExtensions: PreFilterExtensions } => {
  const update = (state: CycleState, pod: Pod, sign: 1 | -1): Status => {
    const s = state.tryRead<RestrictionsState>(STATE_KEY);
    if (!s) return Status.error(`cannot read "${STATE_KEY}" from cycleState`);
    s.conflicting += sign * s.conflictsOf(pod);
    return Status.SUCCESS;
  };
  return {
    name: VOLUME_RESTRICTIONS,

    preFilter(state, pod) {
      const check = inlineVolumes(pod).some((v) => needsCheck(v.source));
      const store = handle.cluster.volumes;
      const rwop = new Set<string>();
      for (const v of persistentClaimVolumes(pod)) {
        const pvc = store.claim(pod.namespace, v.claimName);
        if (!pvc) return { status: Status.unresolvable(claimNotFound(v.claimName)) };
        if (pvc.accessModes.includes('ReadWriteOncePod')) rwop.add(pvc.name);
      }
      let conflicting = 0;
      for (const name of rwop) if (handle.cluster.isClaimUsedByPods(`${pod.namespace}/${name}`)) conflicting++;
      if (!check && conflicting === 0) return { status: Status.SKIP };
      state.write(STATE_KEY, new RestrictionsState(rwop, conflicting));
      return { status: Status.SUCCESS };
    },

    preFilterExtensions: {
      addPod: (state, _podToSchedule, podToAdd) => update(state, podToAdd, 1),
      removePod: (state, _podToSchedule, podToRemove) => update(state, podToRemove, -1),
    },

    filter(state, pod, nodeInfo) {
      if (inlineVolumes(pod).some((v) => needsCheck(v.source))) {
        for (const existing of nodeInfo.pods) if (diskConflicts(pod, existing)) return Status.unschedulable(ERR_REASON_DISK_CONFLICT);
      }
      const s = state.tryRead<RestrictionsState>(STATE_KEY);
      if (!s) return Status.error(`cannot read "${STATE_KEY}" from cycleState`);
      return s.conflicting > 0 ? Status.unschedulable(ERR_REASON_RWOP_CONFLICT) : Status.SUCCESS;
    },
  };
};
