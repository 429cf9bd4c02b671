// unsatisfiable: required placement terms that no node — existing or one a
// NodePool could launch — can ever satisfy, so some replicas stay Pending for good:
//  - node level (nodeSelector, required node affinity, taints, size): a probe of the
//    pod with its pod-level terms left out is planned on the empty nodes with the
//    NodePools (the provisioner's own verdict, so no false alarm), and the term to
//    blame is found by testing each one against every node and pool;
//  - topology spread whose topologyKey no eligible node has, or whose minDomains is
//    above the domains there are, with more replicas than the domains can hold;
//  - required anti-affinity against its own replicas on a key with fewer domains
//    than replicas; required pod affinity to pods that exist nowhere.

import { buildClusterState, type ClusterState } from '../../cluster/state.js';
import { LABEL_HOSTNAME, LABEL_ZONE, type Node } from '../../model/node.js';
import { changedPod, matchesRequiredNodeAffinity, type Pod } from '../../model/pod.js';
import { compileNodeSelectorTerm } from '../../model/selector.js';
import { doNotScheduleTaints, findUntoleratedTaint, tolerationsTolerateTaint } from '../../model/taints.js';
import { instanceTypeCompatible } from '../../provisioner/instance-requirements.js';
import { fits, usableOfferings, type PoolTemplate } from '../../provisioner/nodeclaim.js';
import { planProvisioning } from '../../provisioner/plan.js';
import { nodeAffinityRequirements, podRequirements } from '../../provisioner/pod-requirements.js';
import { ALLOW_UNDEFINED_WELL_KNOWN, type Requirements } from '../../provisioner/requirements.js';
import type { AnalysisContext, Check } from '../check.js';
import { launchablePools } from '../domains.js';
import type { Finding, Remedy } from '../finding.js';
import { podGroups, podsOf, type PodGroup } from '../pod-groups.js';
import { proveFixes } from '../prove.js';
import { addNodesLike, dropNodeSelector, setMinDomains, templateNodeFor } from '../remedies.js';
import { baseline } from '../what-if.js';

/** Why a pool cannot launch a node for pods with these requirements, or undefined when it can. */
function poolRefusal(pool: PoolTemplate, pod: Pod, reqs: Requirements): string | undefined {
  const taint = pool.taints.find((t) => !tolerationsTolerateTaint(pod.tolerations, t));
  if (taint) return `its taint ${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect} is not tolerated`;
  const incompatible = pool.requirements.compatible(reqs, ALLOW_UNDEFINED_WELL_KNOWN);
  if (incompatible) return incompatible;
  const merged = pool.requirements.clone();
  merged.addAll(reqs);
  const sized = pool.instanceTypes.filter((it) => instanceTypeCompatible(it, merged) && usableOfferings(it, merged).length > 0);
  if (sized.length === 0) return 'none of its instance types is offered with these requirements';
  if (!sized.some((it) => fits(pod.resources.requests, 1, it))) return 'none of its instance types is large enough';
  return undefined;
}

const schedulableOn = (pod: Pod, node: Node) => !node.unschedulable && findUntoleratedTaint(node.taints, pod.tolerations, doNotScheduleTaints) === undefined;

/** The nodes and pools the pod's node-level terms admit. */
function eligibility(pod: Pod, nodes: readonly Node[], pools: readonly PoolTemplate[]) {
  const reqs = podRequirements(pod);
  return {
    nodes: nodes.filter((n) => schedulableOn(pod, n) && matchesRequiredNodeAffinity(pod, n)),
    pools: pools.filter((p) => poolRefusal(p, pod, reqs) === undefined),
  };
}

/** The pod as the provisioner would plan it alone: pending, without terms that depend on other pods. */
function nodeLevelProbe(pod: Pod): Pod {
  return changedPod(pod, { nodeName: '', nominatedNodeName: '', requiredAffinity: [], requiredAntiAffinity: [], preferredAffinity: [], preferredAntiAffinity: [], topologySpreadConstraints: [] });
}

/** Which node-level term no node and no pool satisfies, and why. */
function blameNodeTerms(pod: Pod, nodes: readonly Node[], pools: readonly PoolTemplate[]): { term: string; why: string; selectorKey?: string }[] {
  const out: { term: string; why: string; selectorKey?: string }[] = [];
  const valuesOf = (key: string) => [...new Set(nodes.map((n) => n.labels[key]).filter((v) => v !== undefined))].sort();
  for (const [key, value] of Object.entries(pod.nodeSelector)) {
    const onNodes = nodes.some((n) => n.labels[key] === value);
    const fromPools = pools.some((p) => poolRefusal(p, pod, nodeAffinityRequirements({ [key]: value }, [])) === undefined);
    if (!onNodes && !fromPools) {
      const seen = valuesOf(key);
      out.push({ term: `nodeSelector ${key}=${value}`, why: `no node has it${seen.length > 0 ? ` (nodes have ${key}=${seen.join(', ')})` : ` (no node has the label ${key})`}${pools.length > 0 ? ' and no NodePool can launch it' : ''}`, selectorKey: key });
    }
  }
  const terms = pod.requiredNodeAffinity?.terms ?? [];
  const failing = terms.filter((t) => {
    const test = compileNodeSelectorTerm(t);
    return !nodes.some((n) => test(n)) && !pools.some((p) => poolRefusal(p, pod, nodeAffinityRequirements({}, [t])) === undefined);
  });
  if (terms.length > 0 && failing.length === terms.length) {
    const text = terms.map((t) => (t.matchExpressions ?? []).map((r) => `${r.key} ${r.operator} [${r.values.join(', ')}]`).join(' and ')).join(' or ');
    out.push({ term: `required node affinity ${text}`, why: `matches no node${pools.length > 0 ? ' and no NodePool can launch a node that matches' : ''}` });
  }
  if (out.length === 0) {
    const labelled = nodes.filter((n) => matchesRequiredNodeAffinity(pod, n));
    const taint = labelled.map((n) => findUntoleratedTaint(n.taints, pod.tolerations, doNotScheduleTaints)).find((t) => t !== undefined);
    if (labelled.length > 0 && labelled.every((n) => !schedulableOn(pod, n)) && taint) {
      out.push({ term: 'tolerations', why: `every node it selects has a taint it does not tolerate (e.g. ${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect})${pools.length > 0 ? ', and so does every NodePool that could launch one' : ''}` });
    }
  }
  return out;
}

interface Problem {
  readonly what: string;
  readonly evidence: string[];
  readonly fix: string[];
  readonly remedies: Remedy[];
}

function nodeLevel(ctx: AnalysisContext, group: PodGroup, pools: readonly PoolTemplate[], emptied: () => ClusterState): Problem | undefined {
  const probe = nodeLevelProbe(group.templatePod);
  // Every group's probe is planned on the same emptied nodes: built once, a fork per probe.
  const cluster = emptied().fork();
  cluster.addInputPods([probe]);
  const daemonSetPods = ctx.input.workloads.filter((w) => w.kind === 'DaemonSet').map((w) => w.templatePod);
  const plan = planProvisioning({ cluster, pools: ctx.provisioner ? ctx.input.nodePools.filter((p) => p.replicas === null) : [], instanceTypes: ctx.instanceTypes, daemonSetPods, config: ctx.scheduler ?? {}, seed: ctx.seed });
  const refused = plan.unschedulable.find((u) => u.pod === probe.key);
  if (!refused) return undefined;
  const blamed = blameNodeTerms(group.templatePod, ctx.input.nodes, pools);
  const what = blamed.length > 0 ? blamed.map((b) => `${b.term}: ${b.why}`).join('; ') : 'no node, empty or launched, can take its pod';
  const remedies = blamed.flatMap((b) => (b.selectorKey ? [dropNodeSelector(group, b.selectorKey)] : []));
  return {
    what,
    evidence: [`planned alone on the ${ctx.input.nodes.length} node(s) emptied${pools.length > 0 ? ` and NodePool(s) ${pools.map((p) => p.name).join(', ')}` : ', no NodePool'}: ${refused.message}`],
    fix: [...remedies.map((r) => `${r.description}, or set it to a value nodes have`), 'change the term to labels that nodes (or a NodePool) have, add the toleration, or add such nodes / a NodePool'],
    remedies,
  };
}

/** Distinct values of `key` among the eligible nodes; Infinity when pools can launch new ones (hostnames), or their zones. */
function domains(key: string, nodes: readonly Node[], pools: readonly PoolTemplate[]): { count: number; values: string[] } {
  const values = new Set(nodes.map((n) => n.labels[key]).filter((v): v is string => v !== undefined));
  if (pools.length > 0 && key === LABEL_HOSTNAME) return { count: Infinity, values: [...values].sort() };
  if (key === LABEL_ZONE) for (const p of pools) for (const z of p.zones) values.add(z);
  return { count: values.size, values: [...values].sort() };
}

function topologyProblems(ctx: AnalysisContext, group: PodGroup, nodes: readonly Node[], pools: readonly PoolTemplate[]): Problem[] {
  const pod = group.templatePod;
  const out: Problem[] = [];
  const replicas = group.replicas;
  for (const c of pod.topologySpreadConstraints) {
    if (c.whenUnsatisfiable !== 'DoNotSchedule') continue;
    const d = domains(c.topologyKey, c.nodeAffinityPolicy === 'Honor' ? nodes : ctx.input.nodes, pools);
    if (d.count === 0) {
      out.push({ what: `topology spread on ${c.topologyKey}: no node has the label ${c.topologyKey}, so every node fails the constraint`, evidence: [`${nodes.length} eligible node(s), none labelled ${c.topologyKey}`], fix: [`spread on a key the nodes carry (${LABEL_HOSTNAME}, ${LABEL_ZONE})`], remedies: [] });
      continue;
    }
    const room = d.count * c.maxSkew;
    if (c.minDomains > d.count && replicas > room) {
      // Hostnames: add the nodes minDomains asks for (lowering it would let replicas stack again); zones are what the region has.
      const model = templateNodeFor(pod, nodes, group.kind === 'Pod');
      const remedy = c.topologyKey === LABEL_HOSTNAME && model ? addNodesLike(model, c.minDomains - d.count) : setMinDomains(group, c.topologyKey, d.count);
      out.push({
        what: `topology spread on ${c.topologyKey} has minDomains ${c.minDomains} but only ${d.count} ${c.topologyKey} domain(s) exist or can be launched (${d.values.join(', ')}): the global minimum counts as 0, so at most ${room} of ${replicas} replicas ever schedule`,
        evidence: [`domains of ${c.topologyKey} among eligible nodes${pools.length > 0 ? ' and NodePool offerings' : ''}: ${d.values.join(', ')}`],
        fix: [remedy.description, c.topologyKey === LABEL_HOSTNAME ? 'or a NodePool, so the pending replicas get nodes launched' : `or capacity in ${c.minDomains - d.count} more ${c.topologyKey} domain(s)`],
        remedies: [remedy],
      });
    }
  }
  for (const t of pod.requiredAntiAffinity) {
    if (!t.selector.matches(pod.labels)) continue;
    const d = domains(t.topologyKey, nodes, pools);
    if (replicas > d.count) {
      const missing = replicas - d.count;
      const model = templateNodeFor(pod, nodes, group.kind === 'Pod');
      const remedies = t.topologyKey === LABEL_HOSTNAME && model ? [addNodesLike(model, missing)] : [];
      out.push({
        what: `required pod anti-affinity on ${t.topologyKey} against its own replicas, but only ${d.count} ${t.topologyKey} domain(s) can take them${pools.length === 0 ? ' and no NodePool launches more' : ''}: ${missing} of ${replicas} replicas can never schedule`,
        evidence: [`eligible domains of ${t.topologyKey}: ${d.values.join(', ') || 'none'}`],
        fix: [...remedies.map((r) => r.description), `or ${replicas - missing} replicas, or preferred instead of required anti-affinity, or a NodePool`],
        remedies,
      });
    }
  }
  for (const t of pod.requiredAffinity) {
    if (t.selector.matches(pod.labels)) continue;
    const candidates = [...ctx.input.pods, ...ctx.input.workloads.map((w) => w.templatePod)];
    const exists = candidates.some((p) => t.selector.matches(p.labels) && (t.namespaces.size === 0 ? p.namespace === pod.namespace : t.namespaces.has(p.namespace)));
    if (!exists) out.push({ what: `required pod affinity on ${t.topologyKey} to pods that exist nowhere in the input (and its own pods do not match the term)`, evidence: [`no pod or workload template matches the term's labelSelector`], fix: ['correct the labelSelector, or make the affinity preferred'], remedies: [] });
  }
  return out;
}

/** Whether every pod of the group is bound once the changed input has run undisturbed (a re-simulation). */
function allScheduled(ctx: AnalysisContext, input: AnalysisContext['input'], group: PodGroup): boolean {
  const run = baseline({ ...ctx, input });
  return ![...run.sim.world.cluster.pods()].some((p) => !p.nodeName && !p.terminating && group.has(p));
}

export const unsatisfiableCheck: Check = {
  rule: 'unsatisfiable',
  description: 'Required node selectors, node affinity, tolerations, topology spread or pod (anti-)affinity that no existing or provisionable node can satisfy',
  run(ctx) {
    const pools = launchablePools(ctx);
    const out: Finding[] = [];
    let built: ClusterState | undefined;
    const emptied = () => (built ??= buildClusterState({ nodes: ctx.input.nodes, pods: [] }));
    for (const group of podGroups(ctx.input)) {
      // Controller-less pods already running have been placed; only their pending ones matter.
      if (group.kind === 'Pod' && podsOf(group, ctx.input.pods).every((p) => p.nodeName)) continue;
      const nodeProblem = nodeLevel(ctx, group, pools, emptied);
      const { nodes, pools: eligiblePools } = eligibility(group.templatePod, ctx.input.nodes, pools);
      const problems = nodeProblem ? [nodeProblem] : topologyProblems(ctx, group, nodes, eligiblePools);
      for (const p of problems) {
        const remedies = proveFixes(p.remedies, ctx.input, (input) => allScheduled(ctx, input, group));
        // A fix that does not let every replica schedule when re-simulated is not shown.
        const fix = p.fix.filter((f) => !p.remedies.some((r) => r.description === f) || remedies.some((r) => r.description === f));
        out.push({ severity: 'error', rule: 'unsatisfiable', object: group.object, message: p.what, evidence: p.evidence, fix, ...(remedies.length > 0 ? { remedies } : {}) });
      }
    }
    return out;
  },
};
