// A pool of worker threads (tinypool) for the commands whose work splits into
// independent tasks (check's simulations, the invariant runner's seeds): results
// come back in task order whatever order they finish in, so the output does not
// depend on the number of workers; a progress bar on stderr when it is a terminal.

import { availableParallelism } from 'node:os';
import { Presets, SingleBar } from 'cli-progress';
import { InvalidArgumentError } from 'commander';
import Tinypool from 'tinypool';
import { CliError } from './common.js';
import { isWorkerOutOfMemory, outOfMemoryMessage, OUT_OF_MEMORY_EXIT, workerHeapMb } from './memory.js';

/** --jobs: a positive integer. */
export function parseJobs(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new InvalidArgumentError('must be a whole number of workers from 1 to 1024');
  return n;
}

/** The cores this process may use. */
export const availableCores = (): number => availableParallelism();

/**
 * Opens `jobs` threads running the default export of the module `worker`, called
 * as (task, data), and hands `work` a function that runs one task there: tasks may
 * be added while others run (a second round once the first is in); the pool closes
 * when `work` is done. `label` names the work on the progress bar, whose total
 * grows with the tasks. Each thread's heap is bounded (memory.ts): one that runs out
 * stops the command with a one-line error, not the process with V8's report.
 */
export async function withPool<T, R, D, Out>(worker: URL, data: D, jobs: number, label: string, work: (run: (task: T) => Promise<R>) => Promise<Out>): Promise<Out> {
  const heapMb = workerHeapMb(jobs);
  const pool = new Tinypool({ filename: new URL('./pool-worker.mjs', import.meta.url).href, workerData: { module: worker.href, data }, minThreads: jobs, maxThreads: jobs, resourceLimits: { maxOldGenerationSizeMb: heapMb } });
  const bar = process.stderr.isTTY ? new SingleBar({ format: `${label} {bar} {value}/{total} tasks, ${jobs} worker(s)`, stream: process.stderr, clearOnComplete: true }, Presets.shades_classic) : undefined;
  bar?.start(0, 0);
  let total = 0;
  try {
    return await work(async (task) => {
      bar?.setTotal(++total);
      const r = (await pool.run(task).catch((e: unknown) => {
        throw isWorkerOutOfMemory(e) ? new CliError(outOfMemoryMessage('worker', heapMb, process.argv.slice(2)), OUT_OF_MEMORY_EXIT) : e;
      })) as R;
      bar?.increment();
      return r;
    });
  } finally {
    bar?.stop();
    await pool.destroy();
  }
}
