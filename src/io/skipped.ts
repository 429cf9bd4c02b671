// Objects berth reads past (kinds it does not model): what `berth check` needs to
// say which of them create pods it cannot see, and to summarize the skipped kinds.

import type { RawObject } from './objects.js';

export interface SkippedObject {
  readonly kind: string;
  readonly apiVersion: string;
  /** '' for cluster-scoped objects or when the object does not say. */
  readonly namespace: string;
  readonly name: string;
}

export function skippedObject(raw: RawObject): SkippedObject {
  const meta = (raw.value['metadata'] ?? {}) as { namespace?: unknown; name?: unknown };
  return {
    kind: raw.kind,
    apiVersion: raw.apiVersion,
    namespace: typeof meta.namespace === 'string' ? meta.namespace : '',
    name: typeof meta.name === 'string' ? meta.name : '',
  };
}
