import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { NodeInfo } from '../../cluster/node-info.js';
import { ClusterState } from '../../cluster/state.js';
import { FieldError } from '../../model/errors.js';
import type { AffinityManifest, LabelSelectorManifest, PodAffinityTermManifest } from '../../model/manifest.js';
import { compileNode, LABEL_HOSTNAME, LABEL_ZONE, type Node } from '../../model/node.js';
import { bindPod, compilePod, type Pod } from '../../model/pod.js';
import { Rand } from '../../model/rand.js';
import type { Labels } from '../../model/selector.js';
import { CycleState, Framework, type FilterPlugin, type Handle, type NodeScore, type PreFilterPlugin, type PreScorePlugin, type ScorePlugin } from '../framework.js';
import { Scheduler } from '../scheduler.js';
import { Code, type Status } from '../status.js';
import {
  ERR_REASON_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
  INTER_POD_AFFINITY,
  newInterPodAffinity,
} from './inter-pod-affinity.js';
import { parseInterPodAffinityArgs } from './inter-pod-affinity/args.js';
import { computePreFilterState, PRE_FILTER_STATE_KEY, type PreFilterState } from './inter-pod-affinity/filtering.js';
import { normalizeTopologyScores } from './inter-pod-affinity/scoring.js';

// ---------------------------------------------------------------- fixtures

const ZONE = LABEL_ZONE;
const HOST = LABEL_HOSTNAME;
const REGION = 'region';

let order = 0;

function mkNode(name: string, labels: Record<string, string> = {}): Node {
  return compileNode({ metadata: { name, labels } }, order++);
}

interface PodSpec {
  readonly name: string;
  readonly ns?: string;
  readonly labels?: Record<string, string>;
  readonly node?: string;
  readonly terminating?: boolean;
  readonly affinity?: AffinityManifest;
}

function mkPod(p: PodSpec): Pod {
  return compilePod(
    {
      metadata: { name: p.name, namespace: p.ns ?? 'default', labels: p.labels ?? {}, ...(p.terminating ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
      spec: { containers: [{ name: 'c' }], ...(p.node ? { nodeName: p.node } : {}), ...(p.affinity ? { affinity: p.affinity } : {}) },
    },
    { order: order++ },
  );
}

interface TermOpts {
  readonly namespaces?: string[];
  readonly namespaceSelector?: LabelSelectorManifest | null;
}

function term(topologyKey: string, matchLabels: Record<string, string>, opts: TermOpts = {}): PodAffinityTermManifest {
  return { topologyKey, labelSelector: { matchLabels }, ...opts };
}

const required = (...terms: PodAffinityTermManifest[]) => ({ requiredDuringSchedulingIgnoredDuringExecution: terms });
const preferred = (...terms: [number, PodAffinityTermManifest][]) => ({
  preferredDuringSchedulingIgnoredDuringExecution: terms.map(([weight, podAffinityTerm]) => ({ weight, podAffinityTerm })),
});

function clusterOf(nodes: readonly Node[], pods: readonly Pod[], namespaces: Record<string, Labels> = {}): ClusterState {
  const c = new ClusterState();
  for (const n of nodes) c.addNode(n);
  for (const p of pods) c.addPod(p);
  for (const [name, labels] of Object.entries(namespaces)) c.namespaces.set(name, { 'kubernetes.io/metadata.name': name, ...labels });
  return c;
}

function handleFor(cluster: ClusterState): Handle {
  const unused = (): never => {
    throw new Error('not used by InterPodAffinity');
  };
  return {
    cluster,
    rand: new Rand(0),
    nominatedPodsForNode: () => [],
    runPreFilterExtensionAddPod: unused,
    runPreFilterExtensionRemovePod: unused,
    runFilterPlugins: unused,
    runFilterPluginsWithNominatedPods: unused,
  };
}

type IpaPlugin = PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin;

function pluginFor(cluster: ClusterState, args: Record<string, unknown> = {}): IpaPlugin {
  return newInterPodAffinity({ handle: handleFor(cluster), args }) as IpaPlugin;
}

/** Expected Filter verdict per node: ok, A (affinity), X (incoming anti-affinity), E (existing anti-affinity). */
type Verdict = 'ok' | 'A' | 'X' | 'E';

function verdictOf(s: Status): Verdict | string {
  if (s.isSuccess()) return 'ok';
  const r = s.reasons.join(', ');
  if (s.code === Code.UnschedulableAndUnresolvable && r === ERR_REASON_AFFINITY_RULES_NOT_MATCH) return 'A';
  if (s.code === Code.Unschedulable && r === ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH) return 'X';
  if (s.code === Code.Unschedulable && r === ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH) return 'E';
  return `${s.code}:${r}`;
}

// Four nodes: two in zone z1, one in z2, one without a zone label.
const zoned = () => [mkNode('n1', { [ZONE]: 'z1' }), mkNode('n2', { [ZONE]: 'z1' }), mkNode('n3', { [ZONE]: 'z2' }), mkNode('n4')];

// ---------------------------------------------------------------- Filter

interface FilterCase {
  readonly name: string;
  readonly nodes?: () => Node[];
  readonly pods?: PodSpec[];
  readonly namespaces?: Record<string, Labels>;
  readonly pod: PodSpec;
  /** Absent means PreFilter must Skip (every node passes without Filter). */
  readonly want?: Record<string, Verdict>;
}

const filterCases: FilterCase[] = [
  {
    name: 'no required terms and no existing required anti-affinity: Skip',
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'db' }, affinity: { podAffinity: preferred([5, term(ZONE, { app: 'web' })]) } }],
    pod: { name: 'in', labels: { app: 'web' }, affinity: { podAffinity: preferred([5, term(ZONE, { app: 'db' })]) } },
  },
  {
    name: 'existing required anti-affinity that does not match the incoming pod: Skip (nothing counted)',
    pods: [{ name: 'p1', node: 'n1', affinity: { podAntiAffinity: required(term(ZONE, { app: 'db' })) } }],
    pod: { name: 'in', labels: { app: 'web' } },
  },
  {
    name: 'existing required anti-affinity matching the incoming pod from a node without the topology key: Skip',
    pods: [{ name: 'p1', node: 'n4', affinity: { podAntiAffinity: required(term(ZONE, { app: 'web' })) } }],
    pod: { name: 'in', labels: { app: 'web' } },
  },
  {
    name: 'required affinity satisfied: every node in the zone of a matching pod',
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'db' } }],
    pod: { name: 'in', affinity: { podAffinity: required(term(ZONE, { app: 'db' })) } },
    want: { n1: 'ok', n2: 'ok', n3: 'A', n4: 'A' },
  },
  {
    name: 'required affinity unsatisfied: no pod matches and the pod does not match its own term',
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'web' } }],
    pod: { name: 'in', labels: { app: 'web' }, affinity: { podAffinity: required(term(ZONE, { app: 'db' })) } },
    want: { n1: 'A', n2: 'A', n3: 'A', n4: 'A' },
  },
  {
    name: 'missing topology key on the node fails affinity even with a matching pod in the cluster',
    nodes: () => [mkNode('n1', { [ZONE]: 'z1', [REGION]: 'r1' }), mkNode('n2', { [ZONE]: 'z1' })],
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'db' } }],
    pod: { name: 'in', affinity: { podAffinity: required(term(ZONE, { app: 'db' }), term(REGION, { app: 'db' })) } },
    want: { n1: 'ok', n2: 'A' },
  },
  {
    name: 'first pod of a group: no match anywhere, the pod matches its own term, nodes need the topology key',
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'web' } }],
    pod: { name: 'in', labels: { app: 'db' }, affinity: { podAffinity: required(term(ZONE, { app: 'db' })) } },
    want: { n1: 'ok', n2: 'ok', n3: 'ok', n4: 'A' },
  },
  {
    name: 'first pod of a group: a matching pod on a node without the topology key is not counted',
    pods: [{ name: 'p1', node: 'n4', labels: { app: 'db' } }],
    pod: { name: 'in', labels: { app: 'db' }, affinity: { podAffinity: required(term(ZONE, { app: 'db' })) } },
    want: { n1: 'ok', n2: 'ok', n3: 'ok', n4: 'A' },
  },
  {
    name: 'not the first pod: once a matching pod is counted, the self-match no longer opens other zones',
    pods: [{ name: 'p1', node: 'n3', labels: { app: 'db' } }],
    pod: { name: 'in', labels: { app: 'db' }, affinity: { podAffinity: required(term(ZONE, { app: 'db' })) } },
    want: { n1: 'A', n2: 'A', n3: 'ok', n4: 'A' },
  },
  {
    name: 'all affinity terms must be matched by one pod: two pods matching one term each do not count',
    pods: [
      { name: 'p1', node: 'n1', labels: { app: 'db' } },
      { name: 'p2', node: 'n1', labels: { tier: 'cache' } },
    ],
    pod: { name: 'in', affinity: { podAffinity: required(term(ZONE, { app: 'db' }), term(HOST, { tier: 'cache' })) } },
    want: { n1: 'A', n2: 'A', n3: 'A', n4: 'A' },
  },
  {
    name: 'all affinity terms matched by one pod: each term is then checked in its own topology',
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'db', tier: 'cache' } }],
    pod: { name: 'in', affinity: { podAffinity: required(term(ZONE, { app: 'db' }), term(HOST, { tier: 'cache' })) } },
    want: { n1: 'ok', n2: 'A', n3: 'A', n4: 'A' },
  },
  {
    name: "incoming pod's hostname anti-affinity rejects only the node hosting a match",
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'db' } }],
    pod: { name: 'in', affinity: { podAntiAffinity: required(term(HOST, { app: 'db' })) } },
    want: { n1: 'X', n2: 'ok', n3: 'ok', n4: 'ok' },
  },
  {
    name: "incoming pod's zone anti-affinity rejects the whole zone; a node without the key passes",
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'db' } }],
    pod: { name: 'in', affinity: { podAntiAffinity: required(term(ZONE, { app: 'db' })) } },
    want: { n1: 'X', n2: 'X', n3: 'ok', n4: 'ok' },
  },
  {
    name: 'any one matching anti-affinity term rejects',
    pods: [{ name: 'p1', node: 'n3', labels: { tier: 'cache' } }],
    pod: { name: 'in', affinity: { podAntiAffinity: required(term(ZONE, { app: 'db' }), term(ZONE, { tier: 'cache' })) } },
    want: { n1: 'ok', n2: 'ok', n3: 'X', n4: 'ok' },
  },
  {
    name: "incoming pod's anti-affinity against its own labels with no pods around: no rejection",
    pod: { name: 'in', labels: { app: 'web' }, affinity: { podAntiAffinity: required(term(HOST, { app: 'web' })) } },
    want: { n1: 'ok', n2: 'ok', n3: 'ok', n4: 'ok' },
  },
  {
    name: "existing pod's anti-affinity rejects the incoming pod in its topology (symmetry)",
    pods: [{ name: 'p1', node: 'n1', affinity: { podAntiAffinity: required(term(ZONE, { app: 'web' })) } }],
    pod: { name: 'in', labels: { app: 'web' } },
    want: { n1: 'E', n2: 'E', n3: 'ok', n4: 'ok' },
  },
  {
    name: "existing pod's anti-affinity covers only its own namespace by default: Skip",
    pods: [{ name: 'p1', ns: 'other', node: 'n1', affinity: { podAntiAffinity: required(term(ZONE, { app: 'web' })) } }],
    pod: { name: 'in', labels: { app: 'web' } },
  },
  {
    name: "existing pod's anti-affinity namespaceSelector is matched against the incoming pod's namespace labels",
    namespaces: { default: { team: 'a' }, other: { team: 'b' } },
    pods: [{ name: 'p1', ns: 'other', node: 'n1', affinity: { podAntiAffinity: required(term(ZONE, { app: 'web' }, { namespaceSelector: { matchLabels: { team: 'a' } } })) } }],
    pod: { name: 'in', labels: { app: 'web' } },
    want: { n1: 'E', n2: 'E', n3: 'ok', n4: 'ok' },
  },
  {
    name: "existing pod's anti-affinity with an empty namespaceSelector covers every namespace",
    pods: [{ name: 'p1', ns: 'other', node: 'n3', affinity: { podAntiAffinity: required(term(HOST, { app: 'web' }, { namespaceSelector: {} })) } }],
    pod: { name: 'in', labels: { app: 'web' } },
    want: { n1: 'ok', n2: 'ok', n3: 'E', n4: 'ok' },
  },
  {
    name: 'affinity namespaces list: only pods in the listed namespaces count',
    pods: [
      { name: 'p1', node: 'n1', labels: { app: 'db' } },
      { name: 'p2', ns: 'data', node: 'n3', labels: { app: 'db' } },
    ],
    pod: { name: 'in', affinity: { podAffinity: required(term(ZONE, { app: 'db' }, { namespaces: ['data'] })) } },
    want: { n1: 'A', n2: 'A', n3: 'ok', n4: 'A' },
  },
  {
    name: "affinity with nil namespaceSelector and no namespaces: the pod's own namespace only",
    pods: [{ name: 'p1', ns: 'data', node: 'n1', labels: { app: 'db' } }],
    pod: { name: 'in', labels: { app: 'web' }, affinity: { podAffinity: required(term(ZONE, { app: 'db' })) } },
    want: { n1: 'A', n2: 'A', n3: 'A', n4: 'A' },
  },
  {
    name: 'affinity with an empty namespaceSelector: pods in every namespace count',
    pods: [{ name: 'p1', ns: 'data', node: 'n1', labels: { app: 'db' } }],
    pod: { name: 'in', affinity: { podAffinity: required(term(ZONE, { app: 'db' }, { namespaceSelector: {} })) } },
    want: { n1: 'ok', n2: 'ok', n3: 'A', n4: 'A' },
  },
  {
    name: 'affinity namespaceSelector: pods in namespaces whose labels match count, others do not',
    namespaces: { data: { team: 'a' }, logs: { team: 'b' } },
    pods: [
      { name: 'p1', ns: 'logs', node: 'n1', labels: { app: 'db' } },
      { name: 'p2', ns: 'data', node: 'n3', labels: { app: 'db' } },
    ],
    pod: { name: 'in', affinity: { podAffinity: required(term(ZONE, { app: 'db' }, { namespaceSelector: { matchLabels: { team: 'a' } } })) } },
    want: { n1: 'A', n2: 'A', n3: 'ok', n4: 'A' },
  },
  {
    name: 'affinity namespaceSelector and namespaces list: the selected namespaces join the listed ones',
    namespaces: { data: { team: 'a' }, logs: { team: 'b' } },
    pods: [
      { name: 'p1', ns: 'logs', node: 'n1', labels: { app: 'db' } },
      { name: 'p2', ns: 'data', node: 'n3', labels: { app: 'db' } },
    ],
    pod: { name: 'in', affinity: { podAffinity: required(term(ZONE, { app: 'db' }, { namespaces: ['logs'], namespaceSelector: { matchLabels: { team: 'a' } } })) } },
    want: { n1: 'ok', n2: 'ok', n3: 'ok', n4: 'A' },
  },
  {
    name: 'affinity namespaceSelector without the pod\'s namespace: the first-pod self-match fails',
    namespaces: { data: { team: 'a' }, default: { team: 'b' } },
    pod: { name: 'in', labels: { app: 'db' }, affinity: { podAffinity: required(term(ZONE, { app: 'db' }, { namespaceSelector: { matchLabels: { team: 'a' } } })) } },
    want: { n1: 'A', n2: 'A', n3: 'A', n4: 'A' },
  },
  {
    name: 'anti-affinity namespaceSelector: a match in a selected namespace rejects',
    namespaces: { data: { team: 'a' } },
    pods: [{ name: 'p1', ns: 'data', node: 'n1', labels: { app: 'db' } }],
    pod: { name: 'in', affinity: { podAntiAffinity: required(term(HOST, { app: 'db' }, { namespaceSelector: { matchLabels: { team: 'a' } } })) } },
    want: { n1: 'X', n2: 'ok', n3: 'ok', n4: 'ok' },
  },
  {
    name: 'terminating pods still count (upstream does not skip them)',
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'db' }, terminating: true }],
    pod: { name: 'in', affinity: { podAntiAffinity: required(term(HOST, { app: 'db' })) } },
    want: { n1: 'X', n2: 'ok', n3: 'ok', n4: 'ok' },
  },
  {
    name: 'affinity is checked before anti-affinity',
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'db' } }],
    pod: { name: 'in', affinity: { podAffinity: required(term(ZONE, { app: 'cache' })), podAntiAffinity: required(term(HOST, { app: 'db' })) } },
    want: { n1: 'A', n2: 'A', n3: 'A', n4: 'A' },
  },
  {
    name: "incoming pod's anti-affinity is checked before existing pods' anti-affinity",
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'db' }, affinity: { podAntiAffinity: required(term(HOST, { app: 'web' })) } }],
    pod: { name: 'in', labels: { app: 'web' }, affinity: { podAntiAffinity: required(term(HOST, { app: 'db' })) } },
    want: { n1: 'X', n2: 'ok', n3: 'ok', n4: 'ok' },
  },
];

function runFilterCase(tc: FilterCase): { skipped: boolean; verdicts: Record<string, Verdict | string> } {
  const nodes = (tc.nodes ?? zoned)();
  const cluster = clusterOf(nodes, (tc.pods ?? []).map(mkPod), tc.namespaces);
  const pl = pluginFor(cluster);
  const pod = mkPod(tc.pod);
  const state = new CycleState();
  const { result, status } = pl.preFilter(state, pod, cluster.nodeInfos());
  assert.equal(result, undefined, 'PreFilter never restricts the node set');
  if (status.isSkip()) return { skipped: true, verdicts: {} };
  assert.ok(status.isSuccess(), status.message());
  const verdicts: Record<string, Verdict | string> = {};
  for (const info of cluster.nodeInfos()) verdicts[info.node.name] = verdictOf(pl.filter(state, pod, info));
  return { skipped: false, verdicts };
}

describe('InterPodAffinity Filter', () => {
  for (const tc of filterCases) {
    it(tc.name, () => {
      const got = runFilterCase(tc);
      if (tc.want === undefined) {
        assert.equal(got.skipped, true, 'PreFilter should Skip');
      } else {
        assert.equal(got.skipped, false, 'PreFilter should not Skip');
        assert.deepEqual(got.verdicts, tc.want);
      }
    });
  }

  it('Filter without PreFilter state is an Error with the upstream message', () => {
    const cluster = clusterOf(zoned(), []);
    const s = pluginFor(cluster).filter(new CycleState(), mkPod({ name: 'in' }), cluster.nodeInfos()[0]!);
    assert.equal(s.code, Code.Error);
    assert.equal(s.message(), 'error reading "PreFilterInterPodAffinity" from cycleState: not found');
  });

  it('PreFilter does not Skip when the pod has only required anti-affinity in an empty cluster', () => {
    const cluster = clusterOf(zoned(), []);
    const pod = mkPod({ name: 'in', affinity: { podAntiAffinity: required(term(HOST, { app: 'x' })) } });
    assert.ok(pluginFor(cluster).preFilter(new CycleState(), pod, cluster.nodeInfos()).status.isSuccess());
  });
});

// ---------------------------------------------------------------- scheduling end to end

function schedulerWith(cluster: ClusterState): Scheduler {
  return new Scheduler(cluster, (handle) => {
    const pl = newInterPodAffinity({ handle, args: {} }) as IpaPlugin;
    return new Framework(
      'default-scheduler',
      { queueSort: { name: 'PrioritySort', less: () => false }, preFilter: [pl], filter: [pl], postFilter: [], preScore: [pl], score: [{ plugin: pl, weight: 2 }] },
      0,
    );
  });
}

describe('InterPodAffinity in a scheduling cycle', () => {
  const apiserver = (name: string): PodSpec => ({
    name,
    ns: 'kube-system',
    labels: { component: 'apiserver' },
    affinity: { podAntiAffinity: required(term(HOST, { component: 'apiserver' })) },
  });

  it('apiserver replicas: 3 pods with required hostname anti-affinity spread over 3 nodes, a 4th is rejected', () => {
    const cluster = clusterOf([mkNode('m1'), mkNode('m2'), mkNode('m3')], []);
    const sched = schedulerWith(cluster);
    const placed: string[] = [];
    for (const name of ['a1', 'a2', 'a3']) {
      const pod = mkPod(apiserver(name));
      const out = sched.schedulePod(pod);
      assert.equal(out.kind, 'scheduled');
      if (out.kind !== 'scheduled') return;
      placed.push(out.node);
      cluster.addPod(bindPod(pod, out.node));
    }
    assert.deepEqual([...placed].sort(), ['m1', 'm2', 'm3']);

    const fourth = sched.schedulePod(mkPod(apiserver('a4')));
    assert.equal(fourth.kind, 'unschedulable');
    if (fourth.kind === 'unschedulable') assert.equal(fourth.message, "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules.");

    // A pod without terms but with the apiserver label is kept away by the existing pods' anti-affinity.
    const plain = sched.schedulePod(mkPod({ name: 'b', ns: 'kube-system', labels: { component: 'apiserver' } }));
    assert.equal(plain.kind, 'unschedulable');
    if (plain.kind === 'unschedulable') assert.equal(plain.message, "0/3 nodes are available: 3 node(s) didn't satisfy existing pods anti-affinity rules.");
  });

  it('a nominated pod counts through addPod: its anti-affinity keeps the incoming pod off its node', () => {
    const cluster = clusterOf([mkNode('m1'), mkNode('m2')], []);
    const sched = schedulerWith(cluster);
    const nominated = mkPod({ name: 'nom', labels: { app: 'db' }, affinity: { podAntiAffinity: required(term(HOST, { app: 'web' })) } });
    sched.nominate(nominated, 'm1');
    const pod = mkPod({ name: 'in', labels: { app: 'web' }, affinity: { podAntiAffinity: required(term(HOST, { app: 'other' })) } });
    const state = new CycleState();
    const pre = sched.framework.runPreFilterPlugins(state, pod, cluster.nodeInfos());
    assert.ok(pre.status.isSuccess());
    const [m1, m2] = cluster.nodeInfos();
    const s1 = sched.runFilterPluginsWithNominatedPods(state, pod, m1!);
    assert.equal(s1.code, Code.Unschedulable);
    assert.deepEqual(s1.reasons, [ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH]);
    assert.equal(s1.plugin, INTER_POD_AFFINITY);
    assert.ok(sched.runFilterPluginsWithNominatedPods(state, pod, m2!).isSuccess());
    // The nominated pod was added to a cloned state only.
    assert.ok(sched.runFilterPlugins(state, pod, m1!).isSuccess());
  });
});

// ---------------------------------------------------------------- PreFilter extensions

function countsOf(s: PreFilterState) {
  return {
    existingAnti: s.existingAntiAffinityCounts.entries(),
    affinity: s.affinityCounts.entries(),
    anti: s.antiAffinityCounts.entries(),
  };
}

const nsLabelsOf = (c: ClusterState) => (ns: string) => c.namespaceLabels(ns);

describe('InterPodAffinity addPod/removePod', () => {
  const incoming = mkPod({
    name: 'in',
    labels: { app: 'web' },
    affinity: {
      podAffinity: required(term(ZONE, { app: 'db' }), term(HOST, { app: 'db' })),
      podAntiAffinity: required(term(ZONE, { tier: 'cache' }), term(HOST, { app: 'db' })),
    },
  });
  const base: PodSpec[] = [
    { name: 'b1', node: 'n1', labels: { app: 'db' } },
    { name: 'b2', node: 'n3', labels: { tier: 'cache' }, affinity: { podAntiAffinity: required(term(ZONE, { app: 'web' })) } },
  ];
  const candidates: { name: string; pod: PodSpec }[] = [
    { name: 'a pod matching all affinity terms and one anti-affinity term', pod: { name: 'x', node: 'n2', labels: { app: 'db' } } },
    { name: 'a pod matching one anti-affinity term', pod: { name: 'x', node: 'n1', labels: { tier: 'cache' } } },
    { name: 'a pod whose anti-affinity matches the incoming pod', pod: { name: 'x', node: 'n2', affinity: { podAntiAffinity: required(term(ZONE, { app: 'web' }), term(HOST, { app: 'web' })) } } },
    { name: 'a second pod with the same match as an existing one (count 2 → 1)', pod: { name: 'x', node: 'n1', labels: { app: 'db' } } },
    { name: 'a matching pod on a node without the zone key', pod: { name: 'x', node: 'n4', labels: { app: 'db', tier: 'cache' } } },
    { name: 'a pod that matches nothing', pod: { name: 'x', node: 'n2', labels: { app: 'other' } } },
  ];

  for (const c of candidates) {
    it(`addPod of ${c.name} equals PreFilter with the pod in the cluster`, () => {
      const without = clusterOf(zoned(), base.map(mkPod));
      const added = mkPod(c.pod);
      const withIt = clusterOf(zoned(), [...base.map(mkPod), added]);
      const state = computePreFilterState(incoming, without.nodeInfos(), without.nodesWithRequiredAntiAffinityPods(), nsLabelsOf(without));
      const before = countsOf(state);
      const cloned = state.clone();
      cloned.updateWithPod(added, without.nodeInfo(added.nodeName)!.node, 1);
      assert.deepEqual(countsOf(cloned), countsOf(computePreFilterState(incoming, withIt.nodeInfos(), withIt.nodesWithRequiredAntiAffinityPods(), nsLabelsOf(withIt))));
      assert.deepEqual(countsOf(state), before, 'the original state is untouched by changes to its clone');
    });

    it(`removePod of ${c.name} equals PreFilter without the pod`, () => {
      const removed = mkPod(c.pod);
      const withIt = clusterOf(zoned(), [...base.map(mkPod), removed]);
      const without = clusterOf(zoned(), base.map(mkPod));
      const state = computePreFilterState(incoming, withIt.nodeInfos(), withIt.nodesWithRequiredAntiAffinityPods(), nsLabelsOf(withIt));
      state.updateWithPod(removed, withIt.nodeInfo(removed.nodeName)!.node, -1);
      assert.deepEqual(countsOf(state), countsOf(computePreFilterState(incoming, without.nodeInfos(), without.nodesWithRequiredAntiAffinityPods(), nsLabelsOf(without))));
    });
  }

  it('removing the only matching pod empties the counts and re-enables the first-pod rule', () => {
    const only = mkPod({ name: 'p1', node: 'n3', labels: { app: 'db' } });
    const cluster = clusterOf(zoned(), [only]);
    const pl = pluginFor(cluster);
    const pod = mkPod({ name: 'in', labels: { app: 'db' }, affinity: { podAffinity: required(term(ZONE, { app: 'db' })) } });
    const state = new CycleState();
    assert.ok(pl.preFilter(state, pod, cluster.nodeInfos()).status.isSuccess());
    const n1 = cluster.nodeInfo('n1')!;
    assert.equal(verdictOf(pl.filter(state, pod, n1)), 'A');
    assert.ok(pl.preFilterExtensions!.removePod(state, pod, only, cluster.nodeInfo('n3')!).isSuccess());
    assert.equal(verdictOf(pl.filter(state, pod, n1)), 'ok');
    assert.ok(pl.preFilterExtensions!.addPod(state, pod, only, cluster.nodeInfo('n3')!).isSuccess());
    assert.equal(verdictOf(pl.filter(state, pod, n1)), 'A');
  });

  it('addPod/removePod without PreFilter state is an Error', () => {
    const cluster = clusterOf(zoned(), []);
    const pl = pluginFor(cluster);
    const p = mkPod({ name: 'p', node: 'n1' });
    for (const s of [pl.preFilterExtensions!.addPod(new CycleState(), p, p, cluster.nodeInfo('n1')!), pl.preFilterExtensions!.removePod(new CycleState(), p, p, cluster.nodeInfo('n1')!)]) {
      assert.equal(s.code, Code.Error);
    }
  });

  it('the written state is the one the extensions update (clone of CycleState is independent)', () => {
    const cluster = clusterOf(zoned(), []);
    const pl = pluginFor(cluster);
    const pod = mkPod({ name: 'in', affinity: { podAntiAffinity: required(term(HOST, { app: 'db' })) } });
    const state = new CycleState();
    pl.preFilter(state, pod, cluster.nodeInfos());
    const copy = state.clone();
    const n1 = cluster.nodeInfo('n1')!;
    pl.preFilterExtensions!.addPod(copy, pod, mkPod({ name: 'x', node: 'n1', labels: { app: 'db' } }), n1);
    assert.equal(verdictOf(pl.filter(copy, pod, n1)), 'X');
    assert.equal(verdictOf(pl.filter(state, pod, n1)), 'ok');
    assert.deepEqual(state.read<PreFilterState>(PRE_FILTER_STATE_KEY).antiAffinityCounts.entries(), []);
  });

  it('changing the original state after a clone leaves the clone alone', () => {
    const cluster = clusterOf(zoned(), [mkPod({ name: 'b', node: 'n2', labels: { app: 'db' } })]);
    const state = computePreFilterState(incoming, cluster.nodeInfos(), cluster.nodesWithRequiredAntiAffinityPods(), nsLabelsOf(cluster));
    const cloned = state.clone();
    const before = countsOf(cloned);
    state.updateWithPod(mkPod({ name: 'x', node: 'n1', labels: { app: 'db' } }), cluster.nodeInfo('n1')!.node, 1);
    assert.notDeepEqual(countsOf(state), before);
    assert.deepEqual(countsOf(cloned), before);
  });

  it('counts shared with the cluster tally are copied before addPod changes them', () => {
    const cluster = clusterOf(zoned(), [mkPod({ name: 'b', node: 'n2', labels: { app: 'db' } })]);
    const fromTally = () => computePreFilterState(incoming, cluster.nodeInfos(), cluster.nodesWithRequiredAntiAffinityPods(), nsLabelsOf(cluster), cluster);
    const state = fromTally();
    const before = countsOf(state);
    state.updateWithPod(mkPod({ name: 'x', node: 'n1', labels: { app: 'db' } }), cluster.nodeInfo('n1')!.node, 1);
    assert.notDeepEqual(countsOf(state), before);
    assert.deepEqual(countsOf(fromTally()), before, 'the next cycle reads the tally unchanged');
  });
});

// ---------------------------------------------------------------- scoring

interface ScoreCase {
  readonly name: string;
  readonly nodes: () => Node[];
  readonly pods?: PodSpec[];
  readonly namespaces?: Record<string, Labels>;
  readonly args?: Record<string, unknown>;
  readonly pod: PodSpec;
  /** Raw scores then normalized scores per node, by node name; absent means PreScore Skips. */
  readonly raw?: number[];
  readonly want?: number[];
}

const regions = () => [mkNode('n1', { [REGION]: 'r1' }), mkNode('n2', { [REGION]: 'r1' }), mkNode('n3', { [REGION]: 'r2' }), mkNode('n4', { [ZONE]: 'z' })];

const scoreCases: ScoreCase[] = [
  {
    // region r1 +2 (p1), hostname n2 -1 (p2), hostname n3 -1 (p3): raw 2, 1, -1, 0; min -1, max 2;
    // 100*(3/3)=100, 100*(2/3)=66.67→66, 0, 100*(1/3)=33.3→33.
    name: 'preferred affinity and anti-affinity of the incoming pod, truncated min-max scaling',
    nodes: regions,
    pods: [
      { name: 'p1', node: 'n1', labels: { security: 'S1' } },
      { name: 'p2', node: 'n2', labels: { security: 'S2' } },
      { name: 'p3', node: 'n3', labels: { security: 'S2' } },
    ],
    pod: { name: 'in', affinity: { podAffinity: preferred([2, term(REGION, { security: 'S1' })]), podAntiAffinity: preferred([1, term(HOST, { security: 'S2' })]) } },
    raw: [2, 1, -1, 0],
    want: [100, 66, 0, 33],
  },
  {
    name: 'every node scoring the same normalizes to 0 (max == min)',
    nodes: () => [mkNode('n1', { [REGION]: 'r1' }), mkNode('n2', { [REGION]: 'r1' })],
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'db' } }],
    pod: { name: 'in', affinity: { podAffinity: preferred([7, term(REGION, { app: 'db' })]) } },
    raw: [7, 7],
    want: [0, 0],
  },
  {
    name: 'weights that cancel still record a pair, so PreScore does not Skip',
    nodes: regions,
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'db' } }],
    pod: { name: 'in', affinity: { podAffinity: preferred([3, term(HOST, { app: 'db' })]), podAntiAffinity: preferred([3, term(HOST, { app: 'db' })]) } },
    raw: [0, 0, 0, 0],
    want: [0, 0, 0, 0],
  },
  {
    name: 'preferred terms that match no existing pod: Skip',
    nodes: regions,
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'web' } }],
    pod: { name: 'in', affinity: { podAffinity: preferred([3, term(REGION, { app: 'db' })]) } },
  },
  {
    name: 'no terms on the incoming pod and none on existing pods: Skip',
    nodes: regions,
    pods: [{ name: 'p1', node: 'n1', labels: { app: 'web' } }],
    pod: { name: 'in', labels: { app: 'web' } },
  },
  {
    // r1 +1 (p1 required, default hard weight), r2 +3 (p2 preferred): raw 1, 1, 3, 0 → 33, 33, 100, 0.
    name: 'hardPodAffinityWeight default 1: existing required affinity matching the incoming pod',
    nodes: regions,
    pods: [
      { name: 'p1', node: 'n1', affinity: { podAffinity: required(term(REGION, { app: 'web' })) } },
      { name: 'p2', node: 'n3', affinity: { podAffinity: preferred([3, term(REGION, { app: 'web' })]) } },
    ],
    pod: { name: 'in', labels: { app: 'web' } },
    raw: [1, 1, 3, 0],
    want: [33, 33, 100, 0],
  },
  {
    // r1 +5, r2 +3: raw 5, 5, 3, 0 → 100, 100, 60, 0.
    name: 'hardPodAffinityWeight 5 outweighs a preferred weight of 3',
    nodes: regions,
    args: { hardPodAffinityWeight: 5 },
    pods: [
      { name: 'p1', node: 'n1', affinity: { podAffinity: required(term(REGION, { app: 'web' })) } },
      { name: 'p2', node: 'n3', affinity: { podAffinity: preferred([3, term(REGION, { app: 'web' })]) } },
    ],
    pod: { name: 'in', labels: { app: 'web' } },
    raw: [5, 5, 3, 0],
    want: [100, 100, 60, 0],
  },
  {
    name: 'hardPodAffinityWeight 0 disables existing required terms in scoring',
    nodes: regions,
    args: { hardPodAffinityWeight: 0 },
    pods: [
      { name: 'p1', node: 'n1', affinity: { podAffinity: required(term(REGION, { app: 'web' })) } },
      { name: 'p2', node: 'n3', affinity: { podAffinity: preferred([3, term(REGION, { app: 'web' })]) } },
    ],
    pod: { name: 'in', labels: { app: 'web' } },
    raw: [0, 0, 3, 0],
    want: [0, 0, 100, 0],
  },
  {
    name: 'hardPodAffinityWeight 0 with nothing else: Skip',
    nodes: regions,
    args: { hardPodAffinityWeight: 0 },
    pods: [{ name: 'p1', node: 'n1', affinity: { podAffinity: required(term(REGION, { app: 'web' })) } }],
    pod: { name: 'in', labels: { app: 'web' } },
  },
  {
    // hostname n2 -4: raw 0, -4, 0, 0 → 100, 0, 100, 100.
    name: "existing pods' preferred anti-affinity lowers their topology",
    nodes: regions,
    pods: [{ name: 'p1', node: 'n2', affinity: { podAntiAffinity: preferred([4, term(HOST, { app: 'web' })]) } }],
    pod: { name: 'in', labels: { app: 'web' } },
    raw: [0, -4, 0, 0],
    want: [100, 0, 100, 100],
  },
  {
    name: "ignorePreferredTermsOfExistingPods: an incoming pod without preferred terms Skips",
    nodes: regions,
    args: { ignorePreferredTermsOfExistingPods: true },
    pods: [{ name: 'p1', node: 'n1', affinity: { podAffinity: required(term(REGION, { app: 'web' })) } }],
    pod: { name: 'in', labels: { app: 'web' } },
  },
  {
    // r1 +2 (incoming preferred, p1), r2 +3 (p2 preferred still counted): raw 2, 2, 3, 0 → 66, 66, 100, 0.
    name: "ignorePreferredTermsOfExistingPods: with preferred terms on the incoming pod, existing pods' terms still count",
    nodes: regions,
    args: { ignorePreferredTermsOfExistingPods: true },
    pods: [
      { name: 'p1', node: 'n1', labels: { app: 'db' } },
      { name: 'p2', node: 'n3', affinity: { podAffinity: preferred([3, term(REGION, { app: 'web' })]) } },
    ],
    pod: { name: 'in', labels: { app: 'web' }, affinity: { podAffinity: preferred([2, term(REGION, { app: 'db' })]) } },
    raw: [2, 2, 3, 0],
    want: [66, 66, 100, 0],
  },
  {
    name: "existing pod's preferred term namespaceSelector is matched against the incoming pod's namespace labels",
    nodes: regions,
    namespaces: { default: { team: 'a' }, data: { team: 'b' } },
    pods: [{ name: 'p1', ns: 'data', node: 'n3', affinity: { podAffinity: preferred([5, term(REGION, { app: 'web' }, { namespaceSelector: { matchLabels: { team: 'a' } } })]) } }],
    pod: { name: 'in', labels: { app: 'web' } },
    raw: [0, 0, 5, 0],
    want: [0, 0, 100, 0],
  },
  {
    name: "existing pod's preferred term whose namespaceSelector does not select the incoming pod's namespace: Skip",
    nodes: regions,
    namespaces: { default: { team: 'b' }, data: { team: 'b' } },
    pods: [{ name: 'p1', ns: 'data', node: 'n3', affinity: { podAffinity: preferred([5, term(REGION, { app: 'web' }, { namespaceSelector: { matchLabels: { team: 'a' } } })]) } }],
    pod: { name: 'in', labels: { app: 'web' } },
  },
  {
    name: "incoming pod's preferred term with a namespaceSelector counts pods in selected namespaces only",
    nodes: regions,
    namespaces: { data: { team: 'a' }, logs: { team: 'b' } },
    pods: [
      { name: 'p1', ns: 'data', node: 'n1', labels: { app: 'db' } },
      { name: 'p2', ns: 'logs', node: 'n3', labels: { app: 'db' } },
    ],
    pod: { name: 'in', affinity: { podAffinity: preferred([4, term(REGION, { app: 'db' }, { namespaceSelector: { matchLabels: { team: 'a' } } })]) } },
    raw: [4, 4, 0, 0],
    want: [100, 100, 0, 0],
  },
];

describe('InterPodAffinity PreScore/Score/NormalizeScore', () => {
  for (const tc of scoreCases) {
    it(tc.name, () => {
      const cluster = clusterOf(tc.nodes(), (tc.pods ?? []).map(mkPod), tc.namespaces);
      const pl = pluginFor(cluster, tc.args);
      const pod = mkPod(tc.pod);
      const state = new CycleState();
      // Node-tree order interleaves zones; scores do not depend on order, so list them by name.
      const nodes: readonly NodeInfo[] = [...cluster.nodeInfos()].sort((a, b) => (a.node.name < b.node.name ? -1 : 1));
      const status = pl.preScore(state, pod, nodes);
      if (tc.want === undefined) {
        assert.equal(status.code, Code.Skip);
        return;
      }
      assert.ok(status.isSuccess(), `PreScore: ${status.code} ${status.message()}`);
      const scores: NodeScore[] = nodes.map((n) => ({ name: n.node.name, score: pl.score(state, pod, n) }));
      assert.deepEqual(scores.map((s) => s.score), tc.raw);
      pl.normalizeScore!(state, pod, scores);
      assert.deepEqual(scores.map((s) => s.score), tc.want);
    });
  }

  it('Score without PreScore state throws the upstream message', () => {
    const cluster = clusterOf(regions(), []);
    assert.throws(() => pluginFor(cluster).score(new CycleState(), mkPod({ name: 'in' }), cluster.nodeInfos()[0]!), /failed to read "PreScoreInterPodAffinity" from cycleState: not found/);
  });

  const normalizeCases: { name: string; raw: number[]; want: number[] }[] = [
    { name: 'divides before multiplying, as float64: 100 * (29/100) truncates to 28', raw: [0, 29, 100], want: [0, 28, 100] },
    { name: 'negative raw scores shift to the minimum', raw: [-5, 0, 5], want: [0, 50, 100] },
    { name: 'equal scores give 0', raw: [3, 3, 3], want: [0, 0, 0] },
    { name: 'an empty list is left alone', raw: [], want: [] },
  ];
  for (const tc of normalizeCases) {
    it(`normalize: ${tc.name}`, () => {
      const scores = tc.raw.map((score, i) => ({ name: `n${i}`, score }));
      normalizeTopologyScores(scores);
      assert.deepEqual(scores.map((s) => s.score), tc.want);
    });
  }
});

// ---------------------------------------------------------------- args

describe('InterPodAffinityArgs', () => {
  const ok: { name: string; args: Record<string, unknown>; want: { hardPodAffinityWeight: number; ignorePreferredTermsOfExistingPods: boolean } }[] = [
    { name: 'defaults', args: {}, want: { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false } },
    { name: 'null weight is defaulted', args: { hardPodAffinityWeight: null }, want: { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false } },
    { name: 'weight 0 is allowed', args: { hardPodAffinityWeight: 0 }, want: { hardPodAffinityWeight: 0, ignorePreferredTermsOfExistingPods: false } },
    { name: 'weight 100 is allowed', args: { hardPodAffinityWeight: 100, ignorePreferredTermsOfExistingPods: true }, want: { hardPodAffinityWeight: 100, ignorePreferredTermsOfExistingPods: true } },
    { name: 'apiVersion and kind are accepted', args: { apiVersion: 'kubescheduler.config.k8s.io/v1', kind: 'InterPodAffinityArgs' }, want: { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false } },
  ];
  for (const tc of ok) it(tc.name, () => assert.deepEqual(parseInterPodAffinityArgs(tc.args), tc.want));

  const bad: { name: string; args: Record<string, unknown>; message: string; path: (string | number)[] }[] = [
    { name: 'weight above 100', args: { hardPodAffinityWeight: 101 }, message: 'Invalid value: 101: not in valid range [0, 100]', path: ['hardPodAffinityWeight'] },
    { name: 'negative weight', args: { hardPodAffinityWeight: -1 }, message: 'Invalid value: -1: not in valid range [0, 100]', path: ['hardPodAffinityWeight'] },
    { name: 'fractional weight', args: { hardPodAffinityWeight: 1.5 }, message: 'Invalid value: 1.5: must be a 32-bit integer', path: ['hardPodAffinityWeight'] },
    { name: 'string weight', args: { hardPodAffinityWeight: '5' }, message: 'Invalid value: "5": must be a 32-bit integer', path: ['hardPodAffinityWeight'] },
    { name: 'non-boolean ignore flag', args: { ignorePreferredTermsOfExistingPods: 'yes' }, message: 'Invalid value: "yes": must be a boolean', path: ['ignorePreferredTermsOfExistingPods'] },
    { name: 'unknown field', args: { hardPodAffinityWieght: 2 }, message: 'unknown field "hardPodAffinityWieght"', path: ['hardPodAffinityWieght'] },
  ];
  for (const tc of bad) {
    it(`rejects ${tc.name}`, () => {
      assert.throws(
        () => parseInterPodAffinityArgs(tc.args),
        (e: unknown) => e instanceof FieldError && e.message === tc.message && JSON.stringify(e.path) === JSON.stringify(tc.path),
      );
    });
  }

  it('the factory validates its args', () => {
    assert.throws(() => pluginFor(clusterOf([], []), { hardPodAffinityWeight: 200 }), FieldError);
  });

  it('plugin name', () => assert.equal(pluginFor(clusterOf([], [])).name, 'InterPodAffinity'));
});
