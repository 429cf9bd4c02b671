// A worker module for pool.test.ts with a `prepare`: its tasks get what it made of
// the pool's data (once per worker), not the data.

interface Made {
  readonly length: number;
  readonly calls: number;
}

let calls = 0;

export function prepare(data: { readonly text: string }): Made {
  calls++;
  return { length: data.text.length, calls };
}

export default function describe(task: number, made: Made): { task: number; length: number; calls: number; data: boolean } {
  return { task, length: made.length, calls: made.calls, data: 'text' in made };
}
