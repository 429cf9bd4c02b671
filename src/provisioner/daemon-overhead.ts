// DaemonSet pods as Karpenter counts them on a new NodeClaim: per instance type, not
// per NodePool. A DaemonSet pod runs on a type when it tolerates the pool's taints
// (PreferNoSchedule ones always: a daemon does not honour that preference), its node
// requirements are compatible with the pool's, and they intersect the type's own
// requirements. Its node affinity terms are tried in turn, as the DaemonSet controller
// would place it by any of them. The pods running on a type take their requests (and
// one pod slot each) from what it leaves allocatable, and hold their host ports.

import { HostPortSet } from '../cluster/node-info.js';
import type { Pod } from '../model/pod.js';
import { addInto, type ResourceList } from '../model/resources.js';
import { tolerationsTolerateTaint, type Taint } from '../model/taints.js';
import type { InstanceType } from './catalog/types.js';
import { instanceTypeCompatible } from './instance-requirements.js';
import { nodeAffinityRequirements } from './pod-requirements.js';
import { withPreferNoScheduleToleration } from './preferences.js';
import { ALLOW_UNDEFINED_WELL_KNOWN, type Requirements } from './requirements.js';

/** Whether the DaemonSet pod tolerates every taint of the pool but PreferNoSchedule ones. */
function toleratesPool(taints: readonly Taint[], ds: Pod): boolean {
  return taints.every((t) => t.effect === 'PreferNoSchedule' || tolerationsTolerateTaint(ds.tolerations, t));
}

/** Whether the DaemonSet pod would run on a node of type `it` from a pool with `poolReqs`. */
function runsOn(poolReqs: Requirements, it: InstanceType, ds: Pod): boolean {
  const terms = ds.requiredNodeAffinity?.terms ?? [];
  // One term at a time, the last one included (Karpenter drops terms while more than one is left).
  for (let i = 0; i === 0 || i < terms.length; i++) {
    const reqs = nodeAffinityRequirements(ds.nodeSelector, terms.slice(i));
    if (poolReqs.isCompatible(reqs, ALLOW_UNDEFINED_WELL_KNOWN) && instanceTypeCompatible(it, reqs)) return true;
  }
  return false;
}

/** The DaemonSet pods that would run on a node of type `it` from a pool with these requirements and taints. */
export function daemonPodsOn(poolReqs: Requirements, taints: readonly Taint[], it: InstanceType, daemonSetPods: readonly Pod[]): Pod[] {
  return daemonSetPods.filter((ds) => toleratesPool(taints, ds) && runsOn(poolReqs, it, ds));
}

/** The DaemonSet pods' total on one instance type of a pool. */
export interface DaemonLoad {
  readonly requests: ResourceList;
  readonly pods: number;
  readonly hostPorts: HostPortSet;
}

const NO_LOAD: DaemonLoad = { requests: {}, pods: 0, hostPorts: new HostPortSet() };

/**
 * The pool's instance types as its new nodes would offer them to pods: allocatable less
 * the DaemonSet pods that run on each type (types the daemons alone overfill are dropped,
 * as no pod could join them), and the daemons' load per type name.
 */
export function withDaemonOverhead(
  poolReqs: Requirements,
  taints: readonly Taint[],
  types: readonly InstanceType[],
  daemonSetPods: readonly Pod[],
): { types: readonly InstanceType[]; load: ReadonlyMap<string, DaemonLoad> } {
  const daemons = daemonSetPods.filter((ds) => toleratesPool(taints, ds));
  const load = new Map<string, DaemonLoad>();
  if (daemons.length === 0) return { types, load };
  // Types that run the same daemons share one load.
  const byDaemonSet = new Map<string, DaemonLoad>();
  const out: InstanceType[] = [];
  for (const it of types) {
    const running = daemons.filter((ds) => runsOn(poolReqs, it, ds));
    if (running.length === 0) {
      out.push(it);
      continue;
    }
    const key = running.map((ds) => ds.key).join('\x00');
    let l = byDaemonSet.get(key);
    if (l === undefined) {
      const requests: Record<string, number> = {};
      const hostPorts = new HostPortSet();
      for (const ds of running) {
        addInto(requests, ds.resources.requests);
        for (const p of ds.hostPorts) hostPorts.add(p);
      }
      byDaemonSet.set(key, (l = { requests, pods: running.length, hostPorts }));
    }
    const allocatable: Record<string, number> = { ...it.allocatable };
    allocatable.pods = (allocatable.pods ?? 0) - l.pods;
    let fitsDaemons = allocatable.pods >= 0;
    for (const [k, v] of Object.entries(l.requests)) {
      if (k === 'pods' || v === 0) continue;
      allocatable[k] = (allocatable[k] ?? 0) - v;
      if (allocatable[k] < 0) fitsDaemons = false;
    }
    if (!fitsDaemons) continue;
    load.set(it.name, l);
    out.push({ ...it, allocatable });
  }
  return { types: out, load };
}

/** The daemons' load on a type (none when no DaemonSet pod runs there). */
export function daemonLoad(load: ReadonlyMap<string, DaemonLoad>, it: InstanceType): DaemonLoad {
  return load.get(it.name) ?? NO_LOAD;
}

/**
 * The DaemonSet pods as Karpenter judges them on existing nodes. NewScheduler builds each
 * NodePool's daemon overhead first (buildDaemonOverheadGroups), and the per-type check there
 * (isDaemonPodCompatible) adds the PreferNoSchedule toleration to the DaemonSet pod itself,
 * not to a copy; calculateExistingNodeClaims then judges the same pods. So once some NodePool
 * has an instance type to check, every DaemonSet pod tolerates PreferNoSchedule taints on
 * in-flight, uninitialized and ready nodes too, and its room is reserved there (s611-455).
 */
export function daemonPodsForExistingNodes(daemonSetPods: readonly Pod[], poolChecked: boolean): readonly Pod[] {
  if (!poolChecked) return daemonSetPods;
  return daemonSetPods.map((ds) => {
    const tolerations = withPreferNoScheduleToleration(ds.tolerations);
    return tolerations ? { ...ds, tolerations } : ds;
  });
}
