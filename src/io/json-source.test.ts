import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { FieldPath } from '../model/errors.js';
import { stringify } from 'yaml';
import { dataSource } from './json-source.js';
import { parseSource } from './yaml-source.js';

/** Where the YAML parser and the JSON scanner put `path` of `text`: they must agree. */
function both(text: string, path: FieldPath, at: 'value' | 'key' = 'value') {
  const [yaml] = parseSource({ name: 'x.json', text }).documents;
  const json = dataSource('x.json', JSON.parse(text), 'json', () => text).documents[0]!;
  return { yaml: yaml!.locate(path, at), json: json.locate(path, at) };
}

describe('JsonLocator', () => {
  const text = `${JSON.stringify({ kind: 'List', items: [{ metadata: { name: 'a', 'we"ird': 1, labels: {} }, spec: { n: null, s: '', list: [1, [2, 3]] } }, { x: true }] }, null, 1)}\n`;
  const cases: { name: string; path: FieldPath; at?: 'key' }[] = [
    { name: 'the document', path: [] },
    { name: 'a scalar value', path: ['kind'] },
    { name: 'a list item', path: ['items', 1] },
    { name: 'a field of a list item', path: ['items', 0, 'metadata', 'name'] },
    { name: 'a key with an escape', path: ['items', 0, 'metadata', 'we"ird'] },
    { name: 'an empty mapping, at its key', path: ['items', 0, 'metadata', 'labels'] },
    { name: 'a null value, at its key', path: ['items', 0, 'spec', 'n'] },
    { name: 'an empty string, at the string', path: ['items', 0, 'spec', 's'] },
    { name: 'a nested list item', path: ['items', 0, 'spec', 'list', 1, 0] },
    { name: 'a missing field, at its parent', path: ['items', 0, 'spec', 'nope', 'deeper'] },
    { name: 'a missing list item, at the list', path: ['items', 9] },
    { name: 'a path through a scalar stops at the scalar', path: ['kind', 'x'] },
    { name: 'a field by its key', path: ['items', 0, 'metadata', 'name'], at: 'key' },
  ];
  for (const c of cases) {
    test(`${c.name}: where the YAML parser puts it`, () => {
      const { yaml, json } = both(text, c.path, c.at);
      assert.deepEqual(json, yaml);
    });
  }

  test('the text is read only when a position is asked for', () => {
    let reads = 0;
    const doc = dataSource('x.json', { a: 1 }, 'json', () => {
      reads++;
      return '{"a": 1}';
    }).documents[0]!;
    assert.equal(reads, 0);
    doc.locate(['a']);
    doc.locate([]);
    assert.equal(reads, 1);
  });

  test('a YAML text is parsed at the first position asked for', () => {
    const value = { kind: 'List', items: [{ metadata: { name: 'a' } }] };
    const text = `# a header\n${stringify(value)}`;
    const doc = dataSource('x.yaml', value, 'yaml', () => text).documents[0]!;
    assert.deepEqual(doc.locate(['items', 0, 'metadata', 'name']), parseSource({ name: 'x.yaml', text }).documents[0]!.locate(['items', 0, 'metadata', 'name']));
  });

  // Keys the YAML parser reads as something else (`<<` is a YAML 1.1 merge key) are left out.
  const key = fc.string({ unit: fc.constantFrom('a', 'b', '"', '\\', ' ', 'é', '/', ':', '-'), maxLength: 4 }).filter((k) => k !== '<<');
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, true, 0, -1.5, '', 'x', 'null'), fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(key, tie('v'), { maxKeys: 4 })),
  })).v;
  // A document is a mapping or a list (a null one is an empty document to the YAML parser).
  const document = fc.oneof(fc.dictionary(key, value, { maxKeys: 4 }), fc.array(value, { maxLength: 4 }));
  const segment = fc.oneof(fc.nat(4), key);

  test('agrees with the YAML parser on any JSON text and path', () => {
    fc.assert(
      fc.property(document, fc.array(segment, { maxLength: 5 }), fc.constantFrom(undefined, 1, 2), fc.constantFrom('value' as const, 'key' as const), (v, path, indent, at) => {
        const text = JSON.stringify(v, null, indent);
        const { yaml, json } = both(text, path, at);
        assert.deepEqual(json, yaml);
      }),
      { numRuns: 500 },
    );
  });
});
