// The NodePool hash Karpenter stamps on each NodeClaim (karpenter.sh/nodepool-hash) and
// compares with its NodePool's to find static drift.
//
// Karpenter v1.14.1 (pkg/apis/v1 NodePool.Hash, hash version "v3") hashes
// spec.template with mitchellh/hashstructure v2 (FormatV2, SlicesAsSets,
// IgnoreZeroValue, ZeroNil) and prints the uint64 in decimal. hashstructure walks
// the Go value by reflection; what matters for the result:
//   - strings: FNV-1 (not 1a) 64 of the bytes; integers: FNV-1 of 8 little-endian
//     bytes; a time.Time: FNV-1 of its MarshalBinary bytes.
//   - a struct starts from the hash of its Go type name; each exported field that is
//     not tagged hash:"ignore" and not the zero value is folded in, in declaration
//     order, as finish(h XOR ordered(hash(fieldName), hash(value))). Order matters.
//   - a map: finish(XOR over entries of ordered(hash(key), hash(value))).
//   - a slice (SlicesAsSets): XOR of its elements, without finish; a nil slice is a
//     zero field and skipped, an empty one ([] written) hashes to 0 and is not.
//   - pointers are followed; a nil pointer field is zero and skipped.
// Requirements (hash:"ignore") and NillableDuration.Raw (hash:"ignore") do not count.
// Presence matters as in Go: `labels: {}` is a non-nil empty map and changes the hash.

import { parseGoDuration } from './go-duration.js';
import type { NodePoolManifest, NodePoolTaintManifest } from './nodepool.js';

export const NODEPOOL_HASH_VERSION = 'v3';
export const NODEPOOL_HASH_ANNOTATION = 'karpenter.sh/nodepool-hash';
export const NODEPOOL_HASH_VERSION_ANNOTATION = 'karpenter.sh/nodepool-hash-version';

const FNV_OFFSET = 14695981039346656037n;
const FNV_PRIME = 1099511628211n;
const MASK = (1n << 64n) - 1n;

function fnv1(bytes: Uint8Array): bigint {
  let h = FNV_OFFSET;
  for (const b of bytes) h = ((h * FNV_PRIME) & MASK) ^ BigInt(b);
  return h;
}

function le64(...values: bigint[]): Uint8Array {
  const out = new Uint8Array(8 * values.length);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setBigUint64(8 * i, BigInt.asUintN(64, v), true));
  return out;
}

const ordered = (a: bigint, b: bigint): bigint => fnv1(le64(a, b));
const finish = (a: bigint): bigint => fnv1(le64(a));
const hashString = (s: string): bigint => fnv1(new TextEncoder().encode(s));

/** A Go value as hashstructure sees it; `undefined` fields are nil pointers, maps and slices. */
type GoValue =
  | { readonly k: 'ptr'; readonly to: GoValue }
  | { readonly k: 'string'; readonly v: string }
  | { readonly k: 'int64'; readonly v: bigint }
  | { readonly k: 'time'; readonly binary: Uint8Array }
  | { readonly k: 'slice'; readonly items: readonly GoValue[] }
  | { readonly k: 'map'; readonly entries: Readonly<Record<string, string>> }
  | { readonly k: 'struct'; readonly name: string; readonly fields: readonly (readonly [string, GoValue | undefined])[] };

/** reflect.Value.IsZero: a present pointer, slice or map is never zero, even one to a zero value. */
function isZero(v: GoValue | undefined): boolean {
  if (v === undefined) return true;
  switch (v.k) {
    case 'string':
      return v.v === '';
    case 'int64':
      return v.v === 0n;
    case 'ptr':
    case 'time':
    case 'slice':
    case 'map':
      return false;
    case 'struct':
      return v.fields.every(([, f]) => isZero(f));
  }
}

function hashValue(v: GoValue): bigint {
  switch (v.k) {
    case 'ptr':
      return hashValue(v.to);
    case 'string':
      return hashString(v.v);
    case 'int64':
      return fnv1(le64(v.v));
    case 'time':
      return fnv1(v.binary);
    case 'slice':
      return v.items.reduce((h, item) => h ^ hashValue(item), 0n);
    case 'map': {
      let h = 0n;
      for (const [key, value] of Object.entries(v.entries)) h ^= ordered(hashString(key), hashString(value));
      return finish(h);
    }
    case 'struct': {
      let h = hashString(v.name);
      for (const [name, field] of v.fields) {
        if (field === undefined || isZero(field)) continue;
        h = finish(h ^ ordered(hashString(name), hashValue(field)));
      }
      return h;
    }
  }
}

// ---------------------------------------------------------------------------------------
// spec.template as the Go types of karpenter.sh/v1 hold it (fields in declaration order).

const str = (v: string | undefined): GoValue | undefined => (v === undefined ? undefined : { k: 'string', v });
const strMap = (m: Readonly<Record<string, string>> | null | undefined): GoValue | undefined => (m == null ? undefined : { k: 'map', entries: m });

/** A Go duration string as metav1.Duration / NillableDuration hold it (nanoseconds). */
const nanos = (text: string): GoValue => ({ k: 'int64', v: parseGoDuration(text) });
const ptr = (to: GoValue): GoValue => ({ k: 'ptr', to });

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** Whether a metav1.Time field holds an RFC 3339 time the API server accepts. */
export function isRfc3339(text: string): boolean {
  const m = RFC3339.exec(text);
  return m !== null && !Number.isNaN(Date.parse(`${m[1]}${m[3]}`));
}

/** Seconds between Go's internal epoch (year 1) and the Unix epoch. */
const UNIX_TO_INTERNAL = 62135596800n;

/**
 * metav1.Time as Karpenter's controller holds it: RFC 3339 parsed, then moved to the
 * local zone, which is UTC in Karpenter's container image (offset 0, written as 0 rather
 * than UTC's -1). time.Time.MarshalBinary then writes version 1, seconds since year 1,
 * nanoseconds and the zone offset in minutes, big-endian.
 */
function metaTime(text: string): GoValue {
  const m = RFC3339.exec(text);
  const ms = m ? Date.parse(`${m[1]}${m[3]}`) : NaN;
  if (!m || Number.isNaN(ms)) throw new Error(`timeAdded ${JSON.stringify(text)} is not an RFC 3339 time (validate the NodePool first)`);
  const seconds = BigInt(ms / 1000) + UNIX_TO_INTERNAL;
  const frac = m[2] ? m[2].slice(1, 10).padEnd(9, '0') : '0';
  const binary = new Uint8Array(15);
  const view = new DataView(binary.buffer);
  view.setUint8(0, 1);
  view.setBigInt64(1, seconds, false);
  view.setInt32(9, Number(frac), false);
  view.setInt16(13, 0, false);
  return { k: 'struct', name: 'Time', fields: [['Time', { k: 'time', binary }]] };
}

function taint(t: NodePoolTaintManifest): GoValue {
  return {
    k: 'struct',
    name: 'Taint',
    fields: [
      ['Key', str(t.key)],
      ['Value', str(t.value)],
      ['Effect', str(t.effect)],
      ['TimeAdded', t.timeAdded == null ? undefined : ptr(metaTime(t.timeAdded))],
    ],
  };
}

const taints = (list: readonly NodePoolTaintManifest[] | null | undefined): GoValue | undefined => (list == null ? undefined : { k: 'slice', items: list.map(taint) });

/**
 * Karpenter's NodePool.Hash() of a NodePool as the API server stores it: `expireAfter`
 * takes the CRD default (720h) when absent, "Never" is a nil duration.
 */
export function nodePoolHash(m: NodePoolManifest): string {
  const meta = m.spec.template.metadata;
  const t = m.spec.template.spec;
  const expireAfter = t.expireAfter ?? '720h';
  const ref = t.nodeClassRef;
  const template: GoValue = {
    k: 'struct',
    name: 'NodeClaimTemplate',
    fields: [
      ['ObjectMeta', { k: 'struct', name: 'ObjectMeta', fields: [['Labels', strMap(meta?.labels)], ['Annotations', strMap(meta?.annotations)]] }],
      [
        'Spec',
        {
          k: 'struct',
          name: 'NodeClaimTemplateSpec',
          fields: [
            ['Taints', taints(t.taints)],
            ['StartupTaints', taints(t.startupTaints)],
            ['NodeClassRef', ref == null ? undefined : ptr({ k: 'struct', name: 'NodeClassReference', fields: [['Kind', str(ref.kind)], ['Name', str(ref.name)], ['Group', str(ref.group)]] })],
            ['TerminationGracePeriod', t.terminationGracePeriod == null ? undefined : ptr({ k: 'struct', name: 'Duration', fields: [['Duration', nanos(t.terminationGracePeriod)]] })],
            ['ExpireAfter', { k: 'struct', name: 'NillableDuration', fields: [['Duration', expireAfter === 'Never' ? undefined : ptr(nanos(expireAfter))]] }],
          ],
        },
      ],
    ],
  };
  return hashValue(template).toString();
}
