// A binary min-heap whose items remember their own position, so an item can be
// removed or re-sifted after a change in O(log n) — what the scheduler queue's
// activeQ and backoffQ need (upstream's heap keyed by pod).

export interface HeapItem {
  /** Index in the heap holding the item; -1 when in none. */
  heapPos: number;
}

export class IndexedHeap<T extends HeapItem> {
  private readonly items: T[] = [];

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    item.heapPos = this.items.length;
    this.items.push(item);
    this.up(item.heapPos);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top) this.remove(top);
    return top;
  }

  /** Takes the item out; it must be in this heap. */
  remove(item: T): void {
    const i = item.heapPos;
    const last = this.items.pop()!;
    item.heapPos = -1;
    if (last === item) return;
    this.place(last, i);
    this.fix(last);
  }

  /** Restores the order after the item's sort key changed. */
  fix(item: T): void {
    if (!this.up(item.heapPos)) this.down(item.heapPos);
  }

  private place(item: T, i: number): void {
    this.items[i] = item;
    item.heapPos = i;
  }

  private up(i: number): boolean {
    const h = this.items;
    const item = h[i]!;
    const start = i;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(item, h[parent]!)) break;
      this.place(h[parent]!, i);
      i = parent;
    }
    this.place(item, i);
    return i !== start;
  }

  private down(i: number): void {
    const h = this.items;
    const item = h[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const m = r < h.length && this.less(h[r]!, h[l]!) ? r : l;
      if (!this.less(h[m]!, item)) break;
      this.place(h[m]!, i);
      i = m;
    }
    this.place(item, i);
  }
}
