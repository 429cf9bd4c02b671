// metadata.ownerReferences, compiled once for every kind the model keeps them on (pods, claims).

import type { OwnerReferenceManifest } from './manifest.js';

export interface OwnerReference {
  /** '' when the manifest leaves it out. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller: boolean;
}

/** metadata.ownerReferences as the model keeps them (pods and claims alike). */
export function compileOwnerReferences(refs: readonly OwnerReferenceManifest[] | undefined): OwnerReference[] {
  return (refs ?? []).map((o) => ({ apiVersion: o.apiVersion ?? '', kind: o.kind, name: o.name, uid: o.uid ?? '', controller: o.controller ?? false }));
}
