// Go's sort.Slice, element for element: a pattern-defeating quicksort that is not
// stable. Up to 12 elements it is an insertion sort (stable); beyond that, equal
// elements come out in an order that depends on the whole slice. Karpenter orders its
// planned NodeClaims with sort.Slice, so berth walks them in the order Go leaves.
// The algorithm is deterministic: its only "random" step is a xorshift seeded with
// the length of the range.

type Less = (i: number, j: number) => boolean;

/** Sorts `xs` in place exactly as Go's `sort.Slice(xs, less)` would. */
export function goSortSlice<T>(xs: T[], less: (a: T, b: T) => boolean): void {
  const s = new GoSorter(xs, (i, j) => less(xs[i]!, xs[j]!));
  s.pdqsort(0, xs.length, bitLength(xs.length));
}

function bitLength(n: number): number {
  return 32 - Math.clz32(n);
}

const INSERTION_MAX = 12;
const NINTHER_MIN = 50;
const SHIFT_MIN = 50;
const SHIFT_STEPS = 5;
const MASK64 = (1n << 64n) - 1n;

type Hint = 'unknown' | 'increasing' | 'decreasing';

class GoSorter<T> {
  constructor(
    private readonly xs: T[],
    private readonly less: Less,
  ) {}

  private swap(i: number, j: number): void {
    const t = this.xs[i]!;
    this.xs[i] = this.xs[j]!;
    this.xs[j] = t;
  }

  private insertion(a: number, b: number): void {
    for (let i = a + 1; i < b; i++) for (let j = i; j > a && this.less(j, j - 1); j--) this.swap(j, j - 1);
  }

  private siftDown(lo: number, hi: number, first: number): void {
    let root = lo;
    for (;;) {
      let child = 2 * root + 1;
      if (child >= hi) return;
      if (child + 1 < hi && this.less(first + child, first + child + 1)) child++;
      if (!this.less(first + root, first + child)) return;
      this.swap(first + root, first + child);
      root = child;
    }
  }

  private heapSort(a: number, b: number): void {
    const n = b - a;
    for (let i = Math.floor((n - 1) / 2); i >= 0; i--) this.siftDown(i, n, a);
    for (let i = n - 1; i >= 0; i--) {
      this.swap(a, a + i);
      this.siftDown(0, i, a);
    }
  }

  pdqsort(a: number, b: number, limit: number): void {
    let balanced = true;
    let partitioned = true;
    for (;;) {
      const length = b - a;
      if (length <= INSERTION_MAX) return this.insertion(a, b);
      if (limit === 0) return this.heapSort(a, b);
      if (!balanced) {
        this.breakPatterns(a, b);
        limit--;
      }
      let [pivot, hint] = this.choosePivot(a, b);
      if (hint === 'decreasing') {
        this.reverse(a, b);
        pivot = b - 1 - (pivot - a);
        hint = 'increasing';
      }
      if (balanced && partitioned && hint === 'increasing' && this.partialInsertion(a, b)) return;
      // Many elements equal to the one before the range: move the equal ones first and skip them.
      if (a > 0 && !this.less(a - 1, pivot)) {
        a = this.partitionEqual(a, b, pivot);
        continue;
      }
      const [mid, already] = this.partition(a, b, pivot);
      partitioned = already;
      const left = mid - a;
      const right = b - mid;
      const threshold = Math.floor(length / 8);
      if (left < right) {
        balanced = left >= threshold;
        this.pdqsort(a, mid, limit);
        a = mid + 1;
      } else {
        balanced = right >= threshold;
        this.pdqsort(mid + 1, b, limit);
        b = mid;
      }
    }
  }

  private partition(a: number, b: number, pivot: number): [number, boolean] {
    this.swap(a, pivot);
    let i = a + 1;
    let j = b - 1;
    while (i <= j && this.less(i, a)) i++;
    while (i <= j && !this.less(j, a)) j--;
    if (i > j) {
      this.swap(j, a);
      return [j, true];
    }
    this.swap(i++, j--);
    for (;;) {
      while (i <= j && this.less(i, a)) i++;
      while (i <= j && !this.less(j, a)) j--;
      if (i > j) break;
      this.swap(i++, j--);
    }
    this.swap(j, a);
    return [j, false];
  }

  private partitionEqual(a: number, b: number, pivot: number): number {
    this.swap(a, pivot);
    let i = a + 1;
    let j = b - 1;
    for (;;) {
      while (i <= j && !this.less(a, i)) i++;
      while (i <= j && this.less(a, j)) j--;
      if (i > j) return i;
      this.swap(i++, j--);
    }
  }

  /** Fixes a few adjacent out-of-order pairs; true when the range ends up sorted. */
  private partialInsertion(a: number, b: number): boolean {
    let i = a + 1;
    for (let step = 0; step < SHIFT_STEPS; step++) {
      while (i < b && !this.less(i, i - 1)) i++;
      if (i === b) return true;
      if (b - a < SHIFT_MIN) return false;
      this.swap(i, i - 1);
      if (i - a >= 2) {
        for (let j = i - 1; j >= 1 && this.less(j, j - 1); j--) this.swap(j, j - 1);
      }
      if (b - i >= 2) {
        for (let j = i + 1; j < b && this.less(j, j - 1); j++) this.swap(j, j - 1);
      }
    }
    return false;
  }

  private breakPatterns(a: number, b: number): void {
    const length = b - a;
    if (length < 8) return;
    let r = BigInt(length);
    const modulus = BigInt(2 ** bitLength(length));
    const middle = a + Math.floor(length / 4) * 2;
    for (let idx = middle - 1; idx <= middle + 1; idx++) {
      r ^= (r << 13n) & MASK64;
      r ^= r >> 7n;
      r ^= (r << 17n) & MASK64;
      let other = Number(r & (modulus - 1n));
      if (other >= length) other -= length;
      this.swap(idx, a + other);
    }
  }

  private choosePivot(a: number, b: number): [number, Hint] {
    const l = b - a;
    const quarter = Math.floor(l / 4);
    const swaps = { n: 0 };
    let i = a + quarter;
    let j = a + quarter * 2;
    let k = a + quarter * 3;
    if (l >= 8) {
      if (l >= NINTHER_MIN) {
        i = this.median(i - 1, i, i + 1, swaps);
        j = this.median(j - 1, j, j + 1, swaps);
        k = this.median(k - 1, k, k + 1, swaps);
      }
      j = this.median(i, j, k, swaps);
    }
    return [j, swaps.n === 0 ? 'increasing' : swaps.n === 12 ? 'decreasing' : 'unknown'];
  }

  /** The index of the median of three, counting the swaps an ordering network makes. */
  private median(a: number, b: number, c: number, swaps: { n: number }): number {
    const order = (x: number, y: number): [number, number] => {
      if (this.less(y, x)) {
        swaps.n++;
        return [y, x];
      }
      return [x, y];
    };
    [a, b] = order(a, b);
    [b, c] = order(b, c);
    [a, b] = order(a, b);
    return b;
  }

  private reverse(a: number, b: number): void {
    for (let i = a, j = b - 1; i < j; i++, j--) this.swap(i, j);
  }
}
