// The detached documents (io/detached-source.ts) serialized once into shared memory,
// as soon as they are made: every worker reads the same bytes, and the main thread
// keeps those bytes rather than the documents themselves, which as objects take about
// twice the memory and would stay for the whole run.

import { deserialize, serialize } from 'node:v8';
import type { DetachedSource } from '../io/detached-source.js';

/** `value` serialized (structured clone's format) into shared memory, which every worker reads without a copy per worker. */
export function serializeShared(value: unknown): SharedArrayBuffer {
  const bytes = serialize(value);
  const out = new SharedArrayBuffer(bytes.length);
  new Uint8Array(out).set(bytes);
  return out;
}

export const packSources = (sources: readonly DetachedSource[]): SharedArrayBuffer => serializeShared(sources);

export const unpackSources = (packed: SharedArrayBuffer): DetachedSource[] => deserialize(new Uint8Array(packed)) as DetachedSource[];
