import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { readSource } from './json-text.js';
import { isKnownKind, schemaOf } from './kinds.js';
import { collectObjects } from './objects.js';
import { projectorOf } from './schema-projection.js';

/** Every YAML file under `dir`. */
const yamlFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));

describe('projectorOf (what a schema reads of a value)', () => {
  test('keeps the declared fields, drops the rest, at every depth', () => {
    const schema = z.object({ a: z.string(), list: z.array(z.object({ b: z.number().optional() })).optional(), inner: z.object({ c: z.string() }).nullable().default(null) });
    const project = projectorOf(schema);
    assert.deepEqual(project({ a: 'x', extra: 1, list: [{ b: 1, d: 2 }, {}], inner: { c: 'y', e: [3] } }), { a: 'x', list: [{ b: 1 }, {}], inner: { c: 'y' } });
    assert.deepEqual(project({ a: 'x', inner: null }), { a: 'x', inner: null });
  });

  test('keeps whole what the schema cannot say it ignores: unions, preprocess steps, records\' keys, custom checks, loose objects', () => {
    const union = z.union([z.string(), z.object({ a: z.string() })]);
    const value = { a: 'x', b: 'y' };
    assert.deepEqual(projectorOf(union)(value), value);
    assert.deepEqual(projectorOf(z.preprocess((v) => v, z.object({ a: z.string() })))(value), value);
    assert.deepEqual(projectorOf(z.record(z.string(), z.object({ a: z.string() })))({ k: value }), { k: { a: 'x' } });
    assert.deepEqual(projectorOf(z.custom(() => true))(value), value);
    assert.deepEqual(projectorOf(z.looseObject({ a: z.string() }))(value), value);
  });

  test('values of the wrong type are left for the schema to refuse', () => {
    const project = projectorOf(z.object({ list: z.array(z.object({ a: z.string() })) }));
    assert.deepEqual(project({ list: 'not a list' }), { list: 'not a list' });
    assert.equal(project('not an object'), 'not an object');
  });

  // The property the worker threads rely on, over every manifest of the repository: parsing the projection gives what parsing the whole object gives.
  test('every object of the examples, fixtures and the real-manifest corpus parses to the same manifest projected', () => {
    let objects = 0;
    for (const file of ['examples', 'test/fixtures', 'test/check-corpus'].flatMap(yamlFiles)) {
      const source = readSource({ name: file, text: readFileSync(file, 'utf8') }, 'ignore');
      for (const doc of source.documents) {
        for (const raw of collectObjects(doc, 0, [])) {
          if (!isKnownKind(raw.kind)) continue;
          const schema = schemaOf(raw.kind);
          const whole = schema.safeParse(raw.value);
          const projected = schema.safeParse(projectorOf(schema)(raw.value));
          assert.deepEqual(projected, whole, `${file}: ${raw.kind} ${JSON.stringify(raw.value).slice(0, 120)}`);
          objects++;
        }
      }
    }
    assert.ok(objects > 300, `only ${objects} objects read`);
  });
});
