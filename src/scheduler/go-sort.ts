// Go's sort.Slice (pattern-defeating quicksort, sort/zsortfunc.go). It is not a
// stable sort: when upstream sorts with sort.Slice, elements that compare equal
// end up in an order only this exact algorithm reproduces, so berth ports it
// instead of using Array.prototype.sort (which is stable).

interface LessSwap {
  less(i: number, j: number): boolean;
  swap(i: number, j: number): void;
}

const enum Hint {
  Unknown,
  Increasing,
  Decreasing,
}

/** bits.Len for a non-negative integer below 2^32. */
function bitsLen(n: number): number {
  return n === 0 ? 0 : 32 - Math.clz32(n);
}

/** Sorts `items` in place exactly as Go's sort.Slice(items, less) would. */
export function goSortSlice<T>(items: T[], less: (a: T, b: T) => boolean): void {
  const data: LessSwap = {
    less: (i, j) => less(items[i]!, items[j]!),
    swap: (i, j) => {
      const t = items[i]!;
      items[i] = items[j]!;
      items[j] = t;
    },
  };
  pdqsort(data, 0, items.length, bitsLen(items.length));
}

function insertionSort(data: LessSwap, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) {
    for (let j = i; j > a && data.less(j, j - 1); j--) data.swap(j, j - 1);
  }
}

function siftDown(data: LessSwap, lo: number, hi: number, first: number): void {
  let root = lo;
  for (;;) {
    let child = 2 * root + 1;
    if (child >= hi) return;
    if (child + 1 < hi && data.less(first + child, first + child + 1)) child++;
    if (!data.less(first + root, first + child)) return;
    data.swap(first + root, first + child);
    root = child;
  }
}

function heapSort(data: LessSwap, a: number, b: number): void {
  const first = a;
  const hi = b - a;
  for (let i = Math.trunc((hi - 1) / 2); i >= 0; i--) siftDown(data, i, hi, first);
  for (let i = hi - 1; i >= 0; i--) {
    data.swap(first, first + i);
    siftDown(data, 0, i, first);
  }
}

function pdqsort(data: LessSwap, a: number, b: number, limit: number): void {
  const maxInsertion = 12;
  let wasBalanced = true;
  let wasPartitioned = true;
  for (;;) {
    const length = b - a;
    if (length <= maxInsertion) {
      insertionSort(data, a, b);
      return;
    }
    if (limit === 0) {
      heapSort(data, a, b);
      return;
    }
    if (!wasBalanced) {
      breakPatterns(data, a, b);
      limit--;
    }
    let [pivot, hint] = choosePivot(data, a, b);
    if (hint === Hint.Decreasing) {
      reverseRange(data, a, b);
      pivot = b - 1 - (pivot - a);
      hint = Hint.Increasing;
    }
    if (wasBalanced && wasPartitioned && hint === Hint.Increasing) {
      if (partialInsertionSort(data, a, b)) return;
    }
    if (a > 0 && !data.less(a - 1, pivot)) {
      a = partitionEqual(data, a, b, pivot);
      continue;
    }
    const [mid, alreadyPartitioned] = partition(data, a, b, pivot);
    wasPartitioned = alreadyPartitioned;
    const leftLen = mid - a;
    const rightLen = b - mid;
    const balanceThreshold = Math.trunc(length / 8);
    if (leftLen < rightLen) {
      wasBalanced = leftLen >= balanceThreshold;
      pdqsort(data, a, mid, limit);
      a = mid + 1;
    } else {
      wasBalanced = rightLen >= balanceThreshold;
      pdqsort(data, mid + 1, b, limit);
      b = mid;
    }
  }
}

function partition(data: LessSwap, a: number, b: number, pivot: number): [number, boolean] {
  data.swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  while (i <= j && data.less(i, a)) i++;
  while (i <= j && !data.less(j, a)) j--;
  if (i > j) {
    data.swap(j, a);
    return [j, true];
  }
  data.swap(i, j);
  i++;
  j--;
  for (;;) {
    while (i <= j && data.less(i, a)) i++;
    while (i <= j && !data.less(j, a)) j--;
    if (i > j) break;
    data.swap(i, j);
    i++;
    j--;
  }
  data.swap(j, a);
  return [j, false];
}

function partitionEqual(data: LessSwap, a: number, b: number, pivot: number): number {
  data.swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  for (;;) {
    while (i <= j && !data.less(a, i)) i++;
    while (i <= j && data.less(a, j)) j--;
    if (i > j) break;
    data.swap(i, j);
    i++;
    j--;
  }
  return i;
}

function partialInsertionSort(data: LessSwap, a: number, b: number): boolean {
  const maxSteps = 5;
  const shortestShifting = 50;
  let i = a + 1;
  for (let step = 0; step < maxSteps; step++) {
    while (i < b && !data.less(i, i - 1)) i++;
    if (i === b) return true;
    if (b - a < shortestShifting) return false;
    data.swap(i, i - 1);
    if (i - a >= 2) {
      for (let j = i - 1; j >= 1; j--) {
        if (!data.less(j, j - 1)) break;
        data.swap(j, j - 1);
      }
    }
    if (b - i >= 2) {
      for (let j = i + 1; j < b; j++) {
        if (!data.less(j, j - 1)) break;
        data.swap(j, j - 1);
      }
    }
  }
  return false;
}

const MASK64 = (1n << 64n) - 1n;

function breakPatterns(data: LessSwap, a: number, b: number): void {
  const length = b - a;
  if (length < 8) return;
  // Go seeds a 64-bit xorshift with the length, so the scatter is deterministic.
  let r = BigInt(length);
  const next = (): bigint => {
    r ^= (r << 13n) & MASK64;
    r ^= r >> 7n;
    r ^= (r << 17n) & MASK64;
    return r;
  };
  const modulus = 2 ** bitsLen(length);
  const base = a + Math.trunc(length / 4) * 2;
  for (let idx = base - 1; idx <= base + 1; idx++) {
    let other = Number(next() & BigInt(modulus - 1));
    if (other >= length) other -= length;
    data.swap(idx, a + other);
  }
}

function choosePivot(data: LessSwap, a: number, b: number): [number, Hint] {
  const shortestNinther = 50;
  const maxSwaps = 4 * 3;
  const l = b - a;
  const swaps = { n: 0 };
  const quarter = Math.trunc(l / 4);
  let i = a + quarter;
  let j = a + quarter * 2;
  let k = a + quarter * 3;
  if (l >= 8) {
    if (l >= shortestNinther) {
      i = median(data, i - 1, i, i + 1, swaps);
      j = median(data, j - 1, j, j + 1, swaps);
      k = median(data, k - 1, k, k + 1, swaps);
    }
    j = median(data, i, j, k, swaps);
  }
  if (swaps.n === 0) return [j, Hint.Increasing];
  if (swaps.n === maxSwaps) return [j, Hint.Decreasing];
  return [j, Hint.Unknown];
}

function order2(data: LessSwap, a: number, b: number, swaps: { n: number }): [number, number] {
  if (data.less(b, a)) {
    swaps.n++;
    return [b, a];
  }
  return [a, b];
}

function median(data: LessSwap, a: number, b: number, c: number, swaps: { n: number }): number {
  [a, b] = order2(data, a, b, swaps);
  [b, c] = order2(data, b, c, swaps);
  [a, b] = order2(data, a, b, swaps);
  return b;
}

function reverseRange(data: LessSwap, a: number, b: number): void {
  for (let i = a, j = b - 1; i < j; i++, j--) data.swap(i, j);
}
