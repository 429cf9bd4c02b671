// The page's side of the engine worker: one run at a time, with a time budget and
// Cancel. The engine's loops are synchronous, so stopping a run means ending the
// worker; a fresh one is started for the next run.

import * as Comlink from 'comlink';
import type { EngineApi } from './worker.js';

export type RunEnd<T> = { kind: 'done'; value: T; ms: number } | { kind: 'cancelled' } | { kind: 'over-budget'; budgetMs: number } | { kind: 'failed'; message: string };

export class EngineClient {
  private worker!: Worker;
  private api!: Comlink.Remote<EngineApi>;
  private stop: ((end: RunEnd<never>) => void) | undefined;

  constructor() {
    this.start();
  }

  private start(): void {
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    this.api = Comlink.wrap<EngineApi>(this.worker);
  }

  get busy(): boolean {
    return this.stop !== undefined;
  }

  /** Runs `f` on the worker; it ends early as 'over-budget' after `budgetMs`, or 'cancelled' by cancel(). */
  async run<T>(f: (api: Comlink.Remote<EngineApi>) => Promise<T>, budgetMs: number): Promise<RunEnd<T>> {
    this.cancel();
    const started = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopped = new Promise<RunEnd<never>>((resolve) => {
      this.stop = resolve;
      timer = setTimeout(() => this.end({ kind: 'over-budget', budgetMs }), budgetMs);
    });
    const work = f(this.api).then(
      (value): RunEnd<T> => ({ kind: 'done', value, ms: Math.round(performance.now() - started) }),
      (e: unknown): RunEnd<T> => ({ kind: 'failed', message: e instanceof Error ? e.message : String(e) }),
    );
    try {
      return await Promise.race([work, stopped]);
    } finally {
      clearTimeout(timer);
      this.stop = undefined;
    }
  }

  /** Stops the run in progress, if any. */
  cancel(): void {
    this.end({ kind: 'cancelled' });
  }

  private end(end: RunEnd<never>): void {
    const stop = this.stop;
    if (!stop) return;
    this.stop = undefined;
    this.worker.terminate();
    this.start();
    stop(end);
  }

  /**
   * A call outside the run/cancel cycle (the editor's diagnostics, sorting a dropped
   * file): a worker a Cancel ends never answers it, and callers drop stale answers.
   */
  request<T>(f: (api: Comlink.Remote<EngineApi>) => Promise<T>): Promise<T> {
    return f(this.api);
  }
}

export { Comlink };
