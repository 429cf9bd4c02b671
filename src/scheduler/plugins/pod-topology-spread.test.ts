import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ClusterState, OWNER_KINDS, type OwnerSelector } from '../../cluster/state.js';
import type { TaintManifest, TolerationManifest, TopologySpreadConstraintManifest } from '../../model/manifest.js';
import { compileNode, LABEL_HOSTNAME, LABEL_ZONE, type Node } from '../../model/node.js';
import { bindPod, compilePod, type Pod } from '../../model/pod.js';
import { compileLabelSelector } from '../../model/selector.js';
import type { FeatureGates } from '../feature-gates.js';
import { CycleState, Framework, type Handle, type NodeScore, type QueueSortPlugin } from '../framework.js';
import { Scheduler } from '../scheduler.js';
import { Code, type Status } from '../status.js';
import {
  ERR_REASON_CONSTRAINTS_NOT_MATCH,
  ERR_REASON_NODE_LABEL_NOT_MATCH,
  newPodTopologySpread,
  POD_TOPOLOGY_SPREAD,
  type PodTopologySpreadPlugin,
} from './pod-topology-spread.js';
import { PRE_FILTER_STATE_KEY, type PreFilterState } from './pod-topology-spread/filtering.js';
import { PRE_SCORE_STATE_KEY, topologyNormalizingWeight, type PreScoreState } from './pod-topology-spread/scoring.js';
import { newPrioritySort } from './priority-sort.js';

// ---------------------------------------------------------------- fixtures

const ZONE = LABEL_ZONE;
const HOST = LABEL_HOSTNAME;

let order = 0;

function mkNode(name: string, labels: Record<string, string> = {}, taints: TaintManifest[] = []): Node {
  return compileNode({ metadata: { name, labels }, spec: { taints } }, order++);
}

interface PodSpec {
  readonly name: string;
  readonly ns?: string;
  readonly labels?: Record<string, string>;
  readonly node?: string;
  readonly terminating?: boolean;
  readonly spread?: TopologySpreadConstraintManifest[];
  readonly nodeSelector?: Record<string, string>;
  readonly tolerations?: TolerationManifest[];
  /** Controller owner: [kind, name]. */
  readonly owner?: [string, string];
}

function mkPod(p: PodSpec): Pod {
  return compilePod(
    {
      metadata: {
        name: p.name,
        namespace: p.ns ?? 'default',
        labels: p.labels ?? {},
        ...(p.terminating ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}),
        ...(p.owner ? { ownerReferences: [{ apiVersion: p.owner[0] === 'ReplicationController' ? 'v1' : 'apps/v1', kind: p.owner[0], name: p.owner[1], controller: true }] } : {}),
      },
      spec: {
        containers: [{ name: 'c' }],
        ...(p.node ? { nodeName: p.node } : {}),
        ...(p.spread ? { topologySpreadConstraints: p.spread } : {}),
        ...(p.nodeSelector ? { nodeSelector: p.nodeSelector } : {}),
        ...(p.tolerations ? { tolerations: p.tolerations } : {}),
      },
    },
    { order: order++ },
  );
}

/** A constraint selecting app=<app>. */
function spread(topologyKey: string, maxSkew: number, when: 'DoNotSchedule' | 'ScheduleAnyway', app: string, extra: Partial<TopologySpreadConstraintManifest> = {}): TopologySpreadConstraintManifest {
  return { topologyKey, maxSkew, whenUnsatisfiable: when, labelSelector: { matchLabels: { app } }, ...extra };
}
const hard = (key: string, maxSkew: number, extra: Partial<TopologySpreadConstraintManifest> = {}) => spread(key, maxSkew, 'DoNotSchedule', 'web', extra);
const soft = (key: string, maxSkew: number, extra: Partial<TopologySpreadConstraintManifest> = {}) => spread(key, maxSkew, 'ScheduleAnyway', 'web', extra);

const web = (name: string, node: string, extra: Partial<PodSpec> = {}): PodSpec => ({ name, node, labels: { app: 'web' }, ...extra });

function owner(namespace: string, name: string, matchLabels: Record<string, string>): OwnerSelector {
  return { namespace, name, uid: `${namespace}/${name}`, selector: compileLabelSelector({ matchLabels }) };
}

interface Workloads {
  readonly services?: OwnerSelector[];
  readonly replicaSets?: OwnerSelector[];
  readonly statefulSets?: OwnerSelector[];
  readonly replicationControllers?: OwnerSelector[];
}

function clusterOf(nodes: readonly Node[], pods: readonly PodSpec[], workloads: Workloads = {}): ClusterState {
  const c = new ClusterState();
  for (const n of nodes) c.addNode(n);
  for (const p of pods) c.addPod(mkPod(p));
  for (const kind of OWNER_KINDS) c.addOwners(kind, workloads[kind] ?? []);
  return c;
}

function handleFor(cluster: ClusterState): Handle {
  const unused = (): never => {
    throw new Error('not used by PodTopologySpread');
  };
  return {
    cluster,
    rand: undefined as never,
    nominatedPodsForNode: () => [],
    runPreFilterExtensionAddPod: unused,
    runPreFilterExtensionRemovePod: unused,
    runFilterPlugins: unused,
    runFilterPluginsWithNominatedPods: unused,
  };
}

function pluginFor(cluster: ClusterState, args: Record<string, unknown> = {}, features?: FeatureGates): PodTopologySpreadPlugin {
  return newPodTopologySpread({ handle: handleFor(cluster), args, ...(features ? { features } : {}) }) as PodTopologySpreadPlugin;
}

/** A scheduler whose only plugins are PrioritySort and PodTopologySpread. */
function schedulerFor(cluster: ClusterState, args: Record<string, unknown> = {}): Scheduler {
  return new Scheduler(cluster, (handle) => {
    const pl = newPodTopologySpread({ handle, args }) as PodTopologySpreadPlugin;
    const queueSort = newPrioritySort({ handle, args: {} }) as QueueSortPlugin;
    return new Framework('default-scheduler', { queueSort, preFilter: [pl], filter: [pl], postFilter: [], preScore: [pl], score: [{ plugin: pl, weight: 2 }] }, 0);
  });
}

type Verdict = 'ok' | 'skew' | 'label';

function verdictOf(s: Status): Verdict | string {
  if (s.isSuccess()) return 'ok';
  const r = s.reasons.join(', ');
  if (s.code === Code.Unschedulable && r === ERR_REASON_CONSTRAINTS_NOT_MATCH) return 'skew';
  if (s.code === Code.UnschedulableAndUnresolvable && r === ERR_REASON_NODE_LABEL_NOT_MATCH) return 'label';
  return `${s.code}:${r}`;
}

/** Runs PreFilter then Filter on every node; undefined when PreFilter skipped. */
function filterAll(cluster: ClusterState, pod: Pod, args: Record<string, unknown> = {}): Record<string, Verdict | string> | undefined {
  const pl = pluginFor(cluster, args);
  const state = new CycleState();
  const pre = pl.preFilter(state, pod, cluster.nodeInfos());
  if (pre.status.isSkip()) return undefined;
  assert.ok(pre.status.isSuccess(), pre.status.message());
  assert.equal(pre.result, undefined);
  const out: Record<string, Verdict | string> = {};
  for (const info of cluster.nodeInfos()) out[info.node.name] = verdictOf(pl.filter(state, pod, info));
  return out;
}

/** PreScore over `filtered` (default: every node), Score and NormalizeScore; undefined when PreScore skipped. */
function scoreAll(cluster: ClusterState, pod: Pod, args: Record<string, unknown> = {}, filtered?: readonly string[]): { raw: Record<string, number>; normalized: Record<string, number> } | undefined {
  const pl = pluginFor(cluster, args);
  const state = new CycleState();
  const nodes = cluster.nodeInfos().filter((n) => filtered === undefined || filtered.includes(n.node.name));
  const status = pl.preScore(state, pod, nodes);
  if (status.isSkip()) return undefined;
  assert.ok(status.isSuccess(), status.message());
  const scores: NodeScore[] = nodes.map((n) => ({ name: n.node.name, score: pl.score(state, pod, n) }));
  // The Score loop's form (every node at once) gives what Score gives node by node.
  const all = new Array<number>(nodes.length + 1).fill(-1);
  pl.scoreAll!(state, pod, nodes, all, 1);
  assert.deepEqual(all, [-1, ...scores.map((s) => s.score)]);
  const raw = Object.fromEntries(scores.map((s) => [s.name, s.score]));
  pl.normalizeScore(state, pod, scores);
  return { raw, normalized: Object.fromEntries(scores.map((s) => [s.name, s.score])) };
}

// Four nodes over two zones.
const twoZones = () => [mkNode('a1', { [ZONE]: 'z1' }), mkNode('a2', { [ZONE]: 'z1' }), mkNode('b1', { [ZONE]: 'z2' }), mkNode('b2', { [ZONE]: 'z2' })];
// Three nodes, one zone each; c1 is tainted NoSchedule.
const threeZones = () => [
  mkNode('a1', { [ZONE]: 'z1', disk: 'ssd' }),
  mkNode('b1', { [ZONE]: 'z2', disk: 'ssd' }),
  mkNode('c1', { [ZONE]: 'z3' }, [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }]),
];

// ---------------------------------------------------------------- Filter

interface FilterCase {
  readonly name: string;
  readonly nodes: () => Node[];
  readonly pods?: PodSpec[];
  readonly workloads?: Workloads;
  readonly args?: Record<string, unknown>;
  readonly pod: PodSpec;
  /** Absent: PreFilter must Skip. */
  readonly want?: Record<string, Verdict>;
}

const filterCases: FilterCase[] = [
  {
    name: 'zone maxSkew 1: the zone already holding more matching pods is rejected',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'a2'), web('p3', 'b1')],
    pod: web('in', '', { spread: [hard(ZONE, 1)] }),
    // z1=2, z2=1, min 1: z1 gives 2+1-1=2 > 1, z2 gives 1+1-1=1.
    want: { a1: 'skew', a2: 'skew', b1: 'ok', b2: 'ok' },
  },
  {
    name: 'zone maxSkew 1: balanced zones accept every node',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'b2')],
    pod: web('in', '', { spread: [hard(ZONE, 1)] }),
    want: { a1: 'ok', a2: 'ok', b1: 'ok', b2: 'ok' },
  },
  {
    name: 'hostname maxSkew 1: only the empty nodes are open once others hold one',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'b1')],
    pod: web('in', '', { spread: [hard(HOST, 1)] }),
    want: { a1: 'skew', a2: 'ok', b1: 'skew', b2: 'ok' },
  },
  {
    name: 'hostname and zone maxSkew 1 together: a node must satisfy both',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'b1'), web('p3', 'b2')],
    pod: web('in', '', { spread: [hard(HOST, 1), hard(ZONE, 1)] }),
    // Hosts: a1=1, a2=0, b1=1, b2=1 (min 0). Zones: z1=1, z2=2 (min 1).
    want: { a1: 'skew', a2: 'ok', b1: 'skew', b2: 'skew' },
  },
  {
    name: 'maxSkew 2 tolerates a difference of two',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'a2')],
    pod: web('in', '', { spread: [hard(ZONE, 2)] }),
    // z1=2, z2=0: z1 gives 3 > 2.
    want: { a1: 'skew', a2: 'skew', b1: 'ok', b2: 'ok' },
  },
  {
    name: 'minDomains 1 (unset): the global minimum is the emptiest eligible domain',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'a2'), web('p3', 'b1'), web('p4', 'b2')],
    pod: web('in', '', { spread: [hard(ZONE, 1)] }),
    want: { a1: 'ok', a2: 'ok', b1: 'ok', b2: 'ok' },
  },
  {
    name: 'minDomains 3 with two zones: the global minimum is treated as 0',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'a2'), web('p3', 'b1'), web('p4', 'b2')],
    pod: web('in', '', { spread: [hard(ZONE, 2, { minDomains: 3 })] }),
    // 2 + 1 - 0 = 3 > 2 everywhere, although the zones are balanced.
    want: { a1: 'skew', a2: 'skew', b1: 'skew', b2: 'skew' },
  },
  {
    name: 'minDomains equal to the number of domains keeps the real minimum',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'a2'), web('p3', 'b1'), web('p4', 'b2')],
    pod: web('in', '', { spread: [hard(ZONE, 2, { minDomains: 2 })] }),
    want: { a1: 'ok', a2: 'ok', b1: 'ok', b2: 'ok' },
  },
  {
    name: 'missing topology key on the node: unresolvable, and its pods are not counted',
    nodes: () => [mkNode('a1', { [ZONE]: 'z1' }), mkNode('b1', { [ZONE]: 'z2' }), mkNode('bare')],
    pods: [web('p1', 'bare'), web('p2', 'bare'), web('p3', 'a1')],
    pod: web('in', '', { spread: [hard(ZONE, 1)] }),
    want: { a1: 'skew', b1: 'ok', bare: 'label' },
  },
  {
    name: 'a node lacking one of several keys is not counted for any constraint',
    nodes: () => [mkNode('a1', { [ZONE]: 'z1', rack: 'r1' }), mkNode('a2', { [ZONE]: 'z1' }), mkNode('b1', { [ZONE]: 'z2', rack: 'r2' })],
    pods: [web('p1', 'a2'), web('p2', 'a2')],
    pod: web('in', '', { spread: [hard(ZONE, 1), hard('rack', 1)] }),
    // a2 has no rack: its two pods count in neither constraint, so z1 and z2 are both 0.
    want: { a1: 'ok', a2: 'label', b1: 'ok' },
  },
  {
    name: 'nodeAffinityPolicy Honor (default): zones outside the nodeSelector do not lower the minimum',
    nodes: threeZones,
    pods: [web('p1', 'a1'), web('p2', 'b1')],
    pod: web('in', '', { spread: [hard(ZONE, 1)], nodeSelector: { disk: 'ssd' } }),
    // z3 does not match disk=ssd: min over z1, z2 is 1.
    want: { a1: 'ok', b1: 'ok', c1: 'ok' },
  },
  {
    name: 'nodeAffinityPolicy Ignore: the empty zone outside the nodeSelector counts as the minimum',
    nodes: threeZones,
    pods: [web('p1', 'a1'), web('p2', 'b1')],
    pod: web('in', '', { spread: [hard(ZONE, 1, { nodeAffinityPolicy: 'Ignore' })], nodeSelector: { disk: 'ssd' } }),
    want: { a1: 'skew', b1: 'skew', c1: 'ok' },
  },
  {
    name: 'nodeTaintsPolicy Ignore (default): the tainted empty zone counts as the minimum',
    nodes: threeZones,
    pods: [web('p1', 'a1'), web('p2', 'b1')],
    pod: web('in', '', { spread: [hard(ZONE, 1)] }),
    want: { a1: 'skew', b1: 'skew', c1: 'ok' },
  },
  {
    name: 'nodeTaintsPolicy Honor: the untolerated tainted zone is left out',
    nodes: threeZones,
    pods: [web('p1', 'a1'), web('p2', 'b1')],
    pod: web('in', '', { spread: [hard(ZONE, 1, { nodeTaintsPolicy: 'Honor' })] }),
    want: { a1: 'ok', b1: 'ok', c1: 'ok' },
  },
  {
    name: 'nodeTaintsPolicy Honor with a toleration: the tainted zone counts again',
    nodes: threeZones,
    pods: [web('p1', 'a1'), web('p2', 'b1')],
    pod: web('in', '', { spread: [hard(ZONE, 1, { nodeTaintsPolicy: 'Honor' })], tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' }] }),
    want: { a1: 'skew', b1: 'skew', c1: 'ok' },
  },
  {
    name: 'nodeTaintsPolicy Honor ignores PreferNoSchedule taints',
    nodes: () => [mkNode('a1', { [ZONE]: 'z1' }), mkNode('b1', { [ZONE]: 'z2' }, [{ key: 'soft', effect: 'PreferNoSchedule' }])],
    pods: [web('p1', 'a1')],
    pod: web('in', '', { spread: [hard(ZONE, 1, { nodeTaintsPolicy: 'Honor' })] }),
    want: { a1: 'skew', b1: 'ok' },
  },
  {
    name: 'matchLabelKeys: pods of an older revision are not counted',
    nodes: twoZones,
    pods: [web('old1', 'a1', { labels: { app: 'web', 'pod-template-hash': 'v1' } }), web('old2', 'a2', { labels: { app: 'web', 'pod-template-hash': 'v1' } })],
    pod: web('in', '', { labels: { app: 'web', 'pod-template-hash': 'v2' }, spread: [hard(ZONE, 1, { matchLabelKeys: ['pod-template-hash'] })] }),
    want: { a1: 'ok', a2: 'ok', b1: 'ok', b2: 'ok' },
  },
  {
    name: 'without matchLabelKeys the older revision is counted',
    nodes: twoZones,
    pods: [web('old1', 'a1', { labels: { app: 'web', 'pod-template-hash': 'v1' } }), web('old2', 'a2', { labels: { app: 'web', 'pod-template-hash': 'v1' } })],
    pod: web('in', '', { labels: { app: 'web', 'pod-template-hash': 'v2' }, spread: [hard(ZONE, 1)] }),
    want: { a1: 'skew', a2: 'skew', b1: 'ok', b2: 'ok' },
  },
  {
    name: 'selfMatch false: a pod outside its own selector adds nothing to the skew',
    nodes: twoZones,
    pods: [web('p1', 'a1')],
    pod: { name: 'in', labels: { app: 'other' }, spread: [hard(ZONE, 1)] },
    // z1 gives 1 + 0 - 0 = 1.
    want: { a1: 'ok', a2: 'ok', b1: 'ok', b2: 'ok' },
  },
  {
    name: 'selfMatch true: the same layout rejects a matching pod in the loaded zone',
    nodes: twoZones,
    pods: [web('p1', 'a1')],
    pod: web('in', '', { spread: [hard(ZONE, 1)] }),
    want: { a1: 'skew', a2: 'skew', b1: 'ok', b2: 'ok' },
  },
  {
    name: 'pods in other namespaces and terminating pods are not counted',
    nodes: twoZones,
    pods: [web('p1', 'a1', { ns: 'other' }), web('p2', 'a2', { terminating: true }), web('p3', 'a2', { ns: 'other' })],
    pod: web('in', '', { spread: [hard(ZONE, 1)] }),
    want: { a1: 'ok', a2: 'ok', b1: 'ok', b2: 'ok' },
  },
  {
    name: 'an empty labelSelector counts no pods but the pod still matches itself',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'a2'), web('p3', 'a2')],
    pod: web('in', '', { spread: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', labelSelector: {} }] }),
    want: { a1: 'ok', a2: 'ok', b1: 'ok', b2: 'ok' },
  },
  {
    name: 'Skip: a pod without constraints under System defaulting (the defaults are ScheduleAnyway)',
    nodes: twoZones,
    pods: [web('p1', 'a1')],
    workloads: { replicaSets: [owner('default', 'web-rs', { app: 'web' })] },
    pod: web('in', '', { owner: ['ReplicaSet', 'web-rs'] }),
  },
  {
    name: 'Skip: a pod with only ScheduleAnyway constraints',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'a1')],
    pod: web('in', '', { spread: [soft(ZONE, 1)] }),
  },
  {
    name: 'Skip: own ScheduleAnyway constraints suppress List DoNotSchedule defaults',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'a1')],
    workloads: { replicaSets: [owner('default', 'web-rs', { app: 'web' })] },
    args: { defaultingType: 'List', defaultConstraints: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] },
    pod: web('in', '', { owner: ['ReplicaSet', 'web-rs'], spread: [soft(ZONE, 1)] }),
  },
  {
    name: 'List defaulting: a ReplicaSet pod is spread by the default DoNotSchedule constraint',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'a2')],
    workloads: { replicaSets: [owner('default', 'web-rs', { app: 'web' })] },
    args: { defaultingType: 'List', defaultConstraints: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] },
    pod: web('in', '', { owner: ['ReplicaSet', 'web-rs'] }),
    want: { a1: 'skew', a2: 'skew', b1: 'ok', b2: 'ok' },
  },
  {
    name: 'List defaulting honours minDomains written in the default constraint',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'b1')],
    workloads: { replicaSets: [owner('default', 'web-rs', { app: 'web' })] },
    args: { defaultingType: 'List', defaultConstraints: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', minDomains: 3 }] },
    pod: web('in', '', { owner: ['ReplicaSet', 'web-rs'] }),
    want: { a1: 'skew', a2: 'skew', b1: 'skew', b2: 'skew' },
  },
  {
    name: 'Skip: List defaulting for a pod nothing selects or owns',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'a2')],
    args: { defaultingType: 'List', defaultConstraints: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] },
    pod: web('in', ''),
  },
  {
    name: 'Skip: List defaulting with no default constraints',
    nodes: twoZones,
    pods: [web('p1', 'a1'), web('p2', 'a2')],
    workloads: { replicaSets: [owner('default', 'web-rs', { app: 'web' })] },
    args: { defaultingType: 'List' },
    pod: web('in', '', { owner: ['ReplicaSet', 'web-rs'] }),
  },
  {
    name: 'List defaulting with a Service selector: pods the Service selects are counted',
    nodes: twoZones,
    pods: [web('p1', 'a1'), { name: 'p2', node: 'a2', labels: { app: 'db' } }],
    workloads: { services: [owner('default', 'web-svc', { app: 'web' })] },
    args: { defaultingType: 'List', defaultConstraints: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] },
    pod: web('in', ''),
    want: { a1: 'skew', a2: 'skew', b1: 'ok', b2: 'ok' },
  },
];

describe('PodTopologySpread Filter', () => {
  for (const tc of filterCases) {
    it(tc.name, () => {
      const cluster = clusterOf(tc.nodes(), tc.pods ?? [], tc.workloads);
      assert.deepEqual(filterAll(cluster, mkPod(tc.pod), tc.args), tc.want);
    });
  }

  it('matchLabelKeys are merged into the selector when the pod is compiled', () => {
    const pod = mkPod(web('in', '', { labels: { app: 'web', 'pod-template-hash': 'v2' }, spread: [hard(ZONE, 1, { matchLabelKeys: ['pod-template-hash'] })] }));
    const sel = pod.topologySpreadConstraints[0]!.selector;
    assert.equal(sel.matches({ app: 'web', 'pod-template-hash': 'v2' }), true);
    assert.equal(sel.matches({ app: 'web', 'pod-template-hash': 'v1' }), false);
  });

  it('Filter without PreFilter state is an internal error', () => {
    const cluster = clusterOf(twoZones(), []);
    const s = pluginFor(cluster).filter(new CycleState(), mkPod(web('in', '', { spread: [hard(ZONE, 1)] })), cluster.nodeInfos()[0]!);
    assert.equal(s.code, Code.Error);
    assert.equal(s.message(), 'reading "PreFilterPodTopologySpread" from cycleState: not found');
  });

  it('PreFilter state counts eligible domains per constraint', () => {
    const cluster = clusterOf(threeZones(), [web('p1', 'a1'), web('p2', 'a1'), web('p3', 'c1')]);
    const pl = pluginFor(cluster);
    const state = new CycleState();
    pl.preFilter(state, mkPod(web('in', '', { spread: [hard(ZONE, 1), hard(HOST, 1, { nodeTaintsPolicy: 'Honor' })] })), cluster.nodeInfos());
    const s = state.read<PreFilterState>(PRE_FILTER_STATE_KEY);
    assert.deepEqual([...s.tpValueToMatchNum[0]!], [['z1', 2], ['z2', 0], ['z3', 1]]);
    assert.deepEqual([...s.tpValueToMatchNum[1]!], [['a1', 2], ['b1', 0]]);
    assert.equal(s.minMatchNum(0, 1), 0);
    assert.equal(s.minMatchNum(1, 1), 0);
    assert.equal(s.minMatchNum(1, 3), 0);
  });
});

describe('PodTopologySpread and its feature gates', () => {
  // filtering_test.go TestPreFilterState: the pods are compiled as the API server admits
  // them (matchLabelKeys merged, with the gate on); with the gate off it merges nothing.
  const fourNodes = () => [
    mkNode('node-a', { zone: 'zone1', node: 'node-a' }),
    mkNode('node-b', { zone: 'zone1', node: 'node-b' }),
    mkNode('node-x', { zone: 'zone2', node: 'node-x' }),
    mkNode('node-y', { zone: 'zone2', node: 'node-y' }),
  ];
  const fooSelector = { matchExpressions: [{ key: 'foo', operator: 'Exists' as const, values: [] }] };
  const matchNum = (existing: PodSpec[], pod: PodSpec, features?: FeatureGates) => {
    const cluster = clusterOf(fourNodes(), existing);
    const state = new CycleState();
    assert.ok(pluginFor(cluster, {}, features).preFilter(state, mkPod(pod), cluster.nodeInfos()).status.isSuccess());
    return Object.fromEntries(state.read<PreFilterState>(PRE_FILTER_STATE_KEY).tpValueToMatchNum[0]!);
  };
  const spread = (labelSelector: TopologySpreadConstraintManifest['labelSelector'], keys: string[]): TopologySpreadConstraintManifest => ({ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector, matchLabelKeys: keys });
  const off: FeatureGates = { MatchLabelKeysInPodTopologySpread: false };

  it('upstream: "matchLabelKeys ignored when feature gate disabled"', () => {
    const existing = [{ name: 'p-a1', node: 'node-a', labels: { foo: '' } }, { name: 'p-a2', node: 'node-a', labels: { foo: '' } }, { name: 'p-b1', node: 'node-b', labels: { foo: '' } }, { name: 'p-y1', node: 'node-y', labels: { foo: '' } }, { name: 'p-y2', node: 'node-y', labels: { foo: '' } }];
    const pod = { name: 'p', labels: { foo: '', bar: '' }, spread: [spread(fooSelector, ['bar'])] };
    assert.deepEqual(matchNum(existing, pod, off), { zone1: 3, zone2: 2 });
    assert.deepEqual(matchNum(existing, pod), { zone1: 0, zone2: 0 });
  });
  it(`upstream: "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty"`, () => {
    const existing: PodSpec[] = [
      { name: 'p-a1', node: 'node-a', labels: { foo: '' } },
      { name: 'p-a2', node: 'node-a', labels: { foo: '', bar: 'a' } },
      { name: 'p-b1', node: 'node-b', labels: { foo: '' } },
      { name: 'p-y1', node: 'node-y', labels: { foo: '', bar: 'a' } },
      { name: 'p-y2', node: 'node-y', labels: { bar: '' } },
    ];
    const pod = { name: 'p', labels: { foo: '', bar: 'a' }, spread: [spread(fooSelector, ['bar'])] };
    assert.deepEqual(matchNum(existing, pod), { zone1: 1, zone2: 1 });
    assert.deepEqual(matchNum(existing, pod, off), { zone1: 3, zone2: 1 });
  });
  it('upstream: "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty"', () => {
    const existing = ['p-a1', 'p-a2', 'p-b1', 'p-y1', 'p-y2'].map((name) => ({ name, node: `node-${name[2]}`, labels: { foo: 'a' } }));
    const pod = { name: 'p', labels: { foo: 'a' }, spread: [spread({}, ['foo'])] };
    assert.deepEqual(matchNum(existing, pod), { zone1: 3, zone2: 2 });
  });

  it('nodeTaintsPolicy Honor counts a node whose taint only a Gt toleration tolerates when TaintTolerationComparisonOperators is on', () => {
    const nodes = () => [mkNode('a1', { [ZONE]: 'z1' }), mkNode('b1', { [ZONE]: 'z2' }, [{ key: 'sla', value: '950', effect: 'NoSchedule' }])];
    const cluster = clusterOf(nodes(), [web('p1', 'a1')]);
    const pod = mkPod(web('in', '', { spread: [hard(ZONE, 1, { nodeTaintsPolicy: 'Honor' })], tolerations: [{ key: 'sla', operator: 'Gt', value: '750', effect: 'NoSchedule' }] }));
    const verdicts = (features?: FeatureGates) => {
      const pl = pluginFor(cluster, {}, features);
      const state = new CycleState();
      assert.ok(pl.preFilter(state, pod, cluster.nodeInfos()).status.isSuccess());
      return cluster.nodeInfos().map((n) => verdictOf(pl.filter(state, pod, n)));
    };
    // Off: b1 (and zone z2) does not count, so z1 is the only domain and a1 passes.
    assert.deepEqual(verdicts(), ['ok', 'ok']);
    assert.deepEqual(verdicts({ TaintTolerationComparisonOperators: true }), ['skew', 'ok']);
  });
});

// ---------------------------------------------------------------- end to end

function scheduleReplicas(cluster: ClusterState, template: PodSpec, n: number): string[] {
  const sched = schedulerFor(cluster);
  const placed: string[] = [];
  for (let i = 0; i < n; i++) {
    const pod = mkPod({ ...template, name: `${template.name}-${i}` });
    cluster.addPod(pod);
    const out = sched.schedulePod(pod);
    if (out.kind === 'scheduled') {
      cluster.updatePod(bindPod(pod, out.node));
      placed.push(out.node);
    } else {
      placed.push(`pending: ${out.message}`);
    }
  }
  return placed;
}

describe('PodTopologySpread through the scheduler', () => {
  it('apiserver scales 1→3 on a single existing node: spread only with hostname+zone maxSkew 1 lets all three stack because only one domain exists', () => {
    const cluster = clusterOf([mkNode('n1', { [ZONE]: 'z1' })], []);
    const placed = scheduleReplicas(cluster, { name: 'apiserver', labels: { app: 'web' }, spread: [hard(HOST, 1), hard(ZONE, 1)] }, 3);
    assert.deepEqual(placed, ['n1', 'n1', 'n1']);
  });

  it('minDomains: 3 with one node → pending once the single domain holds maxSkew pods', () => {
    const cluster = clusterOf([mkNode('n1', { [ZONE]: 'z1' })], []);
    const placed = scheduleReplicas(cluster, { name: 'apiserver', labels: { app: 'web' }, spread: [hard(ZONE, 1, { minDomains: 3 })] }, 2);
    // The global minimum is 0 with one domain of three: the first replica gives skew 1, the second 2.
    assert.deepEqual(placed, ['n1', "pending: 0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints."]);
  });

  it('zone maxSkew 1 alternates replicas across zones', () => {
    const cluster = clusterOf(twoZones(), []);
    const placed = scheduleReplicas(cluster, { name: 'web', labels: { app: 'web' }, spread: [hard(ZONE, 1)] }, 4);
    const zones = placed.map((n) => cluster.nodeInfo(n)!.node.labels[ZONE]);
    assert.deepEqual(zones.slice().sort(), ['z1', 'z1', 'z2', 'z2']);
    assert.notEqual(zones[0], zones[1]);
  });

  it('the failure message for a node without the topology key names the missing label', () => {
    const cluster = clusterOf([mkNode('bare')], []);
    const placed = scheduleReplicas(cluster, { name: 'web', labels: { app: 'web' }, spread: [hard(ZONE, 1)] }, 1);
    assert.deepEqual(placed, ["pending: 0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label)."]);
  });
});

// ---------------------------------------------------------------- PreFilterExtensions

describe('PodTopologySpread AddPod/RemovePod', () => {
  // Zone counting ignores taints, hostname counting honours them; both honour disk=ssd.
  const incoming = () => mkPod(web('in', '', { spread: [hard(ZONE, 1), hard(HOST, 1, { nodeTaintsPolicy: 'Honor' })], nodeSelector: { disk: 'ssd' } }));
  const nodes = () => [
    mkNode('a1', { [ZONE]: 'z1', disk: 'ssd' }),
    mkNode('b1', { [ZONE]: 'z2', disk: 'ssd' }),
    mkNode('c1', { [ZONE]: 'z3', disk: 'ssd' }, [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }]),
    mkNode('d1', { [ZONE]: 'z4' }),
  ];
  const base: PodSpec[] = [web('p1', 'a1'), web('p2', 'b1'), web('p3', 'b1')];

  function stateAfterPreFilter(cluster: ClusterState, pod: Pod): { pl: PodTopologySpreadPlugin; state: CycleState } {
    const pl = pluginFor(cluster);
    const state = new CycleState();
    assert.ok(pl.preFilter(state, pod, cluster.nodeInfos()).status.isSuccess());
    return { pl, state };
  }

  const snapshot = (s: PreFilterState) => ({
    counts: s.tpValueToMatchNum.map((m) => Object.fromEntries([...m].sort())),
    mins: s.constraints.map((c, i) => s.minMatchNum(i, c.minDomains)),
  });

  interface ExtCase {
    readonly name: string;
    readonly op: 'add' | 'remove';
    readonly pod: PodSpec;
    /** Whether the result must equal a fresh PreFilter over the cluster with the change applied. */
    readonly changes: boolean;
  }

  const cases: ExtCase[] = [
    { name: 'adding a matching pod on an eligible node equals recomputing', op: 'add', pod: web('x', 'a1'), changes: true },
    { name: 'removing a matching pod equals recomputing', op: 'remove', pod: web('p2', 'b1'), changes: true },
    { name: 'a pod in another namespace changes nothing', op: 'add', pod: web('x', 'a1', { ns: 'other' }), changes: false },
    { name: 'a pod outside the selector changes nothing', op: 'add', pod: { name: 'x', node: 'a1', labels: { app: 'db' } }, changes: false },
    { name: 'a node outside the incoming pod nodeSelector changes nothing (nodeAffinityPolicy Honor)', op: 'add', pod: web('x', 'd1'), changes: false },
    { name: 'adding on the tainted node counts for the zone constraint only (per-constraint taints policy)', op: 'add', pod: web('x', 'c1'), changes: true },
  ];

  for (const tc of cases) {
    it(tc.name, () => {
      const cluster = clusterOf(nodes(), base);
      const pod = incoming();
      const { pl, state } = stateAfterPreFilter(cluster, pod);
      const before = snapshot(state.read<PreFilterState>(PRE_FILTER_STATE_KEY));
      const changed = mkPod(tc.pod);
      const info = cluster.nodeInfo(changed.nodeName)!.clone();
      const status = tc.op === 'add' ? pl.preFilterExtensions.addPod(state, pod, changed, info) : pl.preFilterExtensions.removePod(state, pod, changed, info);
      assert.ok(status.isSuccess());
      const after = snapshot(state.read<PreFilterState>(PRE_FILTER_STATE_KEY));
      if (!tc.changes) {
        assert.deepEqual(after, before);
        return;
      }
      const expected = clusterOf(nodes(), tc.op === 'add' ? [...base, tc.pod] : base.filter((p) => p.name !== tc.pod.name));
      const fresh = stateAfterPreFilter(expected, pod).state.read<PreFilterState>(PRE_FILTER_STATE_KEY);
      assert.notDeepEqual(after, before);
      assert.deepEqual(after, snapshot(fresh));
    });
  }

  it('PreFilter baseline: d1 is outside disk=ssd; c1 counts for the zone but not for the hostname', () => {
    const cluster = clusterOf(nodes(), base);
    const s = stateAfterPreFilter(cluster, incoming()).state.read<PreFilterState>(PRE_FILTER_STATE_KEY);
    assert.deepEqual(snapshot(s), { counts: [{ z1: 1, z2: 2, z3: 0 }, { a1: 1, b1: 2 }], mins: [0, 1] });
  });

  it('removing then re-adding restores the state, and a cloned state is independent', () => {
    const cluster = clusterOf(nodes(), base);
    const pod = incoming();
    const { pl, state } = stateAfterPreFilter(cluster, pod);
    const before = snapshot(state.read<PreFilterState>(PRE_FILTER_STATE_KEY));
    const copy = state.clone();
    const victim = cluster.getPod('default/p1')!;
    const info = cluster.nodeInfo('a1')!;
    pl.preFilterExtensions.removePod(copy, pod, victim, info);
    assert.deepEqual(snapshot(copy.read<PreFilterState>(PRE_FILTER_STATE_KEY)), { counts: [{ z1: 0, z2: 2, z3: 0 }, { a1: 0, b1: 2 }], mins: [0, 0] });
    assert.deepEqual(snapshot(state.read<PreFilterState>(PRE_FILTER_STATE_KEY)), before);
    // With p1 gone, z1 is empty: a matching pod may go to a1 (z1: 0+1-0) but not b1 (z2: 2+1-0).
    assert.equal(verdictOf(pl.filter(copy, pod, info)), 'ok');
    assert.equal(verdictOf(pl.filter(copy, pod, cluster.nodeInfo('b1')!)), 'skew');
    pl.preFilterExtensions.addPod(copy, pod, victim, info);
    assert.deepEqual(snapshot(copy.read<PreFilterState>(PRE_FILTER_STATE_KEY)), before);
  });

  it('a terminating pod is applied by AddPod (only PreFilter leaves terminating pods out)', () => {
    const cluster = clusterOf(nodes(), base);
    const pod = incoming();
    const { pl, state } = stateAfterPreFilter(cluster, pod);
    pl.preFilterExtensions.addPod(state, pod, mkPod(web('t', 'a1', { terminating: true })), cluster.nodeInfo('a1')!);
    assert.deepEqual(snapshot(state.read<PreFilterState>(PRE_FILTER_STATE_KEY)).counts, [{ z1: 2, z2: 2, z3: 0 }, { a1: 2, b1: 2 }]);
  });

  it('without PreFilter state the extensions report an internal error', () => {
    const cluster = clusterOf(nodes(), base);
    const s = pluginFor(cluster).preFilterExtensions.addPod(new CycleState(), incoming(), mkPod(web('x', 'a1')), cluster.nodeInfo('a1')!);
    assert.equal(s.code, Code.Error);
  });
});

// ---------------------------------------------------------------- Scoring

interface ScoreCase {
  readonly name: string;
  readonly nodes: () => Node[];
  readonly pods?: PodSpec[];
  readonly workloads?: Workloads;
  readonly args?: Record<string, unknown>;
  readonly pod: PodSpec;
  /** Nodes passed to PreScore (default: all). */
  readonly filtered?: string[];
  /** Absent: PreScore must Skip. */
  readonly raw?: Record<string, number>;
  readonly normalized?: Record<string, number>;
}

const threeNodes = () => [mkNode('a', { [ZONE]: 'z1', disk: 'ssd' }), mkNode('b', { [ZONE]: 'z1' }), mkNode('c', { [ZONE]: 'z2', disk: 'ssd' })];

const scoreCases: ScoreCase[] = [
  {
    name: 'zone constraint: weight log(2 zones + 2); raw = round(count × 1.386)',
    nodes: threeNodes,
    pods: [web('p1', 'a'), web('p2', 'a'), web('p3', 'c')],
    pod: web('in', '', { spread: [soft(ZONE, 1)] }),
    // z1: 2 × 1.3863 = 2.77 → 3; z2: 1.39 → 1. min 1, max 3: 100 × (3+1-3)/3 = 33.3 → 33.
    raw: { a: 3, b: 3, c: 1 },
    normalized: { a: 33, b: 33, c: 100 },
  },
  {
    name: 'hostname constraint counts per node and adds maxSkew - 1',
    nodes: threeNodes,
    pods: [web('p1', 'a'), web('p2', 'a'), web('p3', 'c')],
    pod: web('in', '', { spread: [soft(ZONE, 1), soft(HOST, 2)] }),
    // host weight log(3 + 2) = 1.6094. a: 2.7726 + 2×1.6094 + 1 = 6.99 → 7; b: 2.7726 + 1 = 3.77 → 4;
    // c: 1.3863 + 1.6094 + 1 = 4.00 → 4. min 4, max 7: a = 100 × 4/7 = 57.1 → 57.
    raw: { a: 7, b: 4, c: 4 },
    normalized: { a: 57, b: 100, c: 100 },
  },
  {
    name: 'all raw scores 0: every node gets the maximum score',
    nodes: threeNodes,
    pods: [{ name: 'p1', node: 'a', labels: { app: 'db' } }],
    pod: web('in', '', { spread: [soft(ZONE, 1)] }),
    raw: { a: 0, b: 0, c: 0 },
    normalized: { a: 100, b: 100, c: 100 },
  },
  {
    name: 'the node missing a topology key is ignored and scores 0; it shrinks the hostname weight',
    nodes: () => [...threeNodes(), mkNode('bare')],
    pods: [web('p1', 'a'), web('p2', 'bare'), web('p3', 'bare')],
    pod: web('in', '', { spread: [soft(ZONE, 1), soft(HOST, 1)] }),
    // zone weight log(4) = 1.3863, host weight log(3 + 2) = 1.6094. a: 1.3863 + 1.6094 = 3.00 → 3; b: 1.39 → 1; c: 0.
    // min 0, max 3: a = 0, b = 100 × 2/3 → 66, c = 100.
    raw: { a: 3, b: 1, c: 0, bare: 0 },
    normalized: { a: 0, b: 66, c: 100, bare: 0 },
  },
  {
    name: 'only filtered nodes define domains; matching pods are counted over the whole cluster',
    nodes: () => [...threeNodes(), mkNode('d', { [ZONE]: 'z3' })],
    pods: [web('p1', 'b'), web('p2', 'b'), web('p3', 'd')],
    pod: web('in', '', { spread: [soft(ZONE, 1)] }),
    filtered: ['a', 'c'],
    // Domains z1, z2 (z3 has no candidate): weight log(4). z1 = 2 (from b): a = 2.77 → 3, c = 0.
    raw: { a: 3, c: 0 },
    normalized: { a: 0, c: 100 },
  },
  {
    name: 'PreScore nodeAffinityPolicy Honor: pods on nodes outside the nodeSelector are not counted',
    nodes: threeNodes,
    pods: [web('p1', 'b'), web('p2', 'b'), web('p3', 'b'), web('p4', 'c')],
    pod: web('in', '', { spread: [soft(ZONE, 1)], nodeSelector: { disk: 'ssd' } }),
    filtered: ['a', 'c'],
    // z1 counts nothing (b fails disk=ssd), z2 = 1: a = 0, c = 1.39 → 1. min 0, max 1.
    raw: { a: 0, c: 1 },
    normalized: { a: 100, c: 0 },
  },
  {
    name: 'PreScore nodeAffinityPolicy Ignore: the same pods are counted',
    nodes: threeNodes,
    pods: [web('p1', 'b'), web('p2', 'b'), web('p3', 'b'), web('p4', 'c')],
    pod: web('in', '', { spread: [soft(ZONE, 1, { nodeAffinityPolicy: 'Ignore' })], nodeSelector: { disk: 'ssd' } }),
    filtered: ['a', 'c'],
    // z1 = 3: a = 4.16 → 4, c = 1. min 1, max 4: a = 100 × 1/4 = 25.
    raw: { a: 4, c: 1 },
    normalized: { a: 25, c: 100 },
  },
  {
    name: 'PreScore nodeTaintsPolicy Honor: pods on untolerated tainted nodes are not counted',
    nodes: () => [mkNode('a', { [ZONE]: 'z1' }), mkNode('b', { [ZONE]: 'z1' }, [{ key: 'k', effect: 'NoExecute' }]), mkNode('c', { [ZONE]: 'z2' })],
    pods: [web('p1', 'b'), web('p2', 'b'), web('p3', 'c')],
    pod: web('in', '', { spread: [soft(ZONE, 1, { nodeTaintsPolicy: 'Honor' })] }),
    filtered: ['a', 'c'],
    raw: { a: 0, c: 1 },
    normalized: { a: 100, c: 0 },
  },
  {
    name: 'PreScore nodeTaintsPolicy Ignore (default): the tainted node counts',
    nodes: () => [mkNode('a', { [ZONE]: 'z1' }), mkNode('b', { [ZONE]: 'z1' }, [{ key: 'k', effect: 'NoExecute' }]), mkNode('c', { [ZONE]: 'z2' })],
    pods: [web('p1', 'b'), web('p2', 'b'), web('p3', 'c')],
    pod: web('in', '', { spread: [soft(ZONE, 1)] }),
    filtered: ['a', 'c'],
    raw: { a: 3, c: 1 },
    normalized: { a: 33, c: 100 },
  },
  {
    name: 'system defaults: a ReplicaSet pod gets hostname (maxSkew 3) and zone (maxSkew 5) spreading',
    nodes: threeNodes,
    pods: [web('p1', 'a', { owner: ['ReplicaSet', 'web-rs'] })],
    workloads: { replicaSets: [owner('default', 'web-rs', { app: 'web' })] },
    pod: web('in', '', { owner: ['ReplicaSet', 'web-rs'] }),
    // host weight log(5) = 1.6094, zone weight log(4) = 1.3863.
    // a: 1.6094 + 2 + 1.3863 + 4 = 9.00 → 9; b: 2 + 1.3863 + 4 = 7.39 → 7; c: 2 + 4 = 6.
    // min 6, max 9: a = 100 × 6/9 → 66, b = 100 × 8/9 → 88, c = 100.
    raw: { a: 9, b: 7, c: 6 },
    normalized: { a: 66, b: 88, c: 100 },
  },
  {
    name: 'system defaults: nodes without a zone label are not ignored; their zone reads as ""',
    nodes: () => [mkNode('a', { [ZONE]: 'z1' }), mkNode('x'), mkNode('y')],
    pods: [web('p1', 'x'), web('p2', 'y'), web('p3', 'y')],
    workloads: { replicaSets: [owner('default', 'web-rs', { app: 'web' })] },
    pod: web('in', '', { owner: ['ReplicaSet', 'web-rs'] }),
    // host weight log(5) = 1.6094; zone domains z1 and "" → log(4), but "" nodes lack the label so only a scores zone.
    // a: 0 + 2 + 0 + 4 = 6; x: 1.6094 + 2 = 3.61 → 4; y: 3.2189 + 2 = 5.22 → 5. min 4, max 6.
    raw: { a: 6, x: 4, y: 5 },
    normalized: { a: 66, x: 100, y: 83 },
  },
  {
    name: 'List defaulting: a ReplicaSet pod is scored by the default constraint; nodes missing its key are ignored',
    nodes: () => [mkNode('a', { [ZONE]: 'z1' }), mkNode('x')],
    pods: [web('p1', 'a')],
    workloads: { replicaSets: [owner('default', 'web-rs', { app: 'web' })] },
    args: { defaultingType: 'List', defaultConstraints: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }] },
    pod: web('in', '', { owner: ['ReplicaSet', 'web-rs'] }),
    // Only z1 is a domain: weight log(3) = 1.0986; a = 1.10 → 1; x is ignored.
    raw: { a: 1, x: 0 },
    normalized: { a: 100, x: 0 },
  },
  {
    name: 'Skip: system defaults for a pod with no owner and no Service',
    nodes: threeNodes,
    pods: [web('p1', 'a')],
    pod: web('in', ''),
  },
  {
    name: 'Skip: a pod with only DoNotSchedule constraints',
    nodes: threeNodes,
    pods: [web('p1', 'a')],
    workloads: { replicaSets: [owner('default', 'web-rs', { app: 'web' })] },
    pod: web('in', '', { owner: ['ReplicaSet', 'web-rs'], spread: [hard(ZONE, 1)] }),
  },
  {
    name: 'Skip: the ReplicaSet named by the owner reference does not exist',
    nodes: threeNodes,
    pods: [web('p1', 'a')],
    workloads: { replicaSets: [owner('default', 'other-rs', { app: 'web' })] },
    pod: web('in', '', { owner: ['ReplicaSet', 'web-rs'] }),
  },
];

describe('PodTopologySpread PreScore/Score/NormalizeScore', () => {
  for (const tc of scoreCases) {
    it(tc.name, () => {
      const cluster = clusterOf(tc.nodes(), tc.pods ?? [], tc.workloads);
      const got = scoreAll(cluster, mkPod(tc.pod), tc.args, tc.filtered);
      if (tc.raw === undefined) {
        assert.equal(got, undefined);
        return;
      }
      assert.deepEqual(got, { raw: tc.raw, normalized: tc.normalized });
    });
  }

  it('PreScore skips when the cluster has no nodes', () => {
    const cluster = clusterOf([], []);
    assert.equal(pluginFor(cluster).preScore(new CycleState(), mkPod(web('in', '', { spread: [soft(ZONE, 1)] })), []).isSkip(), true);
  });

  it('PreScore state: hostname counts are left to Score; weights per constraint', () => {
    const cluster = clusterOf(threeNodes(), [web('p1', 'a')]);
    const state = new CycleState();
    pluginFor(cluster).preScore(state, mkPod(web('in', '', { spread: [soft(HOST, 1), soft(ZONE, 1)] })), cluster.nodeInfos());
    const s = state.read<PreScoreState>(PRE_SCORE_STATE_KEY);
    assert.deepEqual(s.topologyValueToPodCounts.map((m) => Object.fromEntries(m)), [{}, { z1: 1, z2: 0 }]);
    assert.deepEqual(s.topologyNormalizingWeight, [1.6094379124341003, 1.3862943611198906]);
  });

  it("the normalizing weight is Go's log(size + 2), which differs from V8's Math.log for 12 domains", () => {
    assert.equal(topologyNormalizingWeight(12), 2.639057329615259);
    assert.notEqual(Math.log(14), 2.639057329615259);
  });

  it('Score without PreScore state throws an internal error', () => {
    const cluster = clusterOf(threeNodes(), []);
    assert.throws(() => pluginFor(cluster).score(new CycleState(), mkPod(web('in', '')), cluster.nodeInfos()[0]!), /error reading "PreScorePodTopologySpread" from cycleState/);
  });

  it('the scheduler prefers the emptiest zone for a ScheduleAnyway constraint', () => {
    const cluster = clusterOf(twoZones(), [web('p1', 'a1'), web('p2', 'a2')]);
    const pod = mkPod(web('in', '', { spread: [soft(ZONE, 1)] }));
    cluster.addPod(pod);
    const out = schedulerFor(cluster).schedulePod(pod);
    assert.equal(out.kind, 'scheduled');
    if (out.kind === 'scheduled') assert.equal(cluster.nodeInfo(out.node)!.node.labels[ZONE], 'z2');
  });
});

// ---------------------------------------------------------------- args

describe('PodTopologySpread args', () => {
  const cases: { name: string; args: Record<string, unknown>; error?: string }[] = [
    { name: 'empty args default to System', args: {} },
    { name: 'List with no constraints is valid (no defaults at all)', args: { defaultingType: 'List' } },
    { name: 'List with constraints', args: { defaultingType: 'List', defaultConstraints: [{ topologyKey: ZONE, maxSkew: 2, whenUnsatisfiable: 'ScheduleAnyway' }] } },
    {
      name: 'System with non-empty defaultConstraints',
      args: { defaultingType: 'System', defaultConstraints: [{ topologyKey: ZONE, maxSkew: 2, whenUnsatisfiable: 'ScheduleAnyway' }] },
      error: 'defaultingType: Invalid value: "System": when .defaultConstraints are not empty',
    },
    {
      name: 'unset defaultingType with constraints defaults to System and fails',
      args: { defaultConstraints: [{ topologyKey: ZONE, maxSkew: 2, whenUnsatisfiable: 'ScheduleAnyway' }] },
      error: 'defaultingType: Invalid value: "System": when .defaultConstraints are not empty',
    },
    { name: 'unknown defaultingType', args: { defaultingType: 'Auto' }, error: 'defaultingType: Unsupported value: "Auto": supported values: "System", "List"' },
    {
      name: 'a default constraint must not have a labelSelector',
      args: { defaultingType: 'List', defaultConstraints: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }] },
      error: 'defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod',
    },
    {
      name: 'maxSkew must be positive',
      args: { defaultingType: 'List', defaultConstraints: [{ topologyKey: ZONE, maxSkew: 0, whenUnsatisfiable: 'DoNotSchedule' }] },
      error: 'defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)',
    },
    {
      name: 'several errors are aggregated in brackets',
      args: { defaultingType: 'List', defaultConstraints: [{ maxSkew: -1, whenUnsatisfiable: 'Sometimes' }] },
      error:
        '[defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf), defaultConstraints[0].topologyKey: Required value: can not be empty, defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"]',
    },
    {
      name: 'duplicate topologyKey and whenUnsatisfiable',
      args: {
        defaultingType: 'List',
        defaultConstraints: [
          { topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' },
          { topologyKey: ZONE, maxSkew: 2, whenUnsatisfiable: 'DoNotSchedule' },
        ],
      },
      error: 'defaultConstraints[1]: Duplicate value: "{topology.kubernetes.io/zone, DoNotSchedule}"',
    },
    {
      name: 'missing whenUnsatisfiable',
      args: { defaultingType: 'List', defaultConstraints: [{ topologyKey: ZONE, maxSkew: 1 }] },
      error: 'defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty',
    },
    {
      name: 'an invalid topologyKey',
      args: { defaultingType: 'List', defaultConstraints: [{ topologyKey: 'a/b/c', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] },
      error:
        "defaultConstraints[0].topologyKey: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    },
    { name: 'unknown field', args: { defaultingType: 'List', hardPodAffinityWeight: 1 }, error: 'PodTopologySpreadArgs: hardPodAffinityWeight: unknown field' },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const build = () => pluginFor(clusterOf([], []), tc.args);
      if (tc.error === undefined) assert.equal(build().name, POD_TOPOLOGY_SPREAD);
      else assert.throws(build, (e: Error) => e.message === tc.error || assert.fail(e.message));
    });
  }
});
