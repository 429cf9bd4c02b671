// Reads a trace of `berth check --jobs N` (BERTH_POOL_TRACE=FILE, src/cli/pool-trace.ts)
// and says what bounds the pool's speed-up, in CPU seconds (so load does not decide):
// the serial part (the main thread before the first task is handed out and after the
// last returns), each worker's overhead (start-up and module load, loading the
// input), every task's CPU, the critical path, and the makespan of the tasks on W
// workers as the pool hands them out (in order, a round 2 once its round 1 is in)
// and longest-first. Predicted speed-up = T1 / (serial + makespan), T1 the 1-worker
// run's main-thread CPU seconds (a trace of it, or --t1 S): on an idle machine that is
// its wall time, V8's helper threads (garbage collection, optimizing compiles) running
// on the other core. With two workers those helpers share the workers' cores, so the
// second prediction adds their CPU during the tasks: serial + max(makespan, (workers'
// CPU + helpers') / W).
//
//   BERTH_POOL_TRACE=/tmp/t2.jsonl node bin/berth.js check --cluster /tmp/c1000.yaml -o json --jobs 2
//   BERTH_POOL_TRACE=/tmp/t1.jsonl node bin/berth.js check --cluster /tmp/c1000.yaml -o json --jobs 1
//   npx tsx bench/pool-trace.ts /tmp/t2.jsonl [--t1-trace /tmp/t1.jsonl | --t1 S] [--workers W]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { TraceLine } from '../src/cli/pool-trace.js';

export interface TracedTask {
  readonly id: number;
  readonly label: string;
  readonly thread: number;
  /** Worker-thread CPU ms, without the input's load a worker's first task does. */
  readonly cpuMs: number;
}

/** The rule a task belongs to and whether it is a round-2 item ("zone-loss round 2 (1 item(s))"). */
const ruleOf = (label: string) => label.split(' ')[0]!;
const isRound = (label: string, n: 1 | 2) => label.includes(` round ${n}`);

/**
 * When the last of `tasks` ends on `workers` workers free from time `freeAt[i]`,
 * each taking the first task of the queue when free; a rule's round-2 tasks join the
 * queue when its last round-1 task ends. `order` sorts the queue (the pool's: by id).
 */
export function makespan(tasks: readonly TracedTask[], freeAt: readonly number[], order: (a: TracedTask, b: TracedTask) => number): number {
  const free = [...freeAt];
  const pending = new Map<string, number>();
  for (const t of tasks) if (isRound(t.label, 1)) pending.set(ruleOf(t.label), (pending.get(ruleOf(t.label)) ?? 0) + 1);
  const held = (t: TracedTask) => isRound(t.label, 2) && (pending.get(ruleOf(t.label)) ?? 0) > 0;
  let queue = tasks.filter((t) => !held(t)).sort(order);
  let waiting = tasks.filter(held);
  const releases: { at: number; tasks: TracedTask[] }[] = [];
  let end = Math.max(0, ...free);
  while (queue.length > 0 || releases.length > 0) {
    const w = free.indexOf(Math.min(...free));
    releases.sort((a, b) => a.at - b.at);
    // Nothing queued yet, or a round 2 released before this worker is free: it joins first.
    if (releases.length > 0 && (queue.length === 0 || releases[0]!.at <= free[w]!)) {
      const r = releases.shift()!;
      if (queue.length === 0) free[w] = Math.max(free[w]!, r.at);
      queue = [...queue, ...r.tasks].sort(order);
      continue;
    }
    const t = queue.shift()!;
    free[w] = free[w]! + t.cpuMs;
    end = Math.max(end, free[w]!);
    if (isRound(t.label, 1)) {
      const rule = ruleOf(t.label);
      const left = pending.get(rule)! - 1;
      pending.set(rule, left);
      if (left === 0) {
        releases.push({ at: free[w]!, tasks: waiting.filter((x) => ruleOf(x.label) === rule) });
        waiting = waiting.filter((x) => ruleOf(x.label) !== rule);
      }
    }
  }
  return end;
}

/** The longest chain: a rule's longest round-1 task then its longest round-2 item; any other task alone. */
export function criticalPath(tasks: readonly TracedTask[]): number {
  const longest = new Map<string, number>();
  for (const t of tasks) {
    const key = isRound(t.label, 2) ? `${ruleOf(t.label)}:2` : isRound(t.label, 1) ? `${ruleOf(t.label)}:1` : `${t.id}`;
    longest.set(key, Math.max(longest.get(key) ?? 0, t.cpuMs));
  }
  return Math.max(0, ...[...longest].map(([key, ms]) => (key.endsWith(':1') ? ms + (longest.get(`${key.slice(0, -2)}:2`) ?? 0) : key.endsWith(':2') && longest.has(`${key.slice(0, -2)}:1`) ? 0 : ms)));
}

const read = (file: string): TraceLine[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as TraceLine);

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** The collections between two lines of one thread, and the heap it retained after its tasks (BERTH_POOL_TRACE_HEAP), in a few words. */
export function gcBetween(from: TraceLine | undefined, to: TraceLine, retained: readonly TraceLine[] = []): string {
  if (!to.gc) return '';
  const before = from?.gc ?? { scavenges: 0, markCompacts: 0, pauseMs: 0 };
  const heaps = retained.flatMap((l) => (typeof l['retainedHeapMb'] === 'number' ? [l['retainedHeapMb']] : []));
  const heap = heaps.length > 0 ? `; retained heap ${heaps[heaps.length - 1]} MB after the last, ${Math.max(...heaps)} MB at most` : '';
  return `; GC ${to.gc.scavenges - before.scavenges} scavenges, ${to.gc.markCompacts - before.markCompacts} mark-compacts, ${s(to.gc.pauseMs - before.pauseMs)} wall paused${heap}`;
}

/**
 * Where the memory went (the lines' memoryMb): each thread's largest heap, external
 * memory and V8 malloc, and the process's largest RSS with what each thread's heap
 * was at its last line before then.
 */
export function memoryPeaks(lines: readonly TraceLine[]): string[] {
  const measured = lines.filter((l) => l.memoryMb);
  if (measured.length === 0) return [];
  const threads = [...new Set(measured.map((l) => l.thread))].sort((a, b) => a - b);
  const peak = measured.reduce((a, l) => (l.memoryMb!.rss > a.memoryMb!.rss ? l : a));
  const at = threads.map((t) => {
    const before = measured.filter((l) => l.thread === t && l.wallMs <= peak.wallMs);
    return `${t === 0 ? 'main' : `worker ${t}`} ${before.length > 0 ? before[before.length - 1]!.memoryMb!.heap : 0}`;
  });
  return [
    ...threads.map((t) => {
      const mine = measured.filter((l) => l.thread === t).map((l) => l.memoryMb!);
      const most = (k: 'heap' | 'used' | 'external' | 'malloced') => Math.max(...mine.map((m) => m[k]));
      return `memory of ${t === 0 ? 'the main thread' : `worker ${t}`}: heap ${most('heap')} MB at most (${most('used')} MB used), external ${most('external')} MB, V8 malloc ${most('malloced')} MB`;
    }),
    `process RSS ${peak.memoryMb!.rss} MB at most (as sampled at the lines), ${s(peak.wallMs - lines[0]!.wallMs)} after the start; the heaps then, MB: ${at.join(', ')}`,
  ];
}

/** The 1-worker run's main-thread CPU at the end: its wall time where its helper threads have a core of their own. */
const mainCpuMs = (lines: readonly TraceLine[]) => lines.find((l) => l.event === 'end' && l.thread === 0)!.cpuMs;

function report(lines: readonly TraceLine[], workers: number, t1Ms: number | undefined): void {
  const main = lines.filter((l) => l.thread === 0);
  const at = (event: string) => main.find((l) => l.event === event);
  const dispatches = main.filter((l) => l.event === 'dispatch');
  const dones = main.filter((l) => l.event === 'done');
  const end = at('end');
  if (!end) return unfinished(lines, dispatches);
  if (dispatches.length === 0) {
    // One thread: the phases of analyze, check by check.
    const loaded = at('loaded')!;
    console.log(`one thread: loading ${s(loaded.cpuMs)} main-thread CPU (${s(loaded.processCpuMs)} process), then the checks ${s(end.cpuMs - loaded.cpuMs)} (${s(end.processCpuMs - loaded.processCpuMs)} process), ${s(end.wallMs - at('start')!.wallMs)} wall from the command's start${gcBetween(loaded, end)}`);
    let last = loaded;
    for (const c of main.filter((l) => l.event === 'check')) {
      console.log(`  ${String(c['rule']).padEnd(24)} ${s(c.cpuMs - last.cpuMs)} thread, ${s(c.processCpuMs - last.processCpuMs)} process${gcBetween(last, c, [c])}`);
      last = c;
    }
    return;
  }
  const first = dispatches[0]!;
  const lastDone = dones[dones.length - 1]!;
  const serialMs = first.cpuMs + (end.cpuMs - lastDone.cpuMs);
  console.log(`serial (main thread): ${s(serialMs)} CPU = ${s(first.cpuMs)} before the first task (loading ${s(at('loaded')!.cpuMs)}) + ${s(end.cpuMs - lastDone.cpuMs)} after the last; process CPU then ${s(first.processCpuMs + end.processCpuMs - lastDone.processCpuMs)}`);
  console.log(`main thread while the tasks ran: ${s(lastDone.cpuMs - first.cpuMs)} CPU; wall ${s(first.wallMs - at('start')!.wallMs)} to the first task, ${s(lastDone.wallMs - first.wallMs)} of tasks, ${s(end.wallMs - lastDone.wallMs)} after`);
  const labels = new Map(dispatches.map((d) => [d['id'] as number, String(d['task'])]));
  const threads = [...new Set(lines.filter((l) => l.thread !== 0).map((l) => l.thread))];
  const tasks: TracedTask[] = [];
  const overheads: number[] = [];
  for (const thread of threads) {
    const mine = lines.filter((l) => l.thread === thread);
    const ready = mine.find((l) => l.event === 'worker-ready');
    const context = mine.find((l) => l.event === 'context');
    const loadMs = context && ready ? context.cpuMs - ready.cpuMs : 0;
    const taskLines = mine.filter((l) => l.event === 'task');
    for (const [i, t] of taskLines.entries()) {
      const id = t['id'] as number;
      tasks.push({ id, label: labels.get(id) ?? `#${id}`, thread, cpuMs: t.cpuMs - (t['startCpuMs'] as number) - (i === 0 ? loadMs : 0) });
    }
    const busy = taskLines.reduce((a, t) => a + t.cpuMs - (t['startCpuMs'] as number), 0);
    const overhead = (ready?.cpuMs ?? 0) + loadMs;
    overheads.push(overhead);
    console.log(`worker ${thread}: start-up and modules ${s(ready?.cpuMs ?? 0)} CPU (${s((ready?.wallMs ?? 0) - ((ready?.['bootMs'] as number | undefined) ?? 0))} wall in the module), loading the input ${s(loadMs)}; ${taskLines.length} tasks ${s(busy - loadMs)}; ready ${s((context?.wallMs ?? 0) - first.wallMs)} wall after the first task was handed out; thread total ${s(mine[mine.length - 1]!.cpuMs)}${gcBetween(undefined, mine[mine.length - 1]!, taskLines)}`);
  }
  const sum = tasks.reduce((a, t) => a + t.cpuMs, 0);
  console.log(`tasks: ${tasks.length}, ${s(sum)} CPU together; the longest:`);
  for (const t of [...tasks].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 12)) console.log(`  ${s(t.cpuMs).padStart(9)}  #${t.id} ${t.label}`);
  const inOrder = (a: TracedTask, b: TracedTask) => a.id - b.id;
  const longestFirst = (a: TracedTask, b: TracedTask) => b.cpuMs - a.cpuMs || a.id - b.id;
  const noOverhead = Array<number>(workers).fill(0);
  const withOverhead = Array.from({ length: workers }, (_, i) => overheads[i] ?? 0);
  const critical = criticalPath(tasks);
  const lower = Math.max(critical, sum / workers);
  const rows: [string, number][] = [
    ['pool order', makespan(tasks, noOverhead, inOrder)],
    ['pool order, workers start after their overhead', makespan(tasks, withOverhead, inOrder)],
    ['longest first', makespan(tasks, noOverhead, longestFirst)],
    ['longest first, after the overhead', makespan(tasks, withOverhead, longestFirst)],
  ];
  console.log(`critical path ${s(critical)}; lower bound on ${workers} workers max(critical, sum/${workers}) = ${s(lower)}`);
  console.log(`this run: process CPU ${s(end.processCpuMs)}, wall ${s(end.wallMs - at('start')!.wallMs)} from the command's start (node's own start-up before it not counted)`);
  for (const [name, ms] of rows) console.log(`makespan on ${workers} workers, ${name}: ${s(ms)}; serial + makespan ${s(serialMs + ms)}${t1Ms ? `; predicted speed-up ${(t1Ms / (serialMs + ms)).toFixed(2)}×` : ''}`);
  // V8's helper threads while the tasks ran: the process's CPU then, less the JavaScript threads'.
  const workerCpuMs = threads.reduce((a, thread) => a + lines.filter((l) => l.thread === thread).reduce((m, l) => Math.max(m, l.cpuMs), 0), 0);
  const helpersMs = lastDone.processCpuMs - first.processCpuMs - workerCpuMs - (lastDone.cpuMs - first.cpuMs);
  const shared = serialMs + Math.max(rows[3]![1], (workerCpuMs + helpersMs + lastDone.cpuMs - first.cpuMs) / workers);
  console.log(`V8 helper threads while the tasks ran: ${s(helpersMs)} CPU (workers' threads ${s(workerCpuMs)}); serial + max(makespan, all of it / ${workers}) = ${s(shared)}${t1Ms ? `; predicted speed-up ${(t1Ms / shared).toFixed(2)}×` : ''}`);
}

/** A run stopped before its end (a trace without 'end'): each task's CPU so far, done or not. */
function unfinished(lines: readonly TraceLine[], dispatches: readonly TraceLine[]): void {
  const last = lines[lines.length - 1]!;
  const start = lines[0]!;
  const done = new Map(lines.filter((l) => l.event === 'task').map((l) => [l['id'] as number, l]));
  console.log(`unfinished: stopped ${s(last.wallMs - start.wallMs)} wall after the start, process CPU ${s(last.processCpuMs)}; ${done.size} of ${dispatches.length} tasks done:`);
  for (const d of dispatches) {
    const t = done.get(d['id'] as number);
    if (t) console.log(`  ${s(t.cpuMs - (t['startCpuMs'] as number)).padStart(9)}  #${String(d['id'])} ${String(d['task'])} (thread ${t.thread})`);
  }
  console.log(`not done: ${dispatches.filter((d) => !done.has(d['id'] as number)).map((d) => String(d['task'])).join(', ')}`);
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { 't1-trace': { type: 'string' }, t1: { type: 'string' }, workers: { type: 'string', default: '2' } } });
for (const file of positionals) {
  console.log(`== ${file}`);
  const t1Ms = values['t1-trace'] ? mainCpuMs(read(values['t1-trace'])) : values.t1 ? Number(values.t1) * 1000 : undefined;
  if (t1Ms) console.log(`T1 = ${s(t1Ms)} CPU (the 1-worker run's main thread)`);
  const lines = read(file);
  report(lines, Number(values.workers), t1Ms);
  for (const line of memoryPeaks(lines)) console.log(line);
}
