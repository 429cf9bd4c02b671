// Replays every stored sim-vs-real scenario without a cluster: the simulator,
// at the stored real phase times, against the stored real observation. A file
// with openDifferences records a disagreement not fixed yet: it must still
// disagree (when it stops, the fix lands with the file's openDifferences removed).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { judge } from './judge.js';
import type { RealObservation } from './real-side.js';
import { validateScenario, type SvrScenario } from './scenario.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'regressions');

describe('sim-vs-real regressions', () => {
  for (const f of readdirSync(DIR).filter((x) => x.endsWith('.json')).sort()) {
    it(f, () => {
      const stored = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as { scenario: SvrScenario; real: RealObservation; openDifferences?: number };
      validateScenario(stored.scenario, f);
      const v = judge(stored.scenario, stored.real);
      if (stored.openDifferences === undefined) assert.deepEqual(v.differences, [], `${f}: the simulator disagrees with the stored real run`);
      else assert.equal(v.agrees, false, `${f}: agrees now; drop its openDifferences`);
    });
  }
});

describe('sim-vs-real removal race tolerance', () => {
  // s1-15: w3's replacement (required anti-affinity per hostname) went to node-4 in this real
  // run; the simulator's own order (old pod gone first) gives node-5, the other view node-4
  // (README: the removal race). A real placement that neither view gives is still a difference.
  const stored = JSON.parse(readFileSync(join(DIR, 's1-15.json'), 'utf8')) as { scenario: SvrScenario; real: RealObservation };
  const phase = stored.real.phases.findIndex((p) => p.phase === 'deletePod w3 node-5');

  it('s1-15 agrees: the real replacement is on the node of one view', () => {
    assert.deepEqual(judge(stored.scenario, stored.real).differences, []);
  });

  it('s1-15 with the replacement recorded on node-2 (a w3 pod there already, so in neither view) disagrees', () => {
    const moved = (p: Record<string, Record<string, number>>) => ({ ...p, w3: Object.fromEntries(Object.entries({ ...p['w3'], 'node-2': (p['w3']?.['node-2'] ?? 0) + 1, 'node-4': (p['w3']?.['node-4'] ?? 0) - 1 }).filter(([, n]) => n > 0)) });
    const real: RealObservation = {
      ...stored.real,
      phases: stored.real.phases.map((p, i) => (i >= phase ? { ...p, placement: moved(p.placement) } : p)),
      bindings: stored.real.bindings!.map((b, i) => (i === phase ? b.map((e) => (e.app === 'w3' ? { ...e, node: 'node-2' } : e)) : b)),
    };
    const v = judge(stored.scenario, real);
    assert.equal(v.agrees, false);
    assert.deepEqual(v.differences[0]?.dimension, 'placement');
    assert.equal(v.differences[0]?.phase, 'deletePod w3 node-5');
  });
});

describe('sim-vs-real ReplicaSet status race tolerance', () => {
  // s1-23, rollout of w1 (3 replicas, maxSurge 2, maxUnavailable 0): the real old ReplicaSet went
  // 3 -> 1 (both surge pods counted available at the first scale-down); the simulator's own order
  // counts one (3 -> 2), which leaves an old pod's node taken when the third new pod is placed.
  const stored = JSON.parse(readFileSync(join(DIR, 's1-23.json'), 'utf8')) as { scenario: SvrScenario; real: RealObservation };

  it('s1-23 agrees: the first scale-down waits for the second surge pod to turn ready', () => {
    assert.deepEqual(stored.real.replicaSets['w1']?.[0], [3, 1, 0]);
    assert.deepEqual(judge(stored.scenario, stored.real).differences, []);
  });
});

describe('sim-vs-real arrival tie tolerance', () => {
  // s1-14, drain of node-6: the real cluster bound w3's replacement before the recreated
  // StatefulSet pod w1-4 (evicted earlier), which then went to node-2; both were queued in one
  // instant in the simulator, whose arrival order puts w1-4 first, on node-4.
  const stored = JSON.parse(readFileSync(join(DIR, 's1-14.json'), 'utf8')) as { scenario: SvrScenario; real: RealObservation };

  it('s1-14 agrees: the pods queued together are scheduled in the real order', () => {
    const phase = stored.real.phases.findIndex((p) => p.phase === 'drain node-6');
    assert.deepEqual(stored.real.bindings![phase]!.map((b) => b.app), ['w3', 'w1']);
    assert.deepEqual(judge(stored.scenario, stored.real).differences, []);
  });
});
