// The world Karpenter v1.14.1's disruption suite runs its cases in, rebuilt for
// berth's translations of them (not used by the engine): the fake cloud provider's
// assorted instance types (one offering each, priced from cpu and memory), a NodePool
// that consolidates at once, nodes of a given type with the suite's 32-cpu
// allocatable, ReplicaSet pods, and a loop that asks for one command per pass the way
// the suite reconciles the disruption controller again and again before it runs the
// queue (each command's nodes are then being disrupted).

import { ClusterState } from '../cluster/state.js';
import type { Labels } from '../model/selector.js';
import { compileNodePool, type NodePool, type NodePoolManifest } from '../model/nodepool.js';
import type { Node } from '../model/node.js';
import { compilePdb, type PdbManifest } from '../model/pdb.js';
import type { PodSpecManifest } from '../model/manifest.js';
import { compilePod, type Pod } from '../model/pod.js';
import { LABEL_INSTANCE_TYPE, makeInstanceType, type InstanceType, type Offering } from '../provisioner/catalog/types.js';
import { launchedNode } from '../provisioner/launched-node.js';
import type { Decision } from './consolidate.js';
import { nextDisruption, type DisruptionInput } from './disrupt.js';
import { catalogPrices } from './pricing.js';

const GI = 2 ** 30;
export const ZONES = ['test-zone-1', 'test-zone-2', 'test-zone-3'] as const;

/** The fake provider's price: 0.1 per cpu plus 0.1 per 10^9 bytes of memory. */
export const fakePrice = (cpu: number, memGi: number): number => 0.1 * cpu + (0.1 * memGi * GI) / 1e9;

/** An instance type as the fake provider builds it: 5 pods, 100m and 10Mi reserved. */
export function fakeType(name: string, o: { cpu?: number; memGi?: number; arch?: string; os?: string; offerings: Partial<Offering>[] }): InstanceType {
  const cpu = o.cpu ?? 4, memGi = o.memGi ?? 4;
  return makeInstanceType({
    name,
    labels: { [LABEL_INSTANCE_TYPE]: name, 'kubernetes.io/arch': o.arch ?? 'amd64', 'kubernetes.io/os': o.os ?? 'linux' },
    capacity: { cpu: cpu * 1000, memory: memGi * GI, pods: 5 },
    overhead: { kubeReserved: { cpu: 100, memory: 10 * 2 ** 20 }, systemReserved: {}, evictionThreshold: {} },
    offerings: o.offerings.map((x) => ({ zone: ZONES[0], capacityType: 'on-demand', price: fakePrice(cpu, memGi), available: true, ...x })),
  });
}

/** The fake provider's InstanceTypesAssorted, in its order: one type per cpu, memory, zone, capacity type, OS and architecture. */
export function assortedTypes(): InstanceType[] {
  const out: InstanceType[] = [];
  for (const cpu of [1, 2, 4, 8, 16, 32, 64])
    for (const memGi of [1, 2, 4, 8, 16, 32, 64, 128])
      for (const zone of ZONES)
        for (const capacityType of ['spot', 'on-demand'] as const)
          for (const os of ['linux', 'windows'])
            for (const arch of ['amd64', 'arm64'])
              out.push(fakeType(`${cpu}-cpu-${memGi}-mem-${arch}-${os}-${zone}-${capacityType}`, { cpu, memGi, arch, os, offerings: [{ zone, capacityType }] }));
  return out;
}

export const ASSORTED = assortedTypes();
/** The suite's mostExpensiveInstance and mostExpensiveSpotInstance (any of the equally priced ones). */
export const MOST_EXPENSIVE = '64-cpu-128-mem-amd64-linux-test-zone-1-on-demand';
export const MOST_EXPENSIVE_SPOT = '64-cpu-128-mem-amd64-linux-test-zone-1-spot';

type Spec = NodePoolManifest['spec'];
type Disruption = NonNullable<Spec['disruption']>;

/**
 * The suite's NodePool: WhenEmptyOrUnderutilized, consolidateAfter 0s, a 100% budget. It has
 * no requirements; the fake provider then launches either capacity type, where berth follows
 * the AWS provider (on-demand unless the NodePool says otherwise), so both are required here
 * (`anyCapacityType` leaves the requirement out, for nodes without the label).
 */
export function upstreamPool(o: { name?: string; anyCapacityType?: boolean; disruption?: Partial<Disruption>; requirements?: Spec['template']['spec']['requirements']; terminationGracePeriod?: string; expireAfter?: string } = {}): NodePool {
  return compileNodePool({
    metadata: { name: o.name ?? 'default' },
    spec: {
      template: {
        spec: {
          requirements: [...(o.anyCapacityType ? [] : [{ key: 'karpenter.sh/capacity-type', operator: 'In' as const, values: ['spot', 'on-demand'] }]), ...(o.requirements ?? [])],
          nodeClassRef: { group: 'karpenter.test.sh', kind: 'TestNodeClass', name: 'default' },
          ...(o.terminationGracePeriod ? { terminationGracePeriod: o.terminationGracePeriod } : {}),
          ...(o.expireAfter ? { expireAfter: o.expireAfter } : {}),
        },
      },
      disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s', budgets: [{ nodes: '100%' }], ...o.disruption },
    },
  });
}

/** A node of catalog type `type` from `pool`, with the suite's allocatable (32 cpu, 100 pods unless given). */
export function upstreamNode(name: string, pool: NodePool, type: string, o: { types?: readonly InstanceType[]; cpu?: number; pods?: number; creation?: number; annotations?: Record<string, string>; labels?: Labels } = {}): Node {
  const it = (o.types ?? ASSORTED).find((t) => t.name === type);
  if (!it) throw new Error(`no instance type ${type}`);
  const offering = it.offerings[0]!;
  const n = launchedNode(name, pool, it, offering, o.creation ?? 0);
  const allocatable = { ...it.allocatable, cpu: (o.cpu ?? 32) * 1000, memory: 128 * GI, pods: o.pods ?? 100 };
  return { ...n, labels: { ...n.labels, ...o.labels }, allocatable, capacity: allocatable, annotations: { ...o.annotations } };
}

let order = 0;
const RS_OWNER = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true };

/** A Running pod bound to `nodeName` (owned by a ReplicaSet unless `owner` is null), with only the requests given. */
export function upstreamPod(name: string, nodeName: string, o: { cpu?: string; labels?: Labels; annotations?: Record<string, string>; owner?: { kind: string; name: string } | null; spec?: Partial<PodSpecManifest>; startTime?: string } = {}): Pod {
  const owner = o.owner === null ? [] : [o.owner ? { ...RS_OWNER, ...o.owner, uid: `${o.owner.name}-uid` } : RS_OWNER];
  const pod = compilePod(
    {
      metadata: { name, namespace: 'default', labels: o.labels ?? { app: 'test' }, annotations: o.annotations ?? {}, ownerReferences: owner },
      spec: { nodeName, containers: [{ name: 'c', resources: o.cpu ? { requests: { cpu: o.cpu } } : {} }], ...o.spec },
      ...(o.startTime ? { status: { startTime: o.startTime } } : {}),
    },
    { order: order++ },
  );
  return { ...pod, phase: nodeName ? 'Running' : 'Pending' };
}

export function pdb(name: string, m: Partial<PdbManifest['spec']>): ReturnType<typeof compilePdb> {
  return compilePdb({ metadata: { name, namespace: 'default' }, spec: { selector: { matchLabels: { app: 'test' } }, ...m } });
}

export function clusterWith(nodes: readonly Node[], pods: readonly Pod[], pdbs: readonly ReturnType<typeof compilePdb>[] = []): ClusterState {
  const c = new ClusterState();
  for (const n of nodes) c.addNode(n);
  for (const p of pods) c.addPod(p);
  c.pdbs = [...pdbs];
  return c;
}

export const NOW = Date.parse('2026-06-01T12:00:00Z');

/** The suite's disruption controller input: the assorted catalog, SpotToSpotConsolidation on (its BeforeEach turns the gate on). */
export function upstreamInput(cluster: ClusterState, pools: readonly NodePool[], o: Partial<DisruptionInput> & { types?: readonly InstanceType[]; spotToSpot?: boolean } = {}): DisruptionInput {
  const types = o.types ?? ASSORTED;
  const { types: _t, spotToSpot, ...rest } = o;
  return { cluster, pools, nowMs: NOW, pricePerHour: catalogPrices(types), replacement: { instanceTypes: types, spotToSpot: spotToSpot ?? true }, ...rest };
}

/** The commands of `passes` reconciles before the queue runs: each pass sees the earlier commands' nodes as being disrupted. */
export function reconcile(input: DisruptionInput, passes = 1): Decision[] {
  const out: Decision[] = [];
  const disrupting = new Set(input.disrupting ?? []);
  for (let i = 0; i < passes; i++) {
    const { decision } = nextDisruption({ ...input, disrupting });
    if (!decision) continue;
    out.push(decision);
    for (const n of decision.nodes) disrupting.add(n);
  }
  return out;
}

/** The one command a single reconcile gives (undefined when none), and why the others were passed over. */
export function firstCommand(input: DisruptionInput): ReturnType<typeof nextDisruption> {
  return nextDisruption(input);
}
