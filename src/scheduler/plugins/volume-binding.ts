// VolumeBinding: a pod's claims must be bound to volumes its node can reach, or
// be bindable there. Bound claims: the volume's node affinity (an in-tree EBS/PD
// volume read as its CSI translation on nodes that migrated the plugin).
// WaitForFirstConsumer claims: an available volume of the class that fits
// (smallest first), else dynamic provisioning that the class's allowedTopologies
// and, for drivers that publish it, CSIStorageCapacity allow. Immediate claims
// that are still unbound make the pod wait. Score (StorageCapacityScoring, on in
// v1.37): each class's requested/capacity ratio of the volumes the pod would bind
// (or of the CSIStorageCapacity it would provision from) through the args' shape,
// by default 100 at utilization 0 falling to 0 at 100, so the roomiest node wins.
// Reserve assumes the chosen volumes; PreBind completes static bindings (the PV
// controller's part) and leaves provisioned claims marked with the selected node.

import type { NodeInfo } from '../../cluster/node-info.js';
import type { VolumeStore } from '../../cluster/volumes.js';
import type { Node } from '../../model/node.js';
import type { Pod } from '../../model/pod.js';
import {
  accessModesSatisfied,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_SELECTED_NODE,
  ephemeralClaimOwnerError,
  isVolumeBoundToClaim,
  matchesAllowedTopologies,
  NO_PROVISIONER,
  pvMatchesNode,
  translateInTreePV,
  volumeModesMatch,
  type CSIStorageCapacity,
  type PersistentVolume,
  type PersistentVolumeClaim,
} from '../../model/volumes.js';
import type { FilterPlugin, Handle, PreBindPlugin, PreFilterPlugin, PreScorePlugin, ReservePlugin, ScorePlugin, StateData } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { featureEnabled } from '../feature-gates.js';
import { SchedulerError, Status } from '../status.js';
import { brokenLinear, type ShapePoint } from './resource-scoring.js';
import { claimNotFound, claimVolumes } from './volume-lookups.js';

export const VOLUME_BINDING = 'VolumeBinding';
const STATE_KEY = VOLUME_BINDING;

export const ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
export const ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity";
export const ERR_REASON_NOT_ENOUGH_SPACE = 'node(s) did not have enough free storage';
export const ERR_REASON_PV_NOT_EXIST = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';

const MAX_UTILIZATION = 100;
/** The default VolumeBindingArgs shape with StorageCapacityScoring: utilization 0 scores 10, 100 scores 0 (× 10 to node scores). */
const DEFAULT_SHAPE: readonly ShapePoint[] = [
  { utilization: 0, score: 100 },
  { utilization: 100, score: 0 },
];

interface PodVolumeClaims {
  readonly bound: readonly PersistentVolumeClaim[];
  readonly delayBinding: readonly PersistentVolumeClaim[];
  /** class → its PVs, as listed when PreFilter ran. */
  readonly volumesByClass: ReadonlyMap<string, readonly PersistentVolume[]>;
}

interface StaticBinding {
  readonly pv: PersistentVolume;
  readonly pvc: PersistentVolumeClaim;
}

interface DynamicProvision {
  readonly pvc: PersistentVolumeClaim;
  /** The CSIStorageCapacity that showed room, when the driver publishes capacity. */
  readonly capacity: CSIStorageCapacity | undefined;
}

interface PodVolumes {
  readonly staticBindings: readonly StaticBinding[];
  readonly dynamicProvisions: readonly DynamicProvision[];
}

class VolumeBindingState implements StateData {
  readonly podVolumesByNode = new Map<string, PodVolumes>();
  hasStaticBindings = false;
  allBound = false;
  constructor(readonly claims: PodVolumeClaims | null) {}
  /** Shared between clones, as upstream's stateData.Clone returns itself. */
  clone(): StateData {
    return this;
  }
}

/** isPVCFullyBound: a volume name and the PV controller's bind-completed mark. */
const fullyBound = (pvc: PersistentVolumeClaim) => pvc.volumeName !== '' && pvc.bindCompleted;

/** volume.FindMatchingVolume for delayed binding on `node`: the claim's pre-bound volume, else the smallest available one that fits. */
export function findMatchingVolume(claim: PersistentVolumeClaim, volumes: readonly PersistentVolume[], node: Node, excluded: ReadonlySet<string>): PersistentVolume | undefined {
  let smallest: PersistentVolume | undefined;
  // CheckNodeAffinity builds a node from labels alone: matchFields never match.
  const labelsOnly = { name: '', labels: node.labels };
  for (const pv of volumes) {
    if (excluded.has(pv.name)) continue;
    if (pv.claimRef !== null && !isVolumeBoundToClaim(pv, claim)) continue;
    if (pv.capacity < claim.request) continue;
    if (!volumeModesMatch(claim, pv)) continue;
    if (pv.deleting) continue;
    const affinityOk = pvMatchesNode(pv, labelsOnly);
    if (isVolumeBoundToClaim(pv, claim)) return affinityOk ? pv : undefined;
    if (pv.phase !== 'Available') continue;
    if (claim.selector !== null && !claim.selector.matches(pv.labels)) continue;
    if (pv.storageClassName !== claim.storageClassName) continue;
    if (!affinityOk) continue;
    if (!accessModesSatisfied(claim, pv)) continue;
    if (smallest === undefined || smallest.capacity > pv.capacity) smallest = pv;
  }
  return smallest;
}

/** capacitySufficient: maximumVolumeSize when published, else capacity. */
function volumeLimit(c: CSIStorageCapacity): number | undefined {
  return c.maximumVolumeSize ?? c.capacity;
}

interface Verdict {
  boundSatisfied: boolean;
  unboundSatisfied: boolean;
  sufficientStorage: boolean;
  boundPVsFound: boolean;
}

class Binder {
  constructor(private readonly store: () => VolumeStore) {}

  /** GetPodVolumeClaims; the claims exist (PreFilter checked). */
  podVolumeClaims(pod: Pod): { claims: PodVolumeClaims; immediate: number } {
    const store = this.store();
    const bound: PersistentVolumeClaim[] = [];
    const delayBinding: PersistentVolumeClaim[] = [];
    let immediate = 0;
    for (const v of claimVolumes(pod)) {
      const pvc = store.claim(pod.namespace, v.claimName)!;
      if (fullyBound(pvc)) {
        bound.push(pvc);
        continue;
      }
      // IsDelayBindingMode: a missing class (or none) binds immediately.
      const sc = pvc.storageClassName === '' ? undefined : store.storageClass(pvc.storageClassName);
      if (sc?.volumeBindingMode === 'WaitForFirstConsumer' && pvc.volumeName === '') delayBinding.push(pvc);
      else immediate++;
    }
    const volumesByClass = new Map<string, readonly PersistentVolume[]>();
    for (const pvc of delayBinding) volumesByClass.set(pvc.storageClassName, [...store.persistentVolumesOfClass(pvc.storageClassName)]);
    return { claims: { bound, delayBinding, volumesByClass }, immediate };
  }

  /** FindPodVolumes: what binding on `node` would take, or why it cannot. */
  findPodVolumes(claims: PodVolumeClaims, node: Node): { podVolumes: PodVolumes; reasons: string[] } {
    const v: Verdict = { boundSatisfied: true, unboundSatisfied: true, sufficientStorage: true, boundPVsFound: true };
    let staticBindings: StaticBinding[] = [];
    let dynamicProvisions: DynamicProvision[] = [];
    const done = () => {
      const reasons: string[] = [];
      if (!v.boundSatisfied) reasons.push(ERR_REASON_NODE_CONFLICT);
      if (!v.unboundSatisfied) reasons.push(ERR_REASON_BIND_CONFLICT);
      if (!v.sufficientStorage) reasons.push(ERR_REASON_NOT_ENOUGH_SPACE);
      if (!v.boundPVsFound) reasons.push(ERR_REASON_PV_NOT_EXIST);
      return { podVolumes: { staticBindings, dynamicProvisions }, reasons };
    };
    if (claims.bound.length > 0) this.checkBoundClaims(claims.bound, node, v);
    if (claims.delayBinding.length > 0) {
      const toFind: PersistentVolumeClaim[] = [];
      const toProvision: PersistentVolumeClaim[] = [];
      for (const pvc of claims.delayBinding) {
        const selected = pvc.annotations[ANN_SELECTED_NODE];
        if (selected === undefined) toFind.push(pvc);
        else if (selected !== node.name) {
          v.unboundSatisfied = false;
          return done();
        } else toProvision.push(pvc);
      }
      if (toFind.length > 0) {
        const found = this.findMatchingVolumes(toFind, claims.volumesByClass, node);
        v.unboundSatisfied = found.unbound.length === 0;
        staticBindings = found.bindings;
        toProvision.push(...found.unbound);
      }
      if (toProvision.length > 0) {
        const p = this.checkVolumeProvisions(toProvision, node);
        v.unboundSatisfied = p.satisfied;
        v.sufficientStorage = p.sufficient;
        dynamicProvisions = p.provisions;
      }
    }
    return done();
  }

  private checkBoundClaims(bound: readonly PersistentVolumeClaim[], node: Node, v: Verdict): void {
    const store = this.store();
    const csiNode = store.csiNode(node.name);
    const labelsOnly = { name: '', labels: node.labels };
    for (const pvc of bound) {
      const found = store.persistentVolume(pvc.volumeName);
      if (!found) {
        v.boundPVsFound = false;
        return;
      }
      // tryTranslatePVToCSI: only where the node's CSINode lists the in-tree plugin as migrated.
      const migrated = found.source.kind === 'awsElasticBlockStore' || found.source.kind === 'gcePersistentDisk';
      const pv = migrated && csiNode?.migratedPlugins.has(found.source.kind === 'awsElasticBlockStore' ? 'kubernetes.io/aws-ebs' : 'kubernetes.io/gce-pd') ? translateInTreePV(found) : found;
      if (!pvMatchesNode(pv, labelsOnly)) {
        v.boundSatisfied = false;
        return;
      }
    }
  }

  private findMatchingVolumes(claims: readonly PersistentVolumeClaim[], byClass: ReadonlyMap<string, readonly PersistentVolume[]>, node: Node): { bindings: StaticBinding[]; unbound: PersistentVolumeClaim[] } {
    // Smallest request first (byPVCSize; a stable sort, as Go's is for so few claims).
    const sorted = [...claims].sort((a, b) => a.request - b.request);
    const chosen = new Set<string>();
    const bindings: StaticBinding[] = [];
    const unbound: PersistentVolumeClaim[] = [];
    for (const pvc of sorted) {
      const pv = findMatchingVolume(pvc, byClass.get(pvc.storageClassName) ?? [], node, chosen);
      if (!pv) {
        unbound.push(pvc);
        continue;
      }
      chosen.add(pv.name);
      bindings.push({ pv, pvc });
    }
    return { bindings, unbound };
  }

  private checkVolumeProvisions(claims: readonly PersistentVolumeClaim[], node: Node): { satisfied: boolean; sufficient: boolean; provisions: DynamicProvision[] } {
    const store = this.store();
    const provisions: DynamicProvision[] = [];
    for (const pvc of claims) {
      if (pvc.storageClassName === '') throw new SchedulerError(`no class for claim "${pvc.key}"`);
      const sc = store.storageClass(pvc.storageClassName);
      if (!sc) throw new SchedulerError(`failed to find storage class "${pvc.storageClassName}"`);
      if (sc.provisioner === '' || sc.provisioner === NO_PROVISIONER) return { satisfied: false, sufficient: true, provisions: [] };
      if (!matchesAllowedTopologies(sc, node.labels)) return { satisfied: false, sufficient: true, provisions: [] };
      const room = this.hasEnoughCapacity(sc.provisioner, sc.name, pvc, node);
      if (!room.sufficient) return { satisfied: true, sufficient: false, provisions: [] };
      provisions.push({ pvc, capacity: room.capacity });
    }
    return { satisfied: true, sufficient: true, provisions };
  }

  /** hasEnoughCapacity: only drivers whose CSIDriver says storageCapacity are checked; then some capacity the node reaches must hold the claim. */
  private hasEnoughCapacity(provisioner: string, className: string, pvc: PersistentVolumeClaim, node: Node): { sufficient: boolean; capacity?: CSIStorageCapacity } {
    const store = this.store();
    const driver = store.csiDriver(provisioner);
    if (!driver || !driver.storageCapacity) return { sufficient: true };
    for (const c of store.capacities()) {
      const limit = volumeLimit(c);
      if (c.storageClassName === className && limit !== undefined && limit >= pvc.request && c.nodeTopology !== null && c.nodeTopology.matches(node.labels)) {
        return { sufficient: true, capacity: c };
      }
    }
    return { sufficient: false };
  }
}

/** Reads VolumeBindingArgs: bindTimeoutSeconds (accepted; berth binds at once) and shape (utilization → score 0–10). */
function parseShape(args: Readonly<Record<string, unknown>>): readonly ShapePoint[] {
  const shape = args['shape'];
  if (shape === undefined) return DEFAULT_SHAPE;
  if (!Array.isArray(shape) || shape.length === 0) throw new Error('shape: Required value: at least one point must be specified');
  return shape.map((p: { utilization?: number; score?: number }, i) => {
    const u = p.utilization ?? 0;
    const sc = p.score ?? 0;
    if (!Number.isInteger(u) || u < 0 || u > 100) throw new Error(`shape[${i}].utilization: Invalid value: ${u}: not in valid range [0-100]`);
    if (!Number.isInteger(sc) || sc < 0 || sc > 10) throw new Error(`shape[${i}].score: Invalid value: ${sc}: not in valid range [0-10]`);
    return { utilization: u, score: sc * 10 };
  });
}

/** buildScorerFunction: each class scores its requested/capacity ratio through the shape; the node gets the rounded mean. */
function capacityScorer(shape: readonly ShapePoint[]): (classes: ReadonlyMap<string, { requested: number; capacity: number }>) => number {
  const f = brokenLinear(shape);
  const classScore = (requested: number, capacity: number) => (capacity === 0 || requested > capacity ? f(MAX_UTILIZATION) : f(Math.trunc((requested * MAX_UTILIZATION) / capacity)));
  return (classes) => {
    if (classes.size === 0) return 0;
    let sum = 0;
    for (const r of classes.values()) sum += classScore(r.requested, r.capacity);
    return Math.round(sum / classes.size);
  };
}

export type VolumeBindingPlugin = PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin & ReservePlugin & PreBindPlugin;


/** The claim after the PV controller bound it to `pv` (what PreBind waits for). */
function boundClaim(pvc: PersistentVolumeClaim, pv: PersistentVolume): PersistentVolumeClaim {
  return { ...pvc, volumeName: pv.name, bindCompleted: true, phase: 'Bound', annotations: { ...pvc.annotations, [ANN_BIND_COMPLETED]: 'yes' } };
}

export const newVolumeBinding: PluginFactory = ({ handle, args, features }) => {
  const binder = new Binder(() => handle.cluster.volumes);
  // With StorageCapacityScoring off upstream builds no scorer: PreScore skips, and a configured shape is refused.
  if (!featureEnabled(features, 'StorageCapacityScoring')) {
    if (args['shape'] !== undefined) throw new Error(`shape: Invalid value: ${JSON.stringify(args['shape'])}: unexpected field \`shape\`, remove it or turn on the feature gate StorageCapacityScoring`);
    return volumeBindingPlugin(handle, binder, null);
  }
  return volumeBindingPlugin(handle, binder, capacityScorer(parseShape(args)));
};

function volumeBindingPlugin(handle: Handle, binder: Binder, scorer: ReturnType<typeof capacityScorer> | null): VolumeBindingPlugin {
  const store = () => handle.cluster.volumes;
  return {
    name: VOLUME_BINDING,

    preFilter(state, pod) {
      const volumes = claimVolumes(pod);
      if (volumes.length === 0) {
        state.write(STATE_KEY, new VolumeBindingState(null));
        return { status: Status.SKIP };
      }
      // podHasPVCs: every claim exists, is not lost or being deleted, and an ephemeral one belongs to the pod.
      for (const v of volumes) {
        const pvc = store().claim(pod.namespace, v.claimName);
        if (!pvc) {
          const message = v.ephemeral ? `waiting for ephemeral volume controller to create the persistentvolumeclaim ${JSON.stringify(v.claimName)}` : claimNotFound(v.claimName);
          return { status: Status.unresolvable(message) };
        }
        if (pvc.phase === 'Lost') return { status: Status.unresolvable(`persistentvolumeclaim ${JSON.stringify(pvc.name)} bound to non-existent persistentvolume ${JSON.stringify(pvc.volumeName)}`) };
        if (pvc.deleting) return { status: Status.unresolvable(`persistentvolumeclaim ${JSON.stringify(pvc.name)} is being deleted`) };
        if (v.ephemeral) {
          const err = ephemeralClaimOwnerError(pod, pvc);
          if (err) return { status: Status.unresolvable(err) };
        }
      }
      const { claims, immediate } = binder.podVolumeClaims(pod);
      if (immediate > 0) return { status: Status.unresolvable(UNBOUND_IMMEDIATE) };
      state.write(STATE_KEY, new VolumeBindingState(claims));
      return { status: Status.SUCCESS };
    },

    filter(state, _pod, nodeInfo: NodeInfo) {
      const s = state.tryRead<VolumeBindingState>(STATE_KEY);
      if (!s) return Status.error(`reading "${STATE_KEY}" from cycleState: not found`);
      if (s.claims === null) return Status.SUCCESS;
      const { podVolumes, reasons } = binder.findPodVolumes(s.claims, nodeInfo.node);
      if (reasons.length > 0) return Status.unresolvable(...reasons);
      s.podVolumesByNode.set(nodeInfo.node.name, podVolumes);
      if (podVolumes.staticBindings.length > 0) s.hasStaticBindings = true;
      return Status.SUCCESS;
    },

    // With StorageCapacityScoring on, PreScore never skips: pods without claims score 0 everywhere.
    preScore: () => (scorer === null ? Status.SKIP : Status.SUCCESS),

    // Most pods have no claims: every node scores 0 without a lookup per node.
    scoreAll(state, pod, nodes, out, offset) {
      const s = scorer === null ? undefined : state.tryRead<VolumeBindingState>(STATE_KEY);
      for (let j = 0; j < nodes.length; j++) out[offset + j] = s && s.podVolumesByNode.size > 0 ? this.score(state, pod, nodes[j]!) : 0;
    },

    score(state, _pod, nodeInfo) {
      if (scorer === null) return 0;
      const podVolumes = state.tryRead<VolumeBindingState>(STATE_KEY)?.podVolumesByNode.get(nodeInfo.node.name);
      if (!podVolumes) return 0;
      const classes = new Map<string, { requested: number; capacity: number }>();
      const entry = (name: string) => {
        let r = classes.get(name);
        if (!r) classes.set(name, (r = { requested: 0, capacity: 0 }));
        return r;
      };
      if (podVolumes.staticBindings.length > 0) {
        for (const { pv, pvc } of podVolumes.staticBindings) {
          const r = entry(pv.storageClassName);
          r.requested += pvc.request;
          r.capacity += pv.capacity;
        }
      } else {
        for (const { pvc, capacity } of podVolumes.dynamicProvisions) {
          if (!capacity) continue;
          const r = entry(pvc.storageClassName);
          // Upstream takes the capacity (not the maximum volume size), replacing rather than adding.
          r.capacity = capacity.capacity ?? 0;
          r.requested += pvc.request;
        }
      }
      return scorer(classes);
    },

    reserve(state, pod, nodeName) {
      const s = state.tryRead<VolumeBindingState>(STATE_KEY);
      const podVolumes = s?.podVolumesByNode.get(nodeName);
      if (!s || !podVolumes) {
        if (s) s.allBound = true;
        return Status.SUCCESS;
      }
      // AssumePodVolumes: volumes take a claimRef to their claim, provisioned claims the selected node.
      const volumes = store();
      s.allBound = claimVolumes(pod).every((v) => {
        const pvc = volumes.claim(pod.namespace, v.claimName);
        return pvc !== undefined && fullyBound(pvc);
      });
      if (s.allBound) return Status.SUCCESS;
      for (const { pv, pvc } of podVolumes.staticBindings) {
        if (isVolumeBoundToClaim(pv, pvc) && pv.claimRef?.uid === pvc.uid) continue;
        const annotations = isVolumeBoundToClaim(pv, pvc) ? pv.annotations : { ...pv.annotations, [ANN_BOUND_BY_CONTROLLER]: 'yes' };
        volumes.setPersistentVolume({ ...pv, annotations, claimRef: { namespace: pvc.namespace, name: pvc.name, uid: pvc.uid } });
      }
      for (const { pvc } of podVolumes.dynamicProvisions) volumes.setClaim({ ...pvc, annotations: { ...pvc.annotations, [ANN_SELECTED_NODE]: nodeName } });
      return Status.SUCCESS;
    },

    preBind(state, _pod, nodeName) {
      const s = state.tryRead<VolumeBindingState>(STATE_KEY);
      if (!s || s.allBound) return Status.SKIP;
      const podVolumes = s.podVolumesByNode.get(nodeName);
      if (!podVolumes) return Status.error(`no pod volume found for node "${nodeName}"`);
      // The PV controller completes static bindings; provisioned claims wait for their
      // volume (the simulator's PV controller creates it in the node's topology).
      const volumes = store();
      for (const { pv, pvc } of podVolumes.staticBindings) {
        const assumed = volumes.persistentVolume(pv.name) ?? pv;
        volumes.setPersistentVolume({ ...assumed, phase: 'Bound' });
        volumes.setClaim(boundClaim(volumes.claim(pvc.namespace, pvc.name) ?? pvc, assumed));
      }
      return Status.SUCCESS;
    },
  };
}
