// What bin/berth.js runs: berth itself in a child node whose heap limit is sized
// from the machine (memory.ts) unless the user set one, with the child's stderr
// passed through. When V8 stops the child (its heap ran out), the user gets one
// line saying so in place of V8's GC log and native stack trace, which cannot be
// caught inside the process that runs out.

import { spawn } from 'node:child_process';
import { defaultHeapMb, outOfMemoryMessage, OUT_OF_MEMORY_EXIT, usableMemory, userV8SizeMb } from './memory.js';

/** In the child's environment: run berth itself, do not launch again. */
const LAUNCHED_ENV = 'BERTH_LAUNCHED';
/** In the child's environment when the launcher's stderr is a terminal: its width. */
const TERMINAL_ENV = 'BERTH_STDERR_COLUMNS';

/** How V8 begins its fatal report (the GC log before an out-of-memory one, else the error line). */
const FATAL_STARTS = ['\n<--- Last few GCs --->', '\n#\n# Fatal', 'FATAL ERROR: '];
/** How much of the report is kept to tell what stopped node. */
const REPORT_KEPT = 4096;

/**
 * Passes a child's stderr through until V8's fatal report begins, and keeps the
 * start of that report: a chunk's tail that may begin one is held back until the
 * next chunk (or the end) tells.
 */
export class FatalReportFilter {
  private held = '';
  /** The start of V8's report, once one began. */
  report: string | undefined;

  push(chunk: string): string {
    if (this.report !== undefined) {
      if (this.report.length < REPORT_KEPT) this.report += chunk.slice(0, REPORT_KEPT - this.report.length);
      return '';
    }
    const text = this.held + chunk;
    const at = Math.min(...FATAL_STARTS.map((s) => text.indexOf(s)).filter((i) => i >= 0));
    if (Number.isFinite(at)) {
      this.held = '';
      this.report = text.slice(at, at + REPORT_KEPT);
      return text.slice(0, at);
    }
    const keep = Math.max(0, ...FATAL_STARTS.flatMap((s) => Array.from({ length: Math.min(s.length - 1, text.length) }, (_, k) => (text.endsWith(s.slice(0, k + 1)) ? k + 1 : 0))));
    this.held = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  /** What is still held back, at the end of the stream. */
  end(): string {
    const rest = this.report === undefined ? this.held : '';
    this.held = '';
    return rest;
  }

  /** Did the report say the heap ran out? */
  get outOfMemory(): boolean {
    return this.report !== undefined && /heap out of memory|Reached heap limit/.test(this.report);
  }

  /** The report's FATAL ERROR line, for any other fatal stop. */
  get fatalLine(): string {
    return /FATAL ERROR: [^\n]*|# Fatal [^\n]*/.exec(this.report ?? '')?.[0] ?? 'V8 stopped the process';
  }
}

/** True in the child: it drops the launcher's markers (a berth it starts launches again) and draws on the launcher's terminal. */
export function launchedChild(): boolean {
  if (!process.env[LAUNCHED_ENV]) return false;
  const columns = Number(process.env[TERMINAL_ENV]);
  delete process.env[LAUNCHED_ENV];
  delete process.env[TERMINAL_ENV];
  // Its stderr is a pipe to the launcher's terminal: progress bars draw as they would there.
  if (columns > 0) Object.assign(process.stderr, { isTTY: true, columns });
  return true;
}

/**
 * The young generation's semi-space size (MB) the child gets unless the user set one
 * (V8's default is 16). Each of check's simulations builds a cluster copy that lives
 * longer than a few scavenges of a 16 MB semi-space: most of it was promoted, then
 * freed by full GCs (the GC threads of two workers then take the cores' time). The flag
 * is process-wide, so pool workers get it too.
 */
export const SEMI_SPACE_MB = 64;

/** The child's node options: node's own, with the heap limit `limitMb` and SEMI_SPACE_MB for those the user did not set (in NODE_OPTIONS or node's arguments). */
export function childNodeArgs(execArgv: readonly string[], nodeOptions: string, limitMb: number): string[] {
  const user = [...nodeOptions.split(/\s+/), ...execArgv];
  return [
    ...execArgv,
    ...(userV8SizeMb(user, 'max-old-space-size') === undefined ? [`--max-old-space-size=${limitMb}`] : []),
    ...(userV8SizeMb(user, 'max-semi-space-size') === undefined ? [`--max-semi-space-size=${SEMI_SPACE_MB}`] : []),
  ];
}

/** Runs `script` (bin/berth.js) with berth's arguments `args` in a child node, and exits as it did. */
export function launch(script: string, args: readonly string[]): void {
  const usable = usableMemory();
  const nodeOptions = process.env.NODE_OPTIONS ?? '';
  const limitMb = userV8SizeMb([...nodeOptions.split(/\s+/), ...process.execArgv], 'max-old-space-size') ?? defaultHeapMb(usable);
  const nodeArgs = childNodeArgs(process.execArgv, nodeOptions, limitMb);
  const env = { ...process.env, [LAUNCHED_ENV]: '1', ...(process.stderr.isTTY ? { [TERMINAL_ENV]: String(process.stderr.columns) } : {}) };
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], { stdio: ['inherit', 'inherit', 'pipe'], env });
  const filter = new FatalReportFilter();
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => process.stderr.write(filter.push(chunk)));
  // A terminal's Ctrl-C reaches the child itself (same process group): a second SIGINT would cut short the controller's shutdown.
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.on('error', (e) => {
    process.stderr.write(`berth: cannot start node (${process.execPath}): ${e.message}\n`);
    process.exitCode = 2;
  });
  child.on('close', (code, signal) => {
    process.stderr.write(filter.end());
    if (filter.report !== undefined) {
      process.stderr.write(`${filter.outOfMemory ? outOfMemoryMessage('main', limitMb, args, usable) : `berth: internal error: node stopped: ${filter.fatalLine}`}\n`);
      process.exitCode = filter.outOfMemory ? OUT_OF_MEMORY_EXIT : 2;
    } else if (signal === 'SIGKILL') {
      process.stderr.write('berth: killed (SIGKILL): if nobody stopped it, the system ran out of memory; try fewer workers (--jobs) or a smaller input\n');
      process.exitCode = 128 + 9;
    } else if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exitCode = code ?? 2;
  });
}
