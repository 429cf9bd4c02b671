// Cluster state for the Karpenter differential run: 0–3 launched NodeClaims of the case's
// NodePools, each either in flight (no Node yet), registered but uninitialized (its Node
// not Ready and still carrying a startup taint), initialized and marked for deletion
// (karpenter.sh/disrupted:NoSchedule, with 1–3 pods bound that Karpenter plans again), or
// initialized and ready (1–3 pods bound; kube-scheduler binds pending pods there first,
// see karpenter-run.ts), and the DaemonSet pods running on those Nodes.
// Written as kubectl would dump them, so berth's loader and the Go oracle read the same.

import fc from 'fast-check';
import { bundledInstanceTypes } from '../src/provisioner/catalog/catalog.js';
import { DEDICATED_TAINT, HOST_PORT, PREFER_NO_SCHEDULE_TAINT, ZONES, type DaemonSetGen, type KarpenterCase, type Obj, type PoolGen } from './karpenter-gen.js';

export type MachineState = 'inFlight' | 'uninitialized' | 'deleting' | 'ready';

export interface MachineGen {
  state: MachineState;
  /** Index into the case's NodePools (modulo their number). */
  pool: number;
  type: string;
  zone: string;
  /** Pods bound to a deleting or ready node, each `cpuMilli`. */
  boundPods: number;
  cpuMilli: number;
}

const TYPES = ['m5.large', 'm6g.large', 'c5.xlarge', 'r6g.xlarge', 'm5.2xlarge', 't3.medium'] as const;
const STARTUP_TAINT = { key: 'example.com/agent-not-ready', value: 'true', effect: 'NoSchedule' } as const;
const NOT_READY = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' } as const;
const DISRUPTED = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' } as const;

export const machineArb: fc.Arbitrary<MachineGen> = fc.record({
  state: fc.constantFrom<MachineState>('inFlight', 'inFlight', 'uninitialized', 'deleting', 'ready'),
  pool: fc.nat({ max: 2 }),
  type: fc.constantFrom(...TYPES),
  zone: fc.constantFrom(...ZONES),
  boundPods: fc.integer({ min: 1, max: 3 }),
  cpuMilli: fc.constantFrom(100, 250, 500, 1000),
});

const IT = new Map(bundledInstanceTypes().map((it) => [it.name, it]));
const quantities = (r: Readonly<Record<string, number>>): Record<string, string> => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'cpu' ? `${v}m` : String(v)]));

/**
 * The pods the DaemonSet controller has put on a registered Node: those of the DaemonSets
 * that tolerate its NoSchedule taints (only those that tolerate every taint pass a Node's
 * not-ready or disrupted taint, `onlyTolerateAll`) and whose node affinity the Node meets.
 * A real dump has them; berth's loader would otherwise create them and the oracle would
 * not see them.
 */
function daemonPodsOn(node: string, labels: Readonly<Record<string, string>>, daemonSets: readonly DaemonSetGen[], onlyTolerateAll: boolean): Obj[] {
  return daemonSets.flatMap((d, i) => {
    if ((onlyTolerateAll && !d.tolerateAll) || (d.key !== null && !d.values.includes(labels[d.key] ?? ''))) return [];
    const container: Obj = { name: 'd', image: 'x', resources: { requests: { cpu: `${d.cpuMilli}m`, memory: `${d.memMi}Mi` } } };
    if (d.hostPort) container['ports'] = [{ containerPort: HOST_PORT, hostPort: HOST_PORT, protocol: 'TCP' }];
    return [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `ds${i}-${node}`, namespace: 'kube-system', uid: `uid-ds${i}-${node}`, labels: { ds: `ds${i}` }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: `ds${i}`, uid: `uid-ds-${i}`, controller: true }] },
        spec: { nodeName: node, containers: [container], tolerations: [{ operator: 'Exists' }] },
        status: { phase: 'Running' },
      },
    ];
  });
}

/** The case with the machines' NodeClaims, Nodes and bound pods (the DaemonSets' among them) added. */
export function withClusterState(c: KarpenterCase, pools: readonly PoolGen[], machines: readonly MachineGen[], daemonSets: readonly DaemonSetGen[] = []): KarpenterCase {
  if (machines.length === 0) return c;
  const nodeClaims: Obj[] = [];
  const nodes: Obj[] = [];
  const boundPods: Obj[] = [];
  machines.forEach((m, i) => {
    const pool = pools[m.pool % pools.length]!;
    const it = IT.get(m.type)!;
    const name = `${pool.name}-m${i}`;
    const providerID = `aws:///${m.zone}/i-${i}`;
    const capacityType = pool.capacityType.includes('on-demand') ? 'on-demand' : 'spot';
    const labels: Record<string, string> = {
      ...it.labels,
      'karpenter.sh/nodepool': pool.name,
      'topology.kubernetes.io/zone': m.zone,
      'karpenter.sh/capacity-type': capacityType,
      'kubernetes.io/hostname': name,
      ...(pool.rack ? { 'example.com/rack': pool.rack[0]! } : {}),
    };
    const poolTaints = pool.taint === 'none' ? [] : [pool.taint === 'noSchedule' ? DEDICATED_TAINT : PREFER_NO_SCHEDULE_TAINT];
    const startupTaints = m.state === 'uninitialized' ? [STARTUP_TAINT] : [];
    nodeClaims.push({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name, labels },
      spec: { taints: poolTaints, startupTaints, requirements: [], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } },
      status: { providerID, capacity: quantities(it.capacity), allocatable: quantities(it.allocatable), ...(m.state === 'inFlight' ? {} : { nodeName: name }) },
    });
    if (m.state === 'inFlight') return;
    const initialized = m.state === 'deleting' || m.state === 'ready';
    nodes.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { ...labels, 'karpenter.sh/registered': 'true', ...(initialized ? { 'karpenter.sh/initialized': 'true' } : {}) } },
      spec: { providerID, taints: [...poolTaints, ...(m.state === 'deleting' ? [DISRUPTED] : m.state === 'uninitialized' ? [NOT_READY, STARTUP_TAINT] : [])] },
      status: { capacity: quantities(it.capacity), allocatable: quantities(it.allocatable) },
    });
    boundPods.push(...daemonPodsOn(name, labels, daemonSets, m.state !== 'ready' || pool.taint === 'noSchedule'));
    if (m.state === 'uninitialized') return;
    for (let j = 0; j < m.boundPods; j++) {
      boundPods.push({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `${name}-p${j}`, namespace: 'default', uid: `uid-${name}-p${j}`, labels: { app: `bound-${name}` }, creationTimestamp: new Date(Date.UTC(2025, 11, 1, 0, 0, j)).toISOString() },
        spec: {
          nodeName: name,
          containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: `${m.cpuMilli}m`, memory: '256Mi' } } }],
          ...(pool.taint === 'noSchedule' ? { tolerations: [{ key: DEDICATED_TAINT.key, operator: 'Equal', value: DEDICATED_TAINT.value, effect: DEDICATED_TAINT.effect }] } : {}),
        },
        status: { phase: 'Running' },
      });
    }
  });
  return { ...c, nodeClaims, ...(nodes.length > 0 ? { nodes } : {}), ...(boundPods.length > 0 ? { boundPods } : {}) };
}
