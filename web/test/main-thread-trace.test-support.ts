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
  /** What that task spent its CPU on, ms: a task with no script is the browser's rendering. */
  readonly split: Readonly<Record<WorkKind, number>>;
}

type WorkKind = 'style' | 'layout' | 'paint' | 'gc' | 'other';

/** Trace events by the work they are (none of these nests in another of a different kind). */
const KIND: Record<string, Exclude<WorkKind, 'other'>> = {
  UpdateLayoutTree: 'style',
  Layout: 'layout',
  PrePaint: 'paint',
  Paint: 'paint',
  Layerize: 'paint',
  Commit: 'paint',
  MinorGC: 'gc',
  MajorGC: 'gc',
};

/** The CPU time of `task` by kind of work; 'other' is the rest (script, messages, parsing). `onThread` is in time order. */
function splitOf(task: TraceEvent, onThread: readonly TraceEvent[]): Record<WorkKind, number> {
  const ms: Record<WorkKind, number> = { style: 0, layout: 0, paint: 0, gc: 0, other: 0 };
  const end = task.ts + (task.dur ?? 0);
  // Only the outermost of nested events counts (a layer's Paint within the document's).
  let counted = -Infinity;
  for (const e of onThread) {
    const kind = KIND[e.name];
    if (!kind || e.ph !== 'X' || e.ts < task.ts || e.ts >= end || e.ts < counted) continue;
    ms[kind] += e.tdur ?? 0;
    counted = e.ts + (e.dur ?? 0);
  }
  ms.other = Math.max(0, (task.tdur ?? 0) - ms.style - ms.layout - ms.paint - ms.gc);
  for (const k of Object.keys(ms) as WorkKind[]) ms[k] = Math.round(ms[k] / 1000);
  return ms;
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
  const onMain = traceEvents.filter((e) => e.pid === main.pid && e.tid === main.tid).sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const marks = onMain.filter(isMark).sort((a, b) => a.ts - b.ts);
  const tasks = onMain.filter((e) => e.ph === 'X' && e.name === 'RunTask');
  const steps = new Map<string, StepTasks>();
  marks.forEach((m, i) => {
    const end = marks[i + 1]?.ts ?? Infinity;
    const mine = tasks.filter((t) => t.ts >= m.ts && t.ts < end);
    const longest = mine.reduce<TraceEvent | undefined>((a, t) => ((t.tdur ?? 0) > (a?.tdur ?? -1) ? t : a), undefined);
    steps.set(m.args!.data!.message!.slice('step:'.length), {
      maxWallMs: Math.round(Math.max(0, ...mine.map((t) => t.dur ?? 0)) / 1000),
      maxCpuMs: Math.round((longest?.tdur ?? 0) / 1000),
      split: longest ? splitOf(longest, onMain) : { style: 0, layout: 0, paint: 0, gc: 0, other: 0 },
    });
  });
  return steps;
}
