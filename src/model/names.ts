// Deterministic stand-ins for the names controllers generate. Kubernetes hashes a
// pod template with FNV-1a-32 and spells the number with a vowel-free alphabet
// (rand.SafeEncodeString); generated names end in 5 random characters of that
// alphabet. berth hashes a canonical JSON of the template instead of Go's object
// dump, and derives the 5 characters from a seed, so the same input always gives
// the same names (they will not equal a real cluster's names).

/** apimachinery's rand alphabet: no vowels, no 0/1/3 that read like letters. */
export const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export function fnv1a32(bytes: Uint8Array, seed = FNV_OFFSET): number {
  let h = seed >>> 0;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, FNV_PRIME) >>> 0;
  }
  return h;
}

/** JSON with object keys sorted at every level, so equal values always serialize the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** rand.SafeEncodeString: each character replaced by the alphabet letter at its code modulo 27. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const ch of s) out += SAFE_ALPHABET[ch.codePointAt(0)! % SAFE_ALPHABET.length];
  return out;
}

const utf8 = new TextEncoder();

/**
 * controller.ComputeHash's shape: FNV-1a-32 of the template, then the collision
 * count (when set) as 8 little-endian bytes, spelled in decimal through
 * SafeEncodeString — at most 10 characters.
 */
export function templateHash(template: unknown, collisionCount?: number): string {
  let h = fnv1a32(utf8.encode(canonicalJson(template)));
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv1a32(bytes, h);
  }
  return safeEncodeString(String(h));
}

/** Five alphabet characters derived from `seed` (what utilrand.String(5) makes at random). */
export function nameSuffix(seed: string): string {
  let h = fnv1a32(utf8.encode(seed));
  let out = '';
  // 27^5 < 2^32, so five base-27 digits of the hash are all meaningful.
  for (let i = 0; i < 5; i++) {
    out += SAFE_ALPHABET[h % SAFE_ALPHABET.length];
    h = Math.floor(h / SAFE_ALPHABET.length);
  }
  return out;
}

/** The API server keeps generated names within 63 characters: a longer base is cut to 58 before the suffix. */
const MAX_GENERATE_NAME_BASE = 63 - 5;

/**
 * A generateName result: `base` + a suffix derived from `seed`, re-derived with an
 * attempt counter if the name is already in `taken` (which it is added to).
 */
export function generatedName(base: string, seed: string, taken: Set<string>): string {
  const prefix = base.length > MAX_GENERATE_NAME_BASE ? base.slice(0, MAX_GENERATE_NAME_BASE) : base;
  for (let attempt = 0; ; attempt++) {
    const name = prefix + nameSuffix(attempt === 0 ? seed : `${seed}#${attempt}`);
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}
