// The detached documents (io/detached-source.ts) serialized once into shared memory,
// as soon as they are made: every worker reads the same bytes, and the main thread
// keeps those bytes rather than the documents themselves, which as objects take about
// twice the memory and would stay for the whole run.

import { deserialize, serialize } from 'node:v8';
import type { DetachedSource } from '../io/detached-source.js';

export function packSources(sources: readonly DetachedSource[]): SharedArrayBuffer {
  const bytes = serialize(sources);
  const out = new SharedArrayBuffer(bytes.length);
  new Uint8Array(out).set(bytes);
  return out;
}

export const unpackSources = (packed: SharedArrayBuffer): DetachedSource[] => deserialize(new Uint8Array(packed)) as DetachedSource[];
