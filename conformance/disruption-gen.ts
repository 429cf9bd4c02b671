// Random disruption cases for the Karpenter disruption differential run: a running
// cluster of 1–7 nodes from 1–2 NodePools (several instance types, capacity types
// and zones), each node with its Karpenter NodeClaim (hash stamp, Initialized
// condition, last pod event), pods bound to them in groups (plain, hostname
// anti-affinity, zone and hostname spread, PDBs, do-not-disrupt "true" or a
// duration), DaemonSet pods on every node, budgets, consolidation policies and
// consolidateAfter windows, NodeClaims stamped with an older template (drifted) or
// left out by a narrowed NodePool requirement. Objects are plain Kubernetes JSON so
// berth's loader and the Go oracle read the very same case.

import fc from 'fast-check';
import { compileNodePool } from '../src/model/nodepool.js';
import { NODEPOOL_HASH_VERSION } from '../src/model/nodepool-hash.js';
import { launchedNodeLabels } from '../src/provisioner/launched-node.js';
import type { InstanceType } from '../src/provisioner/catalog/types.js';
import type { Obj } from './karpenter-gen.js';

export const NODE_TYPES = ['t3.medium', 't3.large', 't3.xlarge', 'm5.large', 'm5.xlarge', 'm5.2xlarge', 'm5.4xlarge', 'c5.large', 'c5.xlarge', 'c5.2xlarge', 'r5.large', 'r5.xlarge'] as const;
const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c'] as const;
/** The instant every case is decided at. */
export const NOW = Date.parse('2026-06-01T12:00:00Z');
const MINUTE = 60_000;

export interface PoolGen {
  capacityTypes: string[];
  policy: 'WhenEmpty' | 'WhenEmptyOrUnderutilized';
  consolidateAfter: '0s' | '30s' | '10m' | 'Never';
  budget: string;
  /** A budget only for some reasons, in addition to `budget`. */
  reasonBudget: { nodes: string; reasons: string[] } | null;
  /** The NodePool now excludes the zone us-west-2c: nodes there are requirement-drifted. */
  narrowZones: boolean;
  terminationGracePeriod: boolean;
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
}

export type GroupKind = 'plain' | 'antiAffinity' | 'zoneSpread' | 'hostSpread';

export interface GroupGen {
  kind: GroupKind;
  count: number;
  cpuMilli: number;
  memMi: number;
  pdb: 'none' | 'maxUnavailable0' | 'maxUnavailable1' | 'minAvailable1';
  doNotDisrupt: 'none' | 'true' | '5m' | '1h';
  /** Node index order to try when placing this group's pods. */
  order: number[];
}

export interface CaseGen {
  pools: PoolGen[];
  nodes: NodeGen[];
  groups: GroupGen[];
  daemonSet: { cpuMilli: number; memMi: number } | null;
}

const poolArb: fc.Arbitrary<PoolGen> = fc.record({
  capacityTypes: fc.constantFrom(['on-demand'], ['on-demand'], ['spot'], ['on-demand', 'spot']),
  policy: fc.constantFrom<PoolGen['policy']>('WhenEmptyOrUnderutilized', 'WhenEmptyOrUnderutilized', 'WhenEmpty'),
  consolidateAfter: fc.constantFrom<PoolGen['consolidateAfter']>('0s', '0s', '0s', '30s', '10m', 'Never'),
  budget: fc.constantFrom('10%', '100%', '100%', '1', '2', '0', '50%'),
  reasonBudget: fc.option(fc.record({ nodes: fc.constantFrom('0', '1'), reasons: fc.constantFrom(['Drifted'], ['Empty'], ['Underutilized'], ['Empty', 'Drifted']) }), { nil: null, freq: 3 }),
  narrowZones: fc.integer({ min: 0, max: 4 }).map((i) => i === 0),
  terminationGracePeriod: fc.boolean(),
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
    doNotDisrupt: fc.integer({ min: 0, max: 14 }).map((i) => i === 0),
  });

const groupArb = (nodes: number): fc.Arbitrary<GroupGen> =>
  fc.record({
    kind: fc.constantFrom<GroupKind>('plain', 'plain', 'plain', 'antiAffinity', 'zoneSpread', 'hostSpread'),
    count: fc.integer({ min: 1, max: 6 }),
    cpuMilli: fc.constantFrom(100, 250, 500, 1000, 1500, 3000),
    memMi: fc.constantFrom(128, 512, 1024, 4096),
    pdb: fc.constantFrom<GroupGen['pdb']>('none', 'none', 'none', 'maxUnavailable0', 'maxUnavailable1', 'minAvailable1'),
    doNotDisrupt: fc.constantFrom<GroupGen['doNotDisrupt']>('none', 'none', 'none', 'none', 'true', '5m', '1h'),
    order: fc.shuffledSubarray(Array.from({ length: nodes }, (_, i) => i), { minLength: nodes, maxLength: nodes }),
  });

export const caseGenArb: fc.Arbitrary<CaseGen> = fc
  .record({ pools: fc.array(poolArb, { minLength: 1, maxLength: 2 }), nodeCount: fc.integer({ min: 1, max: 7 }) })
  .chain(({ pools, nodeCount }) =>
    fc.record({
      pools: fc.constant(pools),
      nodes: fc.array(nodeArb(pools.length), { minLength: nodeCount, maxLength: nodeCount }),
      groups: fc.array(groupArb(nodeCount), { minLength: 0, maxLength: 5 }),
      daemonSet: fc.option(fc.record({ cpuMilli: fc.constantFrom(50, 200), memMi: fc.constantFrom(64, 256) }), { nil: null }),
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
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const quantities = (r: Readonly<Record<string, number | undefined>>): Obj =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'cpu' ? `${v}m` : String(v)]));

function poolObject(p: PoolGen, i: number, teamLabel: string): Obj {
  const requirements: Obj[] = [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: p.capacityTypes }];
  if (p.narrowZones) requirements.push({ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2a', 'us-west-2b'] });
  const budgets: Obj[] = [{ nodes: p.budget }];
  if (p.reasonBudget) budgets.push({ nodes: p.reasonBudget.nodes, reasons: p.reasonBudget.reasons });
  const spec: Obj = {
    template: {
      metadata: { labels: { team: teamLabel } },
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements,
        // As the API server stores it: the CRD default (Karpenter hashes it).
        expireAfter: '720h',
        ...(p.terminationGracePeriod ? { terminationGracePeriod: '1h' } : {}),
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
    const created = NOW - n.ageMin * MINUTE;
    const labels = { ...launchedNodeLabels(np, it, { zone, capacityType: ct as 'on-demand' }, name) };
    const hash = n.staleHash ? staleHashes[n.pool]! : np.hash;
    const annotations: Record<string, string> = { 'karpenter.sh/nodepool-hash': hash, 'karpenter.sh/nodepool-hash-version': NODEPOOL_HASH_VERSION };
    const providerID = `fake:///${name}`;
    const nodeAnnotations: Record<string, string> = { ...annotations };
    if (n.doNotDisrupt) nodeAnnotations['karpenter.sh/do-not-disrupt'] = 'true';
    nodes.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, uid: `node-${name}`, creationTimestamp: iso(created), labels: { ...labels, 'karpenter.sh/registered': 'true', 'karpenter.sh/initialized': 'true' }, annotations: nodeAnnotations },
      spec: { providerID },
      status: { capacity: quantities(it.capacity), allocatable: quantities(it.allocatable), conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: iso(created) }] },
    });
    const initialized = created + MINUTE;
    const condition = (type: string) => ({ type, status: 'True', reason: type, message: '', lastTransitionTime: iso(initialized) });
    const status: Obj = {
      providerID,
      nodeName: name,
      capacity: quantities(it.capacity),
      allocatable: quantities(it.allocatable),
      conditions: [condition('Launched'), condition('Registered'), condition('Initialized')],
    };
    if (n.lastPodEventMin !== null) status['lastPodEventTime'] = iso(NOW - n.lastPodEventMin * MINUTE);
    claims.push({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name, uid: `nc-${name}`, creationTimestamp: iso(created), labels, annotations },
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements: [
          { key: 'karpenter.sh/nodepool', operator: 'In', values: [np.name] },
          { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [it.name] },
        ],
        ...(pool.terminationGracePeriod ? { terminationGracePeriod: '1h' } : {}),
      },
      status,
    });
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
  g.groups.forEach((grp, gi) => {
    const app = `g${gi}`;
    const spec = groupSpec(grp, app);
    const members: string[] = [];
    for (let i = 0; i < grp.count; i++) {
      const node = grp.order.map((k) => placed[k]!).find((p) => fits(p, grp, members, placed) && take(p, grp.cpuMilli, grp.memMi));
      if (!node) continue;
      const annotations: Record<string, string> = grp.doNotDisrupt !== 'none' && i === 0 ? { 'karpenter.sh/do-not-disrupt': grp.doNotDisrupt } : {};
      pods.push(podObject(`${app}-${i}`, 'default', node.name, { app }, spec, { kind: 'ReplicaSet', name: `${app}-rs`, uid: `uid-${app}-rs` }, annotations));
      members.push(node.name);
    }
    if (grp.pdb !== 'none' && members.length > 0) {
      const allowed = grp.pdb === 'maxUnavailable0' ? 0 : grp.pdb === 'maxUnavailable1' ? 1 : members.length - 1;
      const budget = grp.pdb === 'minAvailable1' ? { minAvailable: 1 } : { maxUnavailable: grp.pdb === 'maxUnavailable0' ? 0 : 1 };
      pdbs.push({
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: `${app}-pdb`, namespace: 'default' },
        spec: { ...budget, selector: { matchLabels: { app } } },
        status: { disruptionsAllowed: allowed, currentHealthy: members.length, desiredHealthy: members.length - allowed, expectedPods: members.length, observedGeneration: 0 },
      });
    }
  });
  return { id, now: iso(NOW), nodePools: poolObjs, nodeClaims: claims, nodes, pods, pdbs, daemonSets };
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
  } else if (g.kind === 'zoneSpread' || g.kind === 'hostSpread') {
    const topologyKey = g.kind === 'zoneSpread' ? 'topology.kubernetes.io/zone' : 'kubernetes.io/hostname';
    spec['topologySpreadConstraints'] = [{ maxSkew: 1, topologyKey, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } }];
  }
  return spec;
}

function podObject(name: string, namespace: string, nodeName: string, labels: Record<string, string>, spec: Obj, owner: { kind: string; name: string; uid: string }, annotations: Record<string, string>): Obj {
  const started = iso(NOW - 120 * MINUTE);
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
      ownerReferences: [{ apiVersion: owner.kind === 'DaemonSet' ? 'apps/v1' : 'apps/v1', kind: owner.kind, name: owner.name, uid: owner.uid, controller: true }],
    },
    spec: { ...spec, nodeName },
    status: { phase: 'Running', startTime: started, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}
