// The line highlighter of large input panes: each line's keys, quoted strings,
// comments and document markers, read from the line alone.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EditorState } from '@codemirror/state';
import { LARGE_TEXT, yamlHighlighting, yamlLineTokens, type TokenKind } from '../web/src/yaml-highlight.js';

/** Each token as [kind, text]. */
const spans = (line: string): [TokenKind, string][] => yamlLineTokens(line).map((t) => [t.kind, line.slice(t.from, t.to)]);

test('block mappings and sequences: keys before ": ", values left plain, quoted values are strings', () => {
  assert.deepEqual(spans('kind: Node'), [['key', 'kind']]);
  assert.deepEqual(spans('  - name: main  # the app'), [['key', 'name'], ['comment', '# the app']]);
  assert.deepEqual(spans('image: "registry.example/app:1"'), [['key', 'image'], ['string', '"registry.example/app:1"']]);
  assert.deepEqual(spans('spec:'), [['key', 'spec']]);
  assert.deepEqual(spans('- a:b'), [], 'a colon without a space after it is part of a plain scalar');
  assert.deepEqual(spans("note: 'it''s # not a comment'"), [['key', 'note'], ['string', "'it''s # not a comment'"]]);
  assert.deepEqual(spans('url: http://x#y'), [['key', 'url']], 'a # not after a space does not start a comment');
});

test('flow collections: keys inside braces, flow indicators end plain scalars', () => {
  assert.deepEqual(spans('metadata: {name: node-001, labels: {zone: a}}'), [['key', 'metadata'], ['key', 'name'], ['key', 'labels'], ['key', 'zone']]);
  assert.deepEqual(spans('status: {allocatable: {cpu: "4", memory: 16Gi}}'), [['key', 'status'], ['key', 'allocatable'], ['key', 'cpu'], ['string', '"4"'], ['key', 'memory']]);
  assert.deepEqual(spans('{"apiVersion":"v1","kind":"List"}'), [['key', '"apiVersion"'], ['string', '"v1"'], ['key', '"kind"'], ['string', '"List"']], 'JSON: a quoted key touches its colon');
  assert.deepEqual(spans('args: [a, "b", c]'), [['key', 'args'], ['string', '"b"']]);
});

test('document markers and comments', () => {
  assert.deepEqual(spans('---'), [['meta', '---']]);
  assert.deepEqual(spans('--- {kind: Pod}'), [['meta', '---'], ['key', 'kind']]);
  assert.deepEqual(spans('# all of it'), [['comment', '# all of it']]);
  assert.deepEqual(spans('----'), [], 'four dashes are a plain scalar');
  assert.deepEqual(spans('"unterminated: x'), [['string', '"unterminated: x']]);
});

test(`a pane switches to the line highlighter above ${LARGE_TEXT} characters and back below it`, () => {
  const languages = (s: EditorState) => s.facet(EditorState.languageData).length;
  let state = EditorState.create({ doc: 'kind: Node\n', extensions: yamlHighlighting() });
  const small = languages(state);
  assert.ok(small > 0, 'the YAML language is on for a small text');
  state = state.update({ changes: { from: state.doc.length, insert: 'x: 1\n'.repeat(LARGE_TEXT / 5 + 1) } }).state;
  assert.equal(languages(state), 0, 'no YAML language (and so no full parse) for a large text');
  state = state.update({ changes: { from: 11, to: state.doc.length } }).state;
  assert.equal(languages(state), small, 'the YAML language is back when the text is small again');
});
