import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { boundMessage, describeDiagnostic, formatDiagnostic, formatFieldPath, withoutRepeatedField } from './diagnostics.js';

describe('formatFieldPath', () => {
  const cases = [
    { name: 'empty', path: [], want: '' },
    { name: 'fields and indexes', path: ['spec', 'containers', 0, 'name'], want: 'spec.containers[0].name' },
    { name: 'keys that are not identifiers go in brackets', path: ['spec', 'nodeSelector', 'kubernetes.io/os'], want: 'spec.nodeSelector[kubernetes.io/os]' },
    { name: 'a leading index', path: ['items', 2, 'kind'], want: 'items[2].kind' },
  ];
  for (const c of cases) test(c.name, () => assert.equal(formatFieldPath(c.path), c.want));
});

describe('formatDiagnostic', () => {
  const base = { severity: 'error' as const, file: 'a.yaml', line: 3, column: 7, message: 'Required value' };
  const cases = [
    { name: 'object and field', d: { ...base, object: 'Pod default/web', field: 'spec.containers' }, want: 'a.yaml:3:7: Pod default/web: spec.containers: Required value' },
    { name: 'no object', d: { ...base, field: 'kind' }, want: 'a.yaml:3:7: kind: Required value' },
    { name: 'position only', d: base, want: 'a.yaml:3:7: Required value' },
  ];
  for (const c of cases) test(c.name, () => assert.equal(formatDiagnostic(c.d), c.want));
});

describe('withoutRepeatedField', () => {
  const cases = [
    { name: 'drops the repeated last field', message: 'values: Required value', path: ['a', 'values'], want: 'Required value' },
    { name: 'keeps other messages', message: 'Required value', path: ['values'], want: 'Required value' },
    { name: 'keeps a message naming another field', message: 'key: bad', path: ['values'], want: 'key: bad' },
    { name: 'an index path is left alone', message: '0: x', path: ['a', 0], want: '0: x' },
  ];
  for (const c of cases) test(c.name, () => assert.equal(withoutRepeatedField(c.message, c.path), c.want));
});

describe('formatDiagnostic keeps a line short whatever the input held', () => {
  test('a long quoted value, object name and map key are cut; short ones are kept', () => {
    const long = 'x'.repeat(10_000);
    const field = formatFieldPath(['metadata', 'labels', `${long}/k`]);
    assert.equal(field, `metadata.labels[${'x'.repeat(60)}…]`);
    const line = formatDiagnostic({ severity: 'error', file: 'f.yaml', line: 3, column: 5, object: `Node ${long}`, field, message: `Invalid type: expected mapping, got string "${long}"; "short" kept` });
    assert.equal(line, `f.yaml:3:5: Node ${'x'.repeat(295)}…: ${field}: Invalid type: expected mapping, got string "${'x'.repeat(60)}…"; "short" kept`);
  });

  test('escaped quotes inside a value do not end it early', () => {
    const value = `a\\"${'b'.repeat(100)}`;
    assert.equal(formatDiagnostic({ severity: 'error', file: 'f', line: 1, column: 1, message: `got "${value}"` }), `f:1:1: got "${value.slice(0, 60)}…"`);
  });

  test('a quoted value of 10 MB is cut without a regex running out of stack', () => {
    const value = 'v'.repeat(10 * 2 ** 20);
    assert.equal(formatDiagnostic({ severity: 'error', file: 'f', line: 1, column: 1, message: `Invalid value: "${value}": too long` }), `f:1:1: Invalid value: "${'v'.repeat(60)}…": too long`);
  });

  test('an unterminated quote is left as it is', () => {
    assert.equal(formatDiagnostic({ severity: 'error', file: 'f', line: 1, column: 1, message: 'Unexpected token: "abc' }), 'f:1:1: Unexpected token: "abc');
  });
});

describe('boundMessage: messages berth did not write (the YAML parser, zod) are bounded too', () => {
  test('an unbroken excerpt of the source (minified JSON, a long tag) is cut to 120 characters', () => {
    const excerpt = `|{"apiVersion":"v1",${'"k":"v",'.repeat(1000)}}`;
    assert.equal(boundMessage(`Block scalar header includes extra characters: ${excerpt}`), `Block scalar header includes extra characters: ${excerpt.slice(0, 120)}…`);
  });

  test('a long message of short words is cut to 500 characters', () => {
    const words = 'a b '.repeat(1000);
    assert.equal(boundMessage(`Unexpected: ${words}`), `${`Unexpected: ${words}`.slice(0, 500)}…`);
  });

  test('a message of ordinary length is left as it is', () => {
    const upstream = `Invalid value: "x y": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`;
    assert.equal(boundMessage(upstream), upstream);
  });

  test('describeDiagnostic, which the playground shows, is the CLI line without its position', () => {
    const d = { severity: 'error' as const, file: 'f', line: 1, column: 2, object: 'Pod default/web', field: 'spec', message: `got "${'x'.repeat(10_000)}"` };
    assert.equal(describeDiagnostic(d), `Pod default/web: spec: got "${'x'.repeat(60)}…"`);
    assert.equal(formatDiagnostic(d), `f:1:2: ${describeDiagnostic(d)}`);
  });
});
