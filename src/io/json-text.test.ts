import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseJsonText, readSource } from './json-text.js';
import { parseSource } from './yaml-source.js';

const input = (text: string) => ({ name: 'dump.json', text });

describe('parseJsonText', () => {
  test('a JSON dump is read by JSON.parse, with the positions the YAML parser gives', () => {
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ kind: 'Pod', metadata: { name: 'a' } }] }, null, 4);
    const fast = parseJsonText(input(text))!;
    const yaml = parseSource(input(text));
    assert.deepEqual(fast.documents.map((d) => d.value), yaml.documents.map((d) => d.value));
    assert.deepEqual(fast.diagnostics, []);
    assert.deepEqual(fast.documents[0]!.locate(['items', 0, 'metadata', 'name']), yaml.documents[0]!.locate(['items', 0, 'metadata', 'name']));
  });

  // Each of these the YAML path reports on (or reads differently), so it is left to it.
  const left: [string, string, ('strict' | 'ignore')?][] = [
    ['YAML', 'kind: Pod\n'],
    ['a JSON stream', '{"a": 1}\n{"a": 2}\n'],
    ['a key written twice', '{"a": 1, "b": {"c": 1, "c": 2}}'],
    ['a key written twice, once escaped', '{"a": 1, "\\u0061": 2}'],
    ['nesting past 256 levels', `{"a": ${'['.repeat(256)}${']'.repeat(256)}}`],
    ['an exponent (1e400 is a string to go-yaml, Infinity to JSON.parse)', '{"a": 1e400}'],
    ['a character go-yaml refuses', '{"a": "\u0085x\u0080"}'],
    ['invalid JSON', '{"a": 1,}'],
    ['a byte-order mark', '\ufeff{"a": 1}'],
  ];
  for (const [name, text] of left) test(`left to the YAML parser: ${name}`, () => assert.equal(parseJsonText(input(text)), undefined));

  test('a key written twice is read as JSON when fields are not validated (the last one wins, as on the YAML path)', () => {
    const text = '{"a": 1, "a": 2}';
    assert.deepEqual(parseJsonText(input(text), 'ignore')!.documents[0]!.value, parseSource(input(text), 'ignore').documents[0]!.value);
  });

  test('nesting of exactly 256 levels is read as JSON', () => {
    const text = `${'['.repeat(256)}${']'.repeat(256)}`;
    assert.ok(parseJsonText(input(text)));
    assert.deepEqual(parseSource(input(text)).diagnostics, []);
  });

  test('readSource: the YAML path reports what JSON.parse would not', () => {
    const d = readSource(input('{"metadata": {"name": "a", "name": "b"}}')).diagnostics;
    assert.deepEqual(d.map((x) => `${x.line}:${x.column} ${x.field}: ${x.message}`), ['1:28 metadata.name: duplicate field "name"']);
  });

  test('any JSON value it reads is the value the YAML path reads, without a diagnostic there', () => {
    const key = fc.string({ unit: fc.constantFrom('a', 'b', '"', '\\', ' ', 'é', '/', ':', '-', '\u2028', '\t'), maxLength: 3 }).filter((k) => k !== '<<');
    const scalar = fc.oneof(fc.constantFrom(null, true, false, 0, -0, 1.5, -1, 2 ** 53, 2 ** 64, 1e21, 0.1), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 6 }));
    const value = fc.letrec((tie) => ({ v: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(key, tie('v'), { maxKeys: 4 })) })).v;
    const document = fc.oneof(fc.dictionary(key, value, { maxKeys: 4 }), fc.array(value, { maxLength: 4 }));
    fc.assert(
      fc.property(document, fc.constantFrom(undefined, 2), (v, indent) => {
        const text = JSON.stringify(v, null, indent);
        const fast = parseJsonText(input(text));
        if (!fast) return;
        const yaml = parseSource(input(text));
        assert.deepEqual(yaml.diagnostics, []);
        assert.deepEqual(fast.documents[0]!.value, yaml.documents[0]!.value);
      }),
      { numRuns: 1000 },
    );
  });
});
