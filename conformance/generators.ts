// fast-check generators of random scheduling cases for the differential runner.
// A case is plain Kubernetes JSON (Nodes, Pods, Namespaces, PDBs, PriorityClasses)
// plus the pending pod, valid as the API server would accept it, so the same
// objects feed berth's loader and the Go oracle. The vocabularies are small on
// purpose (three zones, a handful of label keys and values, three host ports) so
// that selectors, taints and topology domains collide often, and every generator
// leans toward the corners: empty and absent selectors, missing topology keys,
// minDomains above the number of domains, terms matching the pod itself, pods
// that fit a node exactly.

import fc from 'fast-check';
import { assembleStorage, storageDrawArb, withPickyDriver, type StorageDraw } from './storage-gen.js';

export type Json = Record<string, unknown>;

export interface ConformanceCase {
  readonly nodes: Json[];
  /** Pods already in the cluster (bound or not, any phase). */
  readonly pods: Json[];
  /** The pending pod to schedule. */
  readonly pod: Json;
  readonly namespaces: Json[];
  readonly pdbs: Json[];
  readonly priorityClasses: Json[];
  /** Objects whose selectors PodTopologySpread's system default constraints read (absent in old regression files). */
  readonly services?: Json[];
  readonly replicaSets?: Json[];
  readonly statefulSets?: Json[];
  /** PersistentVolumes, claims, classes and CSI objects (storage-gen.ts); absent in cases without storage. */
  readonly pvs?: Json[];
  readonly pvcs?: Json[];
  readonly storageClasses?: Json[];
  readonly csiNodes?: Json[];
  readonly csiDrivers?: Json[];
  readonly csiStorageCapacities?: Json[];
  readonly volumeAttachments?: Json[];
  /** A KubeSchedulerConfiguration (v1) for both sides; absent means the default profile. */
  readonly config?: Json;
  /** DefaultPreemption's start offset into the potential nodes (taken modulo their number). */
  readonly preemptionOffset: number;
  /** kube-scheduler's --feature-gates, only gates berth models (src/scheduler/feature-gates.ts); absent means the defaults. */
  readonly featureGates?: Readonly<Record<string, boolean>>;
}

// --- vocabularies -----------------------------------------------------------

export const ZONE = 'topology.kubernetes.io/zone';
export const REGION = 'topology.kubernetes.io/region';
export const HOSTNAME = 'kubernetes.io/hostname';
const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const RACK = 'example.com/rack';
const MISSING_KEY = 'example.com/missing';
const GPU = 'example.com/gpu';

const ZONES = ['zone-a', 'zone-b', 'zone-c'] as const;
const REGIONS = ['r1', 'r2'] as const;
const RACKS = ['rack-1', 'rack-2', 'rack-3'] as const;
const TOPOLOGY_KEYS = [ZONE, HOSTNAME, RACK, REGION, MISSING_KEY] as const;

/** Node label keys besides topology; `tier` has integer-ish values for Gt/Lt. */
const NODE_LABELS: Readonly<Record<string, readonly string[]>> = {
  disk: ['ssd', 'hdd'],
  tier: ['1', '5', '10', 'x'],
  pool: ['a', 'b'],
};
const NODE_SELECTOR_KEYS = [ZONE, REGION, HOSTNAME, RACK, 'disk', 'tier', 'pool', MISSING_KEY] as const;

const POD_LABELS: Readonly<Record<string, readonly string[]>> = {
  app: ['web', 'db', 'cache'],
  tier: ['fe', 'be'],
  version: ['v1', 'v2'],
  team: ['a', 'b'],
};
const POD_LABEL_KEYS = Object.keys(POD_LABELS);

export const NAMESPACES = ['default', 'ns1', 'ns2'] as const;
/** Labels of the Namespace objects (namespaceSelector targets). */
const NAMESPACE_LABELS: Readonly<Record<string, Record<string, string>>> = {
  default: { env: 'prod' },
  ns1: { team: 'a', env: 'prod' },
  ns2: { team: 'b' },
};

const TAINT_KEYS = ['dedicated', 'gpu', 'spot'] as const;
// Integer values for Lt/Gt tolerations (TaintTolerationComparisonOperators) to compare against.
const TAINT_VALUES = ['', 'a', 'b', '3', '12'] as const;
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
export const UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';

const IMAGES = ['nginx:1.25', 'nginx', 'docker.io/library/nginx:latest', 'redis:7', 'registry.k8s.io/pause:3.10', 'example.com/big/model:v1'] as const;
const MB = 1024 * 1024;
const IMAGE_SIZES = [5 * MB, 23 * MB, 100 * MB, 500 * MB, 1000 * MB, 2000 * MB] as const;

const HOST_PORTS = [80, 443, 8080] as const;
const HOST_IPS = ['', '0.0.0.0', '127.0.0.1', '10.0.0.1'] as const;

const MI = 1024 * 1024;
const GI = 1024 * MI;
const CPU_REQUESTS = [0, 1, 10, 100, 100, 250, 250, 500, 500, 1000, 1500, 2000, 4000] as const;
const MEM_REQUESTS = [0, MI, 64 * MI, 64 * MI, 1e8, 128 * MI, 128 * MI, 5e8, 512 * MI, GI, 1e9, 1.5 * GI, 2 * GI] as const;
const NODE_CPU = [500, 1000, 2000, 3500, 4000, 4000, 8000, 8000, 16000] as const;
const NODE_MEM = [512 * MI, GI, 2 * GI, 4 * GI, 4e9, 7.5 * GI, 8 * GI, 8 * GI, 16 * GI, 32 * GI] as const;
const NODE_PODS = [1, 2, 3, 5, 10, 110] as const;
const PRIORITIES = [-5, 0, 0, 5, 10, 100, 1000] as const;
/** The pending pod leans higher, so that preemption has victims to consider. */
const PENDING_PRIORITIES = [0, 10, 100, 100, 1000, 1000] as const;

// --- quantities -------------------------------------------------------------

/** CPU millicores written in one of the ways people write them. */
function cpuQuantity(milli: number, style: number): string | number {
  if (milli % 1000 === 0 && style % 3 === 1) return style % 2 === 0 ? milli / 1000 : String(milli / 1000);
  if (milli % 100 === 0 && style % 3 === 2) return String(milli / 1000);
  return `${milli}m`;
}

function memQuantity(bytes: number, style: number): string | number {
  if (bytes % GI === 0 && bytes > 0 && style % 2 === 0) return `${bytes / GI}Gi`;
  if (bytes % MI === 0 && bytes > 0 && style % 3 !== 2) return `${bytes / MI}Mi`;
  if (bytes % 1e6 === 0 && bytes > 0) return `${bytes / 1e6}M`;
  return style % 2 === 0 ? bytes : String(bytes);
}

// --- small arbitraries ------------------------------------------------------

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
/** `arb` in about `percent`% of draws, else undefined (which is what shrinking heads for). */
const maybe = <T>(arb: fc.Arbitrary<T>, percent = 50): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 100 - percent, arbitrary: fc.constant(undefined) }, { weight: percent, arbitrary: arb });

/**
 * Label keys and values the API server refuses today but that pods stored before
 * it did still carry; kube-scheduler reads them lazily (see src/model/selector.ts).
 */
const LEGACY_VALUES = ['{{.bad-value.}}', '-1', 'bad value'] as const;
const LEGACY_KEYS = ['bad key', 'a/b/c'] as const;

/** LabelSelector over pod labels: absent (null), empty (everything), labels, expressions with every operator, now and then a legacy key or value. */
function labelSelectorArb(labels: Readonly<Record<string, readonly string[]>>): fc.Arbitrary<Json | null> {
  const keys = Object.keys(labels);
  const validKey = pick([...keys, 'absent-key']);
  const key = fc.oneof({ weight: 30, arbitrary: validKey }, { weight: 1, arbitrary: pick(LEGACY_KEYS) });
  const requirement = fc
    .record({ key, op: pick(['In', 'NotIn', 'Exists', 'DoesNotExist'] as const), n: fc.integer({ min: 1, max: 2 }), off: fc.nat(3), legacy: fc.oneof({ weight: 20, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: pick(LEGACY_VALUES) }) })
    .map(({ key, op, n, off, legacy }) => {
      if (op === 'Exists' || op === 'DoesNotExist') return { key, operator: op };
      const vs = [...(labels[key] ?? ['v1']), 'nope'];
      const values = [...new Set(Array.from({ length: n }, (_, i) => vs[(off + i) % vs.length]!))];
      return { key, operator: op, values: legacy === undefined ? values : [...values, legacy] };
    });
  const matchLabels = fc.dictionary(pick(keys), fc.nat(3), { maxKeys: 2 }).map((d) => Object.fromEntries(Object.entries(d).map(([k, i]) => [k, labels[k]![i % labels[k]!.length]!])));
  // One legacy entry at most: upstream reports the first bad entry in Go map order.
  const legacyLabel = fc.record({ key: validKey, value: pick(LEGACY_VALUES) }).map(({ key, value }) => ({ [key]: value }));
  return fc.oneof(
    { weight: 10, arbitrary: fc.constant(null) },
    { weight: 10, arbitrary: fc.constant({}) },
    { weight: 40, arbitrary: matchLabels.map((m) => ({ matchLabels: m })) },
    { weight: 1, arbitrary: legacyLabel.map((m) => ({ matchLabels: m })) },
    { weight: 20, arbitrary: fc.array(requirement, { minLength: 1, maxLength: 2 }).map((e) => ({ matchExpressions: e })) },
    { weight: 10, arbitrary: fc.tuple(matchLabels, fc.array(requirement, { maxLength: 2 })).map(([m, e]) => ({ matchLabels: m, matchExpressions: e })) },
  );
}

const podSelectorArb = labelSelectorArb(POD_LABELS);
const namespaceSelectorArb = labelSelectorArb({ team: ['a', 'b'], env: ['prod'], 'kubernetes.io/metadata.name': [...NAMESPACES] });

function selectorKeys(sel: Json | null | undefined): Set<string> {
  const keys = new Set<string>();
  if (!sel) return keys;
  for (const k of Object.keys((sel['matchLabels'] as Json | undefined) ?? {})) keys.add(k);
  for (const e of (sel['matchExpressions'] as { key: string }[] | undefined) ?? []) keys.add(e.key);
  return keys;
}

/**
 * A NodeSelectorRequirement on node labels with every operator. Gt/Lt take one
 * value, which may not be an integer (API validation allows it; labels.NewRequirement
 * refuses it) or may be a negative integer (no valid label value); In/NotIn now and
 * then carry a legacy value and any operator a legacy key. In required terms the
 * scheduler then fails just that term; in preferred terms NodeAffinity's PreScore
 * fails, which `lenient: false` makes rarer.
 */
const nodeRequirementArb = (lenient: boolean) => fc
  .record({
    key: fc.oneof({ weight: lenient ? 30 : 120, arbitrary: pick(NODE_SELECTOR_KEYS) }, { weight: 1, arbitrary: pick(LEGACY_KEYS) }),
    op: pick(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'] as const),
    n: fc.integer({ min: 1, max: 2 }),
    off: fc.nat(5),
    num: fc.oneof({ weight: lenient ? 5 : 60, arbitrary: pick(['0', '3', '5', '7', '10']) }, { weight: 1, arbitrary: pick(['x', '-1']) }),
    legacy: fc.oneof({ weight: lenient ? 20 : 80, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: pick(LEGACY_VALUES) }),
  })
  .map(({ key, op, n, off, num, legacy }) => {
    if (op === 'Exists' || op === 'DoesNotExist') return { key, operator: op };
    if (op === 'Gt' || op === 'Lt') return { key, operator: op, values: [num] };
    const vs = nodeLabelValues(key);
    const values = [...new Set(Array.from({ length: n }, (_, i) => vs[(off + i) % vs.length]!))];
    return { key, operator: op, values: legacy === undefined ? values : [...values, legacy] };
  });

function nodeLabelValues(key: string): readonly string[] {
  if (key === ZONE) return [...ZONES, 'zone-z'];
  if (key === REGION) return REGIONS;
  if (key === HOSTNAME) return ['n0', 'n1', 'n2', 'n3', 'shared-host'];
  if (key === RACK) return RACKS;
  return NODE_LABELS[key] ?? ['v'];
}

/** matchFields: only metadata.name with In/NotIn and exactly one value. */
const fieldRequirementArb = fc.record({ op: pick(['In', 'NotIn'] as const), node: fc.nat(6) }).map(({ op, node }) => ({ key: 'metadata.name', operator: op, values: [`n${node}`] }));

const nodeSelectorTermArb = (lenient: boolean) => fc.oneof(
  { weight: 6, arbitrary: fc.record({ matchExpressions: fc.array(nodeRequirementArb(lenient), { minLength: 1, maxLength: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ matchFields: fc.array(fieldRequirementArb, { minLength: 1, maxLength: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ matchExpressions: fc.array(nodeRequirementArb(lenient), { minLength: 1, maxLength: 1 }), matchFields: fc.array(fieldRequirementArb, { minLength: 1, maxLength: 1 }) }) },
  // An empty term matches no node.
  { weight: 1, arbitrary: fc.constant({}) },
);

const nodeAffinityArb = fc
  .record({
    required: maybe(fc.array(nodeSelectorTermArb(true), { minLength: 1, maxLength: 2 })),
    preferred: maybe(fc.array(fc.record({ weight: fc.integer({ min: 1, max: 100 }), preference: nodeSelectorTermArb(false) }), { minLength: 1, maxLength: 3 })),
  })
  .map(({ required, preferred }) => ({
    ...(required ? { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: required } } : {}),
    ...(preferred ? { preferredDuringSchedulingIgnoredDuringExecution: preferred } : {}),
  }));

/** A pod affinity term; label keys are drawn later against the owning pod's labels. */
const podAffinityTermArb = fc
  .record({
    labelSelector: podSelectorArb,
    namespaces: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.subarray([...NAMESPACES, 'ns-missing'], { minLength: 1 }) }),
    namespaceSelector: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: namespaceSelectorArb }),
    topologyKey: fc.oneof({ weight: 3, arbitrary: pick([HOSTNAME, ZONE]) }, { weight: 1, arbitrary: pick(TOPOLOGY_KEYS) }),
    matchLabelKeys: maybe(fc.subarray(POD_LABEL_KEYS, { minLength: 1, maxLength: 2 }), 20),
    mismatchLabelKeys: maybe(fc.subarray(POD_LABEL_KEYS, { minLength: 1, maxLength: 1 }), 15),
  })
  .map((t) => {
    const out: Json = { topologyKey: t.topologyKey };
    if (t.labelSelector !== null) out['labelSelector'] = t.labelSelector;
    if (t.namespaces) out['namespaces'] = t.namespaces;
    if (t.namespaceSelector !== undefined && t.namespaceSelector !== null) out['namespaceSelector'] = t.namespaceSelector;
    // Valid only with a labelSelector, on keys the selector does not use, and disjoint from each other.
    if (t.labelSelector !== null) {
      const used = selectorKeys(t.labelSelector);
      const match = (t.matchLabelKeys ?? []).filter((k) => !used.has(k));
      const mismatch = (t.mismatchLabelKeys ?? []).filter((k) => !match.includes(k));
      if (match.length > 0) out['matchLabelKeys'] = match;
      if (mismatch.length > 0) out['mismatchLabelKeys'] = mismatch;
    }
    return out;
  });

const podAffinityArb = fc
  .record({
    required: fc.array(podAffinityTermArb, { maxLength: 2 }),
    preferred: fc.array(fc.record({ weight: fc.integer({ min: 1, max: 100 }), podAffinityTerm: podAffinityTermArb }), { maxLength: 2 }),
  })
  .map(({ required, preferred }) => ({
    ...(required.length > 0 ? { requiredDuringSchedulingIgnoredDuringExecution: required } : {}),
    ...(preferred.length > 0 ? { preferredDuringSchedulingIgnoredDuringExecution: preferred } : {}),
  }));

const tolerationArb: fc.Arbitrary<Json> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ operator: 'Exists' }) },
  { weight: 1, arbitrary: pick(EFFECTS).map((effect) => ({ operator: 'Exists', effect })) },
  {
    weight: 6,
    arbitrary: fc
      .record({ key: pick([...TAINT_KEYS, UNSCHEDULABLE_TAINT]), op: pick(['Equal', 'Exists', undefined]), value: pick(TAINT_VALUES), effect: pick([...EFFECTS, '', undefined]), seconds: maybe(fc.nat(60), 60) })
      .map(({ key, op, value, effect, seconds }) => {
        const t: Json = { key };
        if (op !== undefined) t['operator'] = op;
        if (op !== 'Exists' && value !== '') t['value'] = value;
        if (effect !== undefined) t['effect'] = effect;
        if (effect === 'NoExecute' && seconds !== undefined) t['tolerationSeconds'] = seconds;
        return t;
      }),
  },
);

/** The taint that Lt/Gt tolerations mostly compare against: with the comparison gate on, most nodes carry it. */
const SLA_TAINT = 'example.com/sla';

/** Lt/Gt tolerations, added to the pending pod when TaintTolerationComparisonOperators is on (the API server refuses them when off). */
const comparisonTolerationsArb: fc.Arbitrary<Json[]> = fc.array(
  fc.record({ key: fc.oneof({ weight: 3, arbitrary: fc.constant(SLA_TAINT) }, { weight: 1, arbitrary: pick([...TAINT_KEYS, UNSCHEDULABLE_TAINT]) }), operator: pick(['Lt', 'Gt']), value: pick(['0', '3', '5', '12', '-1']), effect: pick([...EFFECTS, '']) }).map((t) => {
    const { effect, ...rest } = t;
    return effect === '' ? rest : t;
  }),
  { minLength: 1, maxLength: 3 },
);

const spreadArb = fc
  .record({
    maxSkew: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 3 }) }),
    topologyKey: fc.oneof({ weight: 4, arbitrary: pick([ZONE, HOSTNAME]) }, { weight: 2, arbitrary: pick(TOPOLOGY_KEYS) }),
    whenUnsatisfiable: pick(['DoNotSchedule', 'ScheduleAnyway'] as const),
    labelSelector: podSelectorArb,
    minDomains: maybe(fc.integer({ min: 1, max: 5 }), 35),
    nodeAffinityPolicy: pick(['Honor', 'Ignore', undefined]),
    nodeTaintsPolicy: pick(['Honor', 'Ignore', undefined]),
    matchLabelKeys: maybe(fc.subarray(POD_LABEL_KEYS, { minLength: 1, maxLength: 2 }), 25),
  })
  .map((c) => {
    const out: Json = { maxSkew: c.maxSkew, topologyKey: c.topologyKey, whenUnsatisfiable: c.whenUnsatisfiable };
    if (c.labelSelector !== null) out['labelSelector'] = c.labelSelector;
    if (c.minDomains !== undefined && c.whenUnsatisfiable === 'DoNotSchedule') out['minDomains'] = c.minDomains;
    if (c.nodeAffinityPolicy) out['nodeAffinityPolicy'] = c.nodeAffinityPolicy;
    if (c.nodeTaintsPolicy) out['nodeTaintsPolicy'] = c.nodeTaintsPolicy;
    if (c.labelSelector !== null && c.matchLabelKeys) {
      const used = selectorKeys(c.labelSelector);
      const keys = c.matchLabelKeys.filter((k) => !used.has(k));
      if (keys.length > 0) out['matchLabelKeys'] = keys;
    }
    return out;
  });

/** Spread constraints with distinct {topologyKey, whenUnsatisfiable} pairs, as validation requires. */
const spreadListArb = fc.uniqueArray(spreadArb, { maxLength: 3, selector: (c) => `${c['topologyKey'] as string}|${c['whenUnsatisfiable'] as string}` });

// --- resources --------------------------------------------------------------

interface Amounts {
  cpu: number;
  mem: number;
  gpu: number;
  eph: number;
}

interface ContainerDraw {
  readonly cpu: number | undefined;
  readonly mem: number | undefined;
  readonly gpu: number | undefined;
  readonly eph: boolean;
  /** 0: requests only; 1: limits only (requests default to them); 2: limits above requests; 3: equal. */
  readonly limitStyle: number;
  readonly style: number;
  readonly image: string | undefined;
  readonly ports: readonly { port: number; protocol: string | undefined; hostIP: string }[];
}

const containerDrawArb: fc.Arbitrary<ContainerDraw> = fc.record({
  cpu: maybe(pick(CPU_REQUESTS), 70),
  mem: maybe(pick(MEM_REQUESTS), 65),
  gpu: maybe(fc.integer({ min: 0, max: 2 }), 12),
  eph: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  limitStyle: fc.nat(3),
  style: fc.nat(5),
  image: maybe(pick(IMAGES), 75),
  ports: fc.array(fc.record({ port: pick(HOST_PORTS), protocol: pick(['TCP', 'UDP', undefined]), hostIP: pick(HOST_IPS) }), { maxLength: 1 }),
});

const EPH_REQUEST = 2 * GI;

function containerJson(name: string, d: ContainerDraw, hostPorts: boolean, restartPolicy?: string): { json: Json; req: Amounts } {
  const requests: Json = {};
  const limits: Json = {};
  const req: Amounts = { cpu: 0, mem: 0, gpu: 0, eph: 0 };
  const put = (res: string, amount: number, q: string | number, double: string | number) => {
    if (d.limitStyle === 1) limits[res] = q;
    else requests[res] = q;
    if (d.limitStyle === 3) limits[res] = q;
    if (d.limitStyle === 2) limits[res] = double;
    (req as unknown as Record<string, number>)[res === 'cpu' ? 'cpu' : res === 'memory' ? 'mem' : 'eph'] = amount;
  };
  if (d.cpu !== undefined) put('cpu', d.cpu, cpuQuantity(d.cpu, d.style), cpuQuantity(d.cpu * 2, d.style));
  if (d.mem !== undefined) put('memory', d.mem, memQuantity(d.mem, d.style), memQuantity(d.mem * 2, d.style));
  if (d.eph) put('ephemeral-storage', EPH_REQUEST, '2Gi', '4Gi');
  // Extended resources cannot be overcommitted: requests equal limits (or come from them).
  if (d.gpu !== undefined) {
    limits[GPU] = String(d.gpu);
    if (d.limitStyle !== 1) requests[GPU] = String(d.gpu);
    req.gpu = d.gpu;
  }
  const json: Json = { name };
  if (d.image !== undefined) json['image'] = d.image;
  const resources: Json = {};
  if (Object.keys(requests).length > 0) resources['requests'] = requests;
  if (Object.keys(limits).length > 0) resources['limits'] = limits;
  if (Object.keys(resources).length > 0) json['resources'] = resources;
  if (hostPorts && d.ports.length > 0) {
    json['ports'] = d.ports.map((p) => ({ containerPort: 8000 + p.port, hostPort: p.port, ...(p.protocol ? { protocol: p.protocol } : {}), ...(p.hostIP ? { hostIP: p.hostIP } : {}) }));
  }
  if (restartPolicy) json['restartPolicy'] = restartPolicy;
  return { json, req };
}

const add = (a: Amounts, b: Amounts): Amounts => ({ cpu: a.cpu + b.cpu, mem: a.mem + b.mem, gpu: a.gpu + b.gpu, eph: a.eph + b.eph });
const max = (a: Amounts, b: Amounts): Amounts => ({ cpu: Math.max(a.cpu, b.cpu), mem: Math.max(a.mem, b.mem), gpu: Math.max(a.gpu, b.gpu), eph: Math.max(a.eph, b.eph) });
const ZERO: Amounts = { cpu: 0, mem: 0, gpu: 0, eph: 0 };

interface PodResourcesDraw {
  readonly containers: readonly ContainerDraw[];
  /** Init containers; `sidecar` ones have restartPolicy Always. */
  readonly init: readonly (ContainerDraw & { sidecar: boolean })[];
  readonly overhead: { cpu: number; mem: number } | undefined;
  /** Pod-level requests (spec.resources): extra above what the containers need, and whether limits are set too. */
  readonly podLevel: { cpu: number; mem: number; limits: boolean } | undefined;
}

const podResourcesArb = (maxContainers: number): fc.Arbitrary<PodResourcesDraw> =>
  fc.record({
    containers: fc.array(containerDrawArb, { minLength: 1, maxLength: maxContainers }),
    init: fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(containerDrawArb, fc.boolean()).map(([c, sidecar]) => ({ ...c, sidecar })), { minLength: 1, maxLength: 2 }) }),
    overhead: maybe(fc.record({ cpu: pick([10, 100, 250]), mem: pick([MI, 64 * MI, 120 * MI]) }), 15),
    podLevel: maybe(fc.record({ cpu: pick([0, 0, 100, 500]), mem: pick([0, 0, 64 * MI, 256 * MI]), limits: fc.boolean() }), 12),
  });

/** Containers, init containers and overhead as JSON, with the pod's effective requests (resourcehelper.PodRequests). */
function podResourcesJson(d: PodResourcesDraw, hostPorts: boolean): { spec: Json; req: Amounts } {
  // Host ports must be unique per pod (port, protocol, IP): keep the first use of each.
  const seen = new Set<string>();
  const dedupe = (c: ContainerDraw): ContainerDraw => ({
    ...c,
    ports: c.ports.filter((p) => {
      const k = `${p.port}/${p.protocol ?? 'TCP'}/${p.hostIP}`;
      if (seen.has(k) || [...seen].some((s) => s.startsWith(`${p.port}/${p.protocol ?? 'TCP'}/`))) return false;
      seen.add(k);
      return true;
    }),
  });
  let sidecars = ZERO;
  let initMax = ZERO;
  const initContainers = d.init.map((c, i) => {
    const { json, req } = containerJson(`init${i}`, dedupe(c), hostPorts && c.sidecar, c.sidecar ? 'Always' : undefined);
    if (c.sidecar) {
      sidecars = add(sidecars, req);
      initMax = max(initMax, sidecars);
    } else {
      initMax = max(initMax, add(sidecars, req));
    }
    return json;
  });
  let sum = ZERO;
  const containers = d.containers.map((c, i) => {
    const { json, req } = containerJson(`c${i}`, dedupe(c), hostPorts);
    sum = add(sum, req);
    return json;
  });
  let req = max(add(sum, sidecars), initMax);
  const spec: Json = { containers };
  if (initContainers.length > 0) spec['initContainers'] = initContainers;
  if (d.podLevel) {
    // Pod-level requests at or above what the containers need (validation), for both cpu
    // and memory, with limits only where requests are set: the API server's pod-level
    // defaulting (DefaultPodLevelResources, in the pod strategy, not SetDefaults) then
    // has nothing to add, so the oracle gets the object as the API server stores it.
    const cpu = req.cpu + d.podLevel.cpu;
    const mem = req.mem + d.podLevel.mem;
    const resources: Json = { requests: { cpu: `${cpu}m`, memory: memQuantity(mem, 1) } };
    if (d.podLevel.limits) resources['limits'] = { cpu: `${2 * cpu + 1000}m`, memory: memQuantity(2 * mem + GI, 1) };
    spec['resources'] = resources;
    req = { ...req, cpu, mem };
  }
  if (d.overhead) {
    // The RuntimeClass admission plugin sets overhead; a pod carries it with its runtimeClassName.
    spec['runtimeClassName'] = 'kata';
    spec['overhead'] = { cpu: `${d.overhead.cpu}m`, memory: memQuantity(d.overhead.mem, 1) };
    req = add(req, { cpu: d.overhead.cpu, mem: d.overhead.mem, gpu: 0, eph: 0 });
  }
  return { spec, req };
}

// --- nodes ------------------------------------------------------------------

interface NodeDraw {
  readonly zone: number | undefined;
  readonly region: number | undefined;
  readonly betaZone: boolean;
  readonly sharedHostname: boolean;
  readonly rack: number | undefined;
  readonly labels: Readonly<Record<string, number>>;
  readonly taints: readonly { key: string; value: string; effect: string }[];
  readonly unschedulable: boolean;
  readonly cpu: number;
  readonly mem: number;
  readonly pods: number;
  readonly gpu: number | undefined;
  readonly eph: boolean;
  readonly allocatableLess: boolean;
  readonly omitAllocatable: boolean;
  /** A node that reports no cpu or no memory at all (virtual kubelets do). */
  readonly missing: 'none' | 'cpu' | 'memory';
  readonly style: number;
  readonly images: readonly { names: readonly string[]; size: number }[];
}

const nodeDrawArb: fc.Arbitrary<NodeDraw> = fc.record({
  zone: maybe(fc.nat(ZONES.length - 1), 85),
  region: maybe(fc.nat(REGIONS.length - 1), 65),
  betaZone: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  sharedHostname: fc.oneof({ weight: 15, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  rack: maybe(fc.nat(RACKS.length - 1), 50),
  labels: fc.dictionary(pick(Object.keys(NODE_LABELS)), fc.nat(3), { maxKeys: 3 }),
  taints: fc.oneof(
    { weight: 3, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.uniqueArray(fc.record({ key: pick(TAINT_KEYS), value: pick(TAINT_VALUES), effect: pick(EFFECTS) }), { minLength: 1, maxLength: 2, selector: (t) => `${t.key}:${t.effect}` }) },
  ),
  unschedulable: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  cpu: pick(NODE_CPU),
  mem: pick(NODE_MEM),
  pods: fc.oneof({ weight: 3, arbitrary: fc.constant(110) }, { weight: 2, arbitrary: pick(NODE_PODS) }),
  gpu: maybe(fc.integer({ min: 0, max: 4 }), 40),
  eph: fc.oneof({ weight: 1, arbitrary: fc.constant(false) }, { weight: 3, arbitrary: fc.constant(true) }),
  allocatableLess: fc.boolean(),
  omitAllocatable: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  missing: fc.oneof({ weight: 40, arbitrary: fc.constant('none' as const) }, { weight: 1, arbitrary: pick(['cpu', 'memory'] as const) }),
  style: fc.nat(5),
  images: fc.array(fc.record({ names: fc.subarray([...IMAGES], { minLength: 1, maxLength: 2 }), size: pick(IMAGE_SIZES) }), { maxLength: 2 }),
});

interface NodeAlloc {
  cpu: number;
  mem: number;
  pods: number;
  gpu: number | undefined;
}

function nodeJson(name: string, d: NodeDraw, alloc: NodeAlloc): Json {
  const labels: Record<string, string> = { [HOSTNAME]: d.sharedHostname ? 'shared-host' : name, 'kubernetes.io/os': 'linux' };
  if (d.zone !== undefined) labels[d.betaZone ? BETA_ZONE : ZONE] = ZONES[d.zone]!;
  if (d.region !== undefined) labels[REGION] = REGIONS[d.region]!;
  if (d.rack !== undefined) labels[RACK] = RACKS[d.rack]!;
  for (const [k, i] of Object.entries(d.labels)) labels[k] = NODE_LABELS[k]![i % NODE_LABELS[k]!.length]!;
  const taints = d.taints.map((t) => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect }));
  if (d.unschedulable) taints.push({ key: UNSCHEDULABLE_TAINT, effect: 'NoSchedule' });
  const allocatable: Json = { cpu: cpuQuantity(alloc.cpu, d.style), memory: memQuantity(alloc.mem, d.style), pods: String(alloc.pods) };
  if (d.missing !== 'none') delete allocatable[d.missing];
  if (alloc.gpu !== undefined) allocatable[GPU] = String(alloc.gpu);
  if (d.eph) allocatable['ephemeral-storage'] = '20Gi';
  // Capacity is at least allocatable (system reservations come off it).
  const capacity: Json = d.allocatableLess ? { ...allocatable, cpu: cpuQuantity(alloc.cpu + 500, d.style), memory: memQuantity(alloc.mem + GI, d.style) } : { ...allocatable };
  const spec: Json = {};
  if (taints.length > 0) spec['taints'] = taints;
  if (d.unschedulable) spec['unschedulable'] = true;
  const status: Json = { capacity: d.omitAllocatable ? allocatable : capacity };
  if (!d.omitAllocatable) status['allocatable'] = allocatable;
  if (d.images.length > 0) status['images'] = d.images.map((i) => ({ names: i.names, sizeBytes: i.size }));
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, uid: `uid-node-${name}`, labels }, spec, status };
}

// --- pods -------------------------------------------------------------------

interface PodDraw {
  readonly namespace: number;
  readonly labels: Readonly<Record<string, number>>;
  readonly resources: PodResourcesDraw;
  readonly hostPorts: boolean;
  readonly hostNetwork: boolean;
  readonly priority: number;
  readonly priorityClass: number | undefined;
  readonly nodeSelector: Readonly<Record<string, number>> | undefined;
  readonly nodeAffinity: Json | undefined;
  readonly podAffinity: Json | undefined;
  readonly podAntiAffinity: Json | undefined;
  readonly tolerations: readonly Json[];
}

const podDrawArb = (opts: { maxContainers: number; rich: boolean }): fc.Arbitrary<PodDraw> =>
  fc.record({
    namespace: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.nat(NAMESPACES.length - 1) }),
    labels: fc.dictionary(pick(POD_LABEL_KEYS), fc.nat(3), { maxKeys: 3 }),
    resources: podResourcesArb(opts.maxContainers),
    hostPorts: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    hostNetwork: fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    priority: opts.rich ? pick(PENDING_PRIORITIES) : pick(PRIORITIES),
    priorityClass: maybe(fc.nat(2), 75),
    nodeSelector: opts.rich ? maybe(fc.dictionary(pick([ZONE, 'disk', 'pool', HOSTNAME]), fc.nat(4), { minKeys: 1, maxKeys: 2 }), 15) : fc.constant(undefined),
    nodeAffinity: opts.rich ? maybe(nodeAffinityArb, 35) : fc.constant(undefined),
    podAffinity: maybe(podAffinityArb, opts.rich ? 30 : 12),
    podAntiAffinity: maybe(podAffinityArb, opts.rich ? 30 : 15),
    tolerations: opts.rich ? fc.array(tolerationArb, { maxLength: 3 }) : fc.constant([]),
  });

function podLabels(d: PodDraw): Record<string, string> {
  return Object.fromEntries(Object.entries(d.labels).map(([k, i]) => [k, POD_LABELS[k]![i % POD_LABELS[k]!.length]!]));
}

const PRIORITY_CLASS_NAMES = ['low', 'high', 'never'] as const;

/** The pod as JSON and its effective requests. */
function podJson(name: string, index: number, d: PodDraw, withClasses: boolean, extra: { spread?: Json[]; preemptionNever?: boolean; second?: number }): { json: Json; req: Amounts } {
  const namespace = NAMESPACES[d.namespace]!;
  const { spec, req } = podResourcesJson(d.resources, d.hostPorts || d.hostNetwork);
  if (d.hostNetwork) spec['hostNetwork'] = true;
  if (withClasses) {
    if (d.priorityClass !== undefined) spec['priorityClassName'] = PRIORITY_CLASS_NAMES[d.priorityClass]!;
  } else {
    spec['priority'] = d.priority;
    if (extra.preemptionNever) spec['preemptionPolicy'] = 'Never';
  }
  if (d.nodeSelector) {
    spec['nodeSelector'] = Object.fromEntries(Object.entries(d.nodeSelector).map(([k, i]) => [k, nodeLabelValues(k)[i % nodeLabelValues(k).length]!]));
  }
  const affinity: Json = {};
  if (d.nodeAffinity && Object.keys(d.nodeAffinity).length > 0) affinity['nodeAffinity'] = d.nodeAffinity;
  if (d.podAffinity && Object.keys(d.podAffinity).length > 0) affinity['podAffinity'] = d.podAffinity;
  if (d.podAntiAffinity && Object.keys(d.podAntiAffinity).length > 0) affinity['podAntiAffinity'] = d.podAntiAffinity;
  if (Object.keys(affinity).length > 0) spec['affinity'] = affinity;
  if (d.tolerations.length > 0) spec['tolerations'] = d.tolerations;
  if (extra.spread && extra.spread.length > 0) spec['topologySpreadConstraints'] = extra.spread;
  // Distinct creation and start times: preemption orders victims by start time.
  const time = new Date(Date.UTC(2024, 0, 1, 0, 0, extra.second ?? index)).toISOString().replace('.000Z', 'Z');
  return {
    json: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, uid: `uid-${namespace}-${name}`, labels: podLabels(d), creationTimestamp: time }, spec, status: { startTime: time } },
    req,
  };
}

interface BoundDraw {
  readonly pod: PodDraw;
  readonly node: number;
  readonly ghostNode: boolean;
  readonly unbound: boolean;
  readonly phase: 'Running' | 'Pending' | 'Succeeded' | 'Failed';
  readonly terminating: 'no' | 'plain' | 'preempted';
}

const boundDrawArb: fc.Arbitrary<BoundDraw> = fc.record({
  pod: podDrawArb({ maxContainers: 2, rich: false }),
  node: fc.nat(59),
  ghostNode: fc.oneof({ weight: 40, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  unbound: fc.oneof({ weight: 20, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  phase: fc.oneof({ weight: 20, arbitrary: fc.constant('Running' as const) }, { weight: 1, arbitrary: pick(['Pending', 'Succeeded', 'Failed'] as const) }),
  terminating: fc.oneof({ weight: 20, arbitrary: fc.constant('no' as const) }, { weight: 1, arbitrary: pick(['plain', 'preempted'] as const) }),
});

interface PendingDraw {
  readonly pod: PodDraw;
  readonly spread: readonly Json[];
  readonly preemptionNever: boolean;
  readonly nominated: number | undefined;
  /** An image volume (ImageLocality scores its image too). */
  readonly imageVolume: string | undefined;
}

const pendingDrawArb: fc.Arbitrary<PendingDraw> = fc.record({
  pod: podDrawArb({ maxContainers: 2, rich: true }),
  spread: fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: spreadListArb }),
  preemptionNever: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  nominated: maybe(fc.nat(59), 5),
  imageVolume: maybe(pick(IMAGES), 10),
});

// --- PDBs, priority classes, namespaces ---------------------------------------

const pdbDrawArb: fc.Arbitrary<PdbDraw> = fc.record({
  namespace: fc.nat(NAMESPACES.length - 1),
  selector: podSelectorArb,
  allowed: fc.nat(2),
  maxUnavailable: fc.boolean(),
});

interface PdbDraw {
  readonly namespace: number;
  readonly selector: Json | null;
  readonly allowed: number;
  readonly maxUnavailable: boolean;
}

function pdbJson(name: string, d: PdbDraw): Json {
  const spec: Json = d.maxUnavailable ? { maxUnavailable: '50%' } : { minAvailable: 1 };
  if (d.selector !== null) spec['selector'] = d.selector;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: NAMESPACES[d.namespace]! },
    spec,
    // Preemption reads status.disruptionsAllowed as the disruption controller last wrote it.
    status: { disruptionsAllowed: d.allowed, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
  };
}

function priorityClassesJson(globalDefault: boolean): Json[] {
  const pc = (name: string, value: number, more: Json = {}): Json => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...more });
  return [pc('low', 10, globalDefault ? { globalDefault: true } : {}), pc('high', 1000), pc('never', 2000, { preemptionPolicy: 'Never' })];
}

function namespacesJson(which: readonly boolean[]): Json[] {
  return NAMESPACES.filter((_, i) => which[i]).map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: NAMESPACE_LABELS[name] } }));
}

// --- owners of pods, for default spreading ----------------------------------

const podLabelMapArb = fc.dictionary(pick(POD_LABEL_KEYS), fc.nat(3), { maxKeys: 2 }).map((d) => Object.fromEntries(Object.entries(d).map(([k, i]) => [k, POD_LABELS[k]![i % POD_LABELS[k]!.length]!])));

interface OwnerDraw {
  readonly namespace: number;
  /** A Service's map selector: absent (selects nothing), empty (every pod of the namespace) or labels. */
  readonly selector: Record<string, string> | undefined;
  readonly kind: 'Service' | 'ReplicaSet' | 'StatefulSet';
}

const ownerDrawArb: fc.Arbitrary<OwnerDraw> = fc.record({
  namespace: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(NAMESPACES.length - 1) }),
  selector: maybe(podLabelMapArb, 85),
  kind: pick(['Service', 'Service', 'ReplicaSet', 'StatefulSet'] as const),
});

function ownerJson(name: string, d: OwnerDraw): Json {
  const metadata = { name, namespace: NAMESPACES[d.namespace]! };
  if (d.kind === 'Service') return { apiVersion: 'v1', kind: 'Service', metadata, spec: d.selector ? { selector: d.selector } : {} };
  // apps/v1 wants a non-empty selector that matches the template; zero replicas keeps
  // berth from generating the workload's pods (only the selector matters here).
  const labels = d.selector && Object.keys(d.selector).length > 0 ? d.selector : { app: 'web' };
  const spec: Json = { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } };
  if (d.kind === 'StatefulSet') spec['serviceName'] = 'svc';
  return { apiVersion: 'apps/v1', kind: d.kind, metadata, spec };
}

// --- scheduler configuration -------------------------------------------------

const SCORE_PLUGINS = ['TaintToleration', 'NodeAffinity', 'NodeResourcesFit', 'PodTopologySpread', 'InterPodAffinity', 'NodeResourcesBalancedAllocation', 'ImageLocality'] as const;
const DISABLEABLE = [...SCORE_PLUGINS, 'NodePorts', 'NodeUnschedulable', 'DefaultPreemption'] as const;

const resourceSpecsArb = (weights: boolean) =>
  fc.uniqueArray(
    fc.record({ name: pick(['cpu', 'memory', GPU, 'ephemeral-storage']), weight: weights ? fc.integer({ min: 1, max: 5 }) : fc.constant(1) }),
    { minLength: 1, maxLength: 3, selector: (r) => r.name },
  );

const shapeArb = fc
  .uniqueArray(fc.record({ utilization: fc.integer({ min: 0, max: 100 }), score: fc.integer({ min: 0, max: 10 }) }), { minLength: 1, maxLength: 3, selector: (p) => p.utilization })
  .map((ps) => [...ps].sort((a, b) => a.utilization - b.utilization));

const fitArgsArb: fc.Arbitrary<Json> = fc
  .record({
    type: pick(['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'] as const),
    resources: maybe(resourceSpecsArb(true), 60),
    shape: shapeArb,
    ignored: maybe(pick([[GPU], ['example.com']]), 20),
  })
  .map((a) => {
    const scoringStrategy: Json = { type: a.type };
    if (a.resources) scoringStrategy['resources'] = a.resources;
    if (a.type === 'RequestedToCapacityRatio') scoringStrategy['requestedToCapacityRatio'] = { shape: a.shape };
    const args: Json = { scoringStrategy };
    if (a.ignored) args[a.ignored[0] === GPU ? 'ignoredResources' : 'ignoredResourceGroups'] = a.ignored;
    return args;
  });

const spreadDefaultsArb: fc.Arbitrary<Json> = fc.oneof(
  fc.constant({ defaultingType: 'System' }),
  fc
    .uniqueArray(
      fc.record({ maxSkew: fc.integer({ min: 1, max: 3 }), topologyKey: pick([ZONE, HOSTNAME, RACK, MISSING_KEY]), whenUnsatisfiable: pick(['DoNotSchedule', 'ScheduleAnyway'] as const) }),
      { maxLength: 2, selector: (c) => `${c.topologyKey}|${c.whenUnsatisfiable}` },
    )
    .map((defaultConstraints) => ({ defaultingType: 'List', defaultConstraints })),
);

const pluginConfigArb: fc.Arbitrary<Json[]> = fc
  .record({
    fit: maybe(fitArgsArb, 50),
    balanced: maybe(resourceSpecsArb(false).map((resources) => ({ resources })), 25),
    ipa: maybe(fc.record({ hardPodAffinityWeight: fc.integer({ min: 0, max: 100 }), ignorePreferredTermsOfExistingPods: fc.boolean() }), 30),
    spread: maybe(spreadDefaultsArb, 35),
    nodeAffinity: maybe(nodeAffinityArb.filter((a) => Object.keys(a).length > 0).map((addedAffinity) => ({ addedAffinity })), 20),
    preemption: maybe(
      fc.record({ minCandidateNodesPercentage: fc.integer({ min: 0, max: 100 }), minCandidateNodesAbsolute: fc.integer({ min: 0, max: 3 }) }).filter((p) => p.minCandidateNodesPercentage + p.minCandidateNodesAbsolute > 0),
      25,
    ),
  })
  .map((c) => {
    const out: Json[] = [];
    if (c.fit) out.push({ name: 'NodeResourcesFit', args: c.fit });
    if (c.balanced) out.push({ name: 'NodeResourcesBalancedAllocation', args: c.balanced });
    if (c.ipa) out.push({ name: 'InterPodAffinity', args: c.ipa });
    if (c.spread) out.push({ name: 'PodTopologySpread', args: c.spread });
    if (c.nodeAffinity) out.push({ name: 'NodeAffinity', args: c.nodeAffinity });
    if (c.preemption) out.push({ name: 'DefaultPreemption', args: c.preemption });
    return out;
  });

/** A valid v1 KubeSchedulerConfiguration with one profile for the default scheduler name. */
const configArb: fc.Arbitrary<Json> = fc
  .record({
    percentage: maybe(pick([0, 5, 50, 100]), 20),
    disabled: fc.subarray([...DISABLEABLE], { maxLength: 2 }),
    weights: fc.uniqueArray(fc.record({ name: pick(SCORE_PLUGINS), weight: fc.integer({ min: 1, max: 10 }) }), { maxLength: 2, selector: (w) => w.name }),
    pluginConfig: pluginConfigArb,
  })
  .map((c) => {
    const profile: Json = { schedulerName: 'default-scheduler' };
    const plugins: Json = {};
    if (c.disabled.length > 0) plugins['multiPoint'] = { disabled: c.disabled.map((name) => ({ name })) };
    const weighted = c.weights.filter((w) => !(c.disabled as string[]).includes(w.name));
    if (weighted.length > 0) plugins['score'] = { enabled: weighted };
    if (Object.keys(plugins).length > 0) profile['plugins'] = plugins;
    if (c.pluginConfig.length > 0) profile['pluginConfig'] = c.pluginConfig;
    const config: Json = { apiVersion: 'kubescheduler.config.k8s.io/v1', kind: 'KubeSchedulerConfiguration', profiles: [profile] };
    if (c.percentage !== undefined) config['percentageOfNodesToScore'] = c.percentage;
    return config;
  });

// --- the case -----------------------------------------------------------------

interface CaseDraw {
  readonly nodes: readonly NodeDraw[];
  readonly bound: readonly BoundDraw[];
  readonly pending: PendingDraw;
  readonly namespaces: readonly boolean[];
  readonly pdbs: readonly PdbDraw[];
  readonly priorityClasses: 'none' | 'classes' | 'globalDefault';
  readonly owners: readonly OwnerDraw[];
  readonly config: Json | undefined;
  /**
   * Fill every node to its pod capacity, so the pending pod fits only by
   * preempting, with PDBs over common labels so candidates differ in violations.
   */
  readonly crowded: boolean;
  /**
   * With `crowded`: one more PDB, allowing no disruption, whose selector carries a
   * legacy value (NotIn, so read leniently it would cover nearly every pod): kube-scheduler's
   * preemption cannot parse it and lets it protect nothing.
   */
  readonly legacyPdb: (typeof LEGACY_VALUES)[number] | undefined;
  /** Bound pods share a few start times, so preemption's ordering meets ties. */
  readonly sameStart: boolean;
  /** The nominated node (when there is one) does not exist. */
  readonly ghostNomination: boolean;
  readonly offset: number;
  /** Make one node's free resources equal the pending pod's requests (cpu, memory, pods). */
  readonly exactFit: { node: number; cpu: boolean; mem: boolean; pods: boolean } | undefined;
  /** Volumes, claims and classes, and the volumes pods mount. */
  readonly storage: StorageDraw | undefined;
  /** Feature gates set either way (a gate set to its default must change nothing). */
  readonly featureGates: Readonly<Record<string, boolean>> | undefined;
  /** Used when featureGates turns TaintTolerationComparisonOperators on: the pending pod's Lt/Gt tolerations, and per node (cycling) its SLA taint value and effect, if any. */
  readonly comparisonTolerations: readonly Json[];
  readonly slaTaints: readonly ({ value: number; effect: string } | undefined)[];
}

// Mostly a few nodes, sometimes up to 60; both branches shrink down to one node.
// Rarely more than 100 nodes, where percentageOfNodesToScore starts to cut the search short.
const nodesArb = fc.oneof(
  { weight: 80, arbitrary: fc.array(nodeDrawArb, { minLength: 1, maxLength: 60, size: 'small' }) },
  { weight: 20, arbitrary: fc.array(nodeDrawArb, { minLength: 1, maxLength: 60, size: 'max' }) },
  { weight: 2, arbitrary: fc.array(nodeDrawArb, { minLength: 95, maxLength: 160, size: 'max' }) },
);

const caseDrawArb: fc.Arbitrary<CaseDraw> = fc.record({
  nodes: nodesArb,
  bound: fc.oneof(
    { weight: 1, arbitrary: fc.constant([]) },
    { weight: 5, arbitrary: fc.array(boundDrawArb, { maxLength: 80, size: 'small' }) },
    { weight: 2, arbitrary: fc.array(boundDrawArb, { maxLength: 80, size: 'medium' }) },
  ),
  pending: pendingDrawArb,
  namespaces: fc.array(fc.boolean(), { minLength: NAMESPACES.length, maxLength: NAMESPACES.length }),
  pdbs: fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(pdbDrawArb, { minLength: 1, maxLength: 3 }) }),
  priorityClasses: fc.oneof({ weight: 8, arbitrary: fc.constant('none' as const) }, { weight: 1, arbitrary: pick(['classes', 'globalDefault'] as const) }),
  owners: fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(ownerDrawArb, { minLength: 1, maxLength: 3 }) }),
  config: maybe(configArb, 25),
  crowded: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  legacyPdb: maybe(pick(LEGACY_VALUES), 30),
  sameStart: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  ghostNomination: fc.oneof({ weight: 10, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  offset: fc.nat(1000),
  exactFit: maybe(fc.record({ node: fc.nat(59), cpu: fc.boolean(), mem: fc.boolean(), pods: fc.boolean() }), 30),
  storage: maybe(storageDrawArb, 35),
  featureGates: maybe(
    fc
      .record(
        {
          MatchLabelKeysInPodTopologySpread: fc.boolean(),
          MatchLabelKeysInPodTopologySpreadSelectorMerge: fc.boolean(),
          PodLevelResources: fc.boolean(),
          StorageCapacityScoring: fc.boolean(),
          TaintTolerationComparisonOperators: fc.boolean(),
          VolumeLimitScaling: fc.boolean(),
        },
        { requiredKeys: [] },
      )
      // Dependent gates must be off with what they depend on, or kube-scheduler refuses the flag.
      .map((g) => (g.MatchLabelKeysInPodTopologySpread === false ? { ...g, MatchLabelKeysInPodTopologySpreadSelectorMerge: false } : g))
      .map((g) => (g.PodLevelResources === false ? { ...g, InPlacePodLevelResourcesVerticalScaling: false, PodLevelResourcesFixDefaulting: false, PodLevelResourcesFixKubeletQOSClass: false } : g)),
    30,
  ),
  comparisonTolerations: comparisonTolerationsArb,
  slaTaints: fc.array(maybe(fc.record({ value: fc.integer({ min: -2, max: 14 }), effect: pick(EFFECTS) }), 75), { minLength: 1, maxLength: 8 }),
});

function withSlaTaint(node: Json, taint: { value: number; effect: string } | undefined): Json {
  if (!taint) return node;
  const spec = node['spec'] as Json;
  spec['taints'] = [...((spec['taints'] as Json[] | undefined) ?? []), { key: SLA_TAINT, value: String(taint.value), effect: taint.effect }];
  return node;
}

function assemble(d: CaseDraw): ConformanceCase {
  const names = d.nodes.map((_, i) => `n${i}`);
  const allocs: NodeAlloc[] = d.nodes.map((n) => ({ cpu: n.cpu, mem: n.mem, pods: n.pods, gpu: n.gpu }));
  const withClasses = d.priorityClasses !== 'none';
  const used = d.nodes.map(() => ({ req: ZERO, pods: 0 }));
  const pods: Json[] = d.bound.map((b, i) => {
    const { json, req } = podJson(`p${i}`, i, b.pod, withClasses, d.sameStart ? { second: i % 3 } : {});
    const spec = json['spec'] as Json;
    const node = b.node % names.length;
    if (!b.unbound) spec['nodeName'] = b.ghostNode ? 'ghost' : names[node]!;
    const status = json['status'] as Json;
    status['phase'] = b.unbound ? 'Pending' : b.phase;
    if (b.terminating !== 'no') {
      (json['metadata'] as Json)['deletionTimestamp'] = '2024-01-01T01:00:00Z';
      if (b.terminating === 'preempted') status['conditions'] = [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }];
    }
    if (!b.unbound && !b.ghostNode && (b.phase === 'Running' || b.phase === 'Pending')) {
      used[node] = { req: add(used[node]!.req, req), pods: used[node]!.pods + 1 };
    }
    return json;
  });
  const pending = podJson('pending', d.bound.length, d.pending.pod, withClasses, { spread: [...d.pending.spread], preemptionNever: d.pending.preemptionNever });
  if (d.featureGates?.['MatchLabelKeysInPodTopologySpread'] !== undefined || d.featureGates?.['MatchLabelKeysInPodTopologySpreadSelectorMerge'] !== undefined) {
    // Give the gate something to decide: every spread constraint with a selector narrows it by a label the pod has.
    const labels = ((pending.json['metadata'] as Json)['labels'] as Record<string, string> | undefined) ?? {};
    for (const c of ((pending.json['spec'] as Json)['topologySpreadConstraints'] as Json[] | undefined) ?? []) {
      const selector = c['labelSelector'] as Json | undefined;
      if (!selector || c['matchLabelKeys']) continue;
      const used = selectorKeys(selector);
      const keys = POD_LABEL_KEYS.filter((k) => k in labels && !used.has(k)).slice(0, 1);
      if (keys.length > 0) c['matchLabelKeys'] = keys;
      // Every other bound pod gets another value for the key, so narrowing by it counts fewer pods.
      for (const k of keys) {
        const other = POD_LABELS[k]!.find((v) => v !== labels[k])!;
        pods.forEach((p, i) => {
          if (i % 2 === 1) ((p['metadata'] as Json)['labels'] as Record<string, string>)[k] = other;
        });
      }
    }
  }
  if (d.featureGates?.['TaintTolerationComparisonOperators']) {
    const spec = pending.json['spec'] as Json;
    spec['tolerations'] = [...((spec['tolerations'] as Json[] | undefined) ?? []), ...d.comparisonTolerations];
  }
  if (d.pending.imageVolume !== undefined) (pending.json['spec'] as Json)['volumes'] = [{ name: 'model', image: { reference: d.pending.imageVolume } }];
  if (d.pending.nominated !== undefined) (pending.json['status'] as Json)['nominatedNodeName'] = d.ghostNomination ? 'ghost' : names[d.pending.nominated % names.length]!;
  if (d.crowded) {
    for (const [i, a] of allocs.entries()) if (used[i]!.pods > 0) a.pods = used[i]!.pods;
  }
  if (d.exactFit) {
    const i = d.exactFit.node % names.length;
    const a = allocs[i]!;
    const u = used[i]!;
    if (d.exactFit.cpu && u.req.cpu + pending.req.cpu > 0) a.cpu = u.req.cpu + pending.req.cpu;
    if (d.exactFit.mem && u.req.mem + pending.req.mem > 0) a.mem = u.req.mem + pending.req.mem;
    if (d.exactFit.pods) a.pods = u.pods + 1;
    if (pending.req.gpu > 0) a.gpu = u.req.gpu + pending.req.gpu;
  }
  const storageDraw = d.storage && d.featureGates?.['VolumeLimitScaling'] !== undefined ? withPickyDriver(d.storage) : d.storage;
  const storage = storageDraw ? assembleStorage(storageDraw, names, pending.json, pods) : undefined;
  const c: ConformanceCase = {
    ...storage,
    nodes: d.nodes.map((n, i) => withSlaTaint(nodeJson(names[i]!, n, allocs[i]!), d.featureGates?.['TaintTolerationComparisonOperators'] ? d.slaTaints[i % d.slaTaints.length] : undefined)),
    pods,
    pod: pending.json,
    namespaces: namespacesJson(d.namespaces),
    pdbs: [
      ...d.pdbs.map((p, i) => pdbJson(`pdb${i}`, p)),
      ...(d.crowded
        ? [
            pdbJson('pdb-web', { namespace: 0, selector: { matchLabels: { app: 'web' } }, allowed: 0, maxUnavailable: false }),
            pdbJson('pdb-fe', { namespace: 0, selector: { matchLabels: { tier: 'fe' } }, allowed: 1, maxUnavailable: true }),
            ...(d.legacyPdb ? [pdbJson('pdb-legacy', { namespace: 0, selector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: [d.legacyPdb] }] }, allowed: 0, maxUnavailable: false })] : []),
          ]
        : []),
    ],
    priorityClasses: d.priorityClasses === 'none' ? [] : priorityClassesJson(d.priorityClasses === 'globalDefault'),
    preemptionOffset: d.offset,
    services: d.owners.flatMap((o, i) => (o.kind === 'Service' ? [ownerJson(`svc${i}`, o)] : [])),
    replicaSets: d.owners.flatMap((o, i) => (o.kind === 'ReplicaSet' ? [ownerJson(`rs${i}`, o)] : [])),
    statefulSets: d.owners.flatMap((o, i) => (o.kind === 'StatefulSet' ? [ownerJson(`ss${i}`, o)] : [])),
    ...(d.config ? { config: d.config } : {}),
    ...(d.featureGates ? { featureGates: d.featureGates } : {}),
  };
  // Drawn values can be shared (fc.constant hands out one object), and the
  // oracle-side admission edits selectors in place on its copy: a JSON round trip
  // makes every object its own, as it is when read from a file.
  return JSON.parse(JSON.stringify(c)) as ConformanceCase;
}

/** A random scheduling case: cluster, bound pods and one pending pod. */
export const caseArb: fc.Arbitrary<ConformanceCase> = caseDrawArb.map(assemble);
