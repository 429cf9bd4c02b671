// How many hidden classes (V8 maps) the pods of check's simulations have: every
// pod object a simulation's listeners hear of (created, updated, deleted), and the
// pods left in its cluster at the end, grouped by %HaveSameMap. Code that reads
// pods (the scheduler's plugins, controllers) stays fast only while they share few
// maps; each new one costs deoptimizations and recompiles in every worker.
// Usage: node --allow-natives-syntax --import tsx bench/pod-shapes.ts DUMP [N]
// (DUMP from `npx tsx bench/check-200.ts 1000`; N what-ifs, in turn a rollout of the
// next Deployment, StatefulSet or DaemonSet, a node lost and back ten minutes later,
// and the first zone lost.)

import { readFileSync } from 'node:fs';
import { isRollable } from '../src/analyze/checks/rollout-deadlock.js';
import { baseline, whatIfSession } from '../src/analyze/what-if.js';
import type { Action } from '../src/io/scenario-spec.js';
import { loadSources } from '../src/io/load.js';
import { LABEL_ZONE } from '../src/model/node.js';
import { bundledInstanceTypes } from '../src/provisioner/catalog/catalog.js';
import type { Pod } from '../src/model/pod.js';

const STEP_AT_MS = 60_000;
const file = process.argv[2];
if (!file) throw new Error('usage: node --allow-natives-syntax --import tsx bench/pod-shapes.ts DUMP [N]');
const n = Number(process.argv[3] ?? 12);
// V8's natives syntax parses only at run time, hence Function.
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** Distinct maps among `objects`, each with how many objects have it and one example's keys. */
function maps(objects: Iterable<object>): { count: number; keys: string }[] {
  const found: { example: object; count: number }[] = [];
  for (const o of objects) {
    const same = found.find((f) => haveSameMap(f.example, o));
    if (same) same.count++;
    else found.push({ example: o, count: 1 });
  }
  return found.sort((a, b) => b.count - a.count).map((f) => ({ count: f.count, keys: Object.keys(f.example).join(',') }));
}

const loaded = loadSources([{ name: file, text: readFileSync(file, 'utf8') }]);
if (!loaded.ok) throw new Error(`${file} does not load`);
const ctx = { input: loaded.input, instanceTypes: bundledInstanceTypes(), provisioner: false, seed: 0 };
baseline(ctx);
console.log(`loaded pods: ${maps(ctx.input.pods).length} maps`);
const zone = ctx.input.nodes.find((nd) => nd.labels[LABEL_ZONE])?.labels[LABEL_ZONE];
const workloads = ctx.input.workloads.filter(isRollable);
const heard: Pod[] = [];
const left: Pod[] = [];
for (let i = 0; i < n; i++) {
  const node = ctx.input.nodes[i % ctx.input.nodes.length]!.name;
  const w = workloads[i % workloads.length]!;
  const steps: { at: number; action: Action }[] =
    i % 3 === 0
      ? [{ at: STEP_AT_MS, action: { type: 'rollout', kind: w.kind, name: w.key } }]
      : i % 3 === 1 || !zone
        ? [
            { at: STEP_AT_MS, action: { type: 'failNode', node } },
            { at: STEP_AT_MS + 600_000, action: { type: 'recoverNode', node } },
          ]
        : [{ at: STEP_AT_MS, action: { type: 'failZone', zone } }];
  let world: { cluster: { pods(): Iterable<Pod> } } | undefined;
  const session = whatIfSession(ctx, {
    name: 'pod-shapes',
    steps,
    provisioner: false,
    observe: (sim) => {
      world = sim.world;
      sim.world.onChange((c) => {
        if ('pod' in c) heard.push(c.pod);
      });
    },
  });
  session.runTo(STEP_AT_MS + 20 * 60_000);
  left.push(...world!.cluster.pods());
}
const heardMaps = maps(heard);
const leftMaps = maps(left);
console.log(`${n} what-ifs: ${heard.length} pods heard of, ${heardMaps.length} maps; ${left.length} pods left in their clusters, ${leftMaps.length} maps`);
if (process.argv.includes('--keys')) for (const m of heardMaps) console.log(`  ${m.count}\t${m.keys}`);
