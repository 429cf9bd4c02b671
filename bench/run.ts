// Benchmarks: upstream's scheduler_perf cases (bench/workloads.ts) scheduled by
// berth and by the upstream framework (the Go oracle's bench mode) in the same
// invocation, one process per side and workload, one after the other.
//   npm run bench                  upstream's sizes (5,000 nodes; 15,000 for SchedulingDaemonset)
//   npm run bench -- --quick       a ~1-minute subset at 500-1,500 nodes
//   --only A,B                     just these workloads (Memory, Provisioning and Check name
//                                  those entries); --no-upstream: berth only
//   --upstream-limit S             stop the upstream measured phase after S seconds (default 60; 5 with --quick)
// The oracle is conformance/oracle-scheduler/oracle (build.sh), or $BERTH_ORACLE; the
// provisioning lines' is conformance/oracle-karpenter/oracle, or $BERTH_KARPENTER_ORACLE.
// Results: a table on stdout and bench/results/<date>.json (git-ignored). Rates are
// scheduler_perf's (pods per wall second, 1 s windows) and, because the machine
// is shared, also pods per CPU-second of each side's measured phase.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { renderTable } from '../src/cli/table.js';
import type { MemoryResult, SideResult } from './berth-side.js';
import { benchCheck } from './check.js';
import { benchChurn } from './churn.js';
import { oracleInput, provisioningRepeats, summarise, type ProvisioningResult, type ProvisioningSummary } from './provisioning.js';
import { throughput, type Throughput } from './throughput.js';
import { WORKLOADS } from './workloads.js';

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(name);
const option = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = flag('--quick');
const only = option('--only')?.split(',');
const upstreamLimit = Number(option('--upstream-limit') ?? (quick ? 5 : 60));
const oracle = process.env.BERTH_ORACLE ?? 'conformance/oracle-scheduler/oracle';
const withUpstream = !flag('--no-upstream') && existsSync(oracle);
const karpenterOracle = process.env.BERTH_KARPENTER_ORACLE ?? 'conformance/oracle-karpenter/oracle';
const withKarpenter = !flag('--no-upstream') && existsSync(karpenterOracle);
const load = () => loadavg()[0]!;

interface Side extends SideResult {
  readonly throughput: Throughput;
  readonly load1: number;
}

function child(cmd: string, args: string[], input?: string): string {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return r.stdout;
}

function side(raw: string, load1: number): Side {
  const r = JSON.parse(raw) as SideResult;
  if (r.error) throw new Error(`${r.name}: ${r.error}`);
  return { ...r, throughput: throughput(r.doneAtMs, r.seconds), load1 };
}

function berth(name: string): Side {
  const load1 = load();
  return side(child(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/berth-side.ts', name, quick ? 'quick' : 'full']), load1);
}

/** The init pods are placed where berth put them (conformance checks those decisions), so only the measured pods are scheduled upstream. */
function upstream(name: string, initPlacements: readonly string[] | undefined): Side {
  const w = WORKLOADS.find((x) => x.name === name)!;
  const load1 = load();
  return side(child(oracle, ['-bench'], `${JSON.stringify({ ...w.build(quick ? w.quick : w.full), timeLimitSeconds: upstreamLimit, initPlacements })}\n`), load1);
}

const rate = (t: Throughput) => `${t.mean.toFixed(0)} (${t.p50 ?? '-'}/${t.p90 ?? '-'})`;

/** Pods per CPU-second of the measured phase: what a side achieves when it has a core to itself. */
const cpuRate = (s: Side) => (s.cpuSeconds ? s.doneAtMs.length / s.cpuSeconds : 0);

const rows: { workload: string; berth: Side; upstream: Side | null; ratio: number | null; cpuRatio: number | null }[] = [];
for (const w of WORKLOADS) {
  if (only && !only.includes(w.name)) continue;
  const b = berth(w.name);
  const u = withUpstream ? upstream(w.name, b.initPlacements) : null;
  rows.push({ workload: w.name, berth: b, upstream: u, ratio: u ? b.throughput.mean / u.throughput.mean : null, cpuRatio: u ? cpuRate(b) / cpuRate(u) : null });
  console.error(`${w.name}: berth ${b.throughput.mean.toFixed(0)} pods/s${u ? `, upstream ${u.throughput.mean.toFixed(0)} pods/s` : ''} (load ${load().toFixed(1)})`);
}
const memory = only && !only.includes('Memory') ? null : (JSON.parse(child(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/berth-side.ts', 'Memory', quick ? 'quick' : 'full'])) as MemoryResult);

interface ProvisioningSide extends ProvisioningSummary {
  readonly load1: number;
}

/** One side's plans of a case, one JSON line each; `pods/s` is over the planning alone (berth's planProvisioning, Karpenter's Solve). */
function provisioningSide(out: string, who: string, load1: number): ProvisioningSide {
  const runs = out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ProvisioningResult);
  const failed = runs.find((r) => r.error);
  if (failed) throw new Error(`provisioning ${failed.pods} pods, ${who}: ${failed.error}`);
  return { ...summarise(runs), load1 };
}

const range = ([lo, hi]: [number, number], digits: number) => (lo === hi ? lo.toFixed(digits) : `${lo.toFixed(digits)}–${hi.toFixed(digits)}`);

const provisioningSizes = quick ? [400] : [2000, 10_000];
const provisioning: { pods: number; berth: ProvisioningSide; optimized: ProvisioningSide; karpenter: ProvisioningSide | null; ratio: number | null; cpuRatio: number | null }[] = [];
for (const pods of only && !only.includes('Provisioning') ? [] : provisioningSizes) {
  const bLoad = load();
  const b = provisioningSide(child(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/provisioning.ts', String(pods)]), 'berth', bLoad);
  const oLoad = load();
  const o = provisioningSide(child(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/provisioning.ts', String(pods), '--optimize']), 'berth --optimize cost', oLoad);
  const kLoad = load();
  const k = withKarpenter ? provisioningSide(child(karpenterOracle, ['-bench'], oracleInput(pods)), 'Karpenter', kLoad) : null;
  provisioning.push({ pods, berth: b, optimized: o, karpenter: k, ratio: k ? k.seconds / b.seconds : null, cpuRatio: k ? k.cpuSeconds / b.cpuSeconds : null });
  console.error(`Provisioning ${pods}: berth ${(pods / b.seconds).toFixed(0)} pods/s${k ? `, Karpenter ${(pods / k.seconds).toFixed(0)} pods/s` : ''} (load ${load().toFixed(1)})`);
}

if (rows.length > 0) {
console.log(
  renderTable(
    ['WORKLOAD', 'NODES', 'INIT', 'MEASURED', 'BERTH PODS/S mean (p50/p90)', 'UPSTREAM PODS/S mean (p50/p90)', 'RATIO', 'PODS/CPU-S berth/upstream', 'CPU RATIO', 'BERTH RSS MiB', 'UPSTREAM RSS MiB', 'LOAD'],
    rows.map((r) => [
      r.workload,
      String(r.berth.nodes),
      String(r.berth.initPods),
      r.upstream && r.upstream.doneAtMs.length < r.upstream.measuredPods ? `${r.berth.measuredPods} (upstream ${r.upstream.doneAtMs.length})` : String(r.berth.measuredPods),
      rate(r.berth.throughput),
      r.upstream ? rate(r.upstream.throughput) : 'not run',
      r.ratio === null ? '-' : `${r.ratio.toFixed(1)}x`,
      `${cpuRate(r.berth).toFixed(0)}/${r.upstream ? cpuRate(r.upstream).toFixed(0) : '-'}`,
      r.cpuRatio === null ? '-' : `${r.cpuRatio.toFixed(1)}x`,
      r.berth.peakRssMiB.toFixed(0),
      r.upstream ? r.upstream.peakRssMiB.toFixed(0) : '-',
      `${r.berth.load1.toFixed(1)}/${r.upstream ? r.upstream.load1.toFixed(1) : '-'}`,
    ]),
  ),
);
}
if (rows.length > 0 && !withUpstream) console.log(`\nupstream not run: ${flag('--no-upstream') ? '--no-upstream' : `no oracle at ${oracle} (conformance/oracle-scheduler/build.sh)`}`);
if (memory) {
  console.log(
    `\nmemory: ${memory.pods} bound pods on ${memory.nodes} nodes: ${(memory.bytesPerPod / 1024).toFixed(2)} KB/pod, ${(memory.bytesPerNode / 1024).toFixed(2)} KB/node of heap, peak RSS ${memory.peakRssMiB.toFixed(0)} MiB`,
  );
}
if (provisioning.length > 0) {
  console.log(
    `\nprovisioning: pending pods (plain, zone-spread, hostname anti-affinity, arm64 node affinity) × the bundled catalog, one NodePool; pods/s over the planning alone; each side plans the case ${provisioningRepeats(provisioningSizes[0]!)} times (3 at 10,000) in one process: median of all but the first (COLD), $/h and nodes over all\n${renderTable(
      ['PODS', 'BERTH PODS/S', 'KARPENTER PODS/S', 'RATIO', 'PODS/CPU-S berth/karpenter', 'CPU RATIO', 'COLD PODS/CPU-S berth/karpenter', '$/H berth/karpenter', 'NODES berth/karpenter', 'RSS MiB berth/karpenter', 'LOAD'],
      provisioning.map((p) => {
        const k = p.karpenter;
        const perCpu = (s: ProvisioningSide) => (s.cpuSeconds ? (s.pods / s.cpuSeconds).toFixed(0) : '-');
        const coldPerCpu = (s: ProvisioningSide) => (s.cold.cpuSeconds ? (s.pods / s.cold.cpuSeconds).toFixed(0) : '-');
        return [
          String(p.pods),
          (p.pods / p.berth.seconds).toFixed(0),
          k ? (p.pods / k.seconds).toFixed(0) : 'not run',
          p.ratio === null ? '-' : `${p.ratio.toFixed(1)}x`,
          `${perCpu(p.berth)}/${k ? perCpu(k) : '-'}`,
          p.cpuRatio === null ? '-' : `${p.cpuRatio.toFixed(1)}x`,
          `${coldPerCpu(p.berth)}/${k ? coldPerCpu(k) : '-'}`,
          `${range(p.berth.costRange, 2)}/${k ? range(k.costRange, 2) : '-'}`,
          `${range(p.berth.nodeRange, 0)}/${k ? range(k.nodeRange, 0) : '-'}`,
          `${p.berth.peakRssMiB.toFixed(0)}/${k ? k.peakRssMiB.toFixed(0) : '-'}`,
          `${p.berth.load1.toFixed(1)}/${k ? k.load1.toFixed(1) : '-'}`,
        ];
      }),
    )}`,
  );
  console.log(
    `\n--optimize cost (berth's own packing, off by default) beside the faithful plan and Karpenter; LOWER BOUND: the LP relaxation (HiGHS), from the last plan; VIOLATIONS: checkLaunchedPlan on the repacked plan (max over the plans)\n${renderTable(
      ['PODS', '$/H optimized', '$/H faithful', '$/H Karpenter mean (range)', 'LOWER BOUND', 'ABOVE BOUND', 'BELOW KARPENTER MEAN', 'VIOLATIONS', 'NODES optimized', 'PODS/CPU-S optimized/faithful/karpenter', 'LOAD'],
      provisioning.map((p) => {
        const { optimized: o, karpenter: k } = p;
        const perCpu = (s: ProvisioningSide) => (s.cpuSeconds ? (s.pods / s.cpuSeconds).toFixed(0) : '-');
        const bound = o.lowerBound;
        return [
          String(p.pods),
          range(o.costRange, 2),
          range(p.berth.costRange, 2),
          k ? `${k.costMean.toFixed(2)} (${range(k.costRange, 2)})` : '-',
          bound === undefined ? '-' : bound.toFixed(2),
          bound === undefined ? '-' : `${((o.costRange[1] / bound - 1) * 100).toFixed(1)}%`,
          k ? `${((1 - o.costRange[1] / k.costMean) * 100).toFixed(1)}%` : '-',
          String(o.violations ?? '-'),
          range(o.nodeRange, 0),
          `${perCpu(o)}/${perCpu(p.berth)}/${k ? perCpu(k) : '-'}`,
          `${o.load1.toFixed(1)}`,
        ];
      }),
    )}`,
  );
  const unplaced = provisioning.filter((p) => p.berth.unschedulable > 0 || (p.karpenter?.unschedulable ?? 0) > 0);
  for (const p of unplaced) console.log(`  ${p.pods} pods: unschedulable berth ${p.berth.unschedulable}, Karpenter ${p.karpenter?.unschedulable ?? '-'}`);
  if (!withKarpenter) console.log(`Karpenter not run: ${flag('--no-upstream') ? '--no-upstream' : `no oracle at ${karpenterOracle} (conformance/oracle-karpenter/build.sh)`}`);
}
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
const strip = (s: Side | null) => s && { ...s, doneAtMs: undefined, initPlacements: undefined };
writeFileSync(
  file,
  JSON.stringify({ quick, upstreamLimitSeconds: upstreamLimit, results: rows.map((r) => ({ ...r, berth: strip(r.berth), upstream: strip(r.upstream) })), memory, provisioning }, null, 2),
);
console.log(`\nwritten to ${file}`);
if (!only) benchChurn(quick);
if (!only || only.includes('Check')) {
  console.log('');
  benchCheck(quick);
}
