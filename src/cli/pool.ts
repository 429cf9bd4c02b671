// A pool of worker threads (piscina) for the commands whose work splits into
// independent tasks (check's simulations, the invariant runner's seeds): results
// come back in task order whatever order they finish in, so the output does not
// depend on the number of workers; a progress bar on stderr when it is a terminal.
// A pool may be opened before the data its tasks need is ready (the threads load
// their modules while the main thread reads the input); the data then goes to every
// worker once, through shared memory, with the first task each one runs; a module
// exporting `prepare(data)` keeps only what that makes of it (pool-worker.mjs).

import { Presets, SingleBar } from 'cli-progress';
import { InvalidArgumentError } from 'commander';
import { Piscina } from 'piscina';
import { CliError } from './common.js';
import { isWorkerOutOfMemory, outOfMemoryMessage, OUT_OF_MEMORY_EXIT, releaseWorkerHeapLimits, workerHeapMb } from './memory.js';
import { serializeShared } from './packed-sources.js';
import { poolTrace } from './pool-trace.js';

/** --jobs: a positive integer. */
export function parseJobs(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new InvalidArgumentError('must be a whole number of workers from 1 to 1024');
  return n;
}

/**
 * What a worker thread is sent with each task (pool-worker.mjs): the data, serialized
 * once into shared memory (every task carries the same buffer, not a copy), and the
 * data's SharedArrayBuffer fields, which stay shared.
 */
export interface PoolMessage<T> {
  readonly id: number;
  readonly task: T;
  readonly data: SharedArrayBuffer;
  readonly shared: Readonly<Record<string, SharedArrayBuffer>>;
}

/** Threads running the default export of one module, called as (task, data). */
export interface Pool<D> {
  /** How many threads it runs. */
  readonly jobs: number;
  /** Each thread's heap limit, MB, until one runs out (memory.ts). */
  readonly heapMb: number;
  /**
   * Hands `work` a function that runs one task on a thread: tasks may be added while
   * others run (a second round once the first is in); the pool closes when `work` is
   * done. `label` names the work on the progress bar, whose total grows with the
   * tasks; `describe` names a task in a trace (pool-trace.ts).
   */
  run<T, R, Out>(data: D, label: string, work: (run: (task: T) => Promise<R>) => Promise<Out>, describe?: (task: T) => string): Promise<Out>;
  /** Stops the threads (the pool was opened for nothing, or is done); again is harmless. */
  close(): Promise<void>;
}

/**
 * Opens `jobs` threads running the module `worker`: they start loading it now. Each
 * thread's heap is bounded (memory.ts): sized from the input's `objects` (pods and nodes) when the
 * caller knows it, else the main thread's limit shared out. When a sized worker runs
 * out, the sized threads are given up: its task, the tasks they had not finished and
 * every later one run on threads with the share. One that runs out of that stops the
 * command with a one-line error, not the process with V8's report.
 */
export function openPool<D extends object>(worker: URL, jobs: number, objects?: number): Pool<D> {
  const heap = workerHeapMb(jobs, objects);
  releaseWorkerHeapLimits();
  // A worker that fails outside a task (its module does not load; it runs out of heap
  // while the pool is destroyed after another did) fails the work under way.
  let failed: (e: unknown) => void = () => {};
  const failure = new Promise<never>((_, reject) => (failed = reject));
  failure.catch(() => {});
  const threads = (heapMb: number): Piscina => {
    const pool = new Piscina({ filename: new URL('./pool-worker.mjs', import.meta.url).href, workerData: { module: worker.href }, minThreads: jobs, maxThreads: jobs, resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    pool.on('error', (e: unknown) => failed(e));
    return pool;
  };
  const sized = threads(heap.sizedMb);
  /** Opened when a sized worker runs out of heap: the rest of the work runs here. */
  let roomy: Piscina | undefined;
  // Piscina's results are untyped (any), as structured clones of what the module returned.
  const runOn = async (message: PoolMessage<unknown>): ReturnType<Piscina['run']> => {
    if (roomy === undefined) {
      try {
        return await sized.run(message);
      } catch (e) {
        // The first sized worker to run out gives the sized threads up; whatever else they had (queued, or cut short) then fails here too and runs again with the share.
        if (roomy === undefined) {
          if (!isWorkerOutOfMemory(e) || heap.sizedMb >= heap.shareMb) throw e;
          poolTrace('roomy', { sizedMb: heap.sizedMb, shareMb: heap.shareMb });
          roomy = threads(heap.shareMb);
          void sized.destroy();
        }
      }
    }
    return roomy.run(message);
  };
  const outOfMemory = (e: unknown) => (isWorkerOutOfMemory(e) ? new CliError(outOfMemoryMessage('worker', heap.shareMb, process.argv.slice(2)), OUT_OF_MEMORY_EXIT) : e);
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= Promise.all([sized.destroy(), roomy?.destroy()]).then(() => undefined));
  return {
    jobs,
    heapMb: heap.sizedMb,
    close,
    async run(data, label, work, describe = String) {
      const { data: packed, shared } = pack(data);
      const bar = process.stderr.isTTY ? new SingleBar({ format: `${label} {bar} {value}/{total} tasks, ${jobs} worker(s)`, stream: process.stderr, clearOnComplete: true }, Presets.shades_classic) : undefined;
      bar?.start(0, 0);
      let total = 0;
      try {
        const done = work(async (task) => {
          const id = total++;
          bar?.setTotal(total);
          poolTrace('dispatch', { id, task: describe(task) });
          const r = await runOn({ id, task, data: packed, shared });
          poolTrace('done', { id });
          bar?.increment();
          return r;
        });
        return await Promise.race([done, failure]).catch((e: unknown) => {
          throw outOfMemory(e);
        });
      } finally {
        bar?.stop();
        await close();
      }
    },
  };
}

/** `data` serialized into shared memory, its SharedArrayBuffer fields apart (they cannot be serialized, and stay shared). */
function pack(data: object): { data: SharedArrayBuffer; shared: Record<string, SharedArrayBuffer> } {
  const shared: Record<string, SharedArrayBuffer> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value instanceof SharedArrayBuffer) shared[key] = value;
    else rest[key] = value;
  }
  return { data: serializeShared(rest), shared };
}

/** openPool, run at once: for work whose data is ready when the pool is needed. */
export function withPool<T, R, D extends object, Out>(worker: URL, data: D, jobs: number, label: string, work: (run: (task: T) => Promise<R>) => Promise<Out>, objects?: number): Promise<Out> {
  return openPool<D>(worker, jobs, objects).run(data, label, work);
}
