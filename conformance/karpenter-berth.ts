// berth's side of the Karpenter comparison: a case's NodePools and pods through the
// loader and the provisioning planner, as `berth provision` would run them.

import type { ClusterState } from '../src/cluster/state.js';
import { buildClusterState, formatDiagnostic, loadSources } from '../src/io/load.js';
import { bundledInstanceTypes } from '../src/provisioner/catalog/catalog.js';
import type { NodeClaim } from '../src/model/nodeclaim.js';
import type { NodePool } from '../src/model/nodepool.js';
import type { Pod } from '../src/model/pod.js';
import type { InstanceType } from '../src/provisioner/catalog/types.js';
import { provisionInBatches } from '../src/provisioner/batches.js';
import { planProvisioning, type ProvisionPlan } from '../src/provisioner/plan.js';
import type { KarpenterCase } from './karpenter-gen.js';

export const INSTANCE_TYPES: InstanceType[] = bundledInstanceTypes();

/** The case as the planner takes it: the cluster holding its pending pods, and its dynamic NodePools. */
export interface LoadedCase {
  cluster: ClusterState;
  pools: NodePool[];
  daemonSetPods: Pod[];
  nodeClaims: readonly NodeClaim[];
}

export function loadCase(c: KarpenterCase): LoadedCase | { error: string } {
  const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...c.nodePools, ...(c.daemonSets ?? []), ...(c.storageClasses ?? []), ...(c.persistentVolumes ?? []), ...(c.persistentVolumeClaims ?? []), ...(c.nodes ?? []), ...(c.nodeClaims ?? []), ...(c.boundPods ?? []), ...c.pods] });
  const loaded = loadSources([{ name: `${c.id}.json`, text }]);
  if (!loaded.ok) return { error: `berth rejected the input: ${loaded.errors.map(formatDiagnostic).join('; ')}` };
  return {
    cluster: buildClusterState(loaded.input),
    pools: loaded.input.nodePools.filter((np) => np.replicas === null),
    daemonSetPods: loaded.input.workloads.filter((w) => w.kind === 'DaemonSet').map((w) => w.templatePod),
    nodeClaims: loaded.input.nodeClaims ?? [],
  };
}

/** berth's own planner options a run may turn on (all off: Karpenter's behaviour). */
export interface BerthOptions {
  readonly settleSelected?: boolean;
}

/** One pass of the planner (`provision --batches 1`), or with `batches` > 1 Karpenter's loop as `berth provision` runs it. */
export function planCase(loaded: LoadedCase, options: BerthOptions = {}, batches = 1): ProvisionPlan {
  const input = { cluster: loaded.cluster, pools: loaded.pools, instanceTypes: INSTANCE_TYPES, daemonSetPods: loaded.daemonSetPods, config: {}, seed: 0, karpenterState: { nodeClaims: loaded.nodeClaims, nowMs: 0 }, ...options };
  return batches > 1 ? provisionInBatches({ ...input, maxBatches: batches }) : planProvisioning(input);
}

export function runBerth(c: KarpenterCase, options: BerthOptions = {}): ProvisionPlan | { error: string } {
  try {
    const loaded = loadCase(c);
    return 'error' in loaded ? loaded : planCase(loaded, options, c.batches ?? 1);
  } catch (e) {
    return { error: `berth threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}` };
  }
}
