// Where a pool's time goes, when BERTH_POOL_TRACE names a file: every thread appends
// JSON lines to it (marks of the main thread's phases, each worker's start-up, every
// task's CPU), which bench/pool-trace.ts reads back to find the serial part, each
// task's cost and each worker's overhead. Unset, nothing is measured or written.

import { appendFileSync, readFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';

const file = process.env['BERTH_POOL_TRACE'];

export const tracing = file !== undefined && file !== '';

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

/** One line of the trace: what happened, on which thread, when (epoch ms), and the thread's and process's CPU ms so far. */
export interface TraceLine {
  readonly event: string;
  readonly thread: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly processCpuMs: number;
  readonly [field: string]: unknown;
}

export function poolTrace(event: string, fields: Record<string, unknown> = {}): void {
  if (!tracing) return;
  const { user, system } = process.cpuUsage();
  const line: TraceLine = { event, thread: threadId, wallMs: performance.timeOrigin + performance.now(), cpuMs: threadCpuMs(), processCpuMs: (user + system) / 1000, ...fields };
  appendFileSync(file!, `${JSON.stringify(line)}\n`);
}
