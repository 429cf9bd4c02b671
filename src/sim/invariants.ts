// Properties every simulation must keep, checked while it runs through the World's
// change feed and the engine's afterEach hook (reusable by tests, the nightly
// invariant runner and anyone debugging a scenario):
//  - no node overcommitted on any resource (nor on its pod count), at any time;
//  - a pod the scheduler binds satisfies, at that instant, its required node
//    affinity/selector, its tolerations, required pod affinity and anti-affinity
//    (both directions) and every DoNotSchedule topology spread constraint's maxSkew;
//  - a pod uid is bound at most once;
//  - an eviction never leaves a PodDisruptionBudget below its desired healthy count;
//  - the instances a NodePool has launched never exceed its limits.
// Replica convergence (no pod lost or duplicated) is checked at the end by checkConverged.
// The checks are written from the API's definitions, not by calling the scheduler's
// plugins, so a stale cache or a wrong order in the simulator shows up as a violation.

import type { NodeInfo } from '../cluster/node-info.js';
import type { NodePool } from '../model/nodepool.js';
import type { Pod, TopologySpreadConstraint } from '../model/pod.js';
import type { Node } from '../model/node.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import { doNotScheduleTaints, findUntoleratedTaint } from '../model/taints.js';
import { termMatches } from '../scheduler/plugins/inter-pod-affinity/terms.js';
import type { Simulation } from './simulation.js';

export interface Violation {
  readonly t: number;
  readonly invariant: string;
  readonly detail: string;
}

export interface PdbRule {
  readonly namespace: string;
  readonly matches: (pod: Pod) => boolean;
  /** The least number of healthy pods the budget allows, given the moment's expected count. */
  readonly desiredHealthy: () => number;
  readonly name: string;
}

export interface InvariantOptions {
  readonly nodePools?: readonly NodePool[];
  /** The catalog the provisioner launches from: a launched instance counts its type's capacity against its pool. */
  readonly instanceTypes?: readonly InstanceType[];
  readonly pdbs?: readonly PdbRule[];
}

function nodeAffinityMatches(pod: Pod, node: Node): boolean {
  for (const [k, v] of Object.entries(pod.nodeSelector)) if (node.labels[k] !== v) return false;
  return pod.requiredNodeAffinity === null || pod.requiredNodeAffinity.matches(node);
}

/** Resources requested on a node, summed from its pods (terminating ones still hold theirs). */
function overcommitted(info: NodeInfo): string | undefined {
  const used: Record<string, number> = {};
  for (const p of info.pods) for (const [r, q] of Object.entries(p.resources.requests)) used[r] = (used[r] ?? 0) + q;
  for (const [r, q] of Object.entries(used)) {
    if (q > 0 && q > (info.node.allocatable[r] ?? 0)) return `${r}: ${q} requested > ${info.node.allocatable[r] ?? 0} allocatable`;
  }
  const maxPods = info.node.allocatable['pods'] ?? 0;
  if (info.pods.length > maxPods) return `pods: ${info.pods.length} > ${maxPods}`;
  return undefined;
}

function spreadViolation(sim: Simulation, pod: Pod, node: Node): string | undefined {
  const hard = pod.topologySpreadConstraints.filter((c) => c.whenUnsatisfiable === 'DoNotSchedule');
  if (hard.length === 0) return undefined;
  const infos = sim.world.cluster.nodeInfos();
  for (const c of hard) {
    const eligible = (n: Node) =>
      hard.every((h) => n.labels[h.topologyKey] !== undefined) &&
      (c.nodeAffinityPolicy === 'Ignore' || nodeAffinityMatches(pod, n)) &&
      (c.nodeTaintsPolicy === 'Ignore' || findUntoleratedTaint(n.taints, pod.tolerations, doNotScheduleTaints) === undefined);
    const domain = node.labels[c.topologyKey];
    if (domain === undefined) return `node ${node.name} has no ${c.topologyKey} label`;
    const counts = new Map<string, number>();
    for (const info of infos) {
      if (!eligible(info.node)) continue;
      const d = info.node.labels[c.topologyKey]!;
      counts.set(d, (counts.get(d) ?? 0) + countMatching(c, pod, info));
    }
    if (!counts.has(domain)) counts.set(domain, 0);
    const min = counts.size < c.minDomains ? 0 : Math.min(...counts.values());
    const self = c.selector.matches(pod.labels) ? 1 : 0;
    const skew = counts.get(domain)! + self - min;
    if (skew > c.maxSkew) return `${c.topologyKey}=${domain}: skew ${skew} > maxSkew ${c.maxSkew} (counts ${JSON.stringify(Object.fromEntries(counts))})`;
  }
  return undefined;
}

/** Pods counted for spread: same namespace, matching the selector, not terminating, not the incoming pod itself. */
function countMatching(c: TopologySpreadConstraint, pod: Pod, info: NodeInfo): number {
  let n = 0;
  for (const p of info.pods) if (p.uid !== pod.uid && !p.terminating && p.namespace === pod.namespace && c.selector.matches(p.labels)) n++;
  return n;
}

function affinityViolation(sim: Simulation, pod: Pod, node: Node): string | undefined {
  const cluster = sim.world.cluster;
  const others = cluster.nodeInfos().flatMap((i) => i.pods.filter((p) => p.uid !== pod.uid).map((p) => ({ p, node: i.node })));
  const nsOf = (p: Pod) => cluster.namespaceLabels(p.namespace);
  for (const t of pod.requiredAntiAffinity) {
    const v = node.labels[t.topologyKey];
    if (v === undefined) continue;
    const hit = others.find((o) => o.node.labels[t.topologyKey] === v && termMatches(t, o.p, nsOf(o.p)));
    if (hit) return `required anti-affinity (${t.topologyKey}) of ${pod.key} matches ${hit.p.key} on ${hit.node.name}`;
  }
  for (const o of others) {
    for (const t of o.p.requiredAntiAffinity) {
      const v = o.node.labels[t.topologyKey];
      if (v !== undefined && node.labels[t.topologyKey] === v && termMatches(t, pod, nsOf(pod))) return `required anti-affinity (${t.topologyKey}) of ${o.p.key} on ${o.node.name} matches ${pod.key}`;
    }
  }
  for (const t of pod.requiredAffinity) {
    const v = node.labels[t.topologyKey];
    const matching = others.filter((o) => termMatches(t, o.p, nsOf(o.p)));
    if (v !== undefined && matching.some((o) => o.node.labels[t.topologyKey] === v)) continue;
    // The first pod of a group that matches its own term may go anywhere with the key.
    if (v !== undefined && matching.length === 0 && termMatches(t, pod, nsOf(pod))) continue;
    return `required affinity (${t.topologyKey}) of ${pod.key} not satisfied on ${node.name}`;
  }
  return undefined;
}

/** Attaches the checks to a simulation before it runs; violations accumulate in the returned list. */
export function watchInvariants(sim: Simulation, opts: InvariantOptions = {}): Violation[] {
  const violations: Violation[] = [];
  const { world, engine } = sim;
  const report = (invariant: string, detail: string) => violations.push({ t: engine.now, invariant, detail });
  const bound = new Set<string>();
  const checkNode = (name: string) => {
    const info = world.cluster.nodeInfo(name);
    const over = info && overcommitted(info);
    if (over) report('node overcommitted', `${name} ${over}`);
  };
  world.onChange((c) => {
    if (c.kind === 'podAdded' && c.pod.nodeName) checkNode(c.pod.nodeName);
    if (c.kind !== 'podUpdated' || c.old.nodeName || !c.pod.nodeName) return;
    const pod = c.pod;
    checkNode(pod.nodeName);
    if (bound.has(pod.uid)) report('pod bound twice', pod.key);
    bound.add(pod.uid);
    const node = world.cluster.nodeInfo(pod.nodeName)?.node;
    if (!node) return report('bound to a missing node', `${pod.key} → ${pod.nodeName}`);
    if (!nodeAffinityMatches(pod, node)) report('node affinity', `${pod.key} on ${node.name}`);
    const taint = findUntoleratedTaint(node.taints, pod.tolerations, doNotScheduleTaints);
    if (taint) report('toleration', `${pod.key} on ${node.name} does not tolerate ${taint.key}=${taint.value}:${taint.effect}`);
    if (node.unschedulable && !pod.tolerations.some((t) => t.key === 'node.kubernetes.io/unschedulable' || (t.key === '' && t.operator === 'Exists'))) report('unschedulable node', `${pod.key} on cordoned ${node.name}`);
    const aff = affinityViolation(sim, pod, node);
    if (aff) report('pod affinity', aff);
    const spread = spreadViolation(sim, pod, node);
    if (spread) report('topology spread', `${pod.key}: ${spread}`);
  });

  const pdbs = opts.pdbs ?? [];
  const pools = opts.nodePools ?? [];
  let seen = 0;
  engine.afterEach(() => {
    const log = engine.log;
    for (; seen < log.length; seen++) {
      const r = log[seen]!;
      if (r.type === 'Evicted') {
        const key = r['pod'] as string;
        for (const b of pdbs) {
          const pods = [...world.cluster.pods()].filter((p) => p.namespace === b.namespace && b.matches(p));
          if (!pods.some((p) => p.key === key)) continue;
          const healthy = pods.filter((p) => !p.terminating && world.isReady(p.key)).length;
          const desired = b.desiredHealthy();
          if (healthy < desired && wasReadyBefore(sim, key)) report('PDB violated by eviction', `${key}: ${b.name} has ${healthy} healthy < ${desired}`);
        }
      } else if (r.type === 'NodeClaimLaunched') {
        const pool = pools.find((p) => p.name === r['nodePool']);
        if (pool) checkPoolLimits(sim, pool, opts.instanceTypes ?? [], report);
      }
    }
  });
  return violations;
}

/** An evicted pod that was not Ready may go whatever the budget (it is not counted healthy). */
function wasReadyBefore(sim: Simulation, key: string): boolean {
  const log = sim.engine.log;
  for (let i = log.length - 1; i >= 0; i--) {
    const r = log[i]!;
    if (r['pod'] !== key) continue;
    if (r.type === 'PodReady') return true;
    if (r.type === 'PodNotReady' || r.type === 'PodCreated') return false;
  }
  return false;
}

function checkPoolLimits(sim: Simulation, pool: NodePool, types: readonly InstanceType[], report: (i: string, d: string) => void): void {
  const used: Record<string, number> = {};
  for (const inst of sim.cloud.instances.values()) {
    if (inst.nodePool !== pool.name || inst.state === 'terminated') continue;
    const capacity = types.find((t) => t.name === inst.instanceType)?.capacity ?? {};
    for (const [r, q] of Object.entries(capacity)) used[r] = (used[r] ?? 0) + q;
  }
  for (const [r, limit] of Object.entries(pool.limits)) {
    if ((used[r] ?? 0) > limit) report('NodePool limit exceeded', `${pool.name} ${r}: ${used[r]} > ${limit}`);
  }
}

/** After a run has settled: controllers hold exactly their replicas, no pod twice, no pod of a live node lost. */
export function checkConverged(sim: Simulation): Violation[] {
  const out: Violation[] = [];
  const t = sim.engine.now;
  for (const rs of sim.replicaSets.objects.values()) {
    const active = sim.replicaSets.podsOf(rs).filter((p) => !p.terminating).length;
    if (active !== rs.replicas) out.push({ t, invariant: 'replicas converge', detail: `ReplicaSet ${rs.key}: ${active} active pods for ${rs.replicas} replicas` });
  }
  for (const s of sim.statefulSets.objects.values()) {
    const all = sim.world.podsControlledBy(s.uid);
    const pods = all.filter((p) => !p.terminating);
    const names = new Set(pods.map((p) => p.name));
    if (names.size !== pods.length) out.push({ t, invariant: 'no duplicate pods', detail: `StatefulSet ${s.key} has a name twice` });
    // OrderedReady creates, and on scale-down deletes, one ordinal at a time and waits while any pod is unhealthy:
    // a pod stuck on a dead node holds the set short of, or above, its replicas (as upstream).
    const stalled = all.some((p) => p.terminating || !sim.world.isReady(p.key));
    if (pods.length !== s.replicas && !stalled) out.push({ t, invariant: 'replicas converge', detail: `StatefulSet ${s.key}: ${pods.length} pods for ${s.replicas} replicas` });
  }
  for (const d of sim.deployments.objects.values()) {
    const sets = sim.deployments.replicaSetsOf(d);
    const total = sets.reduce((n, rs) => n + rs.replicas, 0);
    // Recreate creates the new ReplicaSet only once every old pod is gone; one stuck Terminating on a dead node holds it (as upstream).
    const waiting = sets.some((rs) => sim.replicaSets.podsOf(rs).some((p) => p.terminating));
    if (total < d.replicas && !waiting) out.push({ t, invariant: 'replicas converge', detail: `Deployment ${d.key}: its ReplicaSets want ${total} < ${d.replicas}` });
  }
  return out;
}
