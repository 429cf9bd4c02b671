// `berth check` on the generated cluster of bench/check-cluster.ts, timed in a child
// process per size: CPU seconds (the machine is shared, so CPU rather than wall is
// the figure to compare), wall seconds and peak RSS, from the loaded input to the
// findings — as `berth check --cluster <dump>` runs it.
//   npx tsx bench/check.ts 200          one size, JSON on stdout (the child side)
//   npm run bench -- --only Check       200 and 1,000 nodes (200 with --quick)

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { analyze } from '../src/analyze/analyze.js';
import { instanceTypesOf, loadCluster } from '../src/cli/common.js';
import { checkClusterDump } from './check-cluster.js';

export interface CheckBench {
  readonly nodes: number;
  readonly pods: number;
  readonly findings: number;
  readonly cpuSeconds: number;
  readonly wallSeconds: number;
  readonly maxRssMiB: number;
}

async function measure(nodes: number): Promise<CheckBench> {
  const dir = mkdtempSync(join(tmpdir(), 'berth-check-bench-'));
  try {
    const file = join(dir, `check-${nodes}.yaml`);
    writeFileSync(file, checkClusterDump(nodes));
    const cpu = process.cpuUsage();
    const start = performance.now();
    const { input } = await loadCluster({ validate: 'strict', kubeletDefaults: true }, [], [file]); // the CLI's defaults
    const provisioner = input.nodePools.some((np) => np.replicas === null);
    const findings = analyze({ input, instanceTypes: await instanceTypesOf(input, {}), provisioner, seed: 0 });
    const used = process.cpuUsage(cpu);
    return {
      nodes,
      pods: input.pods.length,
      findings: findings.length,
      cpuSeconds: (used.user + used.system) / 1e6,
      wallSeconds: (performance.now() - start) / 1000,
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `npm run bench`'s check entries: one child process per size, a line each. */
export function benchCheck(quick: boolean): CheckBench[] {
  return (quick ? [200] : [200, 1000]).map((nodes) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/check.ts', String(nodes)], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
    if (r.status !== 0) throw new Error(`bench/check.ts ${nodes} failed (${r.status}): ${r.stderr.slice(-2000)}`);
    const b = JSON.parse(r.stdout) as CheckBench;
    console.log(`check (${b.nodes} nodes, ${b.pods} pods, ${b.findings} findings): ${b.cpuSeconds.toFixed(1)} s CPU, ${b.wallSeconds.toFixed(1)} s wall, peak RSS ${b.maxRssMiB.toFixed(0)} MiB`);
    return b;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(`${JSON.stringify(await measure(Number(process.argv[2] ?? 200)))}\n`);
