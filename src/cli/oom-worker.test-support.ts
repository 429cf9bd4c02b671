// A pool worker (cli/pool.ts) whose task keeps allocating until its heap runs out.

export default function exhaustHeap(): number {
  const kept: number[][] = [];
  for (;;) kept.push(new Array(1e5).fill(kept.length));
}
