// FailedScheduling messages, assembled as framework.FitError.Error() does:
// "0/N nodes are available: <prefilter msg>. | <sorted reason histogram>. <postfilter msg>"

import type { NodeToStatus } from './framework.js';
import { Code, type Status } from './status.js';

export const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

export interface Diagnosis {
  readonly nodeToStatus: NodeToStatus;
  readonly unschedulablePlugins: Set<string>;
  readonly pendingPlugins: Set<string>;
  preFilterMsg: string;
  postFilterMsg: string;
  /** The PreFilter plugin whose rejection ended PreFilter early (the later ones did not run). */
  preFilterStoppedAt?: string;
}

export function addPluginStatus(d: Diagnosis, s: Status): void {
  if (!s.plugin) return;
  if (s.isRejected()) d.unschedulablePlugins.add(s.plugin);
  if (s.code === Code.Pending) d.pendingPlugins.add(s.plugin);
}

/** Go's sort.Strings order: byte-wise UTF-8, which is code point order (not UTF-16 unit order). */
export function compareGoStrings(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  if (i >= a.length) return j >= b.length ? 0 : -1;
  return 1;
}

export function fitErrorMessage(numAllNodes: number, d: Diagnosis): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  if (d.preFilterMsg !== '') {
    msg += ` ${d.preFilterMsg}.`;
  } else {
    const histogram = new Map<string, number>();
    d.nodeToStatus.tallyReasons(histogram);
    const absent = numAllNodes - d.nodeToStatus.size;
    if (absent > 0) {
      for (const r of d.nodeToStatus.absentNodesStatus.reasons) histogram.set(r, (histogram.get(r) ?? 0) + absent);
    }
    const parts = [...histogram].map(([reason, count]) => `${count} ${reason}`).sort(compareGoStrings);
    if (parts.length > 0) msg += ` ${parts.join(', ')}.`;
  }
  if (d.postFilterMsg !== '') msg += ` ${d.postFilterMsg}`;
  return msg;
}
