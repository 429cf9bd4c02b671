// The playground's input panes without a browser: documents sorted by kind, a
// kubectl List split item by item, each piece's text as it was written.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDocument } from 'yaml';
import { documents, kindOf, splitByKind, tabOfKind } from '../web/src/input-tabs.js';
import { splitList } from '../web/src/split-list.js';

test('documents keep the comments written before them; a comment-only document joins the next', () => {
  assert.deepEqual(documents('# about the file\n---\n# the node\nkind: Node\n---\nkind: Pod\n# trailing\n'), ['# about the file\n# the node\nkind: Node\n', 'kind: Pod\n# trailing\n']);
  assert.deepEqual(documents('--- {kind: Pod}\n'), ['{kind: Pod}\n'], 'a document may start on its separator line');
});

test('kinds go to their panes; unknown kinds to Workloads', () => {
  assert.deepEqual(
    ['Node', 'StorageClass', 'Deployment', 'PodDisruptionBudget', 'NodePool', 'InstanceTypeCatalog', 'KubeSchedulerConfiguration', 'Scenario', 'Rollout'].map(tabOfKind),
    ['cluster', 'cluster', 'workloads', 'workloads', 'nodepools', 'nodepools', 'scheduler', 'scenario', 'workloads'],
  );
  const tabs = splitByKind('kind: Pod\nmetadata: {name: a}\n---\nkind: Node\n---\nkind: Pod\nmetadata: {name: b}\n');
  assert.equal(tabs.workloads, 'kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: b}\n');
  assert.equal(tabs.cluster, 'kind: Node\n');
  assert.equal(tabs.scenario, '');
});

const dump = `apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
- apiVersion: v1
  kind: Pod
  metadata:
    name: p1
  # kept
kind: List
metadata:
  resourceVersion: ""
`;

test('a kubectl List (kind written last) is split item by item, each item as written', () => {
  assert.deepEqual(splitList(dump), {
    cluster: 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n',
    workloads: 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p1\n  # kept\n',
  });
  assert.equal(splitByKind(dump, splitList).cluster, splitList(dump).cluster);
  assert.equal(splitByKind(dump).workloads, dump, 'without a parser (the page thread) a List goes whole to Workloads');
  assert.deepEqual(splitList('kind: List\nitems: [\n'), { workloads: 'kind: List\nitems: [\n' }, 'unparsable: left whole, for the loader to report');
});

test('a document written as one flow mapping, or as JSON, goes to the pane of its top-level kind', () => {
  const flow = '{apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kind: Pod}}}\n';
  assert.equal(kindOf(flow), 'Node', 'the kind nested in labels is not the document\'s');
  assert.equal(splitByKind(`kind: Pod\n---\n${flow}`).cluster, flow);
  assert.equal(kindOf('# a comment\n{"metadata": {"name": "x", "kind": "Pod"},\n "kind": "NodePool"}\n'), 'NodePool');
  assert.equal(kindOf("{metadata: {name: 'it''s {odd'}, kind: Namespace}"), 'Namespace', 'brackets inside quotes are text');
  assert.equal(kindOf('{metadata: {kind: Node}}'), undefined);
});

/** What `kubectl get nodes,pods -o json` writes. */
const jsonDump = `{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n1"}
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p1"}
        }
    ],
    "kind": "List",
    "metadata": {"resourceVersion": ""}
}
`;

test('a JSON List is split item by item, each item an entry of its pane\'s List', () => {
  const tabs = splitByKind(jsonDump, splitList);
  assert.equal(tabs.cluster, 'apiVersion: v1\nkind: List\nitems:\n- {\n            "apiVersion": "v1",\n            "kind": "Node",\n            "metadata": {"name": "n1"}\n        }\n');
  assert.match(tabs.workloads, /^apiVersion: v1\nkind: List\nitems:\n- \{\n[\s\S]*"name": "p1"/);
  for (const t of [tabs.cluster, tabs.workloads]) assert.equal(parseDocument(t).errors.length, 0, t);
});
