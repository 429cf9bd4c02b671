// The time-sensitive settings both sides share: flags of the real control plane
// and the simulator's options with the same values. Chosen so a scenario takes
// seconds of real time; every other setting is upstream's default.

/** kwok's node lease: renewed every quarter of it (1 s), like the kubelet's. */
export const LEASE_SECONDS = 4;
/** kube-controller-manager --node-monitor-grace-period and --node-monitor-period. */
export const NODE_MONITOR_GRACE_MS = 8_000;
export const NODE_MONITOR_PERIOD_MS = 1_000;
/** kube-apiserver --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds. */
export const DEFAULT_TOLERATION_SECONDS = 2;
/** kube-scheduler podInitialBackoffSeconds / podMaxBackoffSeconds (1 s and 10 s upstream). */
export const BACKOFF_MS = 1_000;

export const kcmFlags = [
  `--node-monitor-grace-period=${NODE_MONITOR_GRACE_MS / 1000}s`,
  `--node-monitor-period=${NODE_MONITOR_PERIOD_MS / 1000}s`,
  // Only the controllers the scenarios exercise, each with one worker, so the
  // real side processes its queues in one order as the simulator does.
  '--concurrent-deployment-syncs=1',
  '--concurrent-replicaset-syncs=1',
  '--concurrent-statefulset-syncs=1',
];

export const apiserverFlags = [`--default-not-ready-toleration-seconds=${DEFAULT_TOLERATION_SECONDS}`, `--default-unreachable-toleration-seconds=${DEFAULT_TOLERATION_SECONDS}`];

/** The KubeSchedulerConfiguration: the default profile, with the queue's backoff shortened. */
export function schedulerConfig(kubeconfig: string): string {
  return [
    'apiVersion: kubescheduler.config.k8s.io/v1',
    'kind: KubeSchedulerConfiguration',
    'leaderElection: {leaderElect: false}',
    `clientConnection: {kubeconfig: ${JSON.stringify(kubeconfig)}}`,
    `podInitialBackoffSeconds: ${BACKOFF_MS / 1000}`,
    `podMaxBackoffSeconds: ${BACKOFF_MS / 1000}`,
    '',
  ].join('\n');
}

/** The simulator's side of the same settings (runScenario's controlPlane). */
export const simControlPlane = {
  queue: { initialBackoffMs: BACKOFF_MS, maxBackoffMs: BACKOFF_MS },
  nodes: { gracePeriodMs: NODE_MONITOR_GRACE_MS, monitorPeriodMs: NODE_MONITOR_PERIOD_MS, leaseRenewMs: (LEASE_SECONDS * 1000) / 4 },
  defaultTolerationSeconds: DEFAULT_TOLERATION_SECONDS,
} as const;

/** Simulated time per phase: long enough for everything a step starts (pod GC of a deleted node takes up to 60 s). */
export const SIM_PHASE_MS = 120_000;
