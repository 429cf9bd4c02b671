// The harness's own test clusters: test/cluster/cluster.sh with separate state
// directories and port bases (so they run beside the e2e cluster and beside each
// other) and the aligned flags of settings.ts. Cluster k (0, 1, …) keeps its state
// in test/cluster/.run-sim-vs-real[-k] and listens on port base 17400 + 100 k
// (cluster.sh uses base+43 … base+80).

import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kube } from '../../src/live/kube.js';
import { apiserverFlags, kcmFlags, LEASE_SECONDS, schedulerConfig } from './settings.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PORT_BASE = 17400;
/** Clusters 0 … 5 (ports up to 17980); each runs one scenario at a time. */
export const MAX_CLUSTERS = 6;

export const runDir = (k: number) => join(ROOT, 'test', 'cluster', k === 0 ? '.run-sim-vs-real' : `.run-sim-vs-real-${k}`);

function env(k: number): NodeJS.ProcessEnv {
  const run = runDir(k);
  return {
    ...process.env,
    BERTH_CLUSTER_RUN: run,
    BERTH_CLUSTER_PORT_BASE: String(PORT_BASE + 100 * k),
    BERTH_KWOK_READY_DELAY_MS: '0',
    BERTH_KWOK_LEASE_SECONDS: String(LEASE_SECONDS),
    BERTH_APISERVER_FLAGS: apiserverFlags.join(' '),
    // SVR_SCHEDULER_FLAGS, SVR_KCM_FLAGS: more flags while investigating (kube-scheduler's --v=10 logs every node's score).
    BERTH_KCM_FLAGS: `${kcmFlags.join(' ')} ${process.env['SVR_KCM_FLAGS'] ?? ''}`,
    BERTH_SCHEDULER_FLAGS: `--config ${join(run, 'scheduler-config.yaml')} ${process.env['SVR_SCHEDULER_FLAGS'] ?? ''}`,
  };
}

/** Runs cluster.sh without blocking: the other clusters' scenarios go on meanwhile (a restart after an infrastructure failure). */
function clusterSh(k: number, ...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(ROOT, 'test', 'cluster', 'cluster.sh'), args, { env: env(k), stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`cluster.sh ${args.join(' ')} (cluster ${k}) failed (exit ${code})`))));
  });
}

export async function clusterUp(k = 0): Promise<Kube> {
  if (k < 0 || k >= MAX_CLUSTERS) throw new Error(`cluster ${k}: at most ${MAX_CLUSTERS} clusters`);
  const run = runDir(k);
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, 'scheduler-config.yaml'), schedulerConfig(join(run, 'scheduler.kubeconfig')));
  await clusterSh(k, 'up');
  return Kube.fromFile(join(run, 'kubeconfig'));
}

export async function clusterDown(k = 0): Promise<void> {
  await clusterSh(k, 'down');
}
