// No eviction loops: over random small clusters, applying each pass's evictions
// where the engine predicted the replacements land, repeated passes come to rest.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ClusterState } from '../cluster/state.js';
import type { PodSpecManifest } from '../model/manifest.js';
import { compileNode } from '../model/node.js';
import { bindPod, compilePod } from '../model/pod.js';
import { deschedule, type DeschedulerPolicy } from './deschedule.js';
import { singleProfilePolicy } from '../model/descheduler-policy.js';

const APPS = ['a', 'b', 'c'] as const;
type Rule = 'none' | 'preferredAnti' | 'requiredAnti' | 'hardSpread' | 'softSpread' | 'zoneAffinity';

function spec(app: string, rule: Rule): Partial<PodSpecManifest> {
  const term = { labelSelector: { matchLabels: { app } }, topologyKey: 'kubernetes.io/hostname' };
  const spread = (when: 'DoNotSchedule' | 'ScheduleAnyway') => ({ topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: when, labelSelector: { matchLabels: { app } } }] });
  switch (rule) {
    case 'none': return {};
    case 'preferredAnti': return { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] } } };
    case 'requiredAnti': return { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } };
    case 'hardSpread': return spread('DoNotSchedule');
    case 'softSpread': return spread('ScheduleAnyway');
    case 'zoneAffinity': return { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['z1'] }] } }] } } };
  }
}

const world = fc.record({
  nodes: fc.array(fc.record({ zone: fc.integer({ min: 0, max: 2 }), cpu: fc.integer({ min: 1, max: 4 }) }), { minLength: 2, maxLength: 6 }),
  rules: fc.tuple(...APPS.map(() => fc.constantFrom<Rule>('none', 'preferredAnti', 'requiredAnti', 'hardSpread', 'softSpread', 'zoneAffinity'))),
  pods: fc.array(fc.record({ app: fc.integer({ min: 0, max: 2 }), node: fc.nat(), milli: fc.integer({ min: 1, max: 8 }).map((n) => n * 125) }), { minLength: 1, maxLength: 14 }),
});

type World = typeof world extends fc.Arbitrary<infer T> ? T : never;

function build(w: World): ClusterState {
  const c = new ClusterState();
  w.nodes.forEach((n, i) => c.addNode(compileNode({ metadata: { name: `n${i}`, labels: { 'kubernetes.io/hostname': `n${i}`, 'topology.kubernetes.io/zone': `z${n.zone}` } }, status: { allocatable: { cpu: String(n.cpu), memory: '16Gi', pods: '110' } } }, i)));
  w.pods.forEach((p, i) => {
    const app = APPS[p.app]!;
    const nodeName = `n${p.node % w.nodes.length}`;
    const info = c.nodeInfo(nodeName)!;
    // Only placements that fit: the kubelet would not run the rest.
    if ((info.requested['cpu'] ?? 0) + p.milli > info.node.allocatable['cpu']!) return;
    c.addPod(
      compilePod(
        {
          metadata: { name: `${app}-${i}`, namespace: 'default', labels: { app }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: app, uid: app, controller: true }] },
          spec: { nodeName, containers: [{ name: 'c', image: 'img', resources: { requests: { cpu: `${p.milli}m` } } }], ...spec(app, w.rules[p.app] ?? 'none') },
          status: { phase: 'Running' },
        },
        { order: i },
      ),
    );
  });
  return c;
}

const POLICY: DeschedulerPolicy = singleProfilePolicy(
  {
    // Preferred node affinity is left out: with the evicted pod still on its node while it terminates, LowNodeUtilization
    // can send a pod away from its preferred node (the only one with room for the replacement then) and the next pass
    // brings it back; a real cluster does the same, so the property does not hold for that pair. LowNodeUtilization is left
    // out for the same reason against topology spread (a pod spread to an emptier node overloads it; the next pass moves another back).
    RemovePodsViolatingNodeAffinity: { nodeAffinityType: ['requiredDuringSchedulingIgnoredDuringExecution'] },
    RemovePodsViolatingInterPodAntiAffinity: {},
    RemoveDuplicates: {},
    RemovePodsViolatingTopologySpreadConstraint: { constraints: ['DoNotSchedule', 'ScheduleAnyway'] },
  },
  { predictPlacement: true },
);

describe('descheduling comes to rest', () => {
  it('passes applied where the engine predicted end with a pass that evicts nothing', () => {
    fc.assert(
      fc.property(world, (w) => {
        const c = build(w);
        for (let pass = 0; pass < 25; pass++) {
          const r = deschedule({ cluster: c, policy: POLICY, seed: pass });
          if (r.evictions.length === 0) return;
          for (const e of r.evictions) c.updatePod(bindPod({ ...c.getPod(e.pod)!, nodeName: '', phase: 'Pending' }, e.predictedNode));
        }
        assert.fail('still evicting after 25 passes');
      }),
      { numRuns: 60, seed: 42 },
    );
  });
});
