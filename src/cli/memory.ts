// How much memory berth's JavaScript heaps may take, and the one line a user gets
// when one runs out. The launcher (launch.ts) sizes the main thread's heap from the
// machine (V8's own default, about 4 GB, is out of proportion to both a 24 GB
// machine and a 1 GB container); the worker pool (pool.ts) splits what is left
// between its threads. Only node: built-ins here: the launcher loads this module
// before anything else.

import { readFileSync, statSync } from 'node:fs';
import { totalmem } from 'node:os';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

const MB = 1024 * 1024;

/** The share of memory given to JavaScript heaps: the rest is for buffers, code, stacks and other processes. */
export const HEAP_SHARE = 0.75;

/** A worker's heap is never sized below this (the engine and a small input alone take about 150 MB). */
export const MIN_WORKER_HEAP_MB = 256;

/** The exit code of a berth that ran out of memory. */
export const OUT_OF_MEMORY_EXIT = 3;

/**
 * The memory limit of this process's cgroup (v2 `memory.max`, else v1
 * `memory.limit_in_bytes`) in bytes, or undefined when there is none: `max`, v1's
 * "unlimited" (a number near 2^63) or nothing readable.
 */
export function cgroupMemoryLimit(read: (path: string) => string | undefined): number | undefined {
  for (const path of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    const text = read(path)?.trim();
    if (text === undefined || text === 'max') continue;
    const bytes = Number(text);
    if (Number.isFinite(bytes) && bytes > 0 && bytes < 2 ** 60) return bytes;
  }
  return undefined;
}

/**
 * The size in MB that these options (NODE_OPTIONS split, then node's own arguments)
 * give the V8 option `name` (dashes, e.g. max-old-space-size), the last one winning
 * as in node; undefined when none does.
 */
export function userV8SizeMb(options: readonly string[], name: string): number | undefined {
  const option = new RegExp(`^--${name.replace(/-/g, '[-_]')}(?:=(.*))?$`);
  let size: number | undefined;
  options.forEach((o, i) => {
    const m = option.exec(o);
    if (m) size = Number(m[1] ?? options[i + 1]);
  });
  return size;
}

/** A file's text, or undefined when it cannot be read. */
export function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The bytes this process may use: the machine's memory, or its cgroup's limit when lower. */
export function usableMemory(memory = { total: totalmem(), cgroup: cgroupMemoryLimit(readOrUndefined) }): number {
  return Math.min(memory.total, memory.cgroup ?? Infinity);
}

/** The heap share of `usable` bytes, in MB. */
export const defaultHeapMb = (usable: number): number => Math.floor((usable * HEAP_SHARE) / MB);

/**
 * A worker's heap limit per pod or node of the input, KB, never below
 * WORKER_HEAP_FLOOR_MB: room for its copy of the loaded input and the working set of
 * the simulations it runs, which both grow with the objects, not with the text they
 * were written in (a real `kubectl get -o yaml` dump writes each pod in about ten
 * times the bytes of a compact one; the fields berth does not read never reach a
 * worker). V8 lets a heap grow toward its limit before it collects, so a worker given
 * the machine's share takes memory in proportion to the machine, not to the work.
 * Measured on the 5,000-node check (105,229 pods and nodes, two workers,
 * bench/README.md): with the share (9 GB each) it took 9.0 GB and 419 CPU s; sized at
 * 2,600 MB it took 5.5 GB and 423 CPU s; at 2,000 MB, 4.8 GB but 524 CPU s
 * (collections near the limit); at 1,500 MB it had done 60 of its 1,103 tasks after 6
 * minutes. A worker that runs out at this size is not the end: the pool goes on with
 * the share (pool.ts).
 */
export const WORKER_HEAP_PER_OBJECT_KB = 26;
export const WORKER_HEAP_FLOOR_MB = 1024;

/** A worker's heap limits, MB: `sized` from the input, `share` what the main thread's limit leaves it. */
export interface WorkerHeap {
  readonly sizedMb: number;
  readonly shareMb: number;
}

/**
 * The heap limits of each of `jobs` workers. The share: what the main thread's heap
 * limit leaves beyond what it holds now, shared out (the main thread mostly waits
 * while they run), never below MIN_WORKER_HEAP_MB. The sized limit: in proportion to
 * the input's `objects` (its pods and nodes), within the share; the share itself when
 * the input is not known.
 */
export function workerHeapMb(jobs: number, objects?: number, heap: { limit: number; used: number } = mainHeap()): WorkerHeap {
  const shareMb = Math.max(MIN_WORKER_HEAP_MB, Math.floor((heap.limit - heap.used) / jobs / MB));
  return { sizedMb: objects === undefined ? shareMb : Math.min(shareMb, sizedHeapMb(objects)), shareMb };
}

/** The heap a worker is sized to for an input of `objects` pods and nodes, MB (WORKER_HEAP_PER_OBJECT_KB, WORKER_HEAP_FLOOR_MB). */
const sizedHeapMb = (objects: number): number => Math.max(WORKER_HEAP_FLOOR_MB, Math.ceil((WORKER_HEAP_PER_OBJECT_KB * objects) / 1024));

/**
 * How many workers sized for an input of `objects` pods and nodes the main thread's
 * heap limit leaves room for, at least one: in a container with little memory and
 * many cores, a worker per core would each get a share too small to hold the input.
 */
export function affordableWorkers(objects: number, heap: { limit: number; used: number } = mainHeap()): number {
  return Math.max(1, Math.floor((heap.limit - heap.used) / MB / sizedHeapMb(objects)));
}

/**
 * Lets worker threads started from now on have the heap limits they are given. V8's
 * --max-old-space-size (the launcher sets it, a user may) is one flag for the whole
 * process, and it overrides every new isolate's own limit (Worker resourceLimits):
 * the main thread read it when it started, so clearing it leaves the main thread's
 * limit as it was and gives each worker its own.
 */
export function releaseWorkerHeapLimits(): void {
  setFlagsFromString('--max-old-space-size=0');
  setFlagsFromString('--max-heap-size=0');
}

function mainHeap(): { limit: number; used: number } {
  const s = getHeapStatistics();
  return { limit: s.heap_size_limit, used: s.used_heap_size };
}

/** The files among the arguments (`--cluster x`, `--cluster=x`, `-f x`), with their sizes, for the message. */
function inputFiles(args: readonly string[]): { path: string; bytes: number }[] {
  return args.flatMap((arg) => {
    const path = arg.startsWith('-') ? arg.slice(arg.indexOf('=') + 1) : arg;
    if (!path || path.startsWith('-')) return [];
    try {
      const s = statSync(path);
      return s.isFile() ? [{ path, bytes: s.size }] : [];
    } catch {
      return [];
    }
  });
}

const mb = (bytes: number): string => (bytes < MB ? `${Math.ceil(bytes / 1024)} KB` : `${Math.round(bytes / MB).toLocaleString('en-US')} MB`);

/**
 * The one line for a heap that ran out: whose heap, its limit, the input, and what
 * to try. `args` are berth's arguments (after the script).
 */
export function outOfMemoryMessage(where: 'main' | 'worker', limitMb: number, args: readonly string[], usable = usableMemory()): string {
  const files = inputFiles(args);
  const input = files.length ? ` on ${mb(files.reduce((n, f) => n + f.bytes, 0))} of input (${files.map((f) => f.path).join(', ')})` : '';
  const whose = where === 'main' ? 'the JavaScript heap' : "a worker thread's JavaScript heap";
  const fewer = where === 'worker' ? 'fewer workers (--jobs), ' : '';
  return `berth: out of memory: ${whose} reached its limit of ${limitMb.toLocaleString('en-US')} MB${input}; try ${fewer}a larger limit (NODE_OPTIONS=--max-old-space-size=MB; this machine has ${mb(usable)}), or a smaller input`;
}

/** Is `e` a worker thread stopped for running out of its heap? */
export const isWorkerOutOfMemory = (e: unknown): boolean => typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY';
