// Counts per topology pair (topology key, node label value), the currency of
// InterPodAffinity's PreFilter state (topologyToMatchedTermCount upstream).

import type { Labels } from '../../../model/selector.js';

/** A node label value, or undefined when the node does not carry the key (own properties only). */
export function labelValue(labels: Labels, key: string): string | undefined {
  return Object.hasOwn(labels, key) ? labels[key] : undefined;
}

export class TopologyCounts {
  private readonly byKey = new Map<string, Map<string, number>>();
  private pairs = 0;
  /** byKey's entries as a list, for the per-node anyPositiveFor (no Map iterator per node); dropped when a key comes or goes. */
  private keyList: [string, Map<string, number>][] | null = null;

  /** Number of pairs with a non-zero count (len() of the upstream map). */
  get size(): number {
    return this.pairs;
  }

  get(key: string, value: string): number {
    return this.byKey.get(key)?.get(value) ?? 0;
  }

  /**
   * Adds `delta` to the pair the node forms with `key`; a node without the key
   * forms no pair. A pair that comes back to exactly zero is dropped, as
   * upstream does, so an emptied map reads as "no matches anywhere" again.
   * Negative counts (removing what was never added) are kept.
   */
  addForNode(nodeLabels: Labels, key: string, delta: number): void {
    const value = labelValue(nodeLabels, key);
    if (value === undefined) return;
    let values = this.byKey.get(key);
    if (!values) {
      this.byKey.set(key, (values = new Map()));
      this.keyList = null;
    }
    const before = values.get(value);
    const after = (before ?? 0) + delta;
    if (after === 0) {
      if (before !== undefined) {
        values.delete(value);
        this.pairs--;
      }
      if (values.size === 0) {
        this.byKey.delete(key);
        this.keyList = null;
      }
      return;
    }
    if (before === undefined) this.pairs++;
    values.set(value, after);
  }

  /** True when some label of the node forms a pair with a positive count. */
  anyPositiveFor(nodeLabels: Labels): boolean {
    const list = (this.keyList ??= [...this.byKey]);
    for (let i = 0; i < list.length; i++) {
      const [key, values] = list[i]!;
      const value = labelValue(nodeLabels, key);
      if (value !== undefined && (values.get(value) ?? 0) > 0) return true;
    }
    return false;
  }

  clone(): TopologyCounts {
    const c = new TopologyCounts();
    for (const [key, values] of this.byKey) c.byKey.set(key, new Map(values));
    c.pairs = this.pairs;
    return c;
  }

  /** Pairs and counts, sorted by key then value (for comparisons and explanations). */
  entries(): [key: string, value: string, count: number][] {
    const out: [string, string, number][] = [];
    for (const [key, values] of this.byKey) for (const [value, count] of values) out.push([key, value, count]);
    return out.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1));
  }
}
