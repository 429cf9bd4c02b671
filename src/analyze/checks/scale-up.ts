// scale-up: each workload scaled to its HorizontalPodAutoscaler's maxReplicas (or
// to twice its replicas): do the extra replicas fit, and if they need new nodes,
// how many and at what $/h? The cluster is first settled by simulation (pending
// pods placed, launches done); then, per workload, the extra replicas are planned
// by the provisioner's planner on a copy of it — the same scheduler and planner
// the simulation's provisioner loop runs, without replaying the whole cluster for
// each workload.

import { buildClusterState, type ClusterState } from '../../cluster/state.js';
import type { Node } from '../../model/node.js';
import { changedPod, type Pod } from '../../model/pod.js';
import { planProvisioning, type ProvisionPlan } from '../../provisioner/plan.js';
import type { AnalysisContext, Check } from '../check.js';
import type { Finding, Remedy, Severity } from '../finding.js';
import { podGroups } from '../pod-groups.js';
import { addNodesLike, templateNodeFor } from '../remedies.js';
import { scaleTargets, type ScaleTarget } from '../scale-targets.js';
import { baseline } from '../what-if.js';
import { inTreePluginByProvisioner } from '../../model/volumes.js';
import { ERR_REASON_MAX_VOLUME_COUNT } from '../../scheduler/plugins/node-volume-limits.js';
import { newOrdinalClaims, withOrdinalClaims, type ClaimOwner } from '../../sim/controllers/statefulset-claims.js';

/** The settled cluster's nodes and live pods. */
function settled(ctx: AnalysisContext): { nodes: Node[]; pods: Pod[] } {
  const run = baseline(ctx);
  const cluster = run.sim.world.cluster;
  return { nodes: cluster.nodeInfos().map((i) => i.node), pods: [...cluster.pods()].filter((p) => !p.terminating) };
}

/** The target as the owner of its new ordinals' claims, when it is a StatefulSet with volumeClaimTemplates. */
function claimOwner(t: ScaleTarget): ClaimOwner | undefined {
  const w = t.group.workload;
  return w?.kind === 'StatefulSet' && w.storage ? { namespace: w.namespace, name: w.name, selectorLabels: t.group.matchLabels, storage: w.storage } : undefined;
}

/**
 * A copy of the settled cluster with `count` new pending replicas of the target. A
 * StatefulSet's new ordinals get their own new claims, as its controller creates
 * them, so that NodeVolumeLimits counts the volumes they would attach. Only claims
 * of WaitForFirstConsumer classes: an Immediate claim is bound by the PV controller
 * before its pod schedules, which this copy does not model, and unbound it would be
 * rejected by VolumeBinding — so such a template's volume is left out as before.
 */
function withExtraReplicas(ctx: AnalysisContext, base: { nodes: Node[]; pods: Pod[] }, t: ScaleTarget, count: number): { cluster: ClusterState; extra: Pod[] } {
  const template = t.group.templatePod;
  const owner = claimOwner(t);
  const { input } = ctx;
  const claims = [...input.storage.persistentVolumeClaims];
  let uids = 0;
  const classes = new Map(input.storage.storageClasses.map((c) => [c.name, c]));
  const extra = Array.from({ length: count }, (_, i): Pod => {
    const pending = changedPod(template, { nodeName: '', nominatedNodeName: '', phase: 'Pending', creation: Number.MAX_SAFE_INTEGER - count + i });
    if (!owner) {
      const name = `${t.group.name}-scale-up-${i + 1}`;
      return changedPod(pending, { name, key: `${template.namespace}/${name}`, uid: `scale-up/${template.namespace}/${name}` });
    }
    const ordinal = (t.group.workload?.ordinalStart ?? 0) + t.group.replicas + i;
    const name = `${t.group.name}-${ordinal}`;
    const names = new Set(claims.filter((c) => c.namespace === owner.namespace).map((c) => c.name));
    const fresh = newOrdinalClaims(owner, ordinal, input.storage.storageClasses, (n) => names.has(n), () => `scale-up/claim/${++uids}`);
    const immediate = new Set(fresh.filter((c) => classes.get(c.storageClassName)?.volumeBindingMode !== 'WaitForFirstConsumer').map((c) => c.name));
    claims.push(...fresh.filter((c) => !immediate.has(c.name)));
    const pod = withOrdinalClaims(owner, changedPod(pending, { name, key: `${template.namespace}/${name}`, uid: `scale-up/${template.namespace}/${name}` }), ordinal);
    return changedPod(pod, { volumes: (pod.volumes ?? []).filter((v) => v.kind !== 'claim' || !immediate.has(v.claimName)) });
  });
  const cluster = buildClusterState({ ...input, storage: { ...input.storage, persistentVolumeClaims: claims }, nodes: base.nodes, pods: [...base.pods, ...extra] });
  return { cluster, extra };
}

/** Shown per node at most; the rest are counted. */
const MAX_LIMIT_LINES = 3;

/** Each node's CSI attach limit (CSINode allocatable.count) for the drivers the new replicas' claims would attach with. */
function attachLimits(cluster: ClusterState, extra: readonly Pod[]): string[] {
  const store = cluster.volumes;
  const drivers = new Set<string>();
  for (const p of extra) {
    for (const v of p.volumes ?? []) {
      const sc = v.kind === 'claim' ? store.storageClass(store.claim(p.namespace, v.claimName)?.storageClassName ?? '') : undefined;
      if (sc) drivers.add(inTreePluginByProvisioner(sc.provisioner)?.driver ?? sc.provisioner);
    }
  }
  const lines = cluster.nodeInfos().flatMap((i) =>
    (store.csiNode(i.node.name)?.drivers ?? []).filter((d) => drivers.has(d.name) && d.allocatableCount !== undefined).map((d) => `node ${i.node.name}: CSI driver ${d.name} attaches at most ${d.allocatableCount} volume(s) (CSINode allocatable.count)`),
  );
  return lines.length > MAX_LIMIT_LINES ? [...lines.slice(0, MAX_LIMIT_LINES), `and ${lines.length - MAX_LIMIT_LINES} more node(s) with an attach limit`] : lines;
}

const money = (x: number) => `$${x.toFixed(3)}/h`;

function plan(ctx: AnalysisContext, cluster: ClusterState): ProvisionPlan {
  const pools = ctx.provisioner ? ctx.input.nodePools.filter((p) => p.replicas === null) : [];
  const daemonSetPods = ctx.input.workloads.filter((w) => w.kind === 'DaemonSet').map((w) => w.templatePod);
  return planProvisioning({ cluster, pools, instanceTypes: ctx.instanceTypes, daemonSetPods, config: ctx.scheduler ?? {}, seed: ctx.seed });
}

/** Enough nodes like an eligible one for the replicas left over: as many as fit on one, or one each under self anti-affinity on hostname. */
function capacityRemedy(pod: Pod, nodes: readonly Node[], pending: number): Remedy | undefined {
  const model = templateNodeFor(pod, nodes);
  if (!model) return undefined;
  const spreadsPerNode = pod.requiredAntiAffinity.some((t) => t.topologyKey === 'kubernetes.io/hostname' && t.selector.matches(pod.labels));
  const perNode = spreadsPerNode
    ? 1
    : Math.max(
        1,
        Math.min(...Object.entries(pod.resources.requests).filter(([, v]) => v > 0).map(([k, v]) => Math.floor((model.allocatable[k] ?? 0) / v)), model.allocatable['pods'] ?? 110),
      );
  return addNodesLike(model, Math.ceil(pending / perNode));
}

function finding(ctx: AnalysisContext, t: ScaleTarget, base: { nodes: Node[]; pods: Pod[] }): Finding | undefined {
  const count = t.replicas - t.group.replicas;
  const { cluster, extra } = withExtraReplicas(ctx, base, t, count);
  const p = plan(ctx, cluster);
  const keys = new Set(extra.map((e) => e.key));
  const unschedulable = p.unschedulable.filter((u) => keys.has(u.pod));
  const onExisting = p.placements.filter((x) => keys.has(x.pod) && !p.nodeClaims.some((c) => c.name === x.node)).length;
  const claims = p.nodeClaims.filter((c) => c.pods.some((pod) => keys.has(pod)));
  const step = `planned: scale ${t.group.object} ${t.group.replicas} → ${t.replicas} (${t.why}) on the settled cluster of ${base.nodes.length} node(s), provisioner ${ctx.provisioner && ctx.input.nodePools.length > 0 ? 'on' : 'off'}`;
  const evidence = [
    step,
    `${onExisting} of ${count} new replica(s) fit on existing nodes`,
    ...claims.map((c) => `new node ${c.instanceType} (${c.capacityType}) in ${c.zone} from NodePool ${c.nodePool} for ${c.pods.filter((x) => keys.has(x)).length} replica(s), ${money(c.pricePerHour)}`),
    ...unschedulable.slice(0, 1).map((u) => `${unschedulable.length} replica(s) unschedulable: ${u.message}${u.schedulerMessage ? `; on the existing nodes: ${u.schedulerMessage}` : ''}`),
  ];
  // NodeVolumeLimits turned replicas away: say which limit, of which driver, on which node.
  const attachLimited = unschedulable.some((u) => u.schedulerMessage?.includes(ERR_REASON_MAX_VOLUME_COUNT));
  if (attachLimited) evidence.push(...attachLimits(cluster, extra));
  if (unschedulable.length > 0) {
    const remedy = capacityRemedy(t.group.templatePod, base.nodes, unschedulable.length);
    const severity: Severity = t.hpa ? 'error' : 'warning';
    return {
      severity,
      rule: 'scale-up',
      object: t.group.object,
      message: `at ${t.replicas} replicas (${t.why}) ${unschedulable.length} of ${count} new replica(s) cannot be placed${claims.length > 0 ? ` even after ${claims.length} new node(s)` : ''}${attachLimited ? ': their volumes exceed the nodes\' CSI attach limit' : ''}`,
      evidence,
      fix: [
        ...(remedy ? [`${remedy.description}: room for the ${unschedulable.length} replica(s) left over`] : []),
        ctx.input.nodePools.length > 0 ? 'raise the NodePool limits, or widen its requirements to instance types and zones these pods fit' : 'a NodePool the provisioner can launch nodes for these pods from',
        ...(t.hpa ? [`or lower ${t.hpa.name}'s maxReplicas to what fits`] : []),
      ],
      ...(remedy ? { remedies: [remedy] } : {}),
    };
  }
  if (claims.length === 0) return undefined;
  const cost = claims.reduce((s, c) => s + c.pricePerHour, 0);
  return {
    severity: 'info',
    rule: 'scale-up',
    object: t.group.object,
    message: `at ${t.replicas} replicas (${t.why}) the provisioner adds ${claims.length} node(s) (${[...new Set(claims.map((c) => c.instanceType))].join(', ')}), +${money(cost)}`,
    evidence,
    fix: [],
  };
}

export const scaleUpCheck: Check = {
  rule: 'scale-up',
  description: 'Scales each workload to its HPA maxReplicas (or twice its replicas): do the replicas fit, how many nodes would the provisioner add, at what $/h',
  run(ctx) {
    const targets = scaleTargets(podGroups(ctx.input), ctx.input.hpas, ctx.scaleUp);
    if (targets.length === 0) return [];
    const base = settled(ctx);
    return targets.flatMap((t) => finding(ctx, t, base) ?? []);
  },
};
