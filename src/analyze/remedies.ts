// Changes to the analysed input that checks offer as fixes (Remedy.apply): a
// workload's rollout strategy or pod template, a node added, NodePool limits
// lifted. Each returns a new LoadedInput and leaves the given one untouched, so
// a check can re-run its simulations on the fixed input to prove the fix.

import type { LoadedInput, WorkloadSummary } from '../io/load.js';
import type { PodAffinityTermManifest, PodTemplateManifest, RolloutFieldsManifest, TopologySpreadConstraintManifest } from '../model/manifest.js';
import { LABEL_HOSTNAME, LABEL_ZONE, type Node } from '../model/node.js';
import { compilePod } from '../model/pod.js';
import { compileLabelSelector } from '../model/selector.js';

export const workloadRef = (w: Pick<WorkloadSummary, 'kind' | 'key'>): string => `${w.kind}/${w.key}`;

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
