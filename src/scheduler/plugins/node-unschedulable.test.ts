import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { TolerationManifest } from '../../model/manifest.js';
import { buildPlugin, mkNode, mkPod, nodeInfoWith, statusOf } from '../../../test/fixtures/plugin-harness.js';
import { CycleState, type FilterPlugin, type PreFilterPlugin } from '../framework.js';
import { Code } from '../status.js';
import { NODE_UNSCHEDULABLE, newNodeUnschedulable } from './node-unschedulable.js';

describe('NodeUnschedulable (TestNodeUnschedulable)', () => {
  const UNSCHEDULABLE = { code: Code.UnschedulableAndUnresolvable, reasons: ['node(s) were unschedulable'] };
  const cases: { name: string; unschedulable: boolean; tolerations?: TolerationManifest[]; want: typeof UNSCHEDULABLE | null }[] = [
    { name: 'Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)', unschedulable: true, want: UNSCHEDULABLE },
    { name: 'Schedule pod to normal node', unschedulable: false, want: null },
    { name: 'Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)', unschedulable: true, tolerations: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }], want: null },
    { name: 'an Exists toleration on the key is enough', unschedulable: true, tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists' }], want: null },
    { name: 'a NoExecute-only toleration does not tolerate the NoSchedule taint', unschedulable: true, tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }], want: UNSCHEDULABLE },
    { name: 'a toleration with a value does not match the empty taint value', unschedulable: true, tolerations: [{ key: 'node.kubernetes.io/unschedulable', value: 'x', effect: 'NoSchedule' }], want: UNSCHEDULABLE },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { plugin } = buildPlugin<PreFilterPlugin & FilterPlugin>(newNodeUnschedulable);
      assert.equal(plugin.name, NODE_UNSCHEDULABLE);
      const pod = mkPod('p', c.tolerations ? { tolerations: c.tolerations } : {});
      const info = nodeInfoWith(mkNode('n', { unschedulable: c.unschedulable }));
      const state = new CycleState();
      assert.ok(plugin.preFilter(state, pod, [info]).status.isSuccess());
      const status = plugin.filter(state, pod, info);
      if (c.want === null) assert.ok(status.isSuccess());
      else assert.deepEqual(statusOf(status), c.want);
    });
  }
});
