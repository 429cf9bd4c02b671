// Random disruption cases for the Karpenter disruption differential run: a running
// cluster of 1–7 nodes from 1–2 NodePools (several instance types, capacity types
// and zones), each node with its Karpenter NodeClaim (hash stamp, Initialized
// condition, last pod event), pods bound to them in groups (plain, hostname
// anti-affinity, legacy anti-affinity whose selector upstream cannot parse, zone and
// hostname spread, PDBs, do-not-disrupt "true" or a
// duration against pods started at different times, terminating ReplicaSet and
// StatefulSet pods, pod-deletion costs that change eviction costs), DaemonSet pods on
// every node (with or without a PDB), budgets (per reason, scheduled), consolidation
// policies (Balanced too) and consolidateAfter windows, NodeClaims stamped with an
// older template (drifted) or left out by a narrowed NodePool requirement, nodes
// without a capacity-type label, nodes NotReady (tainted as the node lifecycle
// controller taints them), NodePools with a startup taint that their uninitialized
// nodes still carry, the SpotToSpotConsolidation gate on or off.
// Objects are plain Kubernetes JSON so berth's loader and the Go oracle read the
// very same case.

import fc from 'fast-check';
import { compileNodePool, type NodePool } from '../src/model/nodepool.js';
import { NODEPOOL_HASH_VERSION } from '../src/model/nodepool-hash.js';
import { launchedNodeLabels } from '../src/provisioner/launched-node.js';
import type { InstanceType } from '../src/provisioner/catalog/types.js';
import type { Obj } from './karpenter-gen.js';

export const NODE_TYPES = ['t3.medium', 't3.large', 't3.xlarge', 'm5.large', 'm5.xlarge', 'm5.2xlarge', 'm5.4xlarge', 'c5.large', 'c5.xlarge', 'c5.2xlarge', 'r5.large', 'r5.xlarge'] as const;
const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c'] as const;
/** The instant every case is decided at. */
export const NOW = Date.parse('2026-06-01T12:00:00Z');
const MINUTE = 60_000;
/** A NodePool's startup taint, as an agent on the node would remove once it is set up. */
const STARTUP_TAINT = { key: 'example.com/agent-not-ready', value: 'true', effect: 'NoSchedule' };
/** The taint the node lifecycle controller gives a node by its Ready condition (TaintNodesByCondition). */
const NOT_READY_TAINTS = { False: { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }, Unknown: { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' } } as const;

export interface PoolGen {
  capacityTypes: string[];
  policy: 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';
  consolidateAfter: '0s' | '30s' | '10m' | 'Never';
  budget: string;
  /** A budget only for some reasons, in addition to `budget`. */
  reasonBudget: { nodes: string; reasons: string[] } | null;
  /** A budget of 0 in a daily window: active at NOW (09:00 for 8h) or not (14:00 for 2h). */
  scheduledBudget: { active: boolean; reasons: string[] | null } | null;
  /** The NodePool now excludes the zone us-west-2c: nodes there are requirement-drifted. */
  narrowZones: boolean;
  terminationGracePeriod: boolean;
  /** The template has a startup taint: its uninitialized nodes still carry it, initialized ones no longer do. */
  startupTaint: boolean;
}

export interface NodeGen {
  pool: number;
  type: number;
  zone: number;
  spot: boolean;
  /** Minutes before NOW the node was created. */
  ageMin: number;
  /** Minutes before NOW a pod last arrived or left; null: none since it initialized. */
  lastPodEventMin: number | null;
  /** Its NodeClaim carries the hash of an older template (team: old). */
  staleHash: boolean;
  doNotDisrupt: boolean;
  /** Node and NodeClaim lack karpenter.sh/capacity-type (Karpenter: Unconsolidatable). */
  noCapacityType: boolean;
  /** Registered but not initialized yet (no karpenter.sh/initialized, no Initialized condition): no candidate, and tried last. */
  uninitialized: boolean;
  /** Ready False with the not-ready:NoSchedule taint, or Unknown with unreachable:NoSchedule (the node lifecycle controller's). */
  notReady: 'no' | 'False' | 'Unknown';
}

/** legacyAntiAffinity: running pods whose required anti-affinity selector has a label value the API server refuses today (Karpenter reads it as selecting nothing). */
export type GroupKind = 'plain' | 'antiAffinity' | 'legacyAntiAffinity' | 'zoneSpread' | 'hostSpread';

export interface GroupGen {
  kind: GroupKind;
  count: number;
  cpuMilli: number;
  memMi: number;
  pdb: 'none' | 'maxUnavailable0' | 'maxUnavailable1' | 'minAvailable1';
  doNotDisrupt: 'none' | 'true' | '5m' | '1h';
  /** Minutes before NOW the group's pods started (a duration do-not-disrupt runs from then). */
  startedMin: number;
  owner: 'ReplicaSet' | 'StatefulSet';
  /** The group's last pod is terminating (deletionTimestamp set, held by a finalizer). */
  lastTerminating: boolean;
  /** controller.kubernetes.io/pod-deletion-cost on the pods: very negative (eviction cost clamps to -10), very high, or none. */
  deletionCost: 'none' | 'min' | 'high';
  /** Node index order to try when placing this group's pods. */
  order: number[];
}

export interface CaseGen {
  pools: PoolGen[];
  nodes: NodeGen[];
  groups: GroupGen[];
  daemonSet: { cpuMilli: number; memMi: number; pdb: 'none' | 'maxUnavailable0' | 'maxUnavailable1' } | null;
  /** Karpenter's SpotToSpotConsolidation feature gate. */
  spotToSpot: boolean;
}

const poolArb: fc.Arbitrary<PoolGen> = fc.record({
  capacityTypes: fc.constantFrom(['on-demand'], ['on-demand'], ['spot'], ['on-demand', 'spot']),
  policy: fc.constantFrom<PoolGen['policy']>('WhenEmptyOrUnderutilized', 'WhenEmptyOrUnderutilized', 'WhenEmpty', 'Balanced', 'Balanced'),
  consolidateAfter: fc.constantFrom<PoolGen['consolidateAfter']>('0s', '0s', '0s', '0s', '0s', '30s', '30s', '10m', '10m', 'Never'),
  budget: fc.constantFrom('10%', '100%', '100%', '100%', '1', '2', '2', '0', '50%'),
  reasonBudget: fc.option(fc.record({ nodes: fc.constantFrom('0', '1'), reasons: fc.constantFrom(['Drifted'], ['Empty'], ['Underutilized'], ['Empty', 'Drifted']) }), { nil: null, freq: 3 }),
  scheduledBudget: fc.option(fc.record({ active: fc.boolean(), reasons: fc.constantFrom(null, ['Underutilized'], ['Drifted'], ['Empty']) }), { nil: null, freq: 6 }),
  narrowZones: fc.integer({ min: 0, max: 4 }).map((i) => i === 0),
  terminationGracePeriod: fc.boolean(),
  startupTaint: fc.integer({ min: 0, max: 2 }).map((i) => i === 0),
});

const nodeArb = (pools: number): fc.Arbitrary<NodeGen> =>
  fc.record({
    pool: fc.integer({ min: 0, max: pools - 1 }),
    type: fc.integer({ min: 0, max: NODE_TYPES.length - 1 }),
    zone: fc.integer({ min: 0, max: ZONES.length - 1 }),
    spot: fc.boolean(),
    ageMin: fc.constantFrom(30, 90, 600),
    lastPodEventMin: fc.constantFrom(null, null, 1, 5, 20),
    staleHash: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
    doNotDisrupt: fc.integer({ min: 0, max: 24 }).map((i) => i === 0),
    noCapacityType: fc.integer({ min: 0, max: 19 }).map((i) => i === 0),
    uninitialized: fc.integer({ min: 0, max: 11 }).map((i) => i === 0),
    notReady: fc.constantFrom<NodeGen['notReady']>('no', 'no', 'no', 'no', 'no', 'no', 'no', 'no', 'False', 'Unknown'),
  });

const groupArb = (nodes: number): fc.Arbitrary<GroupGen> =>
  fc.record({
    kind: fc.constantFrom<GroupKind>('plain', 'plain', 'plain', 'antiAffinity', 'zoneSpread', 'hostSpread', 'legacyAntiAffinity'),
    count: fc.integer({ min: 1, max: 6 }),
    cpuMilli: fc.constantFrom(100, 250, 500, 1000, 1500, 3000),
    memMi: fc.constantFrom(128, 512, 1024, 4096),
    pdb: fc.constantFrom<GroupGen['pdb']>('none', 'none', 'none', 'none', 'none', 'maxUnavailable0', 'maxUnavailable1', 'maxUnavailable1', 'minAvailable1'),
    doNotDisrupt: fc.constantFrom<GroupGen['doNotDisrupt']>('none', 'none', 'none', 'none', 'none', 'none', 'none', 'true', '5m', '1h'),
    startedMin: fc.constantFrom(120, 120, 3, 30),
    owner: fc.constantFrom<GroupGen['owner']>('ReplicaSet', 'ReplicaSet', 'StatefulSet'),
    lastTerminating: fc.integer({ min: 0, max: 5 }).map((i) => i === 0),
    deletionCost: fc.constantFrom<GroupGen['deletionCost']>('none', 'none', 'none', 'none', 'min', 'high'),
    order: fc.shuffledSubarray(Array.from({ length: nodes }, (_, i) => i), { minLength: nodes, maxLength: nodes }),
  });

export const caseGenArb: fc.Arbitrary<CaseGen> = fc
  .record({ pools: fc.array(poolArb, { minLength: 1, maxLength: 2 }), nodeCount: fc.integer({ min: 1, max: 7 }) })
  .chain(({ pools, nodeCount }) =>
    fc.record({
      pools: fc.constant(pools),
      spotToSpot: fc.integer({ min: 0, max: 3 }).map((i) => i === 0),
      nodes: fc.array(nodeArb(pools.length), { minLength: nodeCount, maxLength: nodeCount }),
      groups: fc.array(groupArb(nodeCount), { minLength: 0, maxLength: 5 }),
      daemonSet: fc.option(fc.record({ cpuMilli: fc.constantFrom(50, 200), memMi: fc.constantFrom(64, 256), pdb: fc.constantFrom<NonNullable<CaseGen['daemonSet']>['pdb']>('none', 'none', 'none', 'none', 'none', 'none', 'maxUnavailable0', 'maxUnavailable1') }), { nil: null }),
    }),
  );

export interface DisruptionCase {
  id: string;
  now: string;
  nodePools: Obj[];
  nodeClaims: Obj[];
  nodes: Obj[];
  pods: Obj[];
  pdbs: Obj[];
  daemonSets: Obj[];
  spotToSpot?: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const quantities = (r: Readonly<Record<string, number | undefined>>): Obj =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'cpu' ? `${v}m` : String(v)]));

function poolObject(p: PoolGen, i: number, teamLabel: string): Obj {
  const requirements: Obj[] = [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: p.capacityTypes }];
  if (p.narrowZones) requirements.push({ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2a', 'us-west-2b'] });
  const budgets: Obj[] = [{ nodes: p.budget }];
  if (p.reasonBudget) budgets.push({ nodes: p.reasonBudget.nodes, reasons: p.reasonBudget.reasons });
  if (p.scheduledBudget) {
    const window = p.scheduledBudget.active ? { schedule: '0 9 * * *', duration: '8h' } : { schedule: '0 14 * * *', duration: '2h' };
    budgets.push({ nodes: '0', ...window, ...(p.scheduledBudget.reasons ? { reasons: p.scheduledBudget.reasons } : {}) });
  }
  const spec: Obj = {
    template: {
      metadata: { labels: { team: teamLabel } },
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements,
        // As the API server stores it: the CRD default (Karpenter hashes it).
        expireAfter: '720h',
        ...(p.terminationGracePeriod ? { terminationGracePeriod: '1h' } : {}),
        ...(p.startupTaint ? { startupTaints: [STARTUP_TAINT] } : {}),
      },
    },
    disruption: { consolidationPolicy: p.policy, consolidateAfter: p.consolidateAfter, budgets },
  };
  return { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: `np${i}` }, spec };
}

interface Placed {
  readonly name: string;
  readonly zone: string;
  free: { cpu: number; memory: number; pods: number };
}

/** How a Karpenter node looks to both sides: its Node and its NodeClaim (hash stamp, Initialized a minute after creation). */
export interface KarpenterNodeOptions {
  /** The NodePool hash the claim was stamped with (a stale one reads as drifted). */
  hash: string;
  noCapacityType?: boolean;
  doNotDisrupt?: boolean;
  /** The claim's lastPodEventTime; absent, Karpenter reads the Initialized time. */
  lastPodEventMs?: number;
  terminationGracePeriod?: boolean;
  /** Registered but not initialized: the Node has no karpenter.sh/initialized label, the claim no Initialized condition. */
  uninitialized?: boolean;
  /** The NodePool's startup taints: on the claim, and on the Node while it is not initialized. */
  startupTaints?: Obj[];
  /** The Node's Ready condition is False or Unknown, with the matching NoSchedule taint. */
  notReady?: 'False' | 'Unknown';
}

export function karpenterNode(name: string, np: NodePool, it: InstanceType, zone: string, capacityType: string, createdMs: number, o: KarpenterNodeOptions): { node: Obj; claim: Obj } {
  const labels: Record<string, string> = { ...launchedNodeLabels(np, it, { zone, capacityType: capacityType as 'on-demand' }, name) };
  if (o.noCapacityType) delete labels['karpenter.sh/capacity-type'];
  const annotations: Record<string, string> = { 'karpenter.sh/nodepool-hash': o.hash, 'karpenter.sh/nodepool-hash-version': NODEPOOL_HASH_VERSION };
  const providerID = `fake:///${name}`;
  const nodeAnnotations: Record<string, string> = { ...annotations };
  if (o.doNotDisrupt) nodeAnnotations['karpenter.sh/do-not-disrupt'] = 'true';
  const taints = [...(o.uninitialized ? (o.startupTaints ?? []) : []), ...(o.notReady ? [NOT_READY_TAINTS[o.notReady]] : [])];
  const node: Obj = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `node-${name}`, creationTimestamp: iso(createdMs), labels: { ...labels, 'karpenter.sh/registered': 'true', ...(o.uninitialized ? {} : { 'karpenter.sh/initialized': 'true' }) }, annotations: nodeAnnotations },
    spec: { providerID, ...(taints.length > 0 ? { taints } : {}) },
    status: { capacity: quantities(it.capacity), allocatable: quantities(it.allocatable), conditions: [{ type: 'Ready', status: o.notReady ?? 'True', lastTransitionTime: iso(createdMs) }] },
  };
  const initialized = createdMs + MINUTE;
  const condition = (type: string) => ({ type, status: 'True', reason: type, message: '', lastTransitionTime: iso(initialized) });
  const status: Obj = {
    providerID,
    nodeName: name,
    capacity: quantities(it.capacity),
    allocatable: quantities(it.allocatable),
    conditions: [condition('Launched'), condition('Registered'), ...(o.uninitialized ? [] : [condition('Initialized')])],
  };
  if (o.lastPodEventMs !== undefined) status['lastPodEventTime'] = iso(o.lastPodEventMs);
  const claim: Obj = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, uid: `nc-${name}`, creationTimestamp: iso(createdMs), labels, annotations },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [
        { key: 'karpenter.sh/nodepool', operator: 'In', values: [np.name] },
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [it.name] },
      ],
      ...(o.terminationGracePeriod ? { terminationGracePeriod: '1h' } : {}),
      ...(o.startupTaints ? { startupTaints: o.startupTaints } : {}),
    },
    status,
  };
  return { node, claim };
}

export function buildCase(id: string, g: CaseGen, catalog: readonly InstanceType[]): DisruptionCase {
  const poolObjs = g.pools.map((p, i) => poolObject(p, i, 'a'));
  const compiled = poolObjs.map((o) => compileNodePool(o as never));
  const staleHashes = g.pools.map((p, i) => compileNodePool(poolObject(p, i, 'old') as never).hash);
  const nodes: Obj[] = [];
  const claims: Obj[] = [];
  const placed: Placed[] = [];
  const pods: Obj[] = [];
  g.nodes.forEach((n, i) => {
    const pool = g.pools[n.pool]!;
    const np = compiled[n.pool]!;
    const ct = pool.capacityTypes.length === 1 ? pool.capacityTypes[0]! : n.spot ? 'spot' : 'on-demand';
    const it = catalog.find((t) => t.name === NODE_TYPES[n.type])!;
    const zone = ZONES[n.zone]!;
    const name = `node-${i}`;
    const made = karpenterNode(name, np, it, zone, ct, NOW - n.ageMin * MINUTE, {
      hash: n.staleHash ? staleHashes[n.pool]! : np.hash,
      noCapacityType: n.noCapacityType,
      doNotDisrupt: n.doNotDisrupt,
      lastPodEventMs: n.lastPodEventMin === null ? undefined : NOW - n.lastPodEventMin * MINUTE,
      terminationGracePeriod: pool.terminationGracePeriod,
      uninitialized: n.uninitialized,
      ...(pool.startupTaint ? { startupTaints: [STARTUP_TAINT] } : {}),
      ...(n.notReady === 'no' ? {} : { notReady: n.notReady }),
    });
    nodes.push(made.node);
    claims.push(made.claim);
    placed.push({ name, zone, free: { cpu: it.allocatable.cpu ?? 0, memory: it.allocatable.memory ?? 0, pods: it.allocatable.pods ?? 0 } });
  });

  const daemonSets: Obj[] = [];
  if (g.daemonSet) {
    const ds = g.daemonSet;
    const template = { metadata: { labels: { ds: 'ds0' } }, spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'd', image: 'x', resources: { requests: { cpu: `${ds.cpuMilli}m`, memory: `${ds.memMi}Mi` } } }] } };
    daemonSets.push({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds0', namespace: 'kube-system', uid: 'uid-ds0' }, spec: { selector: { matchLabels: { ds: 'ds0' } }, template } });
    for (const p of placed) {
      if (!take(p, ds.cpuMilli, ds.memMi)) continue;
      pods.push(podObject(`ds0-${p.name}`, 'kube-system', p.name, template.metadata.labels, template.spec, { kind: 'DaemonSet', name: 'ds0', uid: 'uid-ds0' }, {}));
    }
  }

  const pdbs: Obj[] = [];
  if (g.daemonSet && g.daemonSet.pdb !== 'none') pdbs.push(pdbObject('ds0-pdb', 'kube-system', { ds: 'ds0' }, g.daemonSet.pdb, pods.filter((p) => (p['metadata'] as Obj)['namespace'] === 'kube-system').length));
  g.groups.forEach((grp, gi) => {
    const app = `g${gi}`;
    const spec = groupSpec(grp, app);
    const members: string[] = [];
    for (let i = 0; i < grp.count; i++) {
      const node = grp.order.map((k) => placed[k]!).find((p) => fits(p, grp, members, placed) && take(p, grp.cpuMilli, grp.memMi));
      if (!node) continue;
      const annotations: Record<string, string> = grp.doNotDisrupt !== 'none' && i === 0 ? { 'karpenter.sh/do-not-disrupt': grp.doNotDisrupt } : {};
      if (grp.deletionCost !== 'none') annotations['controller.kubernetes.io/pod-deletion-cost'] = grp.deletionCost === 'min' ? '-2147483647' : '1000000000';
      const owner = grp.owner === 'StatefulSet' ? { kind: 'StatefulSet', name: app, uid: `uid-${app}-sts` } : { kind: 'ReplicaSet', name: `${app}-rs`, uid: `uid-${app}-rs` };
      pods.push(podObject(`${app}-${i}`, 'default', node.name, { app }, spec, owner, annotations, { startedMin: grp.startedMin, terminating: grp.lastTerminating && i === grp.count - 1 }));
      members.push(node.name);
    }
    if (grp.pdb !== 'none' && members.length > 0) pdbs.push(pdbObject(`${app}-pdb`, 'default', { app }, grp.pdb, members.length));
  });
  return { id, now: iso(NOW), nodePools: poolObjs, nodeClaims: claims, nodes, pods, pdbs, daemonSets, ...(g.spotToSpot ? { spotToSpot: true } : {}) };
}

function take(p: Placed, cpuMilli: number, memMi: number): boolean {
  const mem = memMi * 1024 * 1024;
  if (p.free.cpu < cpuMilli || p.free.memory < mem || p.free.pods < 1) return false;
  p.free.cpu -= cpuMilli;
  p.free.memory -= mem;
  p.free.pods -= 1;
  return true;
}

/** Whether the group's constraint still holds with one more pod on `p` (the generator places pods as a scheduler would). */
function fits(p: Placed, grp: GroupGen, members: readonly string[], all: readonly Placed[]): boolean {
  const on = (name: string) => members.filter((m) => m === name).length;
  if (grp.kind === 'antiAffinity') return on(p.name) === 0;
  if (grp.kind === 'hostSpread') {
    const counts = all.map((n) => on(n.name) + (n.name === p.name ? 1 : 0));
    return Math.max(...counts) - Math.min(...counts) <= 1;
  }
  if (grp.kind === 'zoneSpread') {
    const zones = [...new Set(all.map((n) => n.zone))];
    const zoneOf = new Map(all.map((n) => [n.name, n.zone]));
    const counts = zones.map((z) => members.filter((m) => zoneOf.get(m) === z).length + (z === p.zone ? 1 : 0));
    return Math.max(...counts) - Math.min(...counts) <= 1;
  }
  return true;
}

function groupSpec(g: GroupGen, app: string): Obj {
  const spec: Obj = { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: `${g.cpuMilli}m`, memory: `${g.memMi}Mi` } } }] };
  if (g.kind === 'antiAffinity') {
    spec['affinity'] = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app } }, topologyKey: 'kubernetes.io/hostname' }] } };
  } else if (g.kind === 'legacyAntiAffinity') {
    const legacy = { matchLabels: { app }, matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['bad value!'] }] };
    spec['affinity'] = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: legacy, topologyKey: 'kubernetes.io/hostname' }] } };
  } else if (g.kind === 'zoneSpread' || g.kind === 'hostSpread') {
    const topologyKey = g.kind === 'zoneSpread' ? 'topology.kubernetes.io/zone' : 'kubernetes.io/hostname';
    spec['topologySpreadConstraints'] = [{ maxSkew: 1, topologyKey, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } }];
  }
  return spec;
}

/** A PDB over `members` healthy pods, its status as the disruption controller would have written it. */
function pdbObject(name: string, namespace: string, matchLabels: Record<string, string>, kind: Exclude<GroupGen['pdb'], 'none'>, members: number): Obj {
  const allowed = kind === 'maxUnavailable0' ? 0 : kind === 'maxUnavailable1' ? Math.min(1, members) : Math.max(0, members - 1);
  const budget = kind === 'minAvailable1' ? { minAvailable: 1 } : { maxUnavailable: kind === 'maxUnavailable0' ? 0 : 1 };
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace },
    spec: { ...budget, selector: { matchLabels } },
    status: { disruptionsAllowed: allowed, currentHealthy: members, desiredHealthy: members - allowed, expectedPods: members, observedGeneration: 0 },
  };
}

/** A running, ready pod bound to nodeName; without an owner it is a bare pod. */
export function podObject(name: string, namespace: string, nodeName: string, labels: Record<string, string>, spec: Obj, owner: { kind: string; name: string; uid: string } | undefined, annotations: Record<string, string>, o: { startedMin?: number; terminating?: boolean } = {}): Obj {
  const started = iso(NOW - (o.startedMin ?? 120) * MINUTE);
  // A terminating pod: the API server keeps it while a finalizer holds it.
  const deleting = o.terminating ? { deletionTimestamp: iso(NOW - MINUTE), deletionGracePeriodSeconds: 30, finalizers: ['berth.dev/hold'] } : {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: `uid-${namespace}-${name}`,
      labels,
      annotations,
      creationTimestamp: started,
      ...deleting,
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.name, uid: owner.uid, controller: true }] } : {}),
    },
    spec: { ...spec, nodeName },
    status: { phase: 'Running', startTime: started, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}
