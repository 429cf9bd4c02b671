// Runs fuzz cases through the berth CLI in a worker thread with a CPU-time budget per
// input, and judges each outcome: exit 0, 1 or 2; no stack trace and no "internal
// error"; every error line names file:line:column; no line longer than a screenful;
// no hang (the worker is terminated and replaced when an input overruns its budget).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FuzzCase } from './inputs.js';
import type { ReadyMessage, WorkerReply } from './cli-worker.js';
import { threadCpuMs } from './thread-cpu.js';

/**
 * Budgets are CPU time of the worker thread, not wall time: on a 2-core machine shared
 * by eight sessions a 10 MB input once took over 120 s of wall time for far less CPU, and
 * the load, not the input, decided the verdict.
 */
export const BUDGET_MS = 20_000;
/**
 * `berth check` runs dozens of what-if simulations; when nothing in the bundled
 * catalog fits a NodePool's requirements, each plans against every instance type:
 * 8-10 s of CPU for a 3-node input (seed 13, input 1553).
 */
export const CHECK_BUDGET_MS = 60_000;
/** Inputs of several MB parse for a while before anything else happens (25-80 s of CPU). */
export const HUGE_BUDGET_MS = 120_000;
/**
 * A worker that spends no CPU at all for this long (wall time) is waiting for something that
 * will not come (a promise never settled): a hang that a CPU budget alone would never end.
 * Even at load 40 a runnable thread gets some CPU within a minute.
 */
export const STALL_MS = 60_000;
/** How often the worker's CPU time is read while an input runs. */
const POLL_MS = 100;
// Upstream's own validation messages (label syntax) run to ~400 characters after the path; a quoted whole file would not fit.
const MAX_LINE = 800;

/** The CPU budget of an input by its size and command. */
export function budgetOf(c: FuzzCase): number {
  const size = c.files.reduce((n, f) => n + f.text.length, 0);
  return size > 2 ** 20 ? HUGE_BUDGET_MS : c.command === 'check' ? CHECK_BUDGET_MS : BUDGET_MS;
}

export interface RunnerOptions {
  /** The worker's entry module (tests substitute a scripted worker). */
  readonly entry?: URL;
  readonly budgetOf?: (c: FuzzCase) => number;
  readonly stallMs?: number;
}

export interface Outcome {
  readonly code: number | 'hang';
  readonly stderr: string;
  /** Wall time. */
  readonly ms: number;
  /** CPU time of the worker thread. */
  readonly cpuMs: number;
}

export class CliRunner {
  private worker: Promise<{ worker: Worker; tid: number | undefined }> | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), 'berth-fuzz-'));
  private seq = 0;

  constructor(private readonly options: RunnerOptions = {}) {}

  /** The worker, once it has loaded the CLI: its start-up is not part of any input's time. */
  private spawn(): Promise<{ worker: Worker; tid: number | undefined }> {
    return (this.worker ??= new Promise((resolve, reject) => {
      const w = new Worker(this.options.entry ?? new URL('./cli-worker-entry.mjs', import.meta.url), { stdout: true, stderr: true });
      w.once('error', reject);
      w.once('message', (m: ReadyMessage) => (w.removeListener('error', reject), m?.ready === true ? resolve({ worker: w, tid: m.tid }) : reject(new Error(`worker said ${JSON.stringify(m)} before ready`))));
    }));
  }

  async run(c: FuzzCase): Promise<Outcome> {
    const dir = join(this.dir, String(this.seq++));
    mkdirSync(dir);
    for (const f of c.files) writeFileSync(join(dir, f.name), f.text);
    const budget = (this.options.budgetOf ?? budgetOf)(c);
    const stallMs = this.options.stallMs ?? STALL_MS;
    const argv = [c.command, ...c.args.map((a) => a.replaceAll('{dir}', dir))];
    const { worker, tid } = await this.spawn();
    const started = performance.now();
    const cpuStart = threadCpuMs(tid);
    const cpu = () => threadCpuMs(tid) - cpuStart;
    try {
      const reply = await new Promise<WorkerReply | 'hang'>((resolve, reject) => {
        let lastCpu = 0;
        let lastProgress = started;
        const poll = setInterval(() => {
          const used = cpu();
          const now = performance.now();
          if (used > lastCpu) [lastCpu, lastProgress] = [used, now];
          if (used > budget || now - lastProgress > stallMs) {
            clearInterval(poll);
            resolve('hang');
          }
        }, POLL_MS);
        worker.once('message', (r: WorkerReply) => (clearInterval(poll), resolve(r)));
        worker.once('error', (e) => (clearInterval(poll), reject(e)));
        worker.postMessage({ argv });
      });
      const ms = performance.now() - started;
      const cpuMs = cpu();
      if (reply === 'hang') {
        this.worker = undefined;
        await worker.terminate();
        return { code: 'hang', stderr: '', ms, cpuMs };
      }
      worker.removeAllListeners('error');
      return { code: reply.thrown ? -1 : reply.code, stderr: reply.thrown ? `escaped runCli: ${reply.thrown}` : reply.stderr, ms, cpuMs };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  async close(): Promise<void> {
    await (await this.worker)?.worker.terminate();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const STACK_LINE = /^\s+at .+[(:]\d+/m;
const ERROR_LINE = /^error: (?<file>[^\n]+?):\d+:\d+: \S/;

/** What is wrong with an outcome; empty when it is acceptable. */
export function problems(c: FuzzCase, o: Outcome): string[] {
  const out: string[] = [];
  if (o.code === 'hang') return [`no answer within the budget (${Math.round(o.cpuMs)} ms of CPU, ${Math.round(o.ms)} ms of wall time)`];
  if (o.code !== 0 && o.code !== 1 && o.code !== 2) out.push(`exit code ${o.code}`);
  if (/internal error/i.test(o.stderr)) out.push('internal error');
  if (STACK_LINE.test(o.stderr)) out.push('stack trace');
  if (/Maximum call stack|RangeError|TypeError|ReferenceError/.test(o.stderr)) out.push('JavaScript error in the output');
  const names = c.files.map((f) => f.name);
  for (const line of o.stderr.split('\n')) {
    if (line.length > MAX_LINE) out.push(`line of ${line.length} characters: ${line.slice(0, 120)}…`);
    if (line.startsWith('error: ')) {
      const m = ERROR_LINE.exec(line);
      if (!m || !names.some((n) => m.groups!['file']!.endsWith(n))) out.push(`error without file:line:column: ${line.slice(0, 200)}`);
    }
  }
  if (o.code === 2 && !/^(error: |berth: )/m.test(o.stderr)) out.push('exit 2 without a message');
  return out;
}

/**
 * The class of each error message: the message with its position, object, quoted
 * values and numbers taken out, so that "spec.replicas: must be >= 0 (got -3)" and
 * the same for -5 count once.
 */
export function messageClasses(stderr: string): string[] {
  const out: string[] = [];
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('error: ') && !line.startsWith('berth: ')) continue;
    const body = line
      .replace(/^error: [^\n]*?:\d+:\d+: /, '')
      .replace(/^(Pod|Node|Deployment|ReplicaSet|StatefulSet|DaemonSet|NodePool|PodDisruptionBudget|Scenario|PriorityClass|InstanceTypeCatalog|List|\S+) [\w./-]*: /, '')
      .replace(/^berth: .*?(\d+ error\(s\)|invalid scenario|cannot read|pod .* not found|pod .* is already bound|no input).*$/, 'berth: $1')
      .replace(/"(?:[^"\\]|\\.)*"?/g, '"…"')
      .replace(/'[^']*'/g, "'…'")
      .replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/gi, 'N')
      .replace(/^[\w.[\]/-]+(\[[^\]]*\])*: /, 'FIELD: ');
    out.push(body);
  }
  return out;
}
