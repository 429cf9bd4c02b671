// The storage half of the cluster: the listers the volume plugins read
// (PersistentVolumes, claims, StorageClasses, CSINodes, CSIDrivers,
// CSIStorageCapacities, VolumeAttachments) with the indexes they need, and the
// scheduler's assume step (a claim bound to a volume or given a selected node
// when a pod is placed, seen by the next pod).

import type { CSIDriver, CSINode, CSIStorageCapacity, PersistentVolume, PersistentVolumeClaim, StorageClass, VolumeAttachment } from '../model/volumes.js';

/** Storage objects to fill a VolumeStore with (what io/'s loader produces). */
export interface StorageInput {
  readonly persistentVolumes?: readonly PersistentVolume[];
  readonly persistentVolumeClaims?: readonly PersistentVolumeClaim[];
  readonly storageClasses?: readonly StorageClass[];
  readonly csiNodes?: readonly CSINode[];
  readonly csiDrivers?: readonly CSIDriver[];
  readonly csiStorageCapacities?: readonly CSIStorageCapacity[];
  readonly volumeAttachments?: readonly VolumeAttachment[];
}

const NONE: readonly PersistentVolume[] = Object.freeze([]);

export class VolumeStore {
  private readonly pvs = new Map<string, PersistentVolume>();
  /** storage class name → PVs of that class, in insertion order (the PV assume cache's class index). */
  private readonly pvsByClass = new Map<string, PersistentVolume[]>();
  private readonly pvcs = new Map<string, PersistentVolumeClaim>();
  private readonly classes = new Map<string, StorageClass>();
  private readonly csiNodes = new Map<string, CSINode>();
  private readonly drivers = new Map<string, CSIDriver>();
  private readonly capacityList: CSIStorageCapacity[] = [];
  private readonly attachmentsByNode = new Map<string, VolumeAttachment[]>();
  /** Bumped on every change. */
  version = 0;

  constructor(input: StorageInput = {}) {
    for (const pv of input.persistentVolumes ?? []) this.setPersistentVolume(pv);
    for (const pvc of input.persistentVolumeClaims ?? []) this.setClaim(pvc);
    for (const sc of input.storageClasses ?? []) this.classes.set(sc.name, sc);
    for (const n of input.csiNodes ?? []) this.csiNodes.set(n.name, n);
    for (const d of input.csiDrivers ?? []) this.drivers.set(d.name, d);
    this.capacityList.push(...(input.csiStorageCapacities ?? []));
    for (const va of input.volumeAttachments ?? []) {
      const list = this.attachmentsByNode.get(va.nodeName);
      if (list) list.push(va);
      else this.attachmentsByNode.set(va.nodeName, [va]);
    }
  }

  /** True when the store holds no storage object at all (the volume plugins then have nothing to look up). */
  get empty(): boolean {
    return this.pvs.size + this.pvcs.size + this.classes.size + this.csiNodes.size + this.drivers.size + this.capacityList.length + this.attachmentsByNode.size === 0;
  }

  persistentVolume(name: string): PersistentVolume | undefined {
    return this.pvs.get(name);
  }

  /** Every PV of a storage class ('' for class-less PVs), in insertion order. */
  persistentVolumesOfClass(className: string): readonly PersistentVolume[] {
    return this.pvsByClass.get(className) ?? NONE;
  }

  persistentVolumes(): IterableIterator<PersistentVolume> {
    return this.pvs.values();
  }

  claim(namespace: string, name: string): PersistentVolumeClaim | undefined {
    return this.pvcs.get(`${namespace}/${name}`);
  }

  claims(): IterableIterator<PersistentVolumeClaim> {
    return this.pvcs.values();
  }

  storageClass(name: string): StorageClass | undefined {
    return this.classes.get(name);
  }

  storageClasses(): IterableIterator<StorageClass> {
    return this.classes.values();
  }

  csiNode(nodeName: string): CSINode | undefined {
    return this.csiNodes.get(nodeName);
  }

  csiDriver(name: string): CSIDriver | undefined {
    return this.drivers.get(name);
  }

  /** Every CSIStorageCapacity, in input order (the lister's List). */
  capacities(): readonly CSIStorageCapacity[] {
    return this.capacityList;
  }

  /** VolumeAttachments whose spec.nodeName is this node. */
  attachmentsOn(nodeName: string): readonly VolumeAttachment[] {
    return this.attachmentsByNode.get(nodeName) ?? [];
  }

  /** Adds or replaces a PV (a binding the scheduler assumed, a volume the PV controller provisioned). */
  setPersistentVolume(pv: PersistentVolume): void {
    const old = this.pvs.get(pv.name);
    if (old) {
      const list = this.pvsByClass.get(old.storageClassName)!;
      if (old.storageClassName === pv.storageClassName) list[list.indexOf(old)] = pv;
      else list.splice(list.indexOf(old), 1);
    }
    if (!old || old.storageClassName !== pv.storageClassName) {
      const list = this.pvsByClass.get(pv.storageClassName);
      if (list) list.push(pv);
      else this.pvsByClass.set(pv.storageClassName, [pv]);
    }
    this.pvs.set(pv.name, pv);
    this.version++;
  }

  /** Adds or replaces a claim. */
  setClaim(pvc: PersistentVolumeClaim): void {
    this.pvcs.set(pvc.key, pvc);
    this.version++;
  }

  removeClaim(namespace: string, name: string): void {
    if (this.pvcs.delete(`${namespace}/${name}`)) this.version++;
  }

  removePersistentVolume(name: string): void {
    const old = this.pvs.get(name);
    if (!old) return;
    const list = this.pvsByClass.get(old.storageClassName)!;
    list.splice(list.indexOf(old), 1);
    this.pvs.delete(name);
    this.version++;
  }

  /** Adds or replaces a node's CSINode (a CSI node plugin registered on a new node). */
  setCSINode(n: CSINode): void {
    this.csiNodes.set(n.name, n);
    this.version++;
  }

  /** The node's CSINode goes with its Node (the garbage collector follows its owner reference). */
  removeCSINode(nodeName: string): void {
    if (this.csiNodes.delete(nodeName)) this.version++;
  }

  /** A CSINode listing `driver`, if any: evidence the cluster runs that driver's node plugin. */
  csiNodeWithDriver(driver: string): CSINode | undefined {
    for (const n of this.csiNodes.values()) if (n.drivers.some((d) => d.name === driver)) return n;
    return undefined;
  }

  /** Adds or replaces a StorageClass (a scenario step). */
  setStorageClass(sc: StorageClass): void {
    this.classes.set(sc.name, sc);
    this.version++;
  }

  removeStorageClass(name: string): void {
    if (this.classes.delete(name)) this.version++;
  }

  /** A copy that can be changed without touching this one (objects are immutable, only the indexes are copied). */
  clone(): VolumeStore {
    const c = new VolumeStore({
      persistentVolumes: [...this.pvs.values()],
      persistentVolumeClaims: [...this.pvcs.values()],
      storageClasses: [...this.classes.values()],
      csiNodes: [...this.csiNodes.values()],
      csiDrivers: [...this.drivers.values()],
      csiStorageCapacities: this.capacityList,
      volumeAttachments: [...this.attachmentsByNode.values()].flat(),
    });
    c.version = this.version;
    return c;
  }
}
