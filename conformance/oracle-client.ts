// One long-lived oracle process (oracle-scheduler/oracle) spoken to in JSON lines:
// a case per stdin line, a result per stdout line, in order. Requests may be
// written ahead of the answers, so the oracle works on the next case while berth
// runs the current one.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { AttemptResult } from './result.js';

export class OracleClient {
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly waiting: { resolve: (r: AttemptResult) => void; reject: (e: Error) => void }[] = [];
  private readonly stderr: string[] = [];
  private failure: Error | undefined;

  constructor(path: string) {
    this.proc = spawn(path, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = createInterface({ input: this.proc.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      const next = this.waiting.shift();
      if (!next) return;
      try {
        next.resolve(JSON.parse(line) as AttemptResult);
      } catch (e) {
        next.reject(new Error(`oracle sent a line that is not JSON: ${line.slice(0, 200)} (${String(e)})`));
      }
    });
    this.proc.stderr.on('data', (chunk: Buffer) => {
      this.stderr.push(chunk.toString());
      if (this.stderr.length > 50) this.stderr.shift();
    });
    const fail = (why: string) => {
      this.failure ??= new Error(`${why}; stderr tail:\n${this.stderr.join('').slice(-2000)}`);
      for (const w of this.waiting.splice(0)) w.reject(this.failure);
    };
    this.proc.on('error', (e) => fail(`oracle ${path} failed to start: ${e.message}`));
    this.proc.on('exit', (code, signal) => fail(`oracle exited (code ${code}, signal ${signal})`));
    this.proc.stdin.on('error', (e) => fail(`writing to the oracle: ${e.message}`));
  }

  /** Sends one case; resolves with its result. Calls may overlap: answers come back in order. */
  run(oracleCase: unknown): Promise<AttemptResult> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.proc.stdin.write(`${JSON.stringify(oracleCase)}\n`);
    });
  }

  /** Closes stdin and waits for the process to end. */
  async close(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const ended = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    this.proc.stdin.end();
    await ended;
  }
}
