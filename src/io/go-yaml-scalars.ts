// Scalars read as Kubernetes reads them. kubectl and the API server turn YAML into
// JSON with sigs.k8s.io/yaml, which resolves plain scalars with go-yaml v2: YAML 1.1
// booleans (`yes`, `on`, `n`), nulls (`~`, `null`), integers as Go's strconv reads
// them after dropping every `_` (`0x10`, `0o17`, `012`, `0b101`, `1_000`), floats
// only in the form [-+](.d|d[.d])[e[-+]d] (so `e1` and `1e` stay strings), and
// `.inf`/`.nan`, which JSON cannot hold (an error). Timestamps stay strings. Every
// row of conformance/yaml-scalars/testdata/scalars.json, made by the real parser,
// is checked in yaml-scalars.test.ts.

import type { ScalarTag, Tags } from 'yaml';

const TRUE = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const FALSE = new Set(['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
const NULL = new Set(['', '~', 'null', 'Null', 'NULL']);
const INFINITY = new Set(['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF']);
const NAN = new Set(['.nan', '.NaN', '.NAN']);

/** strconv.ParseInt / ParseUint with base 0: a sign, then 0x, 0o, 0b, a leading 0 (octal) or decimal digits. */
const GO_INT = /^([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|0([0-7]*)|([1-9][0-9]*))$/;
/** go-yaml v2's yamlStyleFloat. */
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** What strconv.ParseFloat accepts of a scalar starting with `.` (the only other way go-yaml reads a float). */
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** An integer as Go's ParseInt (or, unsigned and larger, ParseUint) reads `plain` with base 0; undefined if it does not. */
function goInt(plain: string): number | undefined {
  const m = GO_INT.exec(plain);
  if (!m) return undefined;
  const [, sign, hex, oct, bin, leadingZero, dec] = m;
  const magnitude = hex !== undefined ? BigInt(`0x${hex}`) : oct !== undefined ? BigInt(`0o${oct}`) : bin !== undefined ? BigInt(`0b${bin}`) : leadingZero !== undefined ? (leadingZero === '' ? 0n : BigInt(`0o${leadingZero}`)) : BigInt(dec!);
  const value = sign === '-' ? -magnitude : magnitude;
  if (value >= INT64_MIN && value <= INT64_MAX) return Number(value);
  return sign === '' && value <= UINT64_MAX ? Number(value) : undefined;
}

/** A finite float as strconv.ParseFloat reads it (out of range is an error there, so undefined here). */
function finite(text: string): number | undefined {
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** The number go-yaml v2 resolves a plain scalar to, or undefined when it stays a string (or is not a number at all). */
export function goYamlNumber(s: string): number | undefined {
  const first = s[0];
  if (first === '.') return DOT_FLOAT.test(s) ? finite(s) : undefined;
  if (first !== '+' && first !== '-' && !(first !== undefined && first >= '0' && first <= '9')) return undefined;
  const plain = s.replaceAll('_', '');
  const int = goInt(plain);
  if (int !== undefined) return int;
  return YAML_STYLE_FLOAT.test(plain) ? finite(plain) : undefined;
}

/** What goYamlPlainScalar gives for a scalar JSON cannot hold. */
export const NOT_JSON = Symbol('not JSON');

/** A plain scalar's value as go-yaml v2 resolves it; NOT_JSON for `.inf` and `.nan`, which Kubernetes refuses. */
export function goYamlPlainScalar(s: string): unknown {
  if (NULL.has(s)) return null;
  if (TRUE.has(s) || FALSE.has(s)) return TRUE.has(s);
  if (INFINITY.has(s) || NAN.has(s)) return NOT_JSON;
  return goYamlNumber(s) ?? s;
}

/** A RegExp whose test is a function: the yaml library picks a plain scalar's tag by calling `test`. */
class Matches extends RegExp {
  constructor(private readonly accepts: (s: string) => boolean) {
    super('');
  }

  override test(s: string): boolean {
    return this.accepts(s);
  }
}

const TAG = 'tag:yaml.org,2002:';

const nullTag: ScalarTag = { tag: `${TAG}null`, default: true, test: new Matches((s) => NULL.has(s)), resolve: () => null };
const boolTag: ScalarTag = { tag: `${TAG}bool`, default: true, test: new Matches((s) => TRUE.has(s) || FALSE.has(s)), resolve: (s) => TRUE.has(s) };
const notJsonTag: ScalarTag = {
  tag: `${TAG}float`,
  default: true,
  test: new Matches((s) => INFINITY.has(s) || NAN.has(s)),
  resolve: (s, onError) => {
    onError(`${s} is ${NAN.has(s) ? 'NaN' : 'an infinite number'}, which JSON cannot hold: Kubernetes refuses it (json: unsupported value)`);
    return s;
  },
};
const numberTag: ScalarTag = { tag: `${TAG}float`, default: true, test: new Matches((s) => goYamlNumber(s) !== undefined), resolve: (s) => goYamlNumber(s)! };

/** An explicitly tagged scalar (`!!int "10"`): resolved as if plain, and an error when that is not of the tag's type, as go-yaml says. */
function explicit(name: string, accepts: (v: unknown) => boolean): ScalarTag {
  return {
    tag: `${TAG}${name}`,
    resolve: (s, onError) => {
      const resolved = goYamlPlainScalar(s);
      const v = resolved === NOT_JSON ? s : resolved;
      if (!accepts(v)) onError(`cannot decode !!str \`${s}\` as a !!${name}`);
      return v;
    },
  };
}

const utf8 = new TextDecoder();

const explicitTags: ScalarTag[] = [
  explicit('int', (v) => typeof v === 'number' && Number.isInteger(v)),
  explicit('float', (v) => typeof v === 'number'),
  explicit('bool', (v) => typeof v === 'boolean'),
  explicit('null', (v) => v === null),
  // go-yaml decodes !!binary into a string of its bytes.
  {
    tag: `${TAG}binary`,
    resolve: (s, onError) => {
      try {
        return utf8.decode(Uint8Array.from(atob(s.replace(/\s+/g, '')), (c) => c.charCodeAt(0)));
      } catch {
        onError(`!!binary value contains invalid base64 data`);
        return s;
      }
    },
  },
  // A timestamp stays the string it is written as (go-yaml v2 keeps it a string for interface{} targets).
  { tag: `${TAG}timestamp`, resolve: (s) => s },
];

const KEPT = new Set([`${TAG}map`, `${TAG}seq`, `${TAG}str`, `${TAG}merge`]);

/** The yaml library's YAML 1.1 tags with every scalar resolver replaced by go-yaml v2's. */
export function goYamlV2Tags(tags: Tags): Tags {
  return [...tags.filter((t) => typeof t === 'object' && KEPT.has(t.tag)), nullTag, boolTag, notJsonTag, numberTag, ...explicitTags];
}
