// `berth check --cluster <dump>` on the generated cluster of bench/check-cluster.ts,
// as a user runs it, once per size and worker count: CPU seconds of the whole
// process, worker threads included (the machine is shared, so CPU rather than wall
// is the figure to compare), wall seconds and peak RSS, from GNU time; and whether
// the report with 2 workers is byte for byte the one with 1. A run still going after
// BERTH_CHECK_BENCH_MINUTES (default 30) is stopped and reported unfinished.
//   npm run bench -- --only Check       200, 1,000 and 5,000 nodes (100,229 pods), and 1,000 nodes as kubectl writes them
//                                       (kubectl-layout.ts), 1 and 2 workers (200 with --quick)
//   npx tsx bench/check.ts 5000         one size alone (the 5,000-node dump is long: run it niced, see README)
//   npx tsx bench/check.ts 1000 --kubectl  one size, in the kubectl layout

import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHECK_SIZES, checkClusterDump } from './check-cluster.js';
import { writeKubectlDump } from './kubectl-layout.js';

/** How the dump is written: check-cluster.ts's compact flow mappings, or as a real cluster's `kubectl get -o yaml` (nine times the bytes). */
export type DumpLayout = 'compact' | 'kubectl';

export interface CheckBench {
  readonly nodes: number;
  readonly layout: DumpLayout;
  readonly jobs: number;
  readonly cpuSeconds: number;
  readonly wallSeconds: number;
  readonly maxRssMiB: number;
  /** Whether the report equals the one worker's byte for byte. */
  readonly sameAsOneWorker: boolean;
  /** Stopped at the time limit: the figures are of the run so far. */
  readonly unfinished?: boolean;
}

/** How long one run may take. */
const LIMIT_MINUTES = Number(process.env.BERTH_CHECK_BENCH_MINUTES ?? 30);
/** timeout(1)'s status for a command it stopped. */
const TIMED_OUT = 124;

function measure(file: string, jobs: number, out: string): Omit<CheckBench, 'nodes' | 'layout' | 'sameAsOneWorker'> {
  // The launcher passes timeout's SIGTERM on to berth.
  const args = ['-f', '%U %S %e %M', '-o', `${out}.time`, 'timeout', `${LIMIT_MINUTES}m`, process.execPath, 'bin/berth.js', 'check', '--cluster', file, '-o', 'json', '--jobs', String(jobs)];
  const r = spawnSync('/usr/bin/time', args, { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
  // Exit 1 is a report with errors (the dump has rollouts that cannot complete); 2 is a failure.
  if (r.status !== 0 && r.status !== 1 && r.status !== TIMED_OUT) throw new Error(`berth check --jobs ${jobs} on ${file} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  writeFileSync(out, r.stdout);
  const [user, sys, wall, rssKiB] = readFileSync(`${out}.time`, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number) as [number, number, number, number];
  return { jobs, cpuSeconds: user + sys, wallSeconds: wall, maxRssMiB: rssKiB / 1024, ...(r.status === TIMED_OUT ? { unfinished: true } : {}) };
}

/** A dump to time: a size of CHECK_SIZES in a layout. */
export interface CheckDump {
  readonly size: keyof typeof CHECK_SIZES;
  readonly layout: DumpLayout;
}

const DEFAULT_DUMPS: readonly CheckDump[] = [
  { size: 200, layout: 'compact' },
  { size: 1000, layout: 'compact' },
  { size: 5000, layout: 'compact' },
  { size: 1000, layout: 'kubectl' },
];

function writeDump(file: string, { size, layout }: CheckDump): void {
  const { nodes, bulkPods } = CHECK_SIZES[size];
  const compact = checkClusterDump(nodes, bulkPods);
  if (layout === 'compact') return writeFileSync(file, compact);
  writeFileSync(file, '');
  // Written piece by piece: at 5,000 nodes the text is close to the longest string node holds.
  writeKubectlDump(compact, (text) => appendFileSync(file, text));
}

/** `npm run bench`'s check entries (or the dumps given): a line each. */
export function benchCheck(quick: boolean, dumps: readonly CheckDump[] = quick ? [{ size: 200, layout: 'compact' }] : DEFAULT_DUMPS): CheckBench[] {
  const dir = mkdtempSync(join(tmpdir(), 'berth-check-bench-'));
  try {
    return dumps.flatMap((dump) => {
      const { nodes } = CHECK_SIZES[dump.size];
      const file = join(dir, `check-${nodes}-${dump.layout}.yaml`);
      writeDump(file, dump);
      const runs = [1, 2].map((jobs) => ({ ...measure(file, jobs, join(dir, `report-${nodes}-${jobs}.json`)), report: readFileSync(join(dir, `report-${nodes}-${jobs}.json`), 'utf8') }));
      rmSync(file);
      return runs.map(({ report, ...b }) => {
        const finished = !b.unfinished && !runs[0]!.unfinished;
        const r: CheckBench = { nodes, layout: dump.layout, ...b, sameAsOneWorker: finished && report === runs[0]!.report };
        const verdict = b.unfinished ? `, UNFINISHED: stopped after ${LIMIT_MINUTES} min` : finished && !r.sameAsOneWorker ? ', REPORT DIFFERS from 1 worker' : '';
        const layout = dump.layout === 'kubectl' ? ', kubectl layout' : '';
        console.log(`check (${nodes} nodes${layout}, ${r.jobs} worker(s)): ${r.cpuSeconds.toFixed(1)} s CPU, ${r.wallSeconds.toFixed(1)} s wall, peak RSS ${r.maxRssMiB.toFixed(0)} MiB${verdict}`);
        return r;
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const layout: DumpLayout = args.includes('--kubectl') ? 'kubectl' : 'compact';
  const sizes = args.filter((a) => a !== '--kubectl').map(Number);
  const unknown = sizes.find((n) => !(n in CHECK_SIZES));
  if (unknown !== undefined) throw new Error(`bench/check.ts: sizes are ${Object.keys(CHECK_SIZES).join(', ')}, not ${unknown}`);
  benchCheck(false, sizes.length > 0 ? sizes.map((size) => ({ size: size as keyof typeof CHECK_SIZES, layout })) : undefined);
}
