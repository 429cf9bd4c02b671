// The pending-event queue: a binary min-heap ordered by (time, insertion seq), so
// events at the same instant run in the order they were scheduled — the property
// that makes a run reproducible.

export interface SimEvent {
  readonly time: number;
  readonly seq: number;
  /** A short name for debugging; handlers log what they do themselves. */
  readonly type: string;
  readonly run: () => void;
}

function before(a: SimEvent, b: SimEvent): boolean {
  return a.time < b.time || (a.time === b.time && a.seq < b.seq);
}

export class EventQueue {
  private readonly heap: SimEvent[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(time: number, type: string, run: () => void): SimEvent {
    const ev: SimEvent = { time, seq: this.nextSeq++, type, run };
    const h = this.heap;
    h.push(ev);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
    return ev;
  }

  peek(): SimEvent | undefined {
    return this.heap[0];
  }

  pop(): SimEvent | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
