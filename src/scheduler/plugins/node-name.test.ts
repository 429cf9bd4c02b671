import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { buildPlugin, mkNode, mkPod, nodeInfoWith, statusOf } from '../../../test/fixtures/plugin-harness.js';
import { CycleState, type FilterPlugin, type PreFilterPlugin } from '../framework.js';
import { Code } from '../status.js';
import { NODE_NAME, newNodeName } from './node-name.js';

describe('NodeName (TestNodeName)', () => {
  const cases = [
    { name: 'no host specified', nodeName: '', node: 'foo', want: null, preFilter: null },
    { name: 'host matches', nodeName: 'foo', node: 'foo', want: null, preFilter: ['foo'] },
    { name: 'host doesn\'t match', nodeName: 'bar', node: 'foo', want: { code: Code.UnschedulableAndUnresolvable, reasons: ["node(s) didn't match the requested node name"] }, preFilter: ['bar'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { plugin } = buildPlugin<PreFilterPlugin & FilterPlugin>(newNodeName);
      assert.equal(plugin.name, NODE_NAME);
      const pod = mkPod('p', c.nodeName ? { nodeName: c.nodeName } : {});
      const info = nodeInfoWith(mkNode(c.node));
      const state = new CycleState();
      const pre = plugin.preFilter(state, pod, [info]);
      assert.ok(pre.status.isSuccess());
      assert.deepEqual(pre.result?.nodeNames ? [...pre.result.nodeNames] : null, c.preFilter);
      const status = plugin.filter(state, pod, info);
      if (c.want === null) assert.ok(status.isSuccess());
      else assert.deepEqual(statusOf(status), c.want);
    });
  }
});
