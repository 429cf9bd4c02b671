// Memoized per-node matching-pod counts. Every scheduling cycle asks each node how
// many of its pods match the incoming pod's spread selector; replicas of one
// workload ask the same question, so the answer is kept until the node changes
// (NodeInfo.generation moves on every pod added or removed).

import type { NodeInfo } from '../../../cluster/node-info.js';
import { selectorKey, type Selector } from '../../../model/selector.js';
import { countMatchingPods } from './constraints.js';

interface NodeCounts {
  generation: number;
  readonly byQuery: Map<string, number>;
}

const perNode = new WeakMap<NodeInfo, NodeCounts>();
/** countMatchingPods(info.pods, selector, namespace), computed once per node state. */
export function nodeMatchCount(info: NodeInfo, selector: Selector, namespace: string): number {
  let entry = perNode.get(info);
  if (entry === undefined || entry.generation !== info.generation) {
    entry = { generation: info.generation, byQuery: new Map() };
    perNode.set(info, entry);
  }
  const query = `${namespace}\x00${selectorKey(selector)}`;
  let n = entry.byQuery.get(query);
  if (n === undefined) {
    n = countMatchingPods(info.pods, selector, namespace);
    entry.byQuery.set(query, n);
  }
  return n;
}
