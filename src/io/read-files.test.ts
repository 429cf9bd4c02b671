import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { readProblem, readSources, STDIN_NAME } from './read-files.js';

describe('readSources', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-read-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const files: [string, string][] = [['b.yaml', 'b'], ['a.yml', 'a'], ['c.json', 'c'], ['notes.txt', 'x'], ['D.YAML', 'd']];
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  mkdirSync(join(dir, 'nested.yaml'));
  writeFileSync(join(dir, 'nested.yaml', 'inner.yaml'), 'inner');

  test('a folder gives its manifest files, sorted, not recursing, and names each sub-folder it leaves out', async () => {
    const skipped: string[] = [];
    const got = await readSources([dir], { onSkippedFolder: (f) => skipped.push(f) });
    assert.deepEqual(got.map((s) => [s.name.slice(dir.length + 1), s.text]), [['D.YAML', 'd'], ['a.yml', 'a'], ['b.yaml', 'b'], ['c.json', 'c']]);
    assert.deepEqual(skipped, [join(dir, 'nested.yaml')]);
  });

  test('recursive (-R): sub-folders after the folder\'s own files, each sorted', async () => {
    const got = await readSources([dir], { recursive: true });
    assert.deepEqual(got.map((s) => s.name.slice(dir.length + 1)), ['D.YAML', 'a.yml', 'b.yaml', 'c.json', join('nested.yaml', 'inner.yaml')]);
  });

  test('files are read whatever their extension, in argument order', async () => {
    const got = await readSources([join(dir, 'notes.txt'), join(dir, 'a.yml')]);
    assert.deepEqual(got.map((s) => s.text), ['x', 'a']);
  });

  test('- reads standard input', async () => {
    const got = await readSources(['-', join(dir, 'b.yaml')], { stdin: Readable.from([Buffer.from('kind: '), Buffer.from('Node\n')]) });
    assert.deepEqual(got, [{ name: STDIN_NAME, text: 'kind: Node\n' }, { name: join(dir, 'b.yaml'), text: 'b' }]);
  });

  test('a missing path is a one-line error naming it', async () => {
    await assert.rejects(readSources([join(dir, 'missing.yaml')]), { message: `cannot read ${join(dir, 'missing.yaml')}: no such file or directory (ENOENT)` });
  });

  test('a file longer than node can hold in one string (a large cluster\'s dump): what to do about it, not node\'s words', () => {
    const tooLong = Object.assign(new Error('Cannot create a string longer than 0x1fffffe8 characters'), { code: 'ERR_STRING_TOO_LONG' });
    assert.equal(
      readProblem(tooLong),
      'it is longer than the 536,870,888 characters node holds in one string (ERR_STRING_TOO_LONG): split it into several files (kubectl get nodes -o yaml > nodes.yaml; kubectl get pods -A -o yaml > pods.yaml; ...) and pass each',
    );
  });
});
