import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { detachSource } from './detached-source.js';
import { readSource } from './json-text.js';
import { loadSources } from './load.js';
import { parseSource } from './yaml-source.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const NODES = (names: string[]) => names.map((n) => `---\napiVersion: v1\nkind: Node\nmetadata:\n  name: ${n}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n`).join('');
const LIST = `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n`;

test('where each object is written: YAML documents, a List, a pre-parsed text, a JSON text', () => {
  const yaml = loadSources([{ name: 'nodes.yaml', text: NODES(['n1', 'n2']) }]);
  assert.ok(yaml.ok);
  assert.deepEqual(yaml.input.locations.get('Node/n2'), { file: 'nodes.yaml', line: 11, column: 9 });
  const text = LIST;
  const list = loadSources([{ name: 'list.yaml', text, parsed: parseSource({ name: 'list.yaml', text }) }]);
  assert.ok(list.ok);
  assert.deepEqual(list.input.locations.get('Node/a'), { file: 'list.yaml', line: 6, column: 20 });
  assert.deepEqual(list.input.locations.get('Node/b'), { file: 'list.yaml', line: 10, column: 11 });
  const json = loadSources([{ name: 'n.json', text: '{"apiVersion": "v1", "kind": "Node",\n "metadata": {"name": "j"}}' }]);
  assert.ok(json.ok);
  assert.deepEqual(json.input.locations.get('Node/j'), { file: 'n.json', line: 2, column: 23 });
  assert.equal(json.input.locations.get('Node/absent'), undefined);
});

test("the loaded input keeps no YAML parse tree (a 50 MB dump's is many GB): locations parse the text again when asked", async () => {
  const text = NODES(['n1']);
  const source = { name: 'nodes.yaml', text };
  let parsed: ReturnType<typeof readSource> | undefined = parseSource(source);
  const tree = new WeakRef(parsed.documents[0]!);
  const loaded = loadSources([{ ...source, parsed }]);
  // What a worker is given keeps plain values only.
  detachSource(source, parsed);
  parsed = undefined;
  // A WeakRef holds its target until the end of the job that made it.
  await new Promise(setImmediate);
  gc();
  assert.equal(tree.deref(), undefined, 'the parsed document (and its tree) is still held');
  assert.ok(loaded.ok);
  assert.deepEqual(loaded.input.locations.get('Node/n1'), { file: 'nodes.yaml', line: 5, column: 9 });
});
