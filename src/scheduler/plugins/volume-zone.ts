// VolumeZone: a pod's bound volumes carry zone/region labels (legacy zonal PVs);
// a node that has any topology label must match every such label. Claims that
// wait for their first consumer are skipped: VolumeBinding places them.

import type { Pod } from '../../model/pod.js';
import type { FilterPlugin, Handle, PreFilterPlugin, StateData } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { Status } from '../status.js';
import { claimNotFound, classNotFound, persistentClaimVolumes, volumeNotFound } from './volume-lookups.js';

export const VOLUME_ZONE = 'VolumeZone';
const STATE_KEY = `PreFilter${VOLUME_ZONE}`;
export const ERR_REASON_VOLUME_ZONE_CONFLICT = 'node(s) had no available volume zone';

const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const BETA_REGION = 'failure-domain.beta.kubernetes.io/region';
const GA_ZONE = 'topology.kubernetes.io/zone';
const GA_REGION = 'topology.kubernetes.io/region';
/** In upstream's order. */
const TOPOLOGY_LABELS = [BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION] as const;
const GA_OF: Readonly<Record<string, string>> = { [BETA_ZONE]: GA_ZONE, [BETA_REGION]: GA_REGION };

interface PVTopology {
  readonly key: string;
  readonly values: ReadonlySet<string>;
}

class VolumeZoneState implements StateData {
  constructor(readonly topologies: readonly PVTopology[]) {}
  clone(): StateData {
    return this;
  }
}

/** LabelZonesToSet: values joined by "__", trimmed; an empty one makes the label unreadable (ignored). */
function zonesOf(value: string): Set<string> | undefined {
  const zones = value.split('__').map((z) => z.trim());
  return zones.some((z) => z === '') ? undefined : new Set(zones);
}

/** getPVbyPod: the topology labels of every bound volume of the pod's persistentVolumeClaim volumes. */
function podTopologies(handle: Handle, pod: Pod): PVTopology[] | Status {
  const store = handle.cluster.volumes;
  const out: PVTopology[] = [];
  for (const v of persistentClaimVolumes(pod)) {
    const pvc = store.claim(pod.namespace, v.claimName);
    if (!pvc) return Status.unresolvable(claimNotFound(v.claimName));
    if (pvc.volumeName === '') {
      if (pvc.storageClassName === '') return Status.unresolvable('PersistentVolumeClaim had no pv name and storageClass name');
      const sc = store.storageClass(pvc.storageClassName);
      if (!sc) return Status.unresolvable(classNotFound(pvc.storageClassName));
      if (sc.volumeBindingMode === 'WaitForFirstConsumer') continue;
      return Status.unresolvable('PersistentVolume had no name');
    }
    const pv = store.persistentVolume(pvc.volumeName);
    if (!pv) return Status.unresolvable(volumeNotFound(pvc.volumeName));
    for (const key of TOPOLOGY_LABELS) {
      const value = pv.labels[key];
      if (value === undefined) continue;
      const values = zonesOf(value);
      if (values) out.push({ key, values });
    }
  }
  return out;
}

export const newVolumeZone: PluginFactory = ({ handle }): PreFilterPlugin & FilterPlugin => ({
  name: VOLUME_ZONE,

  preFilter(state, pod) {
    const topologies = podTopologies(handle, pod);
    if (topologies instanceof Status) return { status: topologies };
    if (topologies.length === 0) return { status: Status.SKIP };
    state.write(STATE_KEY, new VolumeZoneState(topologies));
    return { status: Status.SUCCESS };
  },

  filter(state, pod, nodeInfo) {
    if (!pod.volumes) return Status.SUCCESS;
    const s = state.tryRead<VolumeZoneState>(STATE_KEY);
    const topologies = s ? s.topologies : podTopologies(handle, pod);
    if (topologies instanceof Status) return topologies;
    const labels = nodeInfo.node.labels;
    if (!TOPOLOGY_LABELS.some((k) => Object.hasOwn(labels, k))) return Status.SUCCESS;
    for (const t of topologies) {
      const value = Object.hasOwn(labels, t.key) ? labels[t.key] : labels[GA_OF[t.key] ?? t.key];
      if (value === undefined || !t.values.has(value)) return Status.unresolvable(ERR_REASON_VOLUME_ZONE_CONFLICT);
    }
    return Status.SUCCESS;
  },
});
