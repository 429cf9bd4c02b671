// A pool of worker threads (tinypool) for the commands whose work splits into
// independent tasks (check's simulations, the invariant runner's seeds): results
// come back in task order whatever order they finish in, so the output does not
// depend on the number of workers; a progress bar on stderr when it is a terminal.

import { availableParallelism } from 'node:os';
import { Presets, SingleBar } from 'cli-progress';
import { InvalidArgumentError } from 'commander';
import Tinypool from 'tinypool';

/** --jobs: a positive integer. */
export function parseJobs(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new InvalidArgumentError('must be a whole number of workers from 1 to 1024');
  return n;
}

/** The cores this process may use. */
export const availableCores = (): number => availableParallelism();

/**
 * Runs every task on `jobs` threads through the default export of the module
 * `worker`, called as (task, data); the results in task order. `label` names the
 * work on the progress bar.
 */
export async function runOnPool<T, R, D>(worker: URL, data: D, tasks: readonly T[], jobs: number, label: string): Promise<R[]> {
  const threads = Math.max(1, Math.min(jobs, tasks.length));
  const pool = new Tinypool({ filename: new URL('./pool-worker.mjs', import.meta.url).href, workerData: { module: worker.href, data }, minThreads: threads, maxThreads: threads });
  const bar = process.stderr.isTTY && tasks.length > 1 ? new SingleBar({ format: `${label} {bar} {value}/{total} tasks, ${threads} worker(s)`, stream: process.stderr, clearOnComplete: true }, Presets.shades_classic) : undefined;
  bar?.start(tasks.length, 0);
  try {
    return await Promise.all(
      tasks.map(async (t) => {
        const r = (await pool.run(t)) as R;
        bar?.increment();
        return r;
      }),
    );
  } finally {
    bar?.stop();
    await pool.destroy();
  }
}
