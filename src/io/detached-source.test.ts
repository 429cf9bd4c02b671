import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { attachSource, detachSource } from './detached-source.js';
import { dataInput } from './json-source.js';
import { loadSources } from './load.js';
import { parseSource } from './yaml-source.js';

const text = `# two documents
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: default
spec:
  nodeName: n1
  containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]
`;

/** Through a worker thread's message channel: structured clone. */
const crossed = (source: { name: string; text: string }) => attachSource(structuredClone(detachSource(source, parseSource(source))));

describe('detached sources (what crosses to a worker thread)', () => {
  test('load to the same input as the text they were parsed from', () => {
    const direct = loadSources([{ name: 'a.yaml', text }]);
    const attached = loadSources([crossed({ name: 'a.yaml', text })]);
    assert.ok(direct.ok && attached.ok);
    assert.deepEqual(attached.input.nodes, direct.input.nodes);
    assert.deepEqual(attached.input.pods, direct.input.pods);
  });

  test('a field is located where the parser of the text puts it, the text parsed only then', () => {
    const original = parseSource({ name: 'a.yaml', text }).documents;
    const attached = crossed({ name: 'a.yaml', text }).parsed!.documents;
    assert.equal(attached.length, 2);
    for (const path of [['metadata', 'name'], ['spec', 'containers', 0, 'resources'], ['status', 'allocatable', 'cpu'], ['nope']]) {
      for (const i of [0, 1]) assert.deepEqual(attached[i]!.locate(path), original[i]!.locate(path), `document ${i} ${path.join('.')}`);
    }
    assert.notDeepEqual(attached[1]!.locate(['metadata', 'name']), { line: 1, column: 1, offset: 0 });
  });

  test('a source that came parsed does not render its text to cross; its positions are the start of the file', () => {
    let rendered = 0;
    const input = dataInput('<api-server>', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }, 'json', () => {
      rendered++;
      return '{}';
    });
    const detached = detachSource(input, input.parsed!);
    assert.equal(rendered, 0);
    assert.equal(detached.text, undefined);
    assert.deepEqual(attachSource(structuredClone(detached)).parsed!.documents[0]!.locate(['metadata', 'name']), { line: 1, column: 1, offset: 0 });
  });
});
