import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LoadedInput } from '../io/load.js';
import { podGroups } from './pod-groups.js';
import { provableShortfall, shortGroups } from './held-replicas.js';
import { trackReady } from './ready-replicas.js';
import { contextFor, deploymentYaml, listYaml, loadInput, nodeYaml, statefulSetYaml } from './test-input.js';
import { simulateWhatIf } from './what-if.js';

/** 12 nodes in zone a, 6 in b: losing zone a queues 12 nodes for the NoExecute taint, one per 10 s. */
const zones = () => [...Array.from({ length: 12 }, (_, i) => nodeYaml(`a${i}`, 'a')), ...Array.from({ length: 6 }, (_, i) => nodeYaml(`b${i}`, 'b'))];

const T0 = 60_000;

/** Zone a lost at T0; at every instant, whether shortGroups proves `object` short of `whole` at each horizon, and its ready count at each horizon. */
function watch(input: LoadedInput, horizons: readonly number[], object = 'Deployment/default/web', whole = 6) {
  const ctx = contextFor(input);
  const web = podGroups(input).find((g) => g.object === object)!;
  const tracker = trackReady([web]);
  const t0 = T0;
  const provedAt = horizons.map((): number | undefined => undefined);
  const readyAt = horizons.map(() => 0);
  simulateWhatIf(ctx, {
    name: 'zone-loss',
    steps: [{ at: t0, action: { type: 'failZone', zone: 'a' } }],
    untilMs: Math.max(...horizons),
    observe: (sim) => {
      tracker.observe(sim);
      sim.engine.afterEach(() => {
        horizons.forEach((h, i) => {
          if (sim.engine.now <= h) readyAt[i] = tracker.ready(web);
          if (sim.engine.now > t0 && provedAt[i] === undefined && shortGroups(sim, new Map([[web, whole]]), h).length > 0) provedAt[i] = sim.engine.now;
        });
      });
    },
  });
  return { provedAt, readyAt, t0 };
}

describe('held replicas', () => {
  it('a zone loss whose taints and 300 s tolerations outlast the horizon proves the Deployment short a minute after the loss; a horizon it recovers by never is', () => {
    const input = loadInput({ text: listYaml(...zones(), deploymentYaml('web', 6)) });
    const { provedAt, readyAt, t0 } = watch(input, [T0 + 200_000, T0 + 30 * 60_000]);
    assert.ok(provedAt[0] !== undefined && provedAt[0] < t0 + 120_000, `proved at ${provedAt[0]}`);
    assert.ok(readyAt[0]! < 6, 'short at the near horizon indeed');
    assert.equal(provedAt[1], undefined, 'never proved short where it recovers');
    assert.equal(readyAt[1], 6, 'whole again at the far horizon');
  });

  it('only for a Deployment or StatefulSet without claims whose selector no other workload matches, on an input where nothing else tolerates the unreachable taint', () => {
    const group = (input: LoadedInput, object: string) => podGroups(input).find((g) => g.object === object)!;
    const plain = loadInput({ text: listYaml(...zones(), deploymentYaml('web', 6)) });
    assert.equal(provableShortfall(plain, group(plain, 'Deployment/default/web')), true);
    const sts = loadInput({ text: listYaml(...zones(), statefulSetYaml('web', 3)) });
    assert.equal(provableShortfall(sts, group(sts, 'StatefulSet/default/web')), false, 'a StatefulSet with claims');
    const stsPlain = loadInput({ text: listYaml(...zones(), statefulSetYaml('web', 3, false)) });
    assert.equal(provableShortfall(stsPlain, group(stsPlain, 'StatefulSet/default/web')), true, 'a StatefulSet without claims');
    const twin = loadInput({ text: listYaml(...zones(), deploymentYaml('web', 6), deploymentYaml('web2', 2).replace(/app: web2/g, 'app: web')) });
    assert.equal(provableShortfall(twin, group(twin, 'Deployment/default/web')), false);
    const tolerant = `        tolerations: [{operator: Exists}]`;
    const open = loadInput({ text: listYaml(...zones(), deploymentYaml('web', 6), deploymentYaml('ops', 1, tolerant)) });
    assert.equal(provableShortfall(open, group(open, 'Deployment/default/web')), false);
  });

  it('a StatefulSet whose pod is on a lost node is short for good: proved once the pod is NotReady, whatever the horizon', () => {
    const input = loadInput({ text: listYaml(...zones(), statefulSetYaml('web', 3, false)) });
    const { provedAt, readyAt, t0 } = watch(input, [T0 + 200_000, T0 + 30 * 60_000], 'StatefulSet/default/web', 3);
    for (const [i, at] of provedAt.entries()) {
      assert.ok(at !== undefined && at < t0 + 120_000, `proved at ${at}`);
      assert.ok(readyAt[i]! < 3, 'short at the horizon indeed');
    }
  });

  it('many groups in one pass: at every instant the same groups as each asked alone', () => {
    const input = loadInput({ text: listYaml(...zones(), deploymentYaml('web', 6), deploymentYaml('api', 2), statefulSetYaml('db', 3, false)) });
    const ctx = contextFor(input);
    const groups = podGroups(input).filter((g) => provableShortfall(input, g));
    assert.equal(groups.length, 3);
    const wholes = new Map(groups.map((g) => [g, g.replicas]));
    let compared = 0;
    const proved = new Set<string>();
    simulateWhatIf(ctx, {
      name: 'zone-loss',
      steps: [{ at: T0, action: { type: 'failZone', zone: 'a' } }],
      untilMs: T0 + 30 * 60_000,
      observe: (sim) =>
        sim.engine.afterEach(() => {
          if (sim.engine.now <= T0 || sim.engine.busyNow) return;
          for (const h of [T0 + 200_000, T0 + 30 * 60_000]) {
            const together = shortGroups(sim, wholes, h).map((g) => g.object);
            const alone = groups.filter((g) => shortGroups(sim, new Map([[g, g.replicas]]), h).length > 0).map((g) => g.object);
            assert.deepEqual(together, alone, `at ${sim.engine.now}`);
            for (const o of together) proved.add(o);
            compared++;
          }
        }),
    });
    assert.ok(compared > 10);
    assert.ok(proved.size >= 2, `proved ${[...proved].join(', ')}`);
  });
});

