import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { stringify } from 'yaml';
import { readSource } from './json-text.js';
import { readPlainYaml } from './plain-yaml.js';
import { parseSource } from './yaml-source.js';

const valuesOf = (text: string) => readPlainYaml({ name: 't.yaml', text })?.documents.map((d) => [d.index, d.value]);

/** The YAML parser's reading of `text`: its documents' values, and that it had nothing to say. */
function parserValues(text: string) {
  const parsed = parseSource({ name: 't.yaml', text });
  assert.deepEqual(parsed.diagnostics, [], text);
  return parsed.documents.map((d) => [d.index, d.value]);
}

describe('readPlainYaml reads as the YAML parser does', () => {
  const cases: Record<string, string> = {
    'a kubectl List in block style': 'apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n    labels:\n      app: web\n  spec:\n    containers:\n    - name: c\n      args:\n      - --port=80\n      - -v\nkind: List\n',
    'one-line flow collections': 'items:\n- {kind: Node, metadata: {name: n0, labels: {a: b}}, status: {allocatable: {cpu: \'8\', pods: "110"}}, x: [1, 2.5, [], {}]}\n',
    "go-yaml v2's scalars": 'a: yes\nb: off\nc: ~\nd: 0x10\ne: 012\nf: 1_000\ng: 1e3\nh: e1\ni: "on"\nj: 2025-03-01T09:12:44Z\nk: -1\nl: .5\nm: null\n',
    'comments and blank lines': '# head\na: 1 # one\n\n# between\nb:\n  # inside\n  c: d\n',
    'documents': '---\na: 1\n---\nb: 2\n---\n',
    'comments before the first marker': '# c\n---\na: 1\n',
    'a list at its key\'s column, then a key': 'a:\n- 1\n- x: y\n  z: w\nb: 2\n',
    'empty values': 'a:\nb: {}\nc: []\nd:\n-\n- null\n',
    'literal block scalars': 'a: |\n  line 1\n\n    indented\nb: |-\n  kept\n  together\nc: 1\n',
    'quoted scalars': 'a: \'it\'\'s\'\nb: "tab\\tnew\\nline \\u00e9 \\x41 \\"q\\" \\\\"\n"k: x": 1\n\'y\': 2\n',
    'a quoted scalar folded over lines': "a:\n  message: '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated\n    taint.\n\n    preemption: not helpful'\n  b: \"x\n    y\"\n",
    'a plain scalar folded over lines': 'a: one two\n  three\n\n  four\nb: 1\n',
    'keys with colons and dots': 'f:metadata:\n  .: {}\n  f:labels: {f:app: {}}\nhttp://x: y\n',
    'a value with a colon': 'image: nginx:1.2\nurl: http://a/b\n',
  };
  for (const [name, text] of Object.entries(cases)) {
    test(name, () => {
      const fast = valuesOf(text);
      assert.ok(fast, 'read here');
      assert.deepEqual(fast, parserValues(text));
    });
  }
});

describe('readPlainYaml leaves to the YAML parser', () => {
  const cases: Record<string, string> = {
    'an anchor and an alias': 'a: &x 1\nb: *x\n',
    'a tag': 'a: !!str 1\n',
    'a merge key': 'a: {x: 1}\nb:\n  <<: {x: 1}\n',
    'a key written twice': 'a: 1\na: 2\n',
    'a key written twice in a flow mapping': 'a: {x: 1, x: 2}\n',
    'a key that is not a string': '1: a\n',
    '.inf, which JSON cannot hold': 'a: .inf\n',
    'a tab': 'a:\tb\n',
    'a control character': 'a: b\x01\n',
    'a flow collection over lines': 'a: {x: 1,\n  y: 2}\n',
    'an empty document between two': 'a: 1\n---\n---\nb: 2\n',
    'an empty text': '# nothing\n',
    'a folded block scalar': 'a: >\n  x\n',
    'a bad indentation': 'a:\n  b: 1\n c: 2\n',
    'a mapping after a scalar': 'a: b\n  c: d\n',
    'a Helm template': 'a: {{ .Values.x }}\n',
    'a directive': '%YAML 1.1\n---\na: 1\n',
    'CRLF line ends': 'a: 1\r\nb: 2\r\n',
  };
  for (const [name, text] of Object.entries(cases)) test(name, () => assert.equal(valuesOf(text), undefined));
});

/** Every path into `value` (and one that is not there), under `prefix`. */
function pathsOf(value: unknown, prefix: (string | number)[]): (string | number)[][] {
  const out = [prefix, [...prefix, 'absent']];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}

/** Positions, at values and at keys, of every path into each document of `text` read here, against the YAML parser's. */
function samePositions(text: string): void {
  const fast = readPlainYaml({ name: 't.yaml', text })!.documents;
  const parsed = parseSource({ name: 't.yaml', text }).documents;
  fast.forEach((doc, i) => {
    for (const path of pathsOf(doc.value, [])) {
      for (const at of ['value', 'key'] as const) assert.deepEqual(doc.locate(path, at), parsed[i]!.locate(path, at), `${at} of ${JSON.stringify(path)} in\n${text}`);
    }
  });
}

test("positions in a text read here are the YAML parser's", () => {
  const text = 'items:\n- {kind: Pod, metadata: {name: a}}\n- kind: Pod\n  metadata:\n    name: b\n';
  const [doc] = readSource({ name: 't.yaml', text }).documents;
  const [want] = parseSource({ name: 't.yaml', text }).documents;
  for (const path of [['items', 0, 'metadata', 'name'], ['items', 1, 'metadata', 'name'], ['items', 1, 'metadata']]) assert.deepEqual(doc!.locate(path), want!.locate(path));
});

test("every YAML file of the repository read here gives the YAML parser's values", () => {
  const files = execFileSync('git', ['ls-files', '*.yaml', '*.yml'], { encoding: 'utf8' }).trim().split('\n');
  let read = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const fast = readPlainYaml({ name: file, text });
    if (!fast) continue;
    read++;
    const parsed = parseSource({ name: file, text });
    assert.deepEqual(parsed.diagnostics, [], file);
    assert.deepEqual(fast.documents.map((d) => [d.index, d.value]), parsed.documents.map((d) => [d.index, d.value]), file);
    samePositions(text);
  }
  assert.ok(read > files.length / 2, `${read} of ${files.length} read here`);
});

/** A seeded generator (mulberry32), so a failure repeats. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['a', 'name', 'app.kubernetes.io/name', 'f:spec', '.', '-x', '--port=80', 'yes', 'on', 'null', '~', '0x1F', '012', '1_0', '1e3', 'e1', '.5', '-', 'a: b', 'a #b', "it's", 'say "hi"', 'x:y', '', ' lead', 'trail ', 'é ü', '[x]', '{y}', 'a,b', '#', '*', '&a', '!t', '|', '>', '%', '@', '`', '?', 'http://h:80/p', '2025-03-01T09:12:44Z', 'multi\nline', 'tab\there', 'long words that go on and on past the width where lines wrap when written out by a YAML writer'];

function value(next: () => number, depth: number): unknown {
  const r = next();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  if (depth > 4 || r < 0.45) {
    const s = next();
    if (s < 0.6) return pick(WORDS);
    if (s < 0.75) return Math.floor(next() * 2000) - 1000;
    if (s < 0.85) return Math.round(next() * 1000) / 8;
    return s < 0.95 ? next() < 0.5 : null;
  }
  const n = Math.floor(next() * 4);
  if (r < 0.7) return Array.from({ length: n }, () => value(next, depth + 1));
  return Object.fromEntries(Array.from({ length: n }, () => [pick(WORDS.filter((w) => w !== '')), value(next, depth + 1)]));
}

test("random documents, as YAML writers lay them out: where read here, the YAML parser's values", () => {
  const next = random(21);
  let read = 0;
  const runs = 400;
  for (let i = 0; i < runs; i++) {
    const doc = { apiVersion: 'v1', kind: 'List', items: Array.from({ length: 3 }, () => value(next, 0)) };
    const text = stringify(doc, { version: '1.1', lineWidth: 20 + Math.floor(next() * 60), minContentWidth: 0, flowCollectionPadding: false, collectionStyle: next() < 0.3 ? 'flow' : 'any', defaultStringType: next() < 0.5 ? 'PLAIN' : 'QUOTE_SINGLE', indentSeq: next() < 0.5 });
    const fast = valuesOf(text);
    if (!fast) continue;
    read++;
    assert.deepEqual(fast, parserValues(text), text);
    // A List's items are located by parsing their own lines only.
    samePositions(text);
  }
  assert.ok(read > runs / 4, `${read} of ${runs} read here`);
});
