// The entry of every worker thread of cli/pool.ts. Node 20 does not apply
// `--import tsx` to worker threads, so when the task module is TypeScript (berth
// run from its sources) the loader is registered here before it is imported; a
// built install (dist/, plain JavaScript) imports it without tsx, which would want
// to write a cache (a read-only root filesystem has none). The module is loaded as
// soon as the thread starts; the pool's data comes with the first task, serialized
// in shared memory (pool.ts's PoolMessage), and is read once: given to the module's
// `prepare`, when it has one, whose result its tasks get instead.
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URL } from 'node:url';
import { deserialize } from 'node:v8';
import { workerData } from 'piscina';

const bootMs = performance.timeOrigin + performance.now();
const { module } = workerData;
const typescript = module.endsWith('.ts');
if (typescript) (await import('tsx/esm/api')).register();
const { default: run, prepare = (data) => data } = await import(module);
// Read only when tracing (pool-trace.ts): it is the one module of the pool's own that is TypeScript in the sources.
const trace = process.env.BERTH_POOL_TRACE ? await import(new URL(`./pool-trace.${typescript ? 'ts' : 'js'}`, import.meta.url).href) : undefined;
trace?.poolTrace('worker-ready', { bootMs });

// What the module made of the data with its `prepare` (check's loaded input), or the
// data itself: only that is kept, so the plain documents the data carries (hundreds of
// MB for a 100,000-pod dump) are let go once a module has loaded them.
let prepared;

export default async ({ id, task, data: packed, shared }) => {
  const startWallMs = performance.timeOrigin + performance.now();
  const startCpuMs = trace?.threadCpuMs();
  prepared ??= await prepare({ ...deserialize(new Uint8Array(packed)), ...shared });
  const result = await run(task, prepared);
  trace?.poolTrace('task', { id, startWallMs, startCpuMs, retainedHeapMb: trace.retainedHeapMb() });
  return result;
};
