// Changes to the analysed input that checks offer as fixes (Remedy.apply): a
// workload's rollout strategy or pod template, a node added, NodePool limits
// lifted. Each returns a new LoadedInput and leaves the given one untouched, so
// a check can re-run its simulations on the fixed input to prove the fix.

import type { LoadedInput, WorkloadSummary } from '../io/load.js';
import type { PodAffinityTermManifest, PodSpecManifest, PodTemplateManifest, RolloutFieldsManifest, TopologySpreadConstraintManifest } from '../model/manifest.js';
import { LABEL_HOSTNAME, LABEL_ZONE, type Node } from '../model/node.js';
import { changedPod, compilePod, matchesRequiredNodeAffinity, type Pod } from '../model/pod.js';
import { doNotScheduleTaints, findUntoleratedTaint } from '../model/taints.js';
import { compileLabelSelector } from '../model/selector.js';
import type { ObjectPatch, Remedy } from './finding.js';
import { composeMergePatches } from './patches.js';
import type { PodGroup } from './pod-groups.js';

export const workloadRef = (w: Pick<WorkloadSummary, 'kind' | 'key'>): string => `${w.kind}/${w.key}`;

/** A JSON merge patch of a workload's pod template spec (none for bare pods, whose spec cannot change). */
function templatePatch(group: PodGroup, spec: (written: PodSpecManifest) => Record<string, unknown>): ObjectPatch[] | undefined {
  const w = group.workload;
  return w ? [{ object: group.object, type: 'merge', patch: { spec: { template: { spec: spec(w.template.spec) } } } }] : undefined;
}

/** The JSON merge patch that turns a workload's written template into `next`'s placement fields. */
export function placementPatch(w: WorkloadSummary, next: PodTemplateManifest): ObjectPatch {
  return {
    object: workloadRef(w),
    type: 'merge',
    patch: { spec: { template: { spec: { affinity: next.spec.affinity ?? null, topologySpreadConstraints: next.spec.topologySpreadConstraints ?? null } } } },
  };
}

/** The patches of several remedies, one per object where they are merge patches of the same object. */
export function combinePatches(parts: readonly Remedy[]): ObjectPatch[] | undefined {
  if (parts.some((p) => p.patches === undefined)) return undefined;
  const out: ObjectPatch[] = [];
  for (const p of parts.flatMap((r) => r.patches ?? [])) {
    const i = out.findIndex((x) => x.object === p.object && x.type === 'merge' && p.type === 'merge');
    if (i >= 0) out[i] = { ...p, patch: composeMergePatches(out[i]!.patch, p.patch) };
    else out.push(p);
  }
  return out;
}

/** A Node manifest for a node of the model (what `berth check --cluster` reads back). */
export function nodeManifest(node: Node): Record<string, unknown> {
  const quantities = Object.fromEntries(Object.entries(node.allocatable).map(([k, v]) => [k, k === 'cpu' ? `${v}m` : String(v)]));
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node.name, labels: { ...node.labels } },
    ...(node.taints.length > 0 ? { spec: { taints: node.taints.map((t) => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect })) } } : {}),
    status: { allocatable: quantities, capacity: quantities },
  };
}

function replaceWorkload(input: LoadedInput, w: WorkloadSummary, next: WorkloadSummary): LoadedInput {
  return { ...input, workloads: input.workloads.map((x) => (x.kind === w.kind && x.key === w.key ? next : x)) };
}

/** The workload of `input` with the same kind and key as `w` (the input may be a remedied copy). */
export function findWorkload(input: LoadedInput, w: Pick<WorkloadSummary, 'kind' | 'key'>): WorkloadSummary | undefined {
  return input.workloads.find((x) => x.kind === w.kind && x.key === w.key);
}

export function withRollout(input: LoadedInput, w: WorkloadSummary, rollout: RolloutFieldsManifest): LoadedInput {
  const current = findWorkload(input, w) ?? w;
  return replaceWorkload(input, current, { ...current, rollout: { ...current.rollout, ...rollout } });
}

/** A new pod template, compiled as the loader compiles it (the resolved priority is kept). */
export function withTemplate(input: LoadedInput, w: WorkloadSummary, template: PodTemplateManifest): LoadedInput {
  const current = findWorkload(input, w) ?? w;
  const p = current.templatePod;
  const templatePod = compilePod(
    { metadata: { name: current.name, namespace: current.namespace, labels: template.metadata?.labels ?? {}, annotations: template.metadata?.annotations ?? {} }, spec: template.spec },
    { order: 0, resolvedPriority: p.priority, resolvedPreemptionPolicy: p.preemptionPolicy },
  );
  return replaceWorkload(input, current, { ...current, template, templatePod });
}

/** A copy of `like` named `name` in `zone`: one more node of a kind the cluster already runs. */
export function withNode(input: LoadedInput, like: Node, name: string, zone: string): LoadedInput {
  const node: Node = { ...like, name, uid: name, labels: { ...like.labels, [LABEL_HOSTNAME]: name, [LABEL_ZONE]: zone }, unschedulable: false };
  return { ...input, nodes: [...input.nodes, node] };
}

/** A NodePool without limits: the provisioner may launch what the pods need. */
export function withoutPoolLimits(input: LoadedInput, pool: string): LoadedInput {
  return { ...input, nodePools: input.nodePools.map((np) => (np.name === pool ? { ...np, limits: {} } : np)) };
}

// --- pod anti-affinity variants ---

export type AntiAffinityVariant = 'required' | 'preferred' | 'spread';

/** The template's pod anti-affinity terms that select its own pods (required and preferred). */
export function selfAntiAffinity(template: PodTemplateManifest): { required: PodAffinityTermManifest[]; preferred: PodAffinityTermManifest[] } {
  const labels = template.metadata?.labels ?? {};
  const selfish = (t: PodAffinityTermManifest) => t.labelSelector != null && compileLabelSelector(t.labelSelector).matches(labels);
  const anti = template.spec.affinity?.podAntiAffinity;
  return {
    required: (anti?.requiredDuringSchedulingIgnoredDuringExecution ?? []).filter(selfish),
    preferred: (anti?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => w.podAffinityTerm).filter(selfish),
  };
}

export function currentVariant(template: PodTemplateManifest): AntiAffinityVariant | undefined {
  const self = selfAntiAffinity(template);
  if (self.required.length > 0) return 'required';
  if (self.preferred.length > 0) return 'preferred';
  return undefined;
}

/**
 * The template with its self anti-affinity expressed another way: all terms
 * required, all preferred (weight 100), or replaced by topology spread
 * constraints on the same keys (maxSkew 1, DoNotSchedule, optional minDomains).
 */
export function antiAffinityVariant(template: PodTemplateManifest, variant: AntiAffinityVariant, minDomains?: number): PodTemplateManifest {
  const self = selfAntiAffinity(template);
  const terms = [...self.required, ...self.preferred];
  const anti = template.spec.affinity?.podAntiAffinity ?? {};
  const others = {
    required: (anti.requiredDuringSchedulingIgnoredDuringExecution ?? []).filter((t) => !self.required.includes(t)),
    preferred: (anti.preferredDuringSchedulingIgnoredDuringExecution ?? []).filter((w) => !self.preferred.includes(w.podAffinityTerm)),
  };
  const required = variant === 'required' ? [...others.required, ...terms] : others.required;
  const preferred = variant === 'preferred' ? [...others.preferred, ...terms.map((podAffinityTerm) => ({ weight: 100, podAffinityTerm }))] : others.preferred;
  const keys = [...new Set(terms.map((t) => t.topologyKey))];
  const spread: TopologySpreadConstraintManifest[] =
    variant === 'spread'
      ? keys.map((topologyKey) => ({
          maxSkew: 1,
          topologyKey,
          whenUnsatisfiable: 'DoNotSchedule' as const,
          labelSelector: terms.find((t) => t.topologyKey === topologyKey)!.labelSelector ?? null,
          ...(minDomains !== undefined ? { minDomains } : {}),
        }))
      : [];
  const existingSpread = (template.spec.topologySpreadConstraints ?? []).filter((c) => !(variant === 'spread' && keys.includes(c.topologyKey)));
  const podAntiAffinity = {
    ...(required.length > 0 ? { requiredDuringSchedulingIgnoredDuringExecution: required } : {}),
    ...(preferred.length > 0 ? { preferredDuringSchedulingIgnoredDuringExecution: preferred } : {}),
  };
  const { podAntiAffinity: _dropped, ...restAffinity } = template.spec.affinity ?? {};
  const affinity = { ...restAffinity, ...(Object.keys(podAntiAffinity).length > 0 ? { podAntiAffinity } : {}) };
  const constraints = [...existingSpread, ...spread];
  const { affinity: _a, topologySpreadConstraints: _t, ...restSpec } = template.spec;
  return {
    ...template,
    spec: { ...restSpec, ...(Object.keys(affinity).length > 0 ? { affinity } : {}), ...(constraints.length > 0 ? { topologySpreadConstraints: constraints } : {}) },
  };
}

// --- fixes for a pod group (pod-groups.ts): its workload's template and its pods of the input ---

interface GroupEdit {
  /** The written template spec, changed. */
  readonly spec: (spec: PodSpecManifest) => PodSpecManifest;
  /** A compiled pod of the group, changed the same way. */
  readonly pod: (pod: Pod) => Pod;
}

function editGroup(input: LoadedInput, group: PodGroup, edit: GroupEdit, replicas?: number): LoadedInput {
  const target = group.workload;
  // By kind and key, not identity: the input may be a copy (a remedy applied after another, a reload).
  const workloads = input.workloads.map((w): WorkloadSummary => {
    if (!target || w.kind !== target.kind || w.key !== target.key) return w;
    return {
      ...w,
      replicas: replicas ?? w.replicas,
      template: { ...w.template, spec: edit.spec(w.template.spec) },
      templatePod: edit.pod(w.templatePod),
    };
  });
  const edited = input.pods.map((p) => (group.has(p) ? edit.pod(p) : p));
  // Pods left as they were keep the input's list: runs of both inputs then share one built cluster.
  const pods = edited.every((p, i) => p === input.pods[i]) ? input.pods : edited;
  return { ...input, workloads, pods };
}

/** The pod fields a spec fragment compiles to, for the group's namespace and labels. */
function compiledFragment(group: PodGroup, fragment: PodSpecManifest): Pod {
  const { namespace, labels } = group.templatePod;
  return compilePod({ metadata: { name: 'remedy', namespace, labels }, spec: fragment }, { order: 0 });
}

const NO_CONTAINERS: PodSpecManifest = { containers: [] };

function groupTerm(group: PodGroup, topologyKey: string): PodAffinityTermManifest {
  return { topologyKey, labelSelector: { matchLabels: { ...group.matchLabels } } };
}

/** Required pod anti-affinity against the group's own pods on `topologyKey`: no two replicas share a domain. */
export function requireAntiAffinity(group: PodGroup, topologyKey: string): Remedy {
  const term = groupTerm(group, topologyKey);
  const compiled = compiledFragment(group, { ...NO_CONTAINERS, affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } }).requiredAntiAffinity;
  const patches = templatePatch(group, (s) => ({
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [...(s.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []), term] } },
  }));
  return {
    description: `add required pod anti-affinity on ${topologyKey} against the group's own pods`,
    ...(patches ? { patches } : {}),
    apply: (input) =>
      editGroup(input, group, {
        spec: (s) => {
          const anti = s.affinity?.podAntiAffinity ?? {};
          const required = [...(anti.requiredDuringSchedulingIgnoredDuringExecution ?? []), term];
          return { ...s, affinity: { ...s.affinity, podAntiAffinity: { ...anti, requiredDuringSchedulingIgnoredDuringExecution: required } } };
        },
        pod: (p) => changedPod(p, { requiredAntiAffinity: [...p.requiredAntiAffinity, ...compiled] }),
      }),
  };
}

/**
 * A DoNotSchedule topology spread constraint (maxSkew 1) over `topologyKey`, with
 * minDomains when given. `honorTaints` sets nodeTaintsPolicy Honor, so nodes the
 * pods do not tolerate — a lost zone's, tainted unreachable — stop counting as a
 * domain and the survivors may take the lost replicas.
 */
export function spreadAcross(group: PodGroup, topologyKey: string, opts: { minDomains?: number; honorTaints?: boolean } = {}): Remedy {
  const { minDomains, honorTaints } = opts;
  const written: TopologySpreadConstraintManifest = {
    maxSkew: 1,
    topologyKey,
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { ...group.matchLabels } },
    ...(minDomains !== undefined ? { minDomains } : {}),
    ...(honorTaints ? { nodeTaintsPolicy: 'Honor' as const } : {}),
  };
  const compiled = compiledFragment(group, { ...NO_CONTAINERS, topologySpreadConstraints: [written] }).topologySpreadConstraints;
  const patches = templatePatch(group, (s) => ({ topologySpreadConstraints: [...(s.topologySpreadConstraints ?? []), written] }));
  return {
    ...(patches ? { patches } : {}),
    description: `add a DoNotSchedule topology spread constraint on ${topologyKey} (maxSkew 1${minDomains !== undefined ? `, minDomains ${minDomains}` : ''}${honorTaints ? ', nodeTaintsPolicy Honor' : ''})`,
    apply: (input) =>
      editGroup(input, group, {
        spec: (s) => ({ ...s, topologySpreadConstraints: [...(s.topologySpreadConstraints ?? []), written] }),
        pod: (p) => changedPod(p, { topologySpreadConstraints: [...p.topologySpreadConstraints, ...compiled] }),
      }),
  };
}

/** minDomains on the group's DoNotSchedule spread constraints over `topologyKey`. */
export function setMinDomains(group: PodGroup, topologyKey: string, minDomains: number): Remedy {
  const applies = (c: { topologyKey: string; whenUnsatisfiable: string }) => c.topologyKey === topologyKey && c.whenUnsatisfiable === 'DoNotSchedule';
  const patches = templatePatch(group, (s) => ({ topologySpreadConstraints: (s.topologySpreadConstraints ?? []).map((c) => (applies(c) ? { ...c, minDomains } : c)) }));
  return {
    ...(patches ? { patches } : {}),
    description: `set minDomains ${minDomains} on the topology spread constraint over ${topologyKey}`,
    apply: (input) =>
      editGroup(input, group, {
        spec: (s) => ({ ...s, topologySpreadConstraints: (s.topologySpreadConstraints ?? []).map((c) => (applies(c) ? { ...c, minDomains } : c)) }),
        pod: (p) => changedPod(p, { topologySpreadConstraints: p.topologySpreadConstraints.map((c) => (applies(c) ? { ...c, minDomains } : c)) }),
      }),
  };
}

/** spec.replicas of the group's workload set to `replicas`. */
export function scaleTo(group: PodGroup, replicas: number): Remedy {
  if (!group.workload) throw new Error(`${group.object} has no controller to scale`);
  return {
    description: `set replicas to ${replicas}`,
    patches: [{ object: group.object, type: 'merge', patch: { spec: { replicas } } }],
    shrink: () => (replicas - 1 > group.replicas ? scaleTo(group, replicas - 1) : undefined),
    apply: (input) => editGroup(input, group, { spec: (s) => s, pod: (p) => p }, replicas),
  };
}

/** Several remedies applied in order, as one fix. */
export function combine(...parts: readonly Remedy[]): Remedy {
  if (parts.length === 1) return parts[0]!;
  const patches = combinePatches(parts);
  return { description: parts.map((r) => r.description).join(', and '), ...(patches ? { patches } : {}), apply: (input) => parts.reduce((acc, r) => r.apply(acc), input), parts };
}

const CONTROL_PLANE_LABELS = ['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master'];

/**
 * Whether a copy of `node` would take the pods: not cordoned, no NoSchedule/
 * NoExecute taint the pods do not tolerate, inside their nodeSelector and required
 * node affinity, and not a control-plane node unless they are control-plane pods
 * (controller-less, as static pods are, or selecting the control-plane role).
 * Only such a node is a template for "add a node like".
 */
export function usableTemplate(pod: Pod, node: Node, controllerLess = false): boolean {
  const controlPlanePod = controllerLess || CONTROL_PLANE_LABELS.some((l) => l in pod.nodeSelector);
  if (node.unschedulable || (!controlPlanePod && CONTROL_PLANE_LABELS.some((l) => l in node.labels))) return false;
  if (findUntoleratedTaint(node.taints, pod.tolerations, doNotScheduleTaints)) return false;
  return matchesRequiredNodeAffinity(pod, node);
}

/** The first of `nodes` (in order of preference) that is a usable template for the pod's replicas. */
export function templateNodeFor(pod: Pod, nodes: readonly Node[], controllerLess = false): Node | undefined {
  return nodes.find((n) => usableTemplate(pod, n, controllerLess));
}

/**
 * Inputs made by a change that does not depend on who proposes it (nodes added):
 * the same change to the same input gives the same object, so what is simulated on
 * it can serve every group whose fix proposes it (loss checks keep their verdicts).
 */
const sharedInputs = new WeakMap<LoadedInput, WeakMap<Node, Map<string, LoadedInput>>>();
const shared = new WeakSet<LoadedInput>();
/** Each shared input's base and the change that made it, as every worker making it words it. */
const origins = new WeakMap<LoadedInput, { readonly base: LoadedInput; readonly change: string }>();

/**
 * A name every worker of a pool gives `input` alike: the shared changes (nodes
 * added, each with the whole model node) that made it from `root`; undefined
 * when it was not made from `root` by shared changes alone.
 */
export function sharedInputName(input: LoadedInput, root: LoadedInput): string | undefined {
  const changes: string[] = [];
  for (let at = input; at !== root; ) {
    const o = origins.get(at);
    if (!o) return undefined;
    changes.push(o.change);
    at = o.base;
  }
  return JSON.stringify(changes.reverse());
}

export const isSharedInput = (input: LoadedInput): boolean => shared.has(input);

function sharedChange(input: LoadedInput, model: Node, key: string, make: () => LoadedInput): LoadedInput {
  let byModel = sharedInputs.get(input);
  if (!byModel) sharedInputs.set(input, (byModel = new WeakMap()));
  let byKey = byModel.get(model);
  if (!byKey) byModel.set(model, (byKey = new Map()));
  let out = byKey.get(key);
  if (!out) {
    byKey.set(key, (out = make()));
    shared.add(out);
    origins.set(out, { base: input, change: `${JSON.stringify(model)} ${key}` });
  }
  return out;
}

/** `count` more nodes like `model` (same labels, taints and size; their own hostname), in its zone or `zone`. */
export function addNodesLike(model: Node, count: number, zone?: string): Remedy {
  const modelZone = model.labels[LABEL_ZONE];
  const where = zone !== undefined && zone !== modelZone ? ` in zone ${zone}` : '';
  const names = (nodes: readonly Node[]) => {
    const out: string[] = [];
    for (let i = 1; out.length < count; i++) if (!nodes.some((n) => n.name === `${model.name}-spare-${i}`)) out.push(`${model.name}-spare-${i}`);
    return out;
  };
  const copy = (name: string): Node => ({ ...model, name, uid: name, labels: { ...model.labels, [LABEL_HOSTNAME]: name, [LABEL_ZONE]: zone ?? modelZone ?? '' }, unschedulable: false });
  return {
    description: `add ${count} node(s) like ${model.name}${where}`,
    // Named as apply names them on an input without spare nodes yet.
    patches: names([]).map((name) => ({ object: `Node/${name}`, type: 'create' as const, patch: nodeManifest(copy(name)) })),
    shrink: () => (count > 1 ? addNodesLike(model, count - 1, zone) : undefined),
    apply: (input) => sharedChange(input, model, `${count} ${zone ?? ''}`, () => ({ ...input, nodes: [...input.nodes, ...names(input.nodes).map(copy)] })),
  };
}

/** The group's nodeSelector without `key`. */
export function dropNodeSelector(group: PodGroup, key: string): Remedy {
  const without = (m: Readonly<Record<string, string>> | undefined) => Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => k !== key));
  const patches = templatePatch(group, () => ({ nodeSelector: { [key]: null } }));
  return {
    ...(patches ? { patches } : {}),
    description: `remove ${key} from the nodeSelector`,
    apply: (input) =>
      editGroup(input, group, {
        spec: (s) => ({ ...s, nodeSelector: without(s.nodeSelector) }),
        pod: (p) => changedPod(p, { nodeSelector: without(p.nodeSelector) }),
      }),
  };
}
