// The page's main-thread tasks from a Chromium trace, with the thread's CPU time of
// each: on a shared machine a task's wall time (what the Long Tasks API reports)
// also counts the time the OS gave the core to other processes; its CPU time is the
// page's own work.

import type { Browser, Page } from 'playwright-core';

interface TraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly pid: number;
  readonly tid: number;
  readonly ts: number;
  readonly dur?: number;
  readonly tdur?: number;
  readonly args?: { name?: string; data?: { message?: string } };
}

export interface StepTasks {
  /** The longest task, wall clock, ms. */
  readonly maxWallMs: number;
  /** The most CPU time one task took, ms. */
  readonly maxCpuMs: number;
}

export async function startTrace(browser: Browser, page: Page): Promise<void> {
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
}

/** Marks the start of a step in the trace (console.timeStamp). */
export async function markStep(page: Page, name: string): Promise<void> {
  await page.evaluate((n) => console.timeStamp(`step:${n}`), name);
}

/** Each step's longest main-thread task, by wall and by CPU time, from the trace. */
export async function stopTrace(browser: Browser): Promise<Map<string, StepTasks>> {
  const { traceEvents } = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] };
  // The page's main thread is the one its step marks are on (the trace may hold other pages' renderers).
  const isMark = (e: TraceEvent) => e.name === 'TimeStamp' && e.args?.data?.message?.startsWith('step:');
  const main = traceEvents.find(isMark);
  if (!main) throw new Error('no step marks in the trace');
  const onMain = traceEvents.filter((e) => e.pid === main.pid && e.tid === main.tid);
  const marks = onMain.filter(isMark).sort((a, b) => a.ts - b.ts);
  const tasks = onMain.filter((e) => e.ph === 'X' && e.name === 'RunTask');
  const steps = new Map<string, StepTasks>();
  marks.forEach((m, i) => {
    const end = marks[i + 1]?.ts ?? Infinity;
    const mine = tasks.filter((t) => t.ts >= m.ts && t.ts < end);
    steps.set(m.args!.data!.message!.slice('step:'.length), {
      maxWallMs: Math.round(Math.max(0, ...mine.map((t) => t.dur ?? 0)) / 1000),
      maxCpuMs: Math.round(Math.max(0, ...mine.map((t) => t.tdur ?? 0)) / 1000),
    });
  });
  return steps;
}
