// The harness's own test cluster: test/cluster/cluster.sh with a separate state
// directory and port base (so it runs beside the e2e cluster) and the aligned
// flags of settings.ts.

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kube } from '../../src/live/kube.js';
import { apiserverFlags, kcmFlags, LEASE_SECONDS, schedulerConfig } from './settings.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RUN = join(ROOT, 'test', 'cluster', '.run-sim-vs-real');
const PORT_BASE = '17400';

function env(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    BERTH_CLUSTER_RUN: RUN,
    BERTH_CLUSTER_PORT_BASE: PORT_BASE,
    BERTH_KWOK_READY_DELAY_MS: '0',
    BERTH_KWOK_LEASE_SECONDS: String(LEASE_SECONDS),
    BERTH_APISERVER_FLAGS: apiserverFlags.join(' '),
    BERTH_KCM_FLAGS: kcmFlags.join(' '),
    BERTH_SCHEDULER_FLAGS: `--config ${join(RUN, 'scheduler-config.yaml')}`,
  };
}

function clusterSh(...args: string[]): void {
  const r = spawnSync(join(ROOT, 'test', 'cluster', 'cluster.sh'), args, { env: env(), stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`cluster.sh ${args.join(' ')} failed (exit ${r.status})`);
}

export function clusterUp(): Kube {
  mkdirSync(RUN, { recursive: true });
  writeFileSync(join(RUN, 'scheduler-config.yaml'), schedulerConfig(join(RUN, 'scheduler.kubeconfig')));
  clusterSh('up');
  return Kube.fromFile(join(RUN, 'kubeconfig'));
}

export function clusterDown(): void {
  clusterSh('down');
}
