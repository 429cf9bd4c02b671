// berth's side of the Karpenter comparison: a case's NodePools and pods through the
// loader and the provisioning planner, as `berth provision` would run them.

import { buildClusterState, formatDiagnostic, loadSources } from '../src/io/load.js';
import { bundledInstanceTypes } from '../src/provisioner/catalog/catalog.js';
import type { InstanceType } from '../src/provisioner/catalog/types.js';
import { planProvisioning, type ProvisionPlan } from '../src/provisioner/plan.js';
import type { KarpenterCase } from './karpenter-gen.js';

export const INSTANCE_TYPES: InstanceType[] = bundledInstanceTypes();

export function runBerth(c: KarpenterCase): ProvisionPlan | { error: string } {
  try {
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...c.nodePools, ...c.pods] });
    const loaded = loadSources([{ name: `${c.id}.json`, text }]);
    if (!loaded.ok) return { error: `berth rejected the input: ${loaded.errors.map(formatDiagnostic).join('; ')}` };
    const cluster = buildClusterState(loaded.input);
    return planProvisioning({
      cluster,
      pools: loaded.input.nodePools.filter((np) => np.replicas === null),
      instanceTypes: INSTANCE_TYPES,
      daemonSetPods: [],
      config: {},
      seed: 0,
    });
  } catch (e) {
    return { error: `berth threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}` };
  }
}

