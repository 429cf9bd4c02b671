// The PersistentVolume controller (kube-controller-manager's pkg/controller/volume/
// persistentvolume) with the external CSI provisioner it hands dynamic provisioning
// to. An unbound claim of an Immediate class is bound to the smallest matching
// Available volume, else provisioned in the topology the provisioner picks; a
// WaitForFirstConsumer claim waits until the scheduler names the node
// (volume.kubernetes.io/selected-node) and is then provisioned in that node's
// topology after the provisioning delay. A claim's deletion deletes the volume
// provisioned for it (the class's reclaimPolicy defaults to Delete) and releases a
// static one (Retain, the default for PVs written by hand). Claims outlive their
// pods. Without CSINode objects in the input every node is taken to run the
// zonal block-storage drivers (EBS, GCE PD, Azure Disk) with the well-known zone key
// as their topology key, as those drivers report it; other drivers (EFS, NFS, ...)
// report no topology, so their volumes are reachable from every node.

import { LABEL_ZONE } from '../../model/node.js';
import type { Pod } from '../../model/pod.js';
import { compileNodeSelector } from '../../model/selector.js';
import {
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_SELECTED_NODE,
  accessModesSatisfied,
  inTreePluginByProvisioner,
  isVolumeBoundToClaim,
  NO_PROVISIONER,
  volumeModesMatch,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../../model/volumes.js';
import type { World } from '../world.js';
import { chooseTopology, type DriverNode, type TopologyTerm } from './volume-topology.js';

/** CSI drivers whose volumes live in one zone, and the topology key their node plugins report. */
const ZONAL_DRIVERS: ReadonlySet<string> = new Set(['ebs.csi.aws.com', 'pd.csi.storage.gke.io', 'disk.csi.azure.com']);

/** How long CreateVolume takes before the PV exists (an EBS gp3 volume: seconds). */
export const DEFAULT_PROVISION_DELAY_MS = 10_000;

export interface VolumeControllerOptions {
  readonly provisionDelayMs?: number;
}

/** The claim after the controller bound it to `pv`. */
function bound(pvc: PersistentVolumeClaim, pv: PersistentVolume): PersistentVolumeClaim {
  return { ...pvc, volumeName: pv.name, bindCompleted: true, phase: 'Bound', annotations: { ...pvc.annotations, [ANN_BIND_COMPLETED]: 'yes' } };
}

/** findMatchingVolume without a node (the controller's Immediate binding): the smallest Available volume that fits, a pre-bound one first. */
function matchingVolume(pvc: PersistentVolumeClaim, candidates: readonly PersistentVolume[]): PersistentVolume | undefined {
  let best: PersistentVolume | undefined;
  for (const pv of candidates) {
    if (pv.deleting || pv.capacity < pvc.request || !volumeModesMatch(pvc, pv) || !accessModesSatisfied(pvc, pv)) continue;
    if (pv.claimRef !== null) {
      if (isVolumeBoundToClaim(pv, pvc)) return pv;
      continue;
    }
    // Only Available volumes ('' : the input did not say, and the controller makes a new volume Available).
    if (pv.phase !== 'Available' && pv.phase !== '') continue;
    if (pvc.selector && !pvc.selector.matches(pv.labels)) continue;
    if (!best || pv.capacity < best.capacity) best = pv;
  }
  return best;
}

export class PersistentVolumeController {
  private readonly delayMs: number;
  /** Claim uid → the instant its CreateVolume was started (one provisioning at a time per claim). */
  private readonly provisioning = new Map<string, number>();
  /** Volumes this controller provisioned (reclaimPolicy Delete): volume name → claim key. */
  private readonly provisioned = new Map<string, string>();
  private syncQueued = false;

  constructor(
    private readonly world: World,
    opts: VolumeControllerOptions = {},
  ) {
    this.delayMs = opts.provisionDelayMs ?? DEFAULT_PROVISION_DELAY_MS;
  }

  start(): void {
    this.world.onChange((c) => {
      if (c.kind === 'storage' || c.kind === 'nodeAdded' || (c.kind === 'podUpdated' && c.pod.nodeName && !c.old.nodeName)) this.queueSync();
      else if (c.kind === 'podAdded' && hasClaims(c.pod)) this.queueSync();
    });
    this.queueSync();
  }

  /** One pass over every claim and volume at the current instant (the controller's resync, run when something changed). */
  private queueSync(): void {
    if (this.syncQueued) return;
    this.syncQueued = true;
    this.world.engine.at(this.world.engine.now, 'pv-sync', () => {
      this.syncQueued = false;
      this.syncVolumes();
      for (const pvc of [...this.world.cluster.volumes.claims()]) this.syncClaim(pvc);
    });
  }

  /** A volume whose claim is gone: deleted when provisioned for it, Released otherwise. */
  private syncVolumes(): void {
    const store = this.world.cluster.volumes;
    for (const pv of [...store.persistentVolumes()]) {
      if (!pv.claimRef || pv.phase === 'Released') continue;
      const pvc = store.claim(pv.claimRef.namespace, pv.claimRef.name);
      if (pvc && (pv.claimRef.uid === '' || pv.claimRef.uid === pvc.uid)) continue;
      // An assumed binding the scheduler has not completed yet names a live claim; only a vanished claim releases.
      if (this.provisioned.has(pv.name)) {
        this.provisioned.delete(pv.name);
        this.world.deletePersistentVolume(pv.name, 'ClaimDeleted');
      } else {
        this.world.setPersistentVolume({ ...pv, phase: 'Released' }, 'VolumeReleased', { claim: `${pv.claimRef.namespace}/${pv.claimRef.name}` });
      }
    }
  }

  private syncClaim(pvc: PersistentVolumeClaim): void {
    if (pvc.deleting) return;
    const store = this.world.cluster.volumes;
    if (pvc.volumeName !== '') {
      const pv = store.persistentVolume(pvc.volumeName);
      if (pvc.bindCompleted) {
        // syncBoundClaim: the volume is gone.
        if (!pv && pvc.phase !== 'Lost') this.world.setClaim({ ...pvc, phase: 'Lost' }, 'ClaimLost', { volume: pvc.volumeName });
        return;
      }
      // A claim written with spec.volumeName: bind when the volume is free for it.
      if (pv && (pv.claimRef === null || isVolumeBoundToClaim(pv, pvc))) this.bind(pvc, pv);
      return;
    }
    const sc = store.storageClass(pvc.storageClassName);
    const selected = pvc.annotations[ANN_SELECTED_NODE];
    // A WaitForFirstConsumer claim waits for the scheduler's choice of node.
    if (sc?.volumeBindingMode === 'WaitForFirstConsumer' && selected === undefined) return;
    const pv = matchingVolume(pvc, store.persistentVolumesOfClass(pvc.storageClassName));
    if (pv) {
      this.bind(pvc, pv);
      return;
    }
    if (!sc || sc.provisioner === NO_PROVISIONER || this.provisioning.has(pvc.uid)) return;
    this.provisioning.set(pvc.uid, this.world.engine.now);
    this.world.engine.record('ProvisioningStarted', { claim: pvc.key, storageClass: sc.name, ...(selected !== undefined ? { node: selected } : {}) });
    this.world.engine.after(this.delayMs, 'pv-provision', () => {
      this.provisioning.delete(pvc.uid);
      this.provision(pvc.uid, pvc.key, sc.name);
    });
  }

  private bind(pvc: PersistentVolumeClaim, pv: PersistentVolume): void {
    const annotations = isVolumeBoundToClaim(pv, pvc) ? pv.annotations : { ...pv.annotations, [ANN_BOUND_BY_CONTROLLER]: 'yes' };
    this.world.setPersistentVolume({ ...pv, annotations, phase: 'Bound', claimRef: { namespace: pvc.namespace, name: pvc.name, uid: pvc.uid } }, 'VolumeBound', { claim: pvc.key });
    this.world.setClaim(bound(pvc, pv), 'ClaimBound', { volume: pv.name });
  }

  /** The end of CreateVolume: the claim, still unbound, gets a volume in the chosen topology. */
  private provision(uid: string, key: string, className: string): void {
    const store = this.world.cluster.volumes;
    const slash = key.indexOf('/');
    const pvc = store.claim(key.slice(0, slash), key.slice(slash + 1));
    if (!pvc || pvc.uid !== uid || pvc.volumeName !== '' || pvc.deleting) return;
    const sc = store.storageClass(className);
    if (!sc) return;
    const selectedName = pvc.annotations[ANN_SELECTED_NODE];
    const driver = driverOf(sc);
    const nodes = this.driverNodes(driver);
    const selectedNode = selectedName === undefined ? undefined : nodes.find((n) => n.name === selectedName);
    const selected = selectedName === undefined ? undefined : (selectedNode ?? { name: selectedName, labels: {}, topologyKeys: [] });
    // A driver no node reports topology for does not take part in topology (no accessibility constraints).
    const topologyAware = nodes.some((n) => n.topologyKeys.length > 0);
    const choice =
      selectedName !== undefined && !this.world.cluster.nodeInfo(selectedName)
        ? { error: `node "${selectedName}" not found` }
        : !topologyAware
          ? { topology: null }
          : chooseTopology(sc, pvc.name, nodes, selected);
    if ('error' in choice) {
      this.world.engine.record('ProvisioningFailed', { claim: key, message: choice.error });
      if (selectedName !== undefined) {
        // rescheduleProvisioning: the scheduler picks a node again.
        const { [ANN_SELECTED_NODE]: _dropped, ...annotations } = pvc.annotations;
        this.world.setClaim({ ...pvc, annotations }, 'ProvisioningRescheduled', { node: selectedName });
      }
      return;
    }
    const pv = provisionedVolume(pvc, sc, driver, choice.topology);
    this.provisioned.set(pv.name, key);
    this.world.setPersistentVolume(pv, 'VolumeProvisioned', { claim: key, ...(choice.topology ? { topology: choice.topology.map((s) => `${s.key}=${s.value}`).join(',') } : {}) });
    this.world.setClaim(bound(pvc, pv), 'ClaimBound', { volume: pv.name });
  }

  /** The nodes where the driver runs, with its topology keys: from CSINodes, or every node with the zone key when the input has none. */
  private driverNodes(driver: string): DriverNode[] {
    const { cluster } = this.world;
    const infos = cluster.nodeInfos();
    const withCSINodes = infos.some((i) => cluster.volumes.csiNode(i.node.name) !== undefined);
    const out: DriverNode[] = [];
    for (const { node } of infos) {
      if (!withCSINodes) {
        out.push({ name: node.name, labels: node.labels, topologyKeys: ZONAL_DRIVERS.has(driver) ? [LABEL_ZONE] : [] });
        continue;
      }
      const d = cluster.volumes.csiNode(node.name)?.drivers.find((x) => x.name === driver);
      if (d) out.push({ name: node.name, labels: node.labels, topologyKeys: d.topologyKeys });
    }
    return out;
  }
}

function hasClaims(pod: Pod): boolean {
  return (pod.volumes ?? []).some((v) => v.kind === 'claim');
}

/** The CSI driver that provisions for the class (an in-tree provisioner is migrated to its driver). */
function driverOf(sc: StorageClass): string {
  return inTreePluginByProvisioner(sc.provisioner)?.driver ?? sc.provisioner;
}

/** The PV the provisioner creates: named pvc-<claim uid>, sized as requested, pinned to the topology the driver chose. */
function provisionedVolume(pvc: PersistentVolumeClaim, sc: StorageClass, driver: string, topology: TopologyTerm | null): PersistentVolume {
  // pvc-<claim uid>; a claim from the input may have namespace/name as its uid, which a name cannot hold.
  const name = `pvc-${pvc.uid.replaceAll('/', '-')}`;
  const nodeAffinity = topology && topology.length > 0 ? compileNodeSelector({ nodeSelectorTerms: [{ matchExpressions: topology.map((s) => ({ key: s.key, operator: 'In' as const, values: [s.value] })) }] }) : null;
  return {
    name,
    uid: name,
    labels: {},
    annotations: { 'pv.kubernetes.io/provisioned-by': driver },
    storageClassName: sc.name,
    capacity: pvc.request,
    accessModes: pvc.accessModes,
    volumeMode: pvc.volumeMode,
    claimRef: { namespace: pvc.namespace, name: pvc.name, uid: pvc.uid },
    nodeAffinity,
    source: { kind: 'csi', driver, volumeHandle: name, readOnly: false },
    phase: 'Bound',
    deleting: false,
  };
}
