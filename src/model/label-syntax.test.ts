import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { labelValueErrors, qualifiedNameErrors } from './label-syntax.js';

const NAME = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('qualifiedNameErrors', () => {
  const cases: [string, string[]][] = [
    ['Test', []],
    ['test.com/Test', []],
    ['node-role.kubernetes.io/worker', []],
    ['test/', ['name part must be non-empty', `name part ${NAME}`]],
    ['/test', ['prefix part must be non-empty']],
    ['Test.com/test', [`prefix part ${SUBDOMAIN}`]],
    ['a/b/c', [`a valid label key ${NAME} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]],
    ['x'.repeat(64), ['name part must be no more than 63 bytes']],
    [`${'a'.repeat(254)}/x`, ['prefix part must be no more than 253 bytes']],
  ];
  for (const [key, want] of cases) it(key.length > 40 ? `${key.slice(0, 20)}… (${key.length})` : key, () => assert.deepEqual(qualifiedNameErrors(key), want));
});

describe('labelValueErrors', () => {
  const VALUE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  const cases: [string, string[]][] = [
    ['', []],
    ['m5.large', []],
    ['-x', [VALUE]],
    ['a'.repeat(64), ['must be no more than 63 bytes']],
    // Bytes, not characters: 32 two-byte characters are 64 bytes.
    ['é'.repeat(32), ['must be no more than 63 bytes', VALUE]],
  ];
  for (const [value, want] of cases) it(JSON.stringify(value.slice(0, 20)), () => assert.deepEqual(labelValueErrors(value), want));
});

describe('megabyte labels', () => {
  it('are refused for their length without running the format regexes (which overflow the stack on such strings)', () => {
    const huge = 'v'.repeat(10 * 2 ** 20);
    assert.deepEqual(labelValueErrors(huge), ['must be no more than 63 bytes']);
    assert.deepEqual(qualifiedNameErrors(huge), ['name part must be no more than 63 bytes']);
    assert.deepEqual(qualifiedNameErrors(`${huge}/x`), ['prefix part must be no more than 253 bytes']);
  });
});
