// The berth side of one benchmark workload, run in its own process (so its peak
// RSS is the workload's own): `node --expose-gc --import tsx bench/berth-side.ts
// <workload> <quick|full>` prints one JSON result line. Init pods are scheduled
// first, unmeasured, as scheduler_perf does; then the measured pods are timed.
// The `Memory` workload binds 150,000 pods (15,000 quick) round-robin onto 5,000
// nodes (500 quick) and reports the heap they take.

import { performance } from 'node:perf_hooks';
import { ClusterState } from '../src/cluster/state.js';
import { bindPod } from '../src/model/pod.js';
import { scheduleAll } from '../src/scheduler/run.js';
import { materialize } from './materialize.js';
import { WORKLOADS, type Sizes, type Workload } from './workloads.js';

export interface SideResult {
  readonly name: string;
  readonly error?: string;
  readonly nodes: number;
  readonly initPods: number;
  readonly measuredPods: number;
  readonly scheduled: number;
  readonly unschedulable: number;
  readonly seconds: number;
  /** CPU time of the measured phase (this process; berth is single-threaded), steadier than wall time on a loaded machine. */
  readonly cpuSeconds?: number;
  readonly doneAtMs: number[];
  readonly peakRssMiB: number;
  readonly heapMiB: number;
  /** Where each init pod went ('' when unschedulable), in init order: the upstream side binds them there instead of scheduling them again. */
  readonly initPlacements?: string[];
}

export interface MemoryResult {
  readonly nodes: number;
  readonly pods: number;
  readonly bytesPerNode: number;
  readonly bytesPerPod: number;
  readonly peakRssMiB: number;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const heap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};
const peakRssMiB = () => process.resourceUsage().maxRSS / 1024;

export function runBerth(w: Workload, sizes: Sizes): SideResult {
  const { nodes, initPods, measuredPods } = materialize(w.build(sizes));
  const cluster = new ClusterState();
  for (const n of nodes) cluster.addNode(n);
  for (const p of initPods) cluster.addPod(p);
  scheduleAll(cluster, {});
  const initPlacements = initPods.map((p) => cluster.getPod(p.key)?.nodeName ?? '');
  for (const p of measuredPods) cluster.addPod(p);
  gc();
  const doneAtMs: number[] = [];
  let scheduled = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const report = scheduleAll(cluster, {}, { onAttempt: (_pod, outcome) => (doneAtMs.push(performance.now() - start), outcome.kind === 'scheduled' && scheduled++) });
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    name: w.name,
    nodes: nodes.length,
    initPods: initPods.length,
    measuredPods: measuredPods.length,
    scheduled,
    unschedulable: report.unschedulable.length,
    seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    doneAtMs,
    peakRssMiB: peakRssMiB(),
    heapMiB: heap() / 2 ** 20,
    initPlacements,
  };
}

/** Heap per node and per bound pod of a ClusterState holding `pods` pods on `nodeCount` default nodes. */
export function measureMemory(nodeCount: number, pods: number): MemoryResult {
  const basic = WORKLOADS.find((w) => w.name === 'SchedulingBasic')!;
  const base = heap();
  const cluster = new ClusterState();
  const names: string[] = [];
  for (const n of materialize(basic.build({ nodes: nodeCount, initPods: 0, measuredPods: 0 })).nodes) {
    cluster.addNode(n);
    names.push(n.name);
  }
  const withNodes = heap();
  for (let done = 0; done < pods; done += 10_000) {
    // In batches, so the pending pods' own manifests never pile up.
    const batch = materialize(basic.build({ nodes: 0, initPods: 0, measuredPods: Math.min(10_000, pods - done) })).measuredPods;
    batch.forEach((p, i) => cluster.addPod(bindPod({ ...p, name: `${p.name}-${done}`, key: `${p.key}-${done}`, uid: `${p.uid}-${done}` }, names[(done + i) % names.length]!)));
  }
  const withPods = heap();
  if (cluster.numNodes !== nodeCount) throw new Error('cluster lost nodes');
  return { nodes: nodeCount, pods, bytesPerNode: (withNodes - base) / nodeCount, bytesPerPod: (withPods - withNodes) / pods, peakRssMiB: peakRssMiB() };
}

function main(): void {
  const [name, mode] = process.argv.slice(2);
  const quick = mode === 'quick';
  if (name === 'Memory') {
    process.stdout.write(`${JSON.stringify(quick ? measureMemory(500, 15_000) : measureMemory(5000, 150_000))}\n`);
    return;
  }
  const w = WORKLOADS.find((x) => x.name === name);
  if (!w) throw new Error(`unknown workload ${name}`);
  process.stdout.write(`${JSON.stringify(runBerth(w, quick ? w.quick : w.full))}\n`);
}

if (process.argv[1]?.endsWith('berth-side.ts')) main();
