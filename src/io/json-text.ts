// A file that is one JSON value (`kubectl get … -o json > dump.json`) read with
// JSON.parse, positions worked out only when a diagnostic asks for one. The YAML
// parser keeps a node with a source range for every value, which is what made a
// 150,000-pod dump (470 MB) run out of memory. Anything the YAML path would report on
// is left to it, so messages stay the same: text that is not exactly one JSON value,
// characters go-yaml refuses, nesting past MAX_NESTING, a number with an exponent
// (go-yaml and JSON.parse disagree past a float's range) and, when fields are
// validated, a key written twice in one object.

import { dataSource } from './json-source.js';
import { readPlainYaml } from './plain-yaml.js';
import type { ValidationMode } from './strict-fields.js';
import { MAX_NESTING, NOT_PRINTABLE, parseSource, type ParsedSource, type SourceInput } from './yaml-source.js';

/** The input parsed as JSON when it is plain JSON the YAML path would read without a word; undefined otherwise. */
export function parseJsonText(input: SourceInput, validate: ValidationMode = 'strict'): ParsedSource | undefined {
  const text = input.text;
  const first = text.charCodeAt(skipSpace(text, 0));
  if (first !== 0x7b && first !== 0x5b) return undefined;
  if (!plainJson(text, validate !== 'ignore') || NOT_PRINTABLE.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return dataSource(input.name, value, 'json', () => text);
}

/** An input's documents: read as JSON when parseJsonText can, as plain YAML when readPlainYaml can, by the YAML parser otherwise. */
export function readSource(input: SourceInput, validate: ValidationMode = 'strict'): ParsedSource {
  return parseJsonText(input, validate) ?? readPlainYaml(input) ?? parseSource(input, validate);
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * One scan of the text outside strings: false at nesting past MAX_NESTING, at an
 * exponent, or (with `keys`) at a key repeated within one object. The text need not
 * be valid JSON; JSON.parse decides that afterwards.
 */
function plainJson(text: string, keys: boolean): boolean {
  // One entry per open collection: the keys seen so far for an object (made at its second key), null for an array.
  const open: (Set<string> | string | undefined | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      if (keys && expectKey) {
        const raw = text.slice(start, i + 1);
        const key = raw.includes('\\') ? decodeKey(raw) : raw;
        if (key === undefined) return true; // not JSON: JSON.parse says so
        const top = open.length - 1;
        const seen = open[top];
        if (seen === undefined) open[top] = key;
        else if (typeof seen === 'string') {
          if (seen === key) return false;
          open[top] = new Set([seen, key]);
        } else if (seen !== null) {
          if (seen.has(key)) return false;
          seen.add(key);
        }
      }
      expectKey = false;
    } else if (c === 0x7b || c === 0x5b) {
      if (open.length === MAX_NESTING) return false;
      open.push(c === 0x7b ? undefined : null);
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
    } else if (c === 0x2c) {
      expectKey = open.length > 0 && open[open.length - 1] !== null;
    } else if ((c === 0x65 || c === 0x45) && (isDigit(text.charCodeAt(i - 1)) || text.charCodeAt(i - 1) === 0x2e)) {
      return false;
    }
  }
  return true;
}

/** A key with escapes, as the string it stands for (quotes kept off); undefined when it is not a JSON string. */
function decodeKey(raw: string): string | undefined {
  try {
    return `"${JSON.parse(raw) as string}"`;
  } catch {
    return undefined;
  }
}
