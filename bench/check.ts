// `berth check --cluster <dump>` on the generated cluster of bench/check-cluster.ts,
// as a user runs it, once per size and worker count: CPU seconds of the whole
// process, worker threads included (the machine is shared, so CPU rather than wall
// is the figure to compare), wall seconds and peak RSS, from GNU time; and whether
// the report with 2 workers is byte for byte the one with 1. A run still going after
// BERTH_CHECK_BENCH_MINUTES (default 30) is stopped and reported unfinished.
//   npm run bench -- --only Check       200, 1,000 and 5,000 nodes (100,229 pods), 1 and 2 workers (200 with --quick)
//   npx tsx bench/check.ts 5000         one size alone (the 5,000-node dump is long: run it niced, see README)

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHECK_SIZES, checkClusterDump } from './check-cluster.js';

export interface CheckBench {
  readonly nodes: number;
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

function measure(file: string, jobs: number, out: string): Omit<CheckBench, 'nodes' | 'sameAsOneWorker'> {
  // The launcher passes timeout's SIGTERM on to berth.
  const args = ['-f', '%U %S %e %M', '-o', `${out}.time`, 'timeout', `${LIMIT_MINUTES}m`, process.execPath, 'bin/berth.js', 'check', '--cluster', file, '-o', 'json', '--jobs', String(jobs)];
  const r = spawnSync('/usr/bin/time', args, { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
  // Exit 1 is a report with errors (the dump has rollouts that cannot complete); 2 is a failure.
  if (r.status !== 0 && r.status !== 1 && r.status !== TIMED_OUT) throw new Error(`berth check --jobs ${jobs} on ${file} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  writeFileSync(out, r.stdout);
  const [user, sys, wall, rssKiB] = readFileSync(`${out}.time`, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number) as [number, number, number, number];
  return { jobs, cpuSeconds: user + sys, wallSeconds: wall, maxRssMiB: rssKiB / 1024, ...(r.status === TIMED_OUT ? { unfinished: true } : {}) };
}

/** `npm run bench`'s check entries (or the sizes given): a line each. */
export function benchCheck(quick: boolean, sizes: readonly (keyof typeof CHECK_SIZES)[] = quick ? [200] : [200, 1000, 5000]): CheckBench[] {
  const dir = mkdtempSync(join(tmpdir(), 'berth-check-bench-'));
  try {
    return sizes.flatMap((size) => {
      const { nodes, bulkPods } = CHECK_SIZES[size];
      const file = join(dir, `check-${nodes}.yaml`);
      writeFileSync(file, checkClusterDump(nodes, bulkPods));
      const runs = [1, 2].map((jobs) => ({ ...measure(file, jobs, join(dir, `report-${nodes}-${jobs}.json`)), report: readFileSync(join(dir, `report-${nodes}-${jobs}.json`), 'utf8') }));
      return runs.map(({ report, ...b }) => {
        const finished = !b.unfinished && !runs[0]!.unfinished;
        const r: CheckBench = { nodes, ...b, sameAsOneWorker: finished && report === runs[0]!.report };
        const verdict = b.unfinished ? `, UNFINISHED: stopped after ${LIMIT_MINUTES} min` : finished && !r.sameAsOneWorker ? ', REPORT DIFFERS from 1 worker' : '';
        console.log(`check (${nodes} nodes, ${r.jobs} worker(s)): ${r.cpuSeconds.toFixed(1)} s CPU, ${r.wallSeconds.toFixed(1)} s wall, peak RSS ${r.maxRssMiB.toFixed(0)} MiB${verdict}`);
        return r;
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const sizes = process.argv.slice(2).map(Number);
  const unknown = sizes.find((n) => !(n in CHECK_SIZES));
  if (unknown !== undefined) throw new Error(`bench/check.ts: sizes are ${Object.keys(CHECK_SIZES).join(', ')}, not ${unknown}`);
  benchCheck(false, sizes.length > 0 ? (sizes as (keyof typeof CHECK_SIZES)[]) : undefined);
}
