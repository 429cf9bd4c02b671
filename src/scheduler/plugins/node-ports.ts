// NodePorts: a pod's host ports must be free on the node.

import type { FilterPlugin, PreFilterPlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { Status } from '../status.js';

export const NODE_PORTS = 'NodePorts';
export const ERR_REASON_PORTS = "node(s) didn't have free ports for the requested pod ports";

export const newNodePorts: PluginFactory = (): PreFilterPlugin & FilterPlugin => ({
  name: NODE_PORTS,
  preFilter: (_state, pod) => ({ status: pod.hostPorts.length === 0 ? Status.SKIP : Status.SUCCESS }),
  filter: (_state, pod, nodeInfo) => {
    for (const p of pod.hostPorts) if (nodeInfo.usedPorts.conflicts(p)) return Status.unschedulable(ERR_REASON_PORTS);
    return Status.SUCCESS;
  },
});
