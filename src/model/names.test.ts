import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canonicalJson, fnv1a32, generatedName, nameSuffix, SAFE_ALPHABET, safeEncodeString, templateHash } from './names.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('fnv1a32', () => {
  const cases = [
    { name: 'empty input is the offset basis', input: '', want: 0x811c9dc5 },
    { name: 'one byte', input: 'a', want: 0xe40c292c },
    { name: 'reference vector', input: 'foobar', want: 0xbf9cf968 },
  ];
  for (const c of cases) test(c.name, () => assert.equal(fnv1a32(utf8(c.input)), c.want));

  test('continuing from a previous hash equals hashing the concatenation', () => {
    assert.equal(fnv1a32(utf8('bar'), fnv1a32(utf8('foo'))), fnv1a32(utf8('foobar')));
  });
});

describe('safeEncodeString', () => {
  test('digits map to the characters Kubernetes hashes are made of', () => assert.equal(safeEncodeString('0123456789'), '456789bcdf'));
  test('letters wrap around the 27-character alphabet', () => assert.equal(safeEncodeString('az'), `${SAFE_ALPHABET[97 % 27]}${SAFE_ALPHABET[122 % 27]}`));
});

describe('canonicalJson', () => {
  test('key order does not matter', () => assert.equal(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: 'x' } }), canonicalJson({ a: { c: 'x', d: [1, { x: 1, y: 2 }] }, b: 1 })));
  test('undefined fields are left out', () => assert.equal(canonicalJson({ a: undefined, b: null }), '{"b":null}'));
});

describe('templateHash', () => {
  test('at most 10 characters, from the digit encoding', () => {
    for (const t of [{}, { spec: { containers: [{ name: 'c' }] } }, { metadata: { labels: { app: 'x' } } }]) {
      assert.match(templateHash(t), /^[456789bcdf]{1,10}$/);
    }
  });
  test('deterministic and sensitive to content', () => {
    assert.equal(templateHash({ a: 1, b: 2 }), templateHash({ b: 2, a: 1 }));
    assert.notEqual(templateHash({ a: 1 }), templateHash({ a: 2 }));
  });
  test('a collision count changes the hash, zero included', () => {
    const t = { spec: {} };
    assert.notEqual(templateHash(t, 0), templateHash(t));
    assert.notEqual(templateHash(t, 1), templateHash(t, 0));
  });
});

describe('generated names', () => {
  test('nameSuffix is five alphabet characters, the same for the same seed', () => {
    assert.match(nameSuffix('x'), new RegExp(`^[${SAFE_ALPHABET}]{5}$`));
    assert.equal(nameSuffix('Deployment/ns/web/0'), nameSuffix('Deployment/ns/web/0'));
    assert.notEqual(nameSuffix('Deployment/ns/web/0'), nameSuffix('Deployment/ns/web/1'));
  });

  test('a taken name is re-derived and the result recorded', () => {
    const taken = new Set<string>();
    const first = generatedName('web-', 'seed', taken);
    const second = generatedName('web-', 'seed', taken);
    assert.notEqual(first, second);
    assert.deepEqual([...taken], [first, second]);
  });

  test('a long base is cut to 58 characters before the suffix', () => {
    const name = generatedName(`${'a'.repeat(70)}-`, 's', new Set());
    assert.equal(name.length, 63);
    assert.ok(name.startsWith('a'.repeat(58)));
  });
});
