// PrioritySort: higher priority first, then the earlier queue timestamp.

import type { QueueSortPlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';

export const PRIORITY_SORT = 'PrioritySort';

export const newPrioritySort: PluginFactory = (): QueueSortPlugin => ({
  name: PRIORITY_SORT,
  less: (a, b) => a.pod.priority > b.pod.priority || (a.pod.priority === b.pod.priority && (a.timestamp < b.timestamp || (a.timestamp === b.timestamp && a.seq < b.seq))),
});
