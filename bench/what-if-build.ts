// What one of check's per-workload what-ifs costs, split where forking would cut it:
// building the simulation (startScenario), running it to just before its step (the
// part every what-if of one input shares), and the rest; with an md5 of the event
// logs, so that a change to how simulations are built can show it changed no run.
// Usage: node --import tsx bench/what-if-build.ts DUMP [N]
// (DUMP from `npx tsx bench/check-200.ts 1000`; N what-ifs, alternately a rollout of the
// next Deployment, StatefulSet or DaemonSet and a node lost and back ten minutes later.)

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isRollable } from '../src/analyze/checks/rollout-deadlock.js';
import { baseline, whatIfSession } from '../src/analyze/what-if.js';
import type { Action } from '../src/io/scenario-spec.js';
import { loadSources } from '../src/io/load.js';
import { bundledInstanceTypes } from '../src/provisioner/catalog/catalog.js';

const STEP_AT_MS = 60_000;
const file = process.argv[2];
if (!file) throw new Error('usage: what-if-build.ts DUMP [N]');
const n = Number(process.argv[3] ?? 20);
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
let t = cpuSeconds();
const loaded = loadSources([{ name: file, text: readFileSync(file, 'utf8') }]);
if (!loaded.ok) throw new Error(`${file} does not load`);
const ctx = { input: loaded.input, instanceTypes: bundledInstanceTypes(), provisioner: false, seed: 0 };
console.log(`${ctx.input.nodes.length} nodes, ${ctx.input.pods.length} pods: load ${(cpuSeconds() - t).toFixed(2)} CPU s`);
t = cpuSeconds();
baseline(ctx);
console.log(`baseline (builds the shared cluster) ${(cpuSeconds() - t).toFixed(2)} CPU s`);
const workloads = ctx.input.workloads.filter(isRollable).slice(0, n);
const spent = { build: 0, shared: 0, rest: 0 };
const logs = createHash('md5');
workloads.forEach((w, i) => {
  const node = ctx.input.nodes[i % ctx.input.nodes.length]!.name;
  const steps: { at: number; action: Action }[] =
    i % 2 === 0
      ? [{ at: STEP_AT_MS, action: { type: 'rollout', kind: w.kind, name: w.key } }]
      : [
          { at: STEP_AT_MS, action: { type: 'failNode', node } },
          { at: STEP_AT_MS + 600_000, action: { type: 'recoverNode', node } },
        ];
  let at = cpuSeconds();
  const session = whatIfSession(ctx, { name: 'what-if-build', steps, provisioner: false });
  spent.build += cpuSeconds() - at;
  at = cpuSeconds();
  session.runTo(STEP_AT_MS - 1);
  spent.shared += cpuSeconds() - at;
  at = cpuSeconds();
  logs.update(JSON.stringify(session.runTo(STEP_AT_MS + 20 * 60_000).events));
  spent.rest += cpuSeconds() - at;
});
const each = (s: number) => `${((s / workloads.length) * 1000).toFixed(1)} ms`;
console.log(`${workloads.length} what-ifs, CPU each: build ${each(spent.build)}, to the step ${each(spent.shared)}, the rest ${each(spent.rest)}; event logs md5 ${logs.digest('hex')}`);
