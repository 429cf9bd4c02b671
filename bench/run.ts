// Benchmarks: scheduler_perf-style workloads measured in pods/s.
// `npm run bench` runs them all; `npm run bench -- --quick` a small subset.
// Results go to bench/results/<date>.json (git-ignored) and a table on stdout.

import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { ClusterState } from '../src/cluster/state.js';
import { scheduleAll } from '../src/scheduler/run.js';
import { WORKLOADS, type Workload } from './workloads.js';
import { renderTable } from '../src/cli/table.js';
import { runProvisioning } from './provisioning.js';
import { benchChurn } from './churn.js';

interface Result {
  readonly workload: string;
  readonly nodes: number;
  readonly initPods: number;
  readonly measuredPods: number;
  readonly scheduled: number;
  readonly seconds: number;
  readonly podsPerSecond: number;
  readonly rssMiB: number;
}

function run(w: Workload, scale: number): Result {
  const cluster = new ClusterState();
  const { nodes, initPods, measuredPods } = w.build(scale);
  for (const n of nodes) cluster.addNode(n);
  for (const p of initPods) cluster.addPod(p);
  scheduleAll(cluster, {});
  for (const p of measuredPods) cluster.addPod(p);
  const start = performance.now();
  const report = scheduleAll(cluster, {});
  const seconds = (performance.now() - start) / 1000;
  return {
    workload: w.name,
    nodes: nodes.length,
    initPods: initPods.length,
    measuredPods: measuredPods.length,
    scheduled: report.placements.length,
    seconds,
    podsPerSecond: report.placements.length / seconds,
    rssMiB: process.memoryUsage().rss / 2 ** 20,
  };
}

const quick = process.argv.includes('--quick');
const scale = quick ? 0.05 : 0.2;
const results = WORKLOADS.map((w) => run(w, scale));
mkdirSync('bench/results', { recursive: true });
const provisioningPods = quick ? 400 : 2000;
const prov = runProvisioning(provisioningPods);
const provisioning = {
  pods: provisioningPods,
  nodeClaims: prov.plan.nodeClaims.length,
  costPerHour: prov.plan.costPerHour,
  unschedulable: prov.plan.unschedulable.length,
  seconds: prov.seconds,
  podsPerSecond: provisioningPods / prov.seconds,
};
const file = `bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
writeFileSync(file, JSON.stringify({ quick, scale, results, provisioning }, null, 2));
console.log(
  renderTable(
    ['WORKLOAD', 'NODES', 'INIT', 'MEASURED', 'SCHEDULED', 'PODS/S', 'RSS MiB'],
    results.map((r) => [r.workload, String(r.nodes), String(r.initPods), String(r.measuredPods), String(r.scheduled), r.podsPerSecond.toFixed(0), r.rssMiB.toFixed(0)]),
  ),
);
console.log(
  `\nprovisioning (mixed plain/zone-spread/anti-affinity/arm64 pods, bundled catalog): ${provisioning.pods} pods → ${provisioning.nodeClaims} NodeClaims, ` +
    `${provisioning.costPerHour.toFixed(2)} $/h, ${provisioning.unschedulable} unschedulable, ${provisioning.seconds.toFixed(2)} s (${provisioning.podsPerSecond.toFixed(0)} pods/s)`,
);
console.log(`\nwritten to ${file}`);
benchChurn(quick);
