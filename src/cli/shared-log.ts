// Results the worker threads of one pool give each other (analyze's ResultExchange):
// an append-only log of (key, value) records in a SharedArrayBuffer, written under
// a lock and read without one, so a worker in the middle of a task (a synchronous
// simulation) reads what the others published without waiting for an event loop.
// A full log takes no more records; readers then compute the value themselves.

import { deserialize, serialize } from 'node:v8';
import type { LoadedInput } from '../io/load.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import type { ResultExchange } from '../analyze/check.js';

/** Int32 slots before the records: the lock and where the records end. */
const LOCK = 0;
const END = 1;
const HEADER_BYTES = 8;

/** 64 MB: a 1,000-node check publishes well under 1 MB of verdicts. */
export const SHARED_LOG_BYTES = 64 * 1024 * 1024;

export function sharedLogBuffer(bytes = SHARED_LOG_BYTES): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(bytes);
  Atomics.store(new Int32Array(buffer, 0, 2), END, HEADER_BYTES);
  return buffer;
}

export class SharedLog implements ResultExchange {
  private readonly header: Int32Array;
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  /** Where this thread's reading stopped. */
  private read = HEADER_BYTES;
  private readonly known = new Map<string, unknown>();

  constructor(
    buffer: SharedArrayBuffer,
    readonly input: LoadedInput,
    readonly instanceTypes: readonly InstanceType[],
  ) {
    this.header = new Int32Array(buffer, 0, 2);
    this.bytes = new Uint8Array(buffer);
    this.view = new DataView(buffer);
  }

  get(key: string): unknown {
    const end = Atomics.load(this.header, END);
    while (this.read < end) {
      const length = this.view.getUint32(this.read);
      const [k, v] = deserialize(this.bytes.subarray(this.read + 4, this.read + 4 + length)) as [string, unknown];
      this.known.set(k, v);
      this.read += 4 + length;
    }
    return this.known.get(key);
  }

  set(key: string, value: unknown): void {
    this.known.set(key, value);
    const record = serialize([key, value]);
    while (Atomics.compareExchange(this.header, LOCK, 0, 1) !== 0) Atomics.wait(this.header, LOCK, 1, 1);
    try {
      const at = Atomics.load(this.header, END);
      if (at + 4 + record.length > this.bytes.length) return;
      this.view.setUint32(at, record.length);
      this.bytes.set(record, at + 4);
      // Published last: a reader that sees the new end sees the record before it.
      Atomics.store(this.header, END, at + 4 + record.length);
    } finally {
      Atomics.store(this.header, LOCK, 0);
      Atomics.notify(this.header, LOCK, 1);
    }
  }
}
