// Property tests over random clusters: whatever the input, a placement never
// overcommits a node, never breaks a required constraint, and does not depend on
// the order pods are listed in when their queue order is fixed by timestamps.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ClusterState } from '../cluster/state.js';
import type { NodeManifest, PodManifest } from '../model/manifest.js';
import { compileNode } from '../model/node.js';
import { compilePod, matchesRequiredNodeAffinity, type Pod } from '../model/pod.js';
import { doNotScheduleTaints, findUntoleratedTaint } from '../model/taints.js';
import { scheduleAll, type ScheduleReport } from './run.js';

const ZONES = ['a', 'b', 'c'];
const APPS = ['web', 'db', 'cache'];

const nodeArb = fc.record({
  zone: fc.constantFrom(...ZONES),
  cpu: fc.integer({ min: 1, max: 8 }),
  memGi: fc.integer({ min: 1, max: 16 }),
  pods: fc.integer({ min: 1, max: 10 }),
  tainted: fc.boolean(),
  disk: fc.constantFrom('ssd', 'hdd'),
});

const podArb = fc.record({
  app: fc.constantFrom(...APPS),
  cpuMilli: fc.integer({ min: 0, max: 3000 }),
  memMi: fc.integer({ min: 0, max: 4096 }),
  priority: fc.integer({ min: 0, max: 2 }),
  antiAffinity: fc.constantFrom('none', 'hostname', 'zone'),
  spread: fc.boolean(),
  tolerates: fc.boolean(),
  wantsSsd: fc.boolean(),
});

type NodeSpec = typeof nodeArb extends fc.Arbitrary<infer T> ? T : never;
type PodSpec = typeof podArb extends fc.Arbitrary<infer T> ? T : never;

function nodeManifest(s: NodeSpec, i: number): NodeManifest {
  return {
    metadata: { name: `n${i}`, labels: { 'topology.kubernetes.io/zone': s.zone, disk: s.disk } },
    spec: s.tainted ? { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] } : {},
    status: { allocatable: { cpu: String(s.cpu), memory: `${s.memGi}Gi`, pods: String(s.pods) } },
  };
}

function podManifest(s: PodSpec, i: number): PodManifest {
  const term = (key: string) => ({ topologyKey: key, labelSelector: { matchLabels: { app: s.app } } });
  return {
    metadata: { name: `p${i}`, labels: { app: s.app }, creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() },
    spec: {
      priority: s.priority,
      ...(s.wantsSsd ? { nodeSelector: { disk: 'ssd' } } : {}),
      ...(s.tolerates ? { tolerations: [{ key: 'dedicated', operator: 'Exists' as const }] } : {}),
      ...(s.antiAffinity !== 'none'
        ? { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(s.antiAffinity === 'hostname' ? 'kubernetes.io/hostname' : 'topology.kubernetes.io/zone')] } } }
        : {}),
      ...(s.spread ? { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app: s.app } } }] } : {}),
      containers: [{ name: 'c', resources: { requests: { cpu: `${s.cpuMilli}m`, memory: `${s.memMi}Mi` } } }],
    },
  };
}

function run(nodes: NodeSpec[], pods: PodSpec[], podOrder: number[]): { cluster: ClusterState; report: ScheduleReport } {
  const cluster = new ClusterState();
  nodes.forEach((n, i) => cluster.addNode(compileNode(nodeManifest(n, i), i)));
  podOrder.forEach((idx, order) => cluster.addPod(compilePod(podManifest(pods[idx]!, idx), { order })));
  const report = scheduleAll(cluster, {});
  return { cluster, report };
}

const clusterArb = fc.record({ nodes: fc.array(nodeArb, { minLength: 1, maxLength: 6 }), pods: fc.array(podArb, { minLength: 1, maxLength: 14 }) });

function boundPods(cluster: ClusterState): Pod[] {
  return [...cluster.pods()].filter((p) => p.nodeName !== '');
}

describe('scheduler properties', () => {
  it('never overcommits a node', () => {
    fc.assert(
      fc.property(clusterArb, ({ nodes, pods }) => {
        const { cluster } = run(nodes, pods, pods.map((_, i) => i));
        for (const info of cluster.nodeInfos()) {
          const alloc = info.node.allocatable;
          assert.ok((info.requested.cpu ?? 0) <= (alloc.cpu ?? 0), `cpu overcommitted on ${info.node.name}`);
          assert.ok((info.requested.memory ?? 0) <= (alloc.memory ?? 0), `memory overcommitted on ${info.node.name}`);
          assert.ok(info.pods.length <= (alloc.pods ?? 0), `too many pods on ${info.node.name}`);
        }
      }),
      { numRuns: 150, seed: 42 },
    );
  });

  it('never violates node selectors, taints or required anti-affinity', () => {
    fc.assert(
      fc.property(clusterArb, ({ nodes, pods }) => {
        const { cluster } = run(nodes, pods, pods.map((_, i) => i));
        const bound = boundPods(cluster);
        const nodeOf = (p: Pod) => cluster.nodeInfo(p.nodeName)!.node;
        for (const p of bound) {
          const node = nodeOf(p);
          assert.ok(matchesRequiredNodeAffinity(p, node), `${p.key} on ${node.name} breaks its node selector`);
          assert.equal(findUntoleratedTaint(node.taints, p.tolerations, doNotScheduleTaints), undefined, `${p.key} on a tainted node`);
          for (const term of p.requiredAntiAffinity) {
            const domain = node.labels[term.topologyKey];
            for (const q of bound) {
              if (q.key === p.key || !term.selector.matches(q.labels)) continue;
              assert.notEqual(nodeOf(q).labels[term.topologyKey], domain, `${p.key} and ${q.key} share ${term.topologyKey}=${domain}`);
            }
          }
        }
      }),
      { numRuns: 150, seed: 7 },
    );
  });

  it('gives the same placements whatever order pods are listed in, when timestamps fix the queue order', () => {
    fc.assert(
      fc.property(
        clusterArb.chain(({ nodes, pods }) => fc.tuple(fc.constant(nodes), fc.constant(pods), fc.shuffledSubarray(pods.map((_, i) => i), { minLength: pods.length, maxLength: pods.length }))),
        ([nodes, pods, shuffled]) => {
          const a = run(nodes, pods, pods.map((_, i) => i)).report;
          const b = run(nodes, pods, shuffled).report;
          const byPod = (r: ScheduleReport) => Object.fromEntries(r.placements.map((p) => [p.pod, p.node]));
          assert.deepEqual(byPod(b), byPod(a));
          assert.deepEqual(new Set(b.unschedulable.map((u) => u.pod)), new Set(a.unschedulable.map((u) => u.pod)));
        },
      ),
      { numRuns: 100, seed: 3 },
    );
  });
});
