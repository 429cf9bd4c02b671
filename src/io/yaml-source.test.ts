import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_NESTING, parseSource } from './yaml-source.js';

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
  test('documents keep their index and file; empty ones are dropped, with one warning', () => {
    const { documents, diagnostics } = parseSource({ name: 'm.yaml', text: 'a: 1\n---\n---\n# c\n---\nb: 2\n' });
    assert.deepEqual(diagnostics.map((d) => d.message), ['2 empty document(s) skipped (only `---`, comments or null)']);
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

  const messages = (name: string, text: string) => parseSource({ name, text }).diagnostics.map((d) => [d.severity, d.line, d.column, d.message]);

  test('10,000 levels of nesting are one error at the first level too deep, in every style, not a stack overflow', () => {
    const n = 10_000;
    const tooDeep = `invalid YAML: nested more than ${MAX_NESTING} levels deep`;
    assert.deepEqual(messages('flow.yaml', `${'['.repeat(n)}${']'.repeat(n)}\n`), [['error', 1, MAX_NESTING + 1, tooDeep]]);
    assert.deepEqual(messages('deep.json', `${'{"a":'.repeat(n)}1${'}'.repeat(n)}\n`), [['error', 1, 5 * MAX_NESTING + 1, `invalid JSON: nested more than ${MAX_NESTING} levels deep`]]);
    assert.deepEqual(messages('seq.yaml', `${'- '.repeat(n)}x\n`), [['error', 1, 2 * MAX_NESTING + 1, tooDeep]]);
    const block = Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n');
    assert.deepEqual(messages('block.yaml', `${block} 1\n`), [['error', MAX_NESTING + 1, MAX_NESTING + 1, tooDeep]]);
  });

  test('nesting up to the limit loads; a deep document does not stop the others in the stream', () => {
    const ok = `${'['.repeat(MAX_NESTING - 1)}${']'.repeat(MAX_NESTING - 1)}`; // under the mapping that holds it
    const { documents, diagnostics } = parseSource({ name: 'm.yaml', text: `a: ${ok}\n---\n${'['.repeat(MAX_NESTING + 1)}${']'.repeat(MAX_NESTING + 1)}\n---\nb: 2\n` });
    assert.equal(diagnostics.length, 1);
    assert.deepEqual(documents.map((d) => Object.keys(d.value as object)), [['a'], ['b']]);
  });

  test('binary data is one error at its first control character, quoting none of it', () => {
    const garbage = `kind: Pod\nname: x\u0000\u00ff\u0003${'\u00fe'.repeat(5000)}\n`;
    assert.deepEqual(messages('b.yaml', garbage), [['error', 2, 8, 'invalid YAML: control character U+0000 is not allowed (is this a binary file?)']]);
    assert.deepEqual(messages('c.yaml', 'a: "\u007f"\n'), [['error', 1, 5, 'invalid YAML: control character U+007F is not allowed (is this a binary file?)']]);
  });

  test('tabs, line ends, a byte-order mark and non-ASCII text are printable', () => {
    const { documents, diagnostics } = parseSource({ name: 'u.yaml', text: '\ufeffa:\t"é 日本 🚀"\r\nb: 1\r\n' });
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(documents[0]!.value, { a: 'é 日本 🚀', b: 1 });
  });

  test('a long token quoted by the parser is cut to 60 characters', () => {
    const ds = parseSource({ name: 'm.yaml', text: `a: 1\n}${'z'.repeat(10_000)}\n` }).diagnostics;
    assert.deepEqual(ds.map((d) => d.message), ['invalid YAML: Unexpected flow-map-end token in YAML stream: "}"', `invalid YAML: Unexpected scalar token in YAML stream: "${'z'.repeat(60)}…"`]);
  });
});

describe('real-world shapes', () => {
  const read = (text: string, name = 't.yaml') => {
    const p = parseSource({ name, text });
    return { values: p.documents.map((d) => d.value), diagnostics: p.diagnostics.map((d) => `${d.severity} ${d.line}:${d.column} ${d.message}`), docs: p.documents };
  };

  test('a JSON stream (values one after another, as kubectl accepts) is read value by value, with positions in the whole text', () => {
    const r = read('{"kind": "Node"}\n{"kind": "Pod",\n "x": "}{"}\n', 's.json');
    assert.deepEqual(r.values, [{ kind: 'Node' }, { kind: 'Pod', x: '}{' }]);
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.docs[1]!.locate(['x']), { line: 3, column: 7, offset: 39 });
  });

  test('BOM and CRLF line ends', () => {
    const r = read('\ufeffapiVersion: v1\r\nkind: Node\r\nmetadata:\r\n  name: a\r\n');
    assert.deepEqual(r.values, [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'a' } }]);
    assert.deepEqual(r.docs[0]!.locate(['metadata', 'name']), { line: 4, column: 9, offset: 48 });
  });

  test('documents with only comments or `---` are skipped with one warning per file; a trailing `---` says nothing', () => {
    assert.deepEqual(read('# header\n---\n# only comments\n---\nkind: A\n---\n---\nkind: B\n---\n').diagnostics, ['warning 1:1 2 empty document(s) skipped (only `---`, comments or null)']);
    assert.deepEqual(read('---\n# Source: a\nkind: A\n---\n# Source: b\nkind: B\n').diagnostics, []);
  });

  test('an empty file is one warning', () => {
    assert.deepEqual(read('').diagnostics, ['warning 1:1 no objects: the file is empty']);
    assert.deepEqual(read('# nothing\n\n').diagnostics, ['warning 1:1 no objects: the file is empty']);
  });

  test('a Helm template is one clear error at its first action, not the parser\'s errors', () => {
    const r = read('apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}\n{{- if .Values.x }}\nspec: {}\n{{- end }}\n');
    assert.deepEqual(r.diagnostics, ['error 4:9 looks like a Helm template: render it with `helm template` first (berth reads manifests, not templates)']);
  });

  test('a template-like string inside quotes or a block scalar of a valid file is just text', () => {
    const r = read('kind: ConfigMap\ndata:\n  a: "{{ .Values.x }}"\n  b: |\n    {{ if .x }}y{{ end }}\n');
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.values, [{ kind: 'ConfigMap', data: { a: '{{ .Values.x }}', b: '{{ if .x }}y{{ end }}\n' } }]);
  });
});
