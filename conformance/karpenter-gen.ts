// Random provisioning cases for the Karpenter differential run (the cluster state, in-flight
// and deleting NodeClaims, comes from karpenter-state-gen.ts),
// 1–3 NodePools (some tainted NoSchedule or PreferNoSchedule, some with a custom
// `example.com/rack In [...]` requirement), 0–2 DaemonSets (some limited to an
// architecture or instance category, some holding a host port), 1–60 pending pods in
// groups (plain, spread on zone, capacity type, rack or hostname (the hostname spread
// with node affinity that narrows the claim), hostname anti-affinity, node selector /
// node affinity, a host port, required hostname affinity to another group's pods,
// some tolerating the NoSchedule taint), some mounting volumes (karpenter-volumes.ts:
// claims bound to zonal PVs, unbound claims of WaitForFirstConsumer classes with
// allowedTopologies, ephemeral claims, claims neither side can use). Objects are plain
// Kubernetes JSON so both berth's loader and the Go oracle read the very same case.

import fc from 'fast-check';
import { addPodVolumes, emptyStorage, volumeGenArb, type CaseStorage, type VolumeGen } from './karpenter-volumes.js';

export const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c', 'us-west-2d'] as const;
export const CATEGORIES = ['c', 'm', 'r', 't'] as const;
export const ARCHS = ['amd64', 'arm64'] as const;
export const CAPACITY_TYPES = ['on-demand', 'spot'] as const;
/** A custom label key NodePools may require (Karpenter makes each allowed value a topology domain). */
export const RACK_KEY = 'example.com/rack';
export const RACKS = ['r1', 'r2', 'r3'] as const;

export type Obj = Record<string, unknown>;

export interface PoolGen {
  name: string;
  weight: number | null;
  arch: string[] | null;
  category: string[] | null;
  capacityType: string[];
  zone: string[] | null;
  rack: string[] | null;
  limitCpu: number | null;
  taint: PoolTaint;
}

export type PoolTaint = 'none' | 'noSchedule' | 'preferNoSchedule';

/** The NoSchedule taint some pools carry and some groups tolerate. */
export const DEDICATED_TAINT = { key: 'dedicated', value: 'batch', effect: 'NoSchedule' } as const;
export const PREFER_NO_SCHEDULE_TAINT = { key: 'spare', value: 'true', effect: 'PreferNoSchedule' } as const;

/** The host port DaemonSets and hostPort groups use (they conflict on it). */
export const HOST_PORT = 9100;

export interface DaemonSetGen {
  cpuMilli: number;
  memMi: number;
  /** Required node affinity `key In values`, or none. */
  key: string | null;
  values: string[];
  hostPort: boolean;
  tolerateAll: boolean;
}

export type GroupKind = 'plain' | 'zoneSpread' | 'capacitySpread' | 'rackSpread' | 'hostnameSpread' | 'antiAffinity' | 'selector' | 'affinity' | 'hostPort' | 'podAffinity';

/** The topology key of each spread kind; hostnameSpread pods also carry the group's node affinity. */
const SPREAD_KEYS: Partial<Record<GroupKind, string>> = {
  zoneSpread: 'topology.kubernetes.io/zone',
  capacitySpread: 'karpenter.sh/capacity-type',
  rackSpread: RACK_KEY,
  hostnameSpread: 'kubernetes.io/hostname',
};

export interface GroupGen {
  kind: GroupKind;
  count: number;
  cpuMilli: number;
  memMi: number;
  /** selector / affinity: the constrained key and allowed values. */
  key: string;
  values: string[];
  /** Whether the pods tolerate the NoSchedule taint of dedicated pools. */
  tolerate: boolean;
  /** What the group's pods mount (absent in cases written before volumes: none). */
  volume?: VolumeGen;
}

export interface KarpenterCase {
  id: string;
  nodePools: Obj[];
  pods: Obj[];
  daemonSets?: Obj[];
  persistentVolumes?: Obj[];
  persistentVolumeClaims?: Obj[];
  storageClasses?: Obj[];
  /** Cluster state (karpenter-state-gen.ts): launched NodeClaims, their Nodes, pods bound to those. */
  nodeClaims?: Obj[];
  nodes?: Obj[];
  boundPods?: Obj[];
  /** At most this many batches of Karpenter's loop on both sides (absent: one Solve, one planner pass). */
  batches?: number;
}

const subset = <T extends string>(all: readonly T[]) => fc.subarray([...all], { minLength: 1 }).map((xs) => [...xs].sort());

const poolArb = (i: number): fc.Arbitrary<PoolGen> =>
  fc.record({
    name: fc.constant(`np${i}`),
    weight: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null, freq: 2 }),
    arch: fc.option(subset(ARCHS), { nil: null }),
    category: fc.option(subset(CATEGORIES), { nil: null }),
    capacityType: subset(CAPACITY_TYPES),
    zone: fc.option(subset(ZONES), { nil: null, freq: 2 }),
    rack: fc.option(subset(RACKS), { nil: null }),
    limitCpu: fc.option(fc.constantFrom(4, 8, 16, 32, 64, 256), { nil: null, freq: 2 }),
    taint: fc.constantFrom<PoolTaint>('none', 'none', 'none', 'noSchedule', 'preferNoSchedule'),
  });

const CPU = [100, 250, 500, 1000, 1500, 2000, 3500, 4000, 7000, 16000, 48000];
const MEM = [128, 256, 512, 1024, 2048, 4096, 8192, 15000, 30000, 120000];

const groupArb: fc.Arbitrary<GroupGen> = fc
  .record({
    kind: fc.constantFrom<GroupKind>('plain', 'plain', 'zoneSpread', 'capacitySpread', 'rackSpread', 'hostnameSpread', 'antiAffinity', 'selector', 'affinity', 'hostPort', 'podAffinity'),
    count: fc.integer({ min: 1, max: 12 }),
    cpuMilli: fc.constantFrom(...CPU),
    memMi: fc.constantFrom(...MEM),
    keyPick: fc.constantFrom('kubernetes.io/arch', 'topology.kubernetes.io/zone', 'karpenter.sh/capacity-type', 'karpenter.k8s.aws/instance-category'),
    arch: subset(ARCHS),
    zone: subset(ZONES),
    ct: subset(CAPACITY_TYPES),
    cat: subset(CATEGORIES),
    tolerate: fc.boolean(),
    volume: volumeGenArb(ZONES),
  })
  .map((g) => {
    const values =
      g.keyPick === 'kubernetes.io/arch' ? g.arch : g.keyPick === 'topology.kubernetes.io/zone' ? g.zone : g.keyPick === 'karpenter.sh/capacity-type' ? g.ct : g.cat;
    // A nodeSelector takes one value.
    const vs = g.kind === 'selector' ? values.slice(0, 1) : values;
    return { kind: g.kind, count: g.count, cpuMilli: g.cpuMilli, memMi: g.memMi, key: g.keyPick, values: vs, tolerate: g.tolerate, volume: g.volume };
  });

const daemonSetArb: fc.Arbitrary<DaemonSetGen> = fc
  .record({
    cpuMilli: fc.constantFrom(50, 100, 250, 500, 1000),
    memMi: fc.constantFrom(64, 128, 512, 1024),
    keyPick: fc.constantFrom(null, null, 'kubernetes.io/arch', 'karpenter.k8s.aws/instance-category'),
    arch: subset(ARCHS),
    cat: subset(CATEGORIES),
    hostPort: fc.boolean(),
    tolerateAll: fc.boolean(),
  })
  .map((d) => ({
    cpuMilli: d.cpuMilli,
    memMi: d.memMi,
    key: d.keyPick,
    values: d.keyPick === 'kubernetes.io/arch' ? d.arch : d.keyPick === null ? [] : d.cat,
    hostPort: d.hostPort,
    tolerateAll: d.tolerateAll,
  }));

export interface CaseGen {
  pools: PoolGen[];
  groups: GroupGen[];
  daemonSets: DaemonSetGen[];
}

export const caseGenArb: fc.Arbitrary<CaseGen> = fc.integer({ min: 1, max: 3 }).chain((n) =>
  fc.record({
    pools: fc.tuple(...Array.from({ length: n }, (_, i) => poolArb(i))),
    groups: fc.array(groupArb, { minLength: 1, maxLength: 6 }),
    daemonSets: fc.array(daemonSetArb, { maxLength: 2 }),
  }),
);

export function nodePoolObject(p: PoolGen): Obj {
  const requirements: Obj[] = [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: p.capacityType }];
  if (p.arch) requirements.push({ key: 'kubernetes.io/arch', operator: 'In', values: p.arch });
  if (p.category) requirements.push({ key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: p.category });
  if (p.zone) requirements.push({ key: 'topology.kubernetes.io/zone', operator: 'In', values: p.zone });
  if (p.rack) requirements.push({ key: RACK_KEY, operator: 'In', values: p.rack });
  const spec: Obj = {
    template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements } },
  };
  if (p.weight !== null) spec['weight'] = p.weight;
  if (p.limitCpu !== null) spec['limits'] = { cpu: String(p.limitCpu) };
  if (p.taint !== 'none') {
    ((spec['template'] as Obj)['spec'] as Obj)['taints'] = [p.taint === 'noSchedule' ? DEDICATED_TAINT : PREFER_NO_SCHEDULE_TAINT];
  }
  return { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: p.name }, spec };
}

/** `groups` is how many groups the case has: a podAffinity group wants the next group's pods (the first one's when last). */
export function groupPods(g: GroupGen, gi: number, start: number, groups: number): Obj[] {
  const app = `g${gi}`;
  const pods: Obj[] = [];
  for (let i = 0; i < g.count; i++) {
    const container: Obj = { name: 'c', image: 'x', resources: { requests: { cpu: `${g.cpuMilli}m`, memory: `${g.memMi}Mi` } } };
    if (g.kind === 'hostPort') container['ports'] = [{ containerPort: HOST_PORT, hostPort: HOST_PORT, protocol: 'TCP' }];
    const spec: Obj = { containers: [container] };
    const tolerations: Obj[] = [];
    if (g.tolerate) tolerations.push({ key: DEDICATED_TAINT.key, operator: 'Equal', value: DEDICATED_TAINT.value, effect: DEDICATED_TAINT.effect });
    if (tolerations.length > 0) spec['tolerations'] = tolerations;
    const spreadKey = SPREAD_KEYS[g.kind];
    if (spreadKey !== undefined) {
      spec['topologySpreadConstraints'] = [{ maxSkew: 1, topologyKey: spreadKey, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } }];
    }
    if (g.kind === 'antiAffinity') {
      spec['affinity'] = {
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app } }, topologyKey: 'kubernetes.io/hostname' }] },
      };
    } else if (g.kind === 'podAffinity') {
      const target = `g${(gi + 1) % groups}`;
      spec['affinity'] = {
        podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: target } }, topologyKey: 'kubernetes.io/hostname' }] },
      };
    } else if (g.kind === 'selector') {
      spec['nodeSelector'] = { [g.key]: g.values[0]! };
    } else if (g.kind === 'affinity' || g.kind === 'hostnameSpread') {
      spec['affinity'] = {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: g.key, operator: 'In', values: g.values }] }] } },
      };
    }
    pods.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${app}-${i}`, namespace: 'default', uid: `uid-${app}-${i}`, labels: { app }, creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, start + i)).toISOString() },
      spec,
    });
  }
  return pods;
}

export function daemonSetObject(d: DaemonSetGen, i: number): Obj {
  const name = `ds${i}`;
  const container: Obj = { name: 'd', image: 'x', resources: { requests: { cpu: `${d.cpuMilli}m`, memory: `${d.memMi}Mi` } } };
  if (d.hostPort) container['ports'] = [{ containerPort: HOST_PORT, hostPort: HOST_PORT, protocol: 'TCP' }];
  const spec: Obj = { containers: [container] };
  if (d.key !== null) {
    spec['affinity'] = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: d.key, operator: 'In', values: d.values }] }] } } };
  }
  if (d.tolerateAll) spec['tolerations'] = [{ operator: 'Exists' }];
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'kube-system', uid: `uid-ds-${i}` },
    spec: { selector: { matchLabels: { ds: name } }, template: { metadata: { labels: { ds: name } }, spec } },
  };
}

/** Caps the pods at 60, as the brief asks. */
export function buildCase(id: string, g: CaseGen): KarpenterCase {
  const pods: Obj[] = [];
  const storage: CaseStorage = emptyStorage();
  g.groups.forEach((grp, gi) => {
    groupPods(grp, gi, pods.length, g.groups.length).forEach((p, i) => {
      if (pods.length >= 60) return;
      if (grp.volume) addPodVolumes(grp.volume, gi, i, p, storage);
      pods.push(p);
    });
  });
  const c: KarpenterCase = { id, nodePools: g.pools.map(nodePoolObject), pods };
  if (g.daemonSets.length > 0) c.daemonSets = g.daemonSets.map(daemonSetObject);
  if (storage.persistentVolumeClaims.length > 0 || storage.storageClasses.length > 0 || storage.persistentVolumes.length > 0) Object.assign(c, storage);
  return c;
}

/** The case's storage objects (empty lists when it has none). */
export function caseStorage(c: KarpenterCase): CaseStorage {
  return { persistentVolumes: c.persistentVolumes ?? [], persistentVolumeClaims: c.persistentVolumeClaims ?? [], storageClasses: c.storageClasses ?? [] };
}
