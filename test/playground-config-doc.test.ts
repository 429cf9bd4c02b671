import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { schedulerConfigDocuments } from '../web/src/scheduler-config-doc.js';

const schedulerConfigDocument = (text: string) => schedulerConfigDocuments(text)[0]?.text;

describe('playground: the KubeSchedulerConfiguration among the manifests', () => {
  it('keeps only its document, on the lines where it was written', () => {
    const text = 'kind: Node\nmetadata: {name: a}\n---\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: []\n---\nkind: Pod\n';
    assert.equal(schedulerConfigDocument(text), '\n\n\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: []\n\n\n');
  });
  it('finds it as the first or the only document, and nothing when there is none', () => {
    assert.equal(schedulerConfigDocument('kind: KubeSchedulerConfiguration\n---\nkind: Pod'), 'kind: KubeSchedulerConfiguration\n\n');
    assert.equal(schedulerConfigDocument('kind: Pod\n---\nkind: Node\n'), undefined);
    // A nested kind (a List item) is not a document of its own.
    assert.equal(schedulerConfigDocument('kind: List\nitems:\n- kind: KubeSchedulerConfiguration\n'), undefined);
  });
  it('finds every one, each with the line of its kind', () => {
    const docs = schedulerConfigDocuments('kind: KubeSchedulerConfiguration\n---\nkind: Pod\n---\n# second\nkind: KubeSchedulerConfiguration\n');
    assert.deepEqual(docs.map((d) => d.line), [1, 6]);
    assert.equal(docs[1]!.text, '\n\n\n\n# second\nkind: KubeSchedulerConfiguration\n');
  });
});
