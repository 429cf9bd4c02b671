// `berth controller`: the live provisioner against a real API server (src/live/).
// Runs until SIGTERM/SIGINT; only the replica holding the Lease acts.

import { hostname } from 'node:os';
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { parseGoDuration } from '../model/go-duration.js';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import { Controller } from '../live/controller.js';
import type { CloudProvider } from '../live/cloud-provider.js';
import { DEFAULT_DISRUPTION_OPTIONS } from '../live/disruption.js';
import { FaultInjectingProvider, faultsSchema, type Faults } from '../live/fault-provider.js';
import { Kube } from '../live/kube.js';
import { KwokProvider } from '../live/kwok-provider.js';
import { LeaderElector } from '../live/leader.js';
import { controllerLogger } from '../live/logger.js';
import { Metrics } from '../live/metrics.js';
import { startServer } from '../live/server.js';
import { CliError } from './common.js';

function durationMs(flag: string) {
  return (value: string): number => {
    try {
      return Number(parseGoDuration(value) / 1_000_000n);
    } catch (e) {
      throw new CliError(`berth: ${flag} ${JSON.stringify(value)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}

function faults(value: string): Faults {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (e) {
    throw new CliError(`berth: --inject-faults: not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = faultsSchema.safeParse(parsed);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new CliError(`berth: --inject-faults: ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
  }
  return r.data;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`berth: --port ${JSON.stringify(value)}: not a port number`);
  return n;
}

/** package.json's version (the build_info metric): two levels up from src/cli/ and from dist/cli/ alike. */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

interface ControllerFlags {
  kubeconfig?: string;
  provider: string;
  launchDelay: number;
  injectFaults?: Faults;
  batchIdle: number;
  batchMax: number;
  registrationTtl: number;
  orphanGrace: number;
  resync: number;
  disruption: boolean;
  disruptionPoll: number;
  disruptionValidation: number;
  drainTimeout: number;
  leaseNamespace: string;
  leaseName: string;
  leaseDuration: number;
  renewDeadline: number;
  retryPeriod: number;
  identity: string;
  port: number;
  bindAddress: string;
  logLevel: string;
}

export function registerController(program: Command): void {
  program
    .command('controller')
    .description('run the provisioner against a real API server: NodeClaims for pods kube-scheduler cannot place')
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, ~/.kube/config, or in-cluster)')
    .option('--provider <name>', 'cloud provider: kwok (fake nodes for kwok to run)', 'kwok')
    .option('--launch-delay <duration>', 'kwok: simulated boot time before a node registers', durationMs('--launch-delay'), 0)
    .option('--inject-faults <json>', 'testing: cloud faults, e.g. {"failCreates":2,"insufficientCapacity":[{"instanceType":"c5.large"}],"hangAfterCreateMs":5000}', faults)
    .option('--batch-idle <duration>', 'close a batch after this long without a new pending pod', durationMs('--batch-idle'), 1_000)
    .option('--batch-max <duration>', 'close a batch at most this long after it opened', durationMs('--batch-max'), 10_000)
    .option('--registration-ttl <duration>', 'delete a NodeClaim whose node has not registered after this long', durationMs('--registration-ttl'), 15 * 60_000)
    .option('--orphan-grace <duration>', 'delete a launched node whose NodeClaim has been gone this long', durationMs('--orphan-grace'), 30_000)
    .option('--resync <duration>', 'period of the claim/instance reconcile and the pending-pod recheck', durationMs('--resync'), 10_000)
    .option('--disruption', 'also consolidate: delete empty nodes and remove or replace under-used ones (cordon with a taint, evict through the Eviction API)', false)
    .option('--disruption-poll <duration>', 'how often the disruption controller looks for a decision', durationMs('--disruption-poll'), DEFAULT_DISRUPTION_OPTIONS.pollMs)
    .option('--disruption-validation <duration>', 'how long a consolidation decision waits before it is checked again and carried out', durationMs('--disruption-validation'), DEFAULT_DISRUPTION_OPTIONS.validationMs)
    .option('--drain-timeout <duration>', 'give a disruption up (untaint its nodes) when its drain has not finished after this long', durationMs('--drain-timeout'), DEFAULT_DISRUPTION_OPTIONS.drainTimeoutMs)
    .option('--lease-namespace <ns>', 'namespace of the leader-election Lease', 'berth-system')
    .option('--lease-name <name>', 'name of the leader-election Lease', 'berth-controller')
    .option('--lease-duration <duration>', 'leader lease duration', durationMs('--lease-duration'), 15_000)
    .option('--renew-deadline <duration>', 'a leader that cannot renew for this long steps down', durationMs('--renew-deadline'), 10_000)
    .option('--retry-period <duration>', 'how often candidates try and leaders renew', durationMs('--retry-period'), 2_000)
    .option('--identity <id>', 'this replica in the Lease', `${hostname()}-${process.pid}`)
    .option('--port <n>', '/healthz, /readyz and /metrics port (0: any free port)', port, 8080)
    .option('--bind-address <addr>', 'address for the health and metrics server', '0.0.0.0')
    .option('--log-level <level>', 'pino level: debug, info, warn, error', 'info')
    .action(async (flags: ControllerFlags) => {
      if (flags.provider !== 'kwok') throw new CliError(`berth: --provider ${JSON.stringify(flags.provider)}: unknown (supported: kwok)`);
      // A leader must stop acting before a standby may take over (see live/leader.ts).
      if (flags.renewDeadline >= flags.leaseDuration) throw new CliError(`berth: --renew-deadline (${flags.renewDeadline} ms) must be shorter than --lease-duration (${flags.leaseDuration} ms)`);
      const log = controllerLogger(flags.logLevel, flags.identity);
      let kube: Kube;
      try {
        kube = Kube.fromFile(flags.kubeconfig);
      } catch (e) {
        throw new CliError(`berth: --kubeconfig ${flags.kubeconfig ?? '(default)'}: ${e instanceof Error ? e.message : String(e)}`);
      }
      const metrics = new Metrics(packageVersion());
      const kwok = new KwokProvider(kube, bundledInstanceTypes(), flags.launchDelay);
      const cloud: CloudProvider = flags.injectFaults ? new FaultInjectingProvider(kwok, flags.injectFaults) : kwok;
      const controller = new Controller(kube, cloud, {
        batchIdleMs: flags.batchIdle,
        batchMaxMs: flags.batchMax,
        registrationTtlMs: flags.registrationTtl,
        orphanGraceMs: flags.orphanGrace,
        resyncMs: flags.resync,
        identity: flags.identity,
        ...(flags.disruption ? { disruption: { ...DEFAULT_DISRUPTION_OPTIONS, pollMs: flags.disruptionPoll, validationMs: flags.disruptionValidation, drainTimeoutMs: flags.drainTimeout } } : {}),
      }, log, metrics);
      const server = await startServer(flags.port, flags.bindAddress, metrics, () => controller.synced).catch((e: unknown) => {
        throw new CliError(`berth: --port ${flags.port}: ${e instanceof Error ? e.message : String(e)}`);
      });
      const address = server.address();
      log.info({ port: typeof address === 'object' && address ? address.port : flags.port, provider: cloud.name, disruption: flags.disruption, version: packageVersion(), ...(flags.injectFaults ? { injectFaults: flags.injectFaults } : {}) }, 'serving /livez /readyz /metrics');
      const elector = new LeaderElector(
        kube,
        { namespace: flags.leaseNamespace, name: flags.leaseName, identity: flags.identity, leaseDurationMs: flags.leaseDuration, renewDeadlineMs: flags.renewDeadline, retryPeriodMs: flags.retryPeriod },
        {
          onStartedLeading: () => controller.setLeading(true),
          // A replica that lost the lease (say, the API server was away past the renew
          // deadline) stops acting and campaigns again: all it knows lives in the API
          // server (NodeClaims, Nodes), so resuming later needs no clean restart.
          onStoppedLeading: () => controller.setLeading(false),
          onError: (message) => log.warn({ err: message }, 'leader election'),
          onNewLeader: (leader) => {
            if (leader !== flags.identity) log.info({ leader: leader || '(none)', lease: `${flags.leaseNamespace}/${flags.leaseName}` }, 'standing by; current leader');
          },
        },
      );
      controller.leadership = () => elector.mayAct;
      controller.start();
      elector.start();
      let closing = false;
      const shutdown = async (signal: string): Promise<void> => {
        if (closing) return;
        closing = true;
        log.info({ signal }, 'shutting down');
        // Within the pod's terminationGracePeriodSeconds (30 s) even if a write hangs.
        setTimeout(() => {
          log.error('shutdown did not finish in 20s; exiting');
          process.exit(1);
        }, 20_000).unref();
        await controller.stop();
        await elector.release();
        server.close();
        log.info('stopped');
        process.exit(0);
      };
      process.once('SIGTERM', () => void shutdown('SIGTERM'));
      process.once('SIGINT', () => void shutdown('SIGINT'));
      await new Promise<never>(() => {});
    });
}
