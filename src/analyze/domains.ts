// The topology the checks reason about: the zones the cluster has or can get
// (nodes, plus the zones the NodePools' instance types are offered in when the
// provisioner may launch), and the NodePools as the planner sees them.

import { LABEL_ZONE } from '../model/node.js';
import type { PoolTemplate } from '../provisioner/nodeclaim.js';
import { poolTemplate } from '../provisioner/plan.js';
import type { AnalysisContext } from './check.js';

/** Dynamic NodePools as the planner sees them; none when the provisioner is off. */
export function launchablePools(ctx: AnalysisContext): PoolTemplate[] {
  if (!ctx.provisioner) return [];
  const daemonPods = ctx.input.workloads.filter((w) => w.kind === 'DaemonSet').map((w) => w.templatePod);
  return ctx.input.nodePools.filter((p) => p.replicas === null).map((p) => poolTemplate(p, ctx.instanceTypes, daemonPods));
}

/** Zones of the nodes, and of what the NodePools can launch, sorted. */
export function availableZones(ctx: AnalysisContext): string[] {
  const zones = new Set<string>();
  for (const n of ctx.input.nodes) {
    const z = n.labels[LABEL_ZONE];
    if (z !== undefined) zones.add(z);
  }
  for (const p of launchablePools(ctx)) for (const z of p.zones) zones.add(z);
  return [...zones].sort();
}
