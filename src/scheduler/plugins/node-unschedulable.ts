// NodeUnschedulable: cordoned nodes (spec.unschedulable) take only pods that tolerate the unschedulable taint.
// Upstream passes TaintTolerationComparisonOperators here too, but the taint's value is empty,
// which no Lt/Gt toleration tolerates either way.

import { tolerationsTolerateTaint, type Taint } from '../../model/taints.js';
import type { FilterPlugin, PreFilterPlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { Status } from '../status.js';

export const NODE_UNSCHEDULABLE = 'NodeUnschedulable';
export const ERR_REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
const UNSCHEDULABLE_TAINT: Taint = { key: 'node.kubernetes.io/unschedulable', value: '', effect: 'NoSchedule' };

export const newNodeUnschedulable: PluginFactory = (): PreFilterPlugin & FilterPlugin => ({
  name: NODE_UNSCHEDULABLE,
  // Upstream's PreFilter only skips pods with a deferred resize (an alpha gate); it is kept so configs may list it.
  preFilter: () => ({ status: Status.SUCCESS }),
  filter: (_state, pod, nodeInfo) => {
    if (!nodeInfo.node.unschedulable) return Status.SUCCESS;
    return tolerationsTolerateTaint(pod.tolerations, UNSCHEDULABLE_TAINT) ? Status.SUCCESS : Status.unresolvable(ERR_REASON_UNSCHEDULABLE);
  },
});
