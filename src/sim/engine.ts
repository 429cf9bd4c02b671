// The discrete-event loop: pops events in (time, seq) order, advances the clock to
// each, and runs its handler. Handlers schedule further events and append to the
// event log; with the same inputs and seed the log is identical byte for byte.

import { Rand } from '../model/rand.js';
import { SimClock } from './clock.js';
import { EventQueue } from './events.js';

/** One line of the event log: simulated time in ms, a type, and flat fields. */
export interface LogRecord {
  readonly t: number;
  readonly type: string;
  readonly [field: string]: unknown;
}

export interface RunResult {
  readonly eventsProcessed: number;
  /** 'limit' when the next event lies beyond `until`; 'empty' when nothing is left to do; 'stopped' when stop() was called. */
  readonly stoppedBy: 'limit' | 'empty' | 'stopped';
}

export class Engine {
  readonly clock = new SimClock();
  readonly log: LogRecord[] = [];
  readonly rand: Rand;
  private readonly queue = new EventQueue();
  private readonly observers: (() => void)[] = [];
  private stopRequested = false;

  constructor(seed = 0) {
    this.rand = new Rand(seed);
  }

  get now(): number {
    return this.clock.now;
  }

  get pendingEvents(): number {
    return this.queue.size;
  }

  /** Whether more events are queued at the current instant (an event scheduled at now runs after them). */
  get busyNow(): boolean {
    const next = this.queue.peek();
    return next !== undefined && next.time === this.clock.now;
  }

  /** Schedules `run` at absolute time `time` (not earlier than now). */
  at(time: number, type: string, run: () => void): void {
    if (!Number.isInteger(time)) throw new Error(`engine: event time must be an integer, got ${time}`);
    if (time < this.clock.now) throw new Error(`engine: event ${type} at ${time} is in the past (now ${this.clock.now})`);
    this.queue.push(time, type, run);
  }

  after(delayMs: number, type: string, run: () => void): void {
    this.at(this.clock.now + delayMs, type, run);
  }

  /** Runs after every event: where properties that must hold throughout a run are checked. */
  afterEach(observer: () => void): void {
    this.observers.push(observer);
  }

  /** Ends run() after the current event: for callers that already know what they ran the simulation for. */
  stop(): void {
    this.stopRequested = true;
  }

  record(type: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.log.push({ t: this.clock.now, type, ...fields });
  }

  /** Runs events with time <= until; the clock ends at `until` when stopped by the limit. */
  run(until: number): RunResult {
    let eventsProcessed = 0;
    for (;;) {
      const next = this.queue.peek();
      if (!next) {
        if (Number.isFinite(until)) this.clock.advanceTo(Math.max(this.clock.now, until));
        return { eventsProcessed, stoppedBy: 'empty' };
      }
      if (next.time > until) {
        this.clock.advanceTo(Math.max(this.clock.now, until));
        return { eventsProcessed, stoppedBy: 'limit' };
      }
      this.queue.pop();
      this.clock.advanceTo(next.time);
      next.run();
      for (const o of this.observers) o();
      eventsProcessed++;
      if (this.stopRequested) {
        this.stopRequested = false;
        return { eventsProcessed, stoppedBy: 'stopped' };
      }
    }
  }
}
