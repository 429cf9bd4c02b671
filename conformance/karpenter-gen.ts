// Random provisioning cases for the Karpenter differential run: no existing nodes,
// 1–3 NodePools, 1–60 pending pods in groups (plain, zone spread, hostname
// anti-affinity, node selector / node affinity). Objects are plain Kubernetes JSON
// so both berth's loader and the Go oracle read the very same case.

import fc from 'fast-check';

export const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c', 'us-west-2d'] as const;
export const CATEGORIES = ['c', 'm', 'r', 't'] as const;
export const ARCHS = ['amd64', 'arm64'] as const;
export const CAPACITY_TYPES = ['on-demand', 'spot'] as const;

export type Obj = Record<string, unknown>;

export interface PoolGen {
  name: string;
  weight: number | null;
  arch: string[] | null;
  category: string[] | null;
  capacityType: string[];
  zone: string[] | null;
  limitCpu: number | null;
}

export type GroupKind = 'plain' | 'zoneSpread' | 'antiAffinity' | 'selector' | 'affinity';

export interface GroupGen {
  kind: GroupKind;
  count: number;
  cpuMilli: number;
  memMi: number;
  /** selector / affinity: the constrained key and allowed values. */
  key: string;
  values: string[];
}

export interface KarpenterCase {
  id: string;
  nodePools: Obj[];
  pods: Obj[];
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
    limitCpu: fc.option(fc.constantFrom(4, 8, 16, 32, 64, 256), { nil: null, freq: 2 }),
  });

const CPU = [100, 250, 500, 1000, 1500, 2000, 3500, 4000, 7000, 16000, 48000];
const MEM = [128, 256, 512, 1024, 2048, 4096, 8192, 15000, 30000, 120000];

const groupArb: fc.Arbitrary<GroupGen> = fc
  .record({
    kind: fc.constantFrom<GroupKind>('plain', 'plain', 'zoneSpread', 'antiAffinity', 'selector', 'affinity'),
    count: fc.integer({ min: 1, max: 12 }),
    cpuMilli: fc.constantFrom(...CPU),
    memMi: fc.constantFrom(...MEM),
    keyPick: fc.constantFrom('kubernetes.io/arch', 'topology.kubernetes.io/zone', 'karpenter.sh/capacity-type', 'karpenter.k8s.aws/instance-category'),
    arch: subset(ARCHS),
    zone: subset(ZONES),
    ct: subset(CAPACITY_TYPES),
    cat: subset(CATEGORIES),
  })
  .map((g) => {
    const values =
      g.keyPick === 'kubernetes.io/arch' ? g.arch : g.keyPick === 'topology.kubernetes.io/zone' ? g.zone : g.keyPick === 'karpenter.sh/capacity-type' ? g.ct : g.cat;
    // A nodeSelector takes one value.
    const vs = g.kind === 'selector' ? values.slice(0, 1) : values;
    return { kind: g.kind, count: g.count, cpuMilli: g.cpuMilli, memMi: g.memMi, key: g.keyPick, values: vs };
  });

export interface CaseGen {
  pools: PoolGen[];
  groups: GroupGen[];
}

export const caseGenArb: fc.Arbitrary<CaseGen> = fc.integer({ min: 1, max: 3 }).chain((n) =>
  fc.record({
    pools: fc.tuple(...Array.from({ length: n }, (_, i) => poolArb(i))),
    groups: fc.array(groupArb, { minLength: 1, maxLength: 6 }),
  }),
);

export function nodePoolObject(p: PoolGen): Obj {
  const requirements: Obj[] = [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: p.capacityType }];
  if (p.arch) requirements.push({ key: 'kubernetes.io/arch', operator: 'In', values: p.arch });
  if (p.category) requirements.push({ key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: p.category });
  if (p.zone) requirements.push({ key: 'topology.kubernetes.io/zone', operator: 'In', values: p.zone });
  const spec: Obj = {
    template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements } },
  };
  if (p.weight !== null) spec['weight'] = p.weight;
  if (p.limitCpu !== null) spec['limits'] = { cpu: String(p.limitCpu) };
  return { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: p.name }, spec };
}

export function groupPods(g: GroupGen, gi: number, start: number): Obj[] {
  const app = `g${gi}`;
  const pods: Obj[] = [];
  for (let i = 0; i < g.count; i++) {
    const spec: Obj = {
      containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: `${g.cpuMilli}m`, memory: `${g.memMi}Mi` } } }],
    };
    if (g.kind === 'zoneSpread') {
      spec['topologySpreadConstraints'] = [
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } },
      ];
    } else if (g.kind === 'antiAffinity') {
      spec['affinity'] = {
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app } }, topologyKey: 'kubernetes.io/hostname' }] },
      };
    } else if (g.kind === 'selector') {
      spec['nodeSelector'] = { [g.key]: g.values[0]! };
    } else if (g.kind === 'affinity') {
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

/** Caps the pods at 60, as the brief asks. */
export function buildCase(id: string, g: CaseGen): KarpenterCase {
  const pods: Obj[] = [];
  g.groups.forEach((grp, gi) => {
    for (const p of groupPods(grp, gi, pods.length)) if (pods.length < 60) pods.push(p);
  });
  return { id, nodePools: g.pools.map(nodePoolObject), pods };
}
