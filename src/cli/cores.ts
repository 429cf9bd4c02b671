// The cores berth's workers may use: the CPUs node says this process may run on, or
// fewer when its cgroup's CPU quota says so. In a pod with a CPU limit of 2 on a
// 16-core node, node alone counts 16; 16 workers would then share 2 cores' time.

import { availableParallelism } from 'node:os';
import { readOrUndefined } from './memory.js';

/** Whole cores of a quota per period, rounded down but at least one; undefined for no quota (-1, max, unreadable). */
function quotaCores(quota: number, period: number): number | undefined {
  return Number.isFinite(quota) && Number.isFinite(period) && quota > 0 && period > 0 ? Math.max(1, Math.floor(quota / period)) : undefined;
}

/**
 * The CPU quota of this process's cgroup in whole cores (v2 `cpu.max`, else v1
 * `cpu.cfs_quota_us` over `cpu.cfs_period_us`), or undefined when there is none.
 */
export function cgroupCpuLimit(read: (path: string) => string | undefined): number | undefined {
  const v2 = read('/sys/fs/cgroup/cpu.max')?.trim().split(/\s+/);
  if (v2 !== undefined) return v2[0] === 'max' ? undefined : quotaCores(Number(v2[0]), Number(v2[1]));
  return quotaCores(Number(read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us')), Number(read('/sys/fs/cgroup/cpu/cpu.cfs_period_us')));
}

/** The cores this process may use: node's count, or its cgroup's CPU quota when lower. */
export function availableCores(cpu = { parallelism: availableParallelism(), cgroup: cgroupCpuLimit(readOrUndefined) }): number {
  return Math.min(cpu.parallelism, cpu.cgroup ?? Infinity);
}
