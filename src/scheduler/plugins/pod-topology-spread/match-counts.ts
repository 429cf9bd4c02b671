// Memoized per-node matching-pod counts. Every scheduling cycle asks each node how
// many of its pods match the incoming pod's spread selector; replicas of one
// workload ask the same question, so the answer is kept until the node changes
// (NodeInfo.generation moves on every pod added or removed).

import type { NodeInfo } from '../../../cluster/node-info.js';
import type { Selector } from '../../../model/selector.js';
import { countMatchingPods } from './constraints.js';

interface NodeCounts {
  generation: number;
  readonly byQuery: Map<string, number>;
}

const perNode = new WeakMap<NodeInfo, NodeCounts>();
const selectorKeys = new WeakMap<Selector, string>();

/** A string equal for selectors with the same requirements (their meaning). */
function selectorKey(selector: Selector): string {
  let key = selectorKeys.get(selector);
  if (key === undefined) {
    key = selector.nothing ? '!' : selector.everything ? '*' : JSON.stringify(selector.requirements.map((r) => [r.key, r.operator, r.values]));
    selectorKeys.set(selector, key);
  }
  return key;
}

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
