import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { schedulerConfigDocument } from '../web/src/scheduler-config-doc.js';

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
});
