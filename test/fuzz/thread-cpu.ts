// CPU time of one thread of this process, so the fuzzer's per-input budget counts
// what the worker itself spent and not how long a loaded machine kept it waiting.
// On Linux a thread's user+system time is in /proc/self/task/<tid>/stat; elsewhere
// the whole process's time stands in (the worker's plus every other thread's).

import { readFileSync, readlinkSync } from 'node:fs';

/** This thread's id as the kernel knows it ("<pid>/task/<tid>"), or undefined where /proc is missing. Call it in the thread to measure. */
export function currentThreadId(): number | undefined {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return undefined;
  }
}

// Fields 14 and 15 of /proc/…/stat, in clock ticks; Linux reports them at 100 ticks a second on every architecture node runs on.
const MS_PER_TICK = 10;

/** CPU milliseconds (user + system) spent so far by thread `tid` of this process, or by the whole process when `tid` is undefined. */
export function threadCpuMs(tid: number | undefined): number {
  if (tid === undefined) {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}
