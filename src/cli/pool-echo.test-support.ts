// A worker module for pool.test.ts: answers each task with what it saw of the pool's
// data, and counts its tasks in the data's shared buffer (so the test sees that the
// buffer is shared, not copied).

interface EchoData {
  readonly text: string;
  readonly nested: { readonly list: readonly number[] };
  readonly counter: SharedArrayBuffer;
}

let seen: EchoData | undefined;

export default function echo(task: number, data: EchoData): { task: number; text: string; sum: number; sameData: boolean } {
  const sameData = seen === undefined || seen === data;
  seen = data;
  Atomics.add(new Int32Array(data.counter), 0, 1);
  return { task, text: data.text, sum: data.nested.list.reduce((a, b) => a + b, 0) + task, sameData };
}
