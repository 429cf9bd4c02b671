// NodeName: a pod that names its node (spec.nodeName) may only go there.

import type { Plugin, FilterPlugin, PreFilterPlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { Status } from '../status.js';

export const NODE_NAME = 'NodeName';
export const ERR_REASON_NODE_NAME = "node(s) didn't match the requested node name";

export const newNodeName: PluginFactory = (): Plugin & PreFilterPlugin & FilterPlugin => ({
  name: NODE_NAME,
  preFilter: (_state, pod) => (pod.nodeName ? { result: { nodeNames: new Set([pod.nodeName]) }, status: Status.SUCCESS } : { status: Status.SUCCESS }),
  filter: (_state, pod, nodeInfo) =>
    !pod.nodeName || pod.nodeName === nodeInfo.node.name ? Status.SUCCESS : Status.unresolvable(ERR_REASON_NODE_NAME),
});
