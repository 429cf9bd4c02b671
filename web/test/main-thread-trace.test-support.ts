// The page's main-thread tasks from a Chromium trace, with the thread's CPU time of
// each: on a shared machine a task's wall time (what the Long Tasks API reports)
// also counts the time the OS gave the core to other processes; its CPU time is the
// page's own work, and the part of it inside traced events (script, style, layout,
// paint, GC) is the work the page asked for. What a task spends outside them is the
// browser's own: on a loaded machine a frame that did 1 ms of traced work took 99 ms
// of CPU over 1 s of wall time, its main thread waiting on starved compositor threads.

import type { Browser, Page } from 'playwright-core';

interface TraceEvent {
  readonly name: string;
  readonly cat?: string;
  readonly ph: string;
  readonly pid: number;
  readonly tid: number;
  readonly ts: number;
  readonly dur?: number;
  readonly tdur?: number;
  readonly args?: {
    name?: string;
    data?: { message?: string; functionName?: string; url?: string; lineNumber?: number; type?: string };
    beginData?: { dirtyObjects?: number; totalObjects?: number };
    type?: string;
  };
}

type WorkKind = 'script' | 'style' | 'layout' | 'paint' | 'gc';

export interface StepTasks {
  /**
   * The longest task, wall clock, ms; not counting the tasks that ran one of the test's
   * DevTools protocol commands (Playwright's evaluate, selector queries, scrolling a
   * target into view): they are not the page's work, and the Long Tasks API does not
   * report them either (a 150 ms loop in page.evaluate gave no entry, the same loop in a
   * setTimeout did). Their traced work still counts in maxWorkMs.
   */
  readonly maxWallMs: number;
  /** The most CPU time one task took, ms, not counting the test's protocol commands. */
  readonly maxCpuMs: number;
  /** The most CPU time one task spent in traced work, ms. */
  readonly maxWorkMs: number;
  /** That task's traced work by kind, and its CPU outside traced events ('untraced'), ms. */
  readonly split: Readonly<Record<WorkKind | 'untraced', number>>;
  /** That task's costliest events by their own CPU time (children's excluded): what to look at when it is long. */
  readonly top: string;
}

/** Traced events by kind; any other traced event counts as script (calls, messages, timers, parsing). */
const KIND: Record<string, WorkKind> = {
  UpdateLayoutTree: 'style',
  Layout: 'layout',
  PrePaint: 'paint',
  Paint: 'paint',
  Layerize: 'paint',
  Commit: 'paint',
  MinorGC: 'gc',
  MajorGC: 'gc',
};

/**
 * Traced work is what the devtools.timeline categories record; the trace also holds
 * the 'devtools' category, only to tell the test's protocol commands (events of the
 * command and of the inspector around the page's events it causes).
 */
const isTimeline = (e: TraceEvent) => e.cat?.includes('devtools.timeline') ?? false;

/** `task`'s CPU time by kind of traced work (outermost timeline events only); `onThread` is in time order. */
function splitOf(task: TraceEvent, onThread: readonly TraceEvent[]): Record<WorkKind | 'untraced', number> {
  const us = { script: 0, style: 0, layout: 0, paint: 0, gc: 0, untraced: 0 };
  const end = task.ts + (task.dur ?? 0);
  let covered = -Infinity;
  for (const e of onThread) {
    if (e === task || e.ph !== 'X' || e.ts < task.ts || e.ts >= end || e.ts < covered || !isTimeline(e)) continue;
    us[KIND[e.name] ?? 'script'] += e.tdur ?? 0;
    covered = e.ts + (e.dur ?? 0);
  }
  us.untraced = Math.max(0, (task.tdur ?? 0) - us.script - us.style - us.layout - us.paint - us.gc);
  return us;
}

/** An event as a reader of the trace would name it: the function called, the event dispatched, how much layout was dirty. */
function labelOf(e: TraceEvent): string {
  const d = e.args?.data;
  if (d?.functionName !== undefined) return `${e.name} ${d.functionName || '(anonymous)'} ${d.url?.split('/').pop() ?? ''}:${d.lineNumber ?? ''}`;
  if (d?.type) return `${e.name} ${d.type}`;
  if (e.name === 'Layout' && e.args?.beginData) return `Layout of ${e.args.beginData.dirtyObjects}/${e.args.beginData.totalObjects} objects`;
  if (e.args?.type && /GC/.test(e.name)) return `${e.name} (${e.args.type})`;
  return e.name;
}

/** `task`'s events by self CPU time (their own, not their children's), the costliest first, as "label ms" (≥ 1 ms). */
function topOf(task: TraceEvent, onThread: readonly TraceEvent[]): string {
  const end = task.ts + (task.dur ?? 0);
  const self = new Map<string, number>();
  const stack: { e: TraceEvent; label: string }[] = [];
  const add = (label: string, us: number) => self.set(label, (self.get(label) ?? 0) + us);
  for (const e of onThread) {
    if (e === task || e.ph !== 'X' || e.ts < task.ts || e.ts >= end || !isTimeline(e)) continue;
    while (stack.length > 0 && e.ts >= stack.at(-1)!.e.ts + (stack.at(-1)!.e.dur ?? 0)) stack.pop();
    const label = labelOf(e);
    add(label, e.tdur ?? 0);
    if (stack.length > 0) add(stack.at(-1)!.label, -(e.tdur ?? 0));
    stack.push({ e, label });
  }
  return [...self]
    .filter(([, us]) => us >= 1000)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([label, us]) => `${label} ${ms(us)}`)
    .join('; ');
}

const ms = (us: number) => Math.round(us / 1000);
const traced = (s: Record<WorkKind | 'untraced', number>) => s.script + s.style + s.layout + s.paint + s.gc;

export async function startTrace(browser: Browser, page: Page): Promise<void> {
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'devtools'] });
}

/** Marks the start of a step in the trace (console.timeStamp). */
export async function markStep(page: Page, name: string): Promise<void> {
  await page.evaluate((n) => console.timeStamp(`step:${n}`), name);
}

/** Each step's longest main-thread task, by wall time, by CPU time and by traced work, from the trace. */
export async function stopTrace(browser: Browser): Promise<Map<string, StepTasks>> {
  const { traceEvents } = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] };
  // The page's main thread is the one its step marks are on (the trace may hold other pages' renderers).
  const isMark = (e: TraceEvent) => e.name === 'TimeStamp' && e.args?.data?.message?.startsWith('step:');
  const main = traceEvents.find(isMark);
  if (!main) throw new Error('no step marks in the trace');
  const onMain = traceEvents.filter((e) => e.pid === main.pid && e.tid === main.tid).sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const marks = onMain.filter(isMark);
  const tasks = onMain.filter((e) => e.ph === 'X' && e.name === 'RunTask');
  const protocol = onMain.filter((e) => e.ph === 'X' && e.name === 'DevToolsSession::DispatchProtocolCommand');
  const ranCommand = (t: TraceEvent) => protocol.some((c) => c.ts >= t.ts && c.ts < t.ts + (t.dur ?? 0));
  const steps = new Map<string, StepTasks>();
  marks.forEach((m, i) => {
    const end = marks[i + 1]?.ts ?? Infinity;
    const mine = tasks.filter((t) => t.ts >= m.ts && t.ts < end).map((t) => ({ t, split: splitOf(t, onMain), ranCommand: ranCommand(t) }));
    const busiest = mine.reduce<(typeof mine)[number] | undefined>((a, x) => (traced(x.split) > (a ? traced(a.split) : -1) ? x : a), undefined);
    const split = busiest?.split ?? { script: 0, style: 0, layout: 0, paint: 0, gc: 0, untraced: 0 };
    const pageTasks = mine.filter((x) => !x.ranCommand);
    steps.set(m.args!.data!.message!.slice('step:'.length), {
      maxWallMs: ms(Math.max(0, ...pageTasks.map((x) => x.t.dur ?? 0))),
      maxCpuMs: ms(Math.max(0, ...pageTasks.map((x) => x.t.tdur ?? 0))),
      maxWorkMs: ms(traced(split)),
      split: Object.fromEntries(Object.entries(split).map(([k, v]) => [k, ms(v)])) as StepTasks['split'],
      top: busiest ? topOf(busiest.t, onMain) : '',
    });
  });
  return steps;
}
