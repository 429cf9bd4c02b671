// The scheduler keeps per-cluster tallies across cycles: topology spread's
// matching-pod counts and domain totals (pod-topology-spread/match-index.ts,
// kept pod change by pod change) and InterPodAffinity's PreFilter and PreScore
// pairs (cluster/node-tally.ts, refreshed from the nodes whose pods changed). Conformance cases start
// from a fresh cluster each, so this checks the refresh path: every decision on
// a long-lived cluster (pods bound and deleted between cycles) must equal the
// decision on a fresh copy of the same cluster, scores included.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { buildClusterState, type ClusterState } from '../cluster/state.js';
import type { PodSpecManifest } from '../model/manifest.js';
import { compileNode, LABEL_ZONE } from '../model/node.js';
import { bindPod, compilePod, type Pod } from '../model/pod.js';
import { Rand } from '../model/rand.js';
import { compileLabelSelector } from '../model/selector.js';
import { buildFramework } from './profile.js';
import { profileFor } from './run.js';
import { Scheduler, type ScheduleOutcome } from './scheduler.js';

const HOST = 'kubernetes.io/hostname';
const term = (app: string, topologyKey: string) => ({ labelSelector: { matchLabels: { app } }, topologyKey });
const SHAPES: ((app: string) => Partial<PodSpecManifest>)[] = [
  () => ({}),
  (app) => ({ affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(app, HOST)] } } }),
  (app) => ({ affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(app, LABEL_ZONE)] } } }),
  (app) => ({ affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: term(app, HOST) }] } } }),
  (app) => ({ affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 3, podAffinityTerm: term(app, LABEL_ZONE) }] } } }),
  (app) => ({ topologySpreadConstraints: [{ maxSkew: 1, topologyKey: LABEL_ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } }] }),
  (app) => ({ topologySpreadConstraints: [{ maxSkew: 2, topologyKey: HOST, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app } } }] }),
];

function pod(i: number, rand: Rand): Pod {
  const app = `app-${rand.intn(3)}`;
  const spec = SHAPES[rand.intn(SHAPES.length)]!(app);
  return compilePod(
    { metadata: { name: `p${i}`, namespace: rand.intn(4) === 0 ? 'other' : 'default', labels: { app } }, spec: { ...spec, containers: [{ name: 'c', resources: { requests: { cpu: '100m', memory: '100Mi' } } }] } },
    { order: i },
  );
}

function decide(cluster: ClusterState, p: Pod, start: number): { outcome: ScheduleOutcome; next: number } {
  const sched = new Scheduler(cluster, (h) => buildFramework({}, profileFor({}, 'default-scheduler')!, h));
  sched.nextStartNodeIndex = start;
  return { outcome: sched.schedulePod(p), next: sched.nextStartNodeIndex };
}

const summary = (o: ScheduleOutcome) =>
  o.kind === 'scheduled' ? { node: o.node, scores: o.scores?.map((s) => [s.name, s.totalScore, s.rawScores.map((r) => r.score)]) } : { message: o.message };

describe('decisions on a long-lived cluster equal those on a fresh copy', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: 150 pods on 12 nodes, a fifth of the bound pods deleted along the way`, () => {
      const rand = new Rand(seed);
      const nodes = Array.from({ length: 12 }, (_, i) =>
        compileNode({ metadata: { name: `n${i}`, labels: { [LABEL_ZONE]: `z${i % 3}` } }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '20' } } }, i),
      );
      // A Service over app-1 gives its pods without constraints of their own PodTopologySpread's system defaults.
      const services = [{ namespace: 'default', name: 'svc', uid: 'svc', selector: compileLabelSelector({ matchLabels: { app: 'app-1' } }) }];
      const live = buildClusterState({ nodes, pods: [], services });
      const bound: Pod[] = [];
      let start = 0;
      for (let i = 0; i < 150; i++) {
        const p = pod(i, rand);
        live.addPod(p);
        const fresh = buildClusterState({ nodes, pods: [...live.pods()], services });
        const a = decide(live, p, start);
        const b = decide(fresh, p, start);
        assert.deepEqual(summary(a.outcome), summary(b.outcome), `pod ${p.key}`);
        start = a.next;
        if (a.outcome.kind === 'scheduled') {
          const placed = bindPod(p, a.outcome.node);
          live.updatePod(placed);
          bound.push(placed);
        } else {
          live.removePod(p.key);
        }
        if (bound.length > 0 && rand.intn(5) === 0) live.removePod(bound.splice(rand.intn(bound.length), 1)[0]!.key);
        if (bound.length > 0 && rand.intn(2) === 0) {
          // A bound pod updated in place: its status (no count can change), its labels, or deleted (terminating).
          const at = rand.intn(bound.length);
          const old = bound[at]!;
          const kind = rand.intn(3);
          const updated: Pod = kind === 0 ? { ...old, phase: 'Running' } : kind === 1 ? { ...old, labels: { app: `app-${rand.intn(3)}` } } : { ...old, terminating: true };
          live.updatePod(updated);
          bound[at] = updated;
        }
        if (i % 50 === 49) {
          // A burst of changes longer than the cluster's change log (a pod bound and deleted over and over):
          // tallies must notice the log was cleared and check every node.
          const churn = bindPod(pod(1000 + i, rand), `n${rand.intn(12)}`);
          for (let k = 0; k < 700; k++) {
            live.addPod(churn);
            live.removePod(churn.key);
          }
          if (bound.length > 0) live.removePod(bound.splice(rand.intn(bound.length), 1)[0]!.key);
        }
      }
    });
  }
});
