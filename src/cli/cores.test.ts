import assert from 'node:assert/strict';
import { test } from 'node:test';
import { availableCores, cgroupCpuLimit } from './cores.js';

test("the cgroup's CPU quota in whole cores: v2 cpu.max, else v1's quota over its period; none for max, -1 or nothing readable", () => {
  const files = (m: Record<string, string>) => (path: string) => m[path];
  assert.equal(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu.max': '200000 100000\n' })), 2);
  assert.equal(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu.max': '150000 100000\n' })), 1, 'rounded down');
  assert.equal(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu.max': '50000 100000\n' })), 1, 'never below one core');
  assert.equal(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu.max': 'max 100000\n', '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '100000' })), undefined, 'v2 says no quota: v1 is not read');
  assert.equal(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '400000\n', '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n' })), 4);
  assert.equal(cgroupCpuLimit(files({ '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n', '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n' })), undefined);
  assert.equal(cgroupCpuLimit(files({})), undefined);
});

test("the available cores: node's count, or the cgroup's quota when lower", () => {
  assert.equal(availableCores({ parallelism: 16, cgroup: 2 }), 2);
  assert.equal(availableCores({ parallelism: 2, cgroup: 8 }), 2);
  assert.equal(availableCores({ parallelism: 4, cgroup: undefined }), 4);
});
