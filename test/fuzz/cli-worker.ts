// Worker thread of the CLI fuzzer: runs one berth command line in-process per
// message and answers with its exit code and what it wrote. Living in a worker
// lets the harness give up on an input that runs too long.

import { parentPort } from 'node:worker_threads';
import { usePlainEnvironment } from '../../src/cli/plain-env.js';
import { runCli } from '../../src/cli/program.js';
import { currentThreadId } from './thread-cpu.js';

export interface WorkerRequest {
  readonly argv: readonly string[];
}
export interface WorkerReply {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** What escaped runCli itself: must never happen. */
  readonly thrown?: string;
}

const MAX_KEPT = 64 * 1024;

/**
 * The first message: the CLI's modules are loaded (seconds under tsx on a busy machine),
 * which no input's budget should pay for; `tid` is this thread's id, whose CPU time the
 * harness reads for the budget.
 */
export interface ReadyMessage {
  readonly ready: true;
  readonly tid: number | undefined;
}

function capture(stream: NodeJS.WriteStream, into: string[]): () => void {
  const original = stream.write.bind(stream);
  stream.write = ((chunk: unknown) => {
    const s = String(chunk);
    if (into.reduce((n, c) => n + c.length, 0) < MAX_KEPT) into.push(s);
    return true;
  }) as typeof stream.write;
  return () => {
    stream.write = original;
  };
}

parentPort!.on('message', (req: WorkerRequest) => {
  void (async () => {
    const out: string[] = [];
    const err: string[] = [];
    const restore = [capture(process.stdout, out), capture(process.stderr, err)];
    let reply: WorkerReply;
    try {
      const code = await runCli(['node', 'berth', ...req.argv]);
      reply = { code, stdout: out.join(''), stderr: err.join('') };
    } catch (e) {
      reply = { code: -1, stdout: out.join(''), stderr: err.join(''), thrown: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    } finally {
      for (const r of restore) r();
    }
    parentPort!.postMessage(reply);
  })();
});

usePlainEnvironment(); // as the CLI's entry point does
parentPort!.postMessage({ ready: true, tid: currentThreadId() } satisfies ReadyMessage);
