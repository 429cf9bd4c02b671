// Where a pool's time goes, when BERTH_POOL_TRACE names a file: every thread appends
// JSON lines to it (marks of the main thread's phases, each worker's start-up, every
// task's CPU and the thread's garbage collections), which bench/pool-trace.ts reads
// back to find the serial part, each task's cost and each worker's overhead. With
// BERTH_POOL_TRACE_HEAP=1 too, a worker collects all its garbage after each task and
// records the heap it retains (slow: for memory, not time). Unset, nothing is
// measured or written.

import { appendFileSync, readFileSync } from 'node:fs';
import { GCProfiler, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { threadId } from 'node:worker_threads';

const file = process.env['BERTH_POOL_TRACE'];

export const tracing = file !== undefined && file !== '';

/** This thread's garbage collections so far (each isolate has its own heap and collector). */
export interface GcCounts {
  scavenges: number;
  markCompacts: number;
  /** The collections' pauses of this thread, wall ms (what they made V8's helper threads do is not in it). */
  pauseMs: number;
}

/** Adds the collections a GCProfiler recorded (its stop()'s statistics) to `into`. */
export function countGcs(into: GcCounts, statistics: readonly { readonly gcType: string; readonly cost: number }[]): void {
  for (const { gcType, cost } of statistics) {
    if (gcType === 'Scavenge' || gcType === 'MinorMarkSweep') into.scavenges++;
    else if (gcType === 'MarkSweepCompact') into.markCompacts++;
    into.pauseMs += cost / 1000;
  }
}

const gc: GcCounts = { scavenges: 0, markCompacts: 0, pauseMs: 0 };
// A GCProfiler reports when stopped (a performance observer would hear of collections only once the thread is idle): one per trace line.
let gcProfiler: GCProfiler | undefined;

/** The thread's collections so far, counted up to now. */
function gcSoFar(): GcCounts {
  if (gcProfiler) countGcs(gc, gcProfiler.stop()?.statistics ?? []);
  (gcProfiler = new GCProfiler()).start();
  return { ...gc };
}

/** A full collection on demand, when BERTH_POOL_TRACE_HEAP asks for the retained heap. */
const collect = ((): (() => void) | undefined => {
  if (!tracing || !process.env['BERTH_POOL_TRACE_HEAP']) return undefined;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/** With BERTH_POOL_TRACE_HEAP: this thread's heap after a full collection, in MB (what it keeps between tasks). */
export function retainedHeapMb(): number | undefined {
  if (!collect) return undefined;
  collect();
  return Math.round(getHeapStatistics().used_heap_size / 2 ** 20);
}

/**
 * CPU milliseconds this thread has run: Linux's per-thread schedstat (Node 20 has
 * no per-thread CPU clock); the whole process's where it cannot be read.
 */
export function threadCpuMs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
}

/** One line of the trace: what happened, on which thread, when (epoch ms), the thread's and process's CPU ms and the thread's collections so far. */
export interface TraceLine {
  readonly event: string;
  readonly thread: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly processCpuMs: number;
  readonly gc?: GcCounts;
  /** This thread's heap (committed and used), its external memory (array buffers) and what V8 malloced, and the process's RSS, MB. */
  readonly memoryMb?: MemoryMb;
  readonly [field: string]: unknown;
}

/** A line's memory figures, MB. */
export interface MemoryMb {
  readonly heap: number;
  readonly used: number;
  readonly external: number;
  readonly malloced: number;
  readonly rss: number;
}

const toMb = (bytes: number): number => Math.round(bytes / 2 ** 20);

/** This thread's memory now, without collecting anything (cheap enough for every line). */
function memorySoFar(): MemoryMb {
  const h = getHeapStatistics();
  return { heap: toMb(h.total_heap_size), used: toMb(h.used_heap_size), external: toMb(h.external_memory), malloced: toMb(h.malloced_memory), rss: toMb(process.memoryUsage.rss()) };
}

export function poolTrace(event: string, fields: Record<string, unknown> = {}): void {
  if (!tracing) return;
  const { user, system } = process.cpuUsage();
  const line: TraceLine = { event, thread: threadId, wallMs: performance.timeOrigin + performance.now(), cpuMs: threadCpuMs(), processCpuMs: (user + system) / 1000, gc: gcSoFar(), memoryMb: memorySoFar(), ...fields };
  appendFileSync(file!, `${JSON.stringify(line)}\n`);
}
