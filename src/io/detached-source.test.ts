import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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

  test('texts do not cross (the main thread reported every position): a source, read as text or parsed already, is located at its start there', () => {
    const detached = detachSource({ name: 'a.yaml', text }, parseSource({ name: 'a.yaml', text }));
    assert.equal(JSON.stringify(detached).includes('# two documents'), false);
    assert.deepEqual(attachSource(structuredClone(detached)).parsed!.documents[1]!.locate(['metadata', 'name']), { line: 1, column: 1, offset: 0 });
    let rendered = 0;
    const input = dataInput('<api-server>', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }, 'json', () => {
      rendered++;
      return '{}';
    });
    detachSource(input, input.parsed!);
    assert.equal(rendered, 0, 'a parsed source does not render its text');
  });

  test('pods and nodes cross with only what berth reads of them, and load to the same input (a real kubectl dump)', () => {
    const name = 'test/fixtures/kubectl-nodes-pods.yaml';
    const dump = { name, text: readFileSync(name, 'utf8') };
    const detached = detachSource(dump, parseSource(dump));
    const items = (detached.documents[0]!.value as { items: Record<string, unknown>[] }).items;
    const sent = JSON.stringify(items);
    for (const dropped of ['managedFields', 'containerID', 'imageID', 'podCIDR', 'nodeInfo', 'lastHeartbeatTime', 'qosClass']) assert.equal(sent.includes(`"${dropped}"`), false, dropped);
    assert.deepEqual(new Set(items.map((i) => i.kind)), new Set(['Node', 'Pod']));
    const direct = loadSources([dump]);
    const attached = loadSources([attachSource(structuredClone(detached))]);
    assert.ok(direct.ok && attached.ok);
    // As data: the compiled selectors are closures, equal in what they were compiled from.
    assert.equal(JSON.stringify(attached.input.nodes), JSON.stringify(direct.input.nodes));
    assert.equal(JSON.stringify(attached.input.pods), JSON.stringify(direct.input.pods));
  });

  test('the items of a typed list (PodList) are projected by the list\'s kind; workloads cross whole, since a template\'s hash is of all of it', () => {
    const list = `apiVersion: v1
kind: PodList
items:
- metadata: {name: p1, namespace: default}
  spec: {containers: [{name: c, image: i, env: [{name: A, value: b}]}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: i, env: [{name: A, value: b}]}]}}}
`;
    const [pods, deployment] = detachSource({ name: 'l.yaml', text: list }, parseSource({ name: 'l.yaml', text: list })).documents;
    assert.deepEqual((pods!.value as { items: unknown[] }).items, [{ metadata: { name: 'p1', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }] } }]);
    assert.equal(JSON.stringify(deployment!.value).includes('"env"'), true);
  });
});

