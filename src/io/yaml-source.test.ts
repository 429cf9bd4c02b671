import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSource } from './yaml-source.js';

const TEXT = [
  'apiVersion: v1', // 1
  'kind: Pod', // 2
  'metadata:', // 3
  '  name: web', // 4
  '  labels: {app: web}', // 5
  'spec:', // 6
  '  containers:', // 7
  '  - name: c', // 8
  '    image: nginx', // 9
  '  empty:', // 10
  '',
].join('\n');

describe('SourceDocument.locate', () => {
  const [doc] = parseSource({ name: 't.yaml', text: TEXT }).documents;
  const cases = [
    { name: 'the document', path: [], want: [1, 1] },
    { name: 'a scalar value', path: ['metadata', 'name'], want: [4, 9] },
    { name: 'a value in a flow mapping', path: ['metadata', 'labels', 'app'], want: [5, 17] },
    { name: 'a mapping, at its key', path: ['metadata'], want: [3, 1] },
    { name: 'a flow mapping, at its key', path: ['metadata', 'labels'], want: [5, 3] },
    { name: 'a list item', path: ['spec', 'containers', 0], want: [8, 5] },
    { name: 'a field of a list item', path: ['spec', 'containers', 0, 'image'], want: [9, 12] },
    { name: 'an empty value, at its key', path: ['spec', 'empty'], want: [10, 3] },
    { name: 'a missing field, at its parent', path: ['spec', 'containers', 0, 'resources', 'requests'], want: [8, 5] },
    { name: 'a missing list item, at the list', path: ['spec', 'containers', 4], want: [7, 3] },
    { name: 'a path through a scalar stops at the scalar', path: ['kind', 'x'], want: [2, 7] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const p = doc!.locate(c.path);
      assert.deepEqual([p.line, p.column], c.want);
    });
  }
});

describe('parseSource', () => {
  test('documents keep their index and file; empty ones are dropped', () => {
    const { documents, diagnostics } = parseSource({ name: 'm.yaml', text: 'a: 1\n---\n---\n# c\n---\nb: 2\n' });
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(documents.map((d) => [d.file, d.index, d.value]), [['m.yaml', 0, { a: 1 }], ['m.yaml', 3, { b: 2 }]]);
  });

  test('positions in a later document count lines from the start of the text', () => {
    const { documents } = parseSource({ name: 'm.yaml', text: 'a: 1\n---\nb:\n  c: x\n' });
    const p = documents[1]!.locate(['b', 'c']);
    assert.deepEqual([p.line, p.column], [4, 6]);
  });

  test('a malformed document is an error at the parser position; the others still load', () => {
    const { documents, diagnostics } = parseSource({ name: 'm.yaml', text: 'a: 1\n---\nb: [1\n---\nc: 3\n' });
    assert.deepEqual(documents.map((d) => d.value), [{ a: 1 }, { c: 3 }]);
    assert.equal(diagnostics.length >= 1, true);
    assert.deepEqual([diagnostics[0]!.severity, diagnostics[0]!.line, diagnostics[0]!.column], ['error', 4, 1]);
  });

  test('values through a merge key are located where they are written', () => {
    const { documents } = parseSource({ name: 'm.yaml', text: 'base: &b\n  x: 1\nitem:\n  <<: *b\n  z: 2\n' });
    const p = documents[0]!.locate(['item', 'x']);
    assert.deepEqual([p.line, p.column], [2, 6]);
    assert.deepEqual(documents[0]!.value, { base: { x: 1 }, item: { x: 1, z: 2 } });
  });

  test('YAML 1.1 scalars: yes/no/on/off are booleans', () => {
    const { documents } = parseSource({ name: 'm.yaml', text: 'a: yes\nb: off\nc: "on"\n' });
    assert.deepEqual(documents[0]!.value, { a: true, b: false, c: 'on' });
  });

  test('timestamps and h:m:s numbers stay strings, as go-yaml v2 reads them', () => {
    const { documents } = parseSource({ name: 'm.yaml', text: 'a: 2025-03-01T09:12:44Z\nb: 2001-12-14\nc: 12:30\nd: 0x1F\ne: 1_000\n' });
    assert.deepEqual(documents[0]!.value, { a: '2025-03-01T09:12:44Z', b: '2001-12-14', c: '12:30', d: 31, e: 1000 });
  });

  test('parser warnings become warnings at their position', () => {
    const { documents, diagnostics } = parseSource({ name: 'm.yaml', text: 'a: 1\nb: !custom x\n' });
    assert.deepEqual(documents[0]!.value, { a: 1, b: 'x' });
    assert.deepEqual(diagnostics.map((d) => [d.severity, d.line, d.column, d.message]), [['warning', 2, 4, 'Unresolved tag: !custom']]);
  });

  test('too many aliases are refused, not expanded', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`)].join('\n');
    const { documents, diagnostics } = parseSource({ name: 'bomb.yaml', text: `${bomb}\n` });
    assert.equal(documents.length, 0);
    assert.match(diagnostics[0]!.message, /^invalid YAML: /);
  });
});
