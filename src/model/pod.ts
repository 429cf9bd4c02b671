// Pods compiled for scheduling: selectors, affinity terms and requests computed once.
// Compilation applies what the API server does at admission (limits as default
// requests, matchLabelKeys merged into label selectors), so a pod read from a
// manifest behaves like the same pod read back from a cluster.

import { atPath, FieldError, type FieldPath } from './errors.js';
import type {
  ContainerManifest,
  LabelSelectorManifest,
  PodAffinityTermManifest,
  PodManifest,
  PodSpecManifest,
  QuantityMap,
  TolerationManifest,
  TopologySpreadConstraintManifest,
} from './manifest.js';
import { resourceValue } from './quantity.js';
import { computePodRequests, POD_LEVEL_RESOURCES, type ContainerResources, type PodRequests, type ResourceList } from './resources.js';
import {
  compileLabelSelector,
  compileNodeSelector,
  compileNodeSelectorTerm,
  type Labels,
  type NodeLike,
  type NodeSelector,
  type Requirement,
  type Selector,
} from './selector.js';
import type { Toleration } from './taints.js';

export interface PodAffinityTerm {
  /** labelSelector with matchLabelKeys (In) and mismatchLabelKeys (NotIn) merged in. */
  readonly selector: Selector;
  /** Explicit namespaces; when empty and namespaceSelector is null, the owning pod's namespace. */
  readonly namespaces: ReadonlySet<string>;
  /** Selects nothing when the field is absent (then only `namespaces` count). */
  readonly namespaceSelector: Selector;
  readonly topologyKey: string;
}

export interface WeightedPodAffinityTerm {
  readonly weight: number;
  readonly term: PodAffinityTerm;
}

export interface PreferredNodeTerm {
  readonly weight: number;
  matches(node: NodeLike): boolean;
}

export interface TopologySpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  /** labelSelector with matchLabelKeys merged in. */
  readonly selector: Selector;
  /** 1 when unset. */
  readonly minDomains: number;
  readonly nodeAffinityPolicy: 'Honor' | 'Ignore';
  readonly nodeTaintsPolicy: 'Honor' | 'Ignore';
}

export interface HostPort {
  readonly hostIP: string;
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
  readonly port: number;
}

export interface OwnerReference {
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller: boolean;
}

export interface Pod {
  readonly namespace: string;
  readonly name: string;
  /** namespace/name */
  readonly key: string;
  readonly uid: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  /** Creation order: milliseconds since epoch when a timestamp was given, else input order. */
  readonly creation: number;
  readonly ownerReferences: readonly OwnerReference[];
  /** '' when not bound. */
  readonly nodeName: string;
  readonly nominatedNodeName: string;
  readonly schedulerName: string;
  readonly priority: number;
  readonly priorityClassName: string;
  readonly preemptionPolicy: 'PreemptLowerPriority' | 'Never';
  readonly phase: string;
  readonly terminating: boolean;
  /** status has the DisruptionTarget=True condition with reason PreemptionByScheduler (a preemption victim). */
  readonly preemptedByScheduler?: boolean;
  readonly schedulingGates: readonly string[];
  readonly terminationGracePeriodSeconds: number;

  readonly nodeSelector: Labels;
  /** null when the pod has no required node affinity. */
  readonly requiredNodeAffinity: NodeSelector | null;
  readonly preferredNodeAffinity: readonly PreferredNodeTerm[];
  readonly requiredAffinity: readonly PodAffinityTerm[];
  readonly preferredAffinity: readonly WeightedPodAffinityTerm[];
  readonly requiredAntiAffinity: readonly PodAffinityTerm[];
  readonly preferredAntiAffinity: readonly WeightedPodAffinityTerm[];
  readonly tolerations: readonly Toleration[];
  readonly topologySpreadConstraints: readonly TopologySpreadConstraint[];
  readonly hostPorts: readonly HostPort[];
  /** Images of init containers, containers and image volumes, one entry each ('' when unset), for ImageLocality. */
  readonly images: readonly string[];
  readonly resources: PodRequests;
}

export function hasAffinityTerms(pod: Pod): boolean {
  return pod.requiredAffinity.length + pod.preferredAffinity.length + pod.requiredAntiAffinity.length + pod.preferredAntiAffinity.length > 0;
}

function quantityMap(map: QuantityMap | undefined, path: FieldPath): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, q] of Object.entries(map ?? {})) {
    const v = atPath([...path, name], () => resourceValue(name, q));
    if (v < 0) throw new FieldError(`Invalid value: ${JSON.stringify(q)}: must be greater than or equal to 0`, [...path, name]);
    out[name] = v;
  }
  return out;
}

function containerResources(c: ContainerManifest, path: FieldPath): ContainerResources {
  const requests = quantityMap(c.resources?.requests, [...path, 'resources', 'requests']);
  const limits = quantityMap(c.resources?.limits, [...path, 'resources', 'limits']);
  // API defaulting: a limit without a request sets the request.
  for (const [k, v] of Object.entries(limits)) if (!(k in requests)) requests[k] = v;
  for (const [k, v] of Object.entries(requests)) {
    const lim = limits[k];
    if (lim !== undefined && v > lim) throw new FieldError(`Invalid value: must be less than or equal to ${k} limit`, [...path, 'resources', 'requests', k]);
  }
  return { name: c.name, requests, restartable: c.restartPolicy === 'Always' };
}

function mergeLabelKeys(selector: LabelSelectorManifest | null | undefined, podLabels: Labels, matchKeys: readonly string[], mismatchKeys: readonly string[]): LabelSelectorManifest | null | undefined {
  if (selector === null || selector === undefined || (matchKeys.length === 0 && mismatchKeys.length === 0)) return selector;
  const extra: Requirement[] = [];
  for (const key of matchKeys) {
    const value = podLabels[key];
    if (value !== undefined) extra.push({ key, operator: 'In', values: [value] });
  }
  for (const key of mismatchKeys) {
    const value = podLabels[key];
    if (value !== undefined) extra.push({ key, operator: 'NotIn', values: [value] });
  }
  return { ...selector, matchExpressions: [...(selector.matchExpressions ?? []), ...extra] };
}

export function compilePodAffinityTerm(t: PodAffinityTermManifest, podNamespace: string, podLabels: Labels, path: FieldPath): PodAffinityTerm {
  if (!t.topologyKey) throw new FieldError('Required value: can not be empty', [...path, 'topologyKey']);
  const merged = mergeLabelKeys(t.labelSelector, podLabels, t.matchLabelKeys ?? [], t.mismatchLabelKeys ?? []);
  const selector = atPath([...path, 'labelSelector'], () => compileLabelSelector(merged));
  const namespaceSelector = atPath([...path, 'namespaceSelector'], () => compileLabelSelector(t.namespaceSelector));
  const explicit = t.namespaces ?? [];
  const namespaces = new Set(explicit.length === 0 && t.namespaceSelector == null ? [podNamespace] : explicit);
  return { selector, namespaces, namespaceSelector, topologyKey: t.topologyKey };
}

function compileSpread(c: TopologySpreadConstraintManifest, podLabels: Labels, path: FieldPath): TopologySpreadConstraint {
  if (!(Number.isInteger(c.maxSkew) && c.maxSkew > 0)) throw new FieldError(`Invalid value: ${c.maxSkew}: must be greater than zero`, [...path, 'maxSkew']);
  if (!c.topologyKey) throw new FieldError('Required value: can not be empty', [...path, 'topologyKey']);
  const minDomains = c.minDomains ?? 1;
  if (!(Number.isInteger(minDomains) && minDomains > 0)) throw new FieldError(`Invalid value: ${minDomains}: must be greater than 0`, [...path, 'minDomains']);
  if (c.minDomains != null && c.whenUnsatisfiable !== 'DoNotSchedule') {
    throw new FieldError(`Invalid value: ${c.minDomains}: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${c.whenUnsatisfiable}`, [...path, 'minDomains']);
  }
  for (const [i, key] of (c.matchLabelKeys ?? []).entries()) {
    if (c.labelSelector && (key in (c.labelSelector.matchLabels ?? {}) || (c.labelSelector.matchExpressions ?? []).some((e) => e.key === key))) {
      throw new FieldError(`Invalid value: ${JSON.stringify(key)}: exists in both matchLabelKeys and labelSelector`, [...path, 'matchLabelKeys', i]);
    }
  }
  const merged = mergeLabelKeys(c.labelSelector, podLabels, c.matchLabelKeys ?? [], []);
  return {
    maxSkew: c.maxSkew,
    topologyKey: c.topologyKey,
    whenUnsatisfiable: c.whenUnsatisfiable,
    selector: atPath([...path, 'labelSelector'], () => compileLabelSelector(merged)),
    minDomains,
    nodeAffinityPolicy: c.nodeAffinityPolicy ?? 'Honor',
    nodeTaintsPolicy: c.nodeTaintsPolicy ?? 'Ignore',
  };
}

export function compileToleration(t: TolerationManifest, path: FieldPath): Toleration {
  const operator = t.operator ?? '';
  const key = t.key ?? '';
  const value = t.value ?? '';
  if (operator === 'Exists' && value !== '') throw new FieldError('Invalid value: value must be empty when `operator` is \'Exists\'', [...path, 'value']);
  if (key === '' && operator !== 'Exists') throw new FieldError('Invalid value: operator must be Exists when `key` is empty, which means "match all values and all keys"', [...path, 'operator']);
  if (t.tolerationSeconds != null && t.effect !== 'NoExecute') {
    throw new FieldError('Invalid value: effect must be \'NoExecute\' when `tolerationSeconds` is set', [...path, 'effect']);
  }
  return { key, operator, value, effect: t.effect ?? '', ...(t.tolerationSeconds != null ? { tolerationSeconds: t.tolerationSeconds } : {}) };
}

export interface PodContext {
  /** Used when the manifest has no creationTimestamp. */
  readonly order: number;
  /** Priority resolved from priorityClassName by the caller (spec.priority wins when set). */
  readonly resolvedPriority?: number;
  readonly resolvedPreemptionPolicy?: 'PreemptLowerPriority' | 'Never';
}

function parseTimestamp(ts: string | null | undefined, path: FieldPath): number | undefined {
  if (ts == null) return undefined;
  const ms = Date.parse(ts);
  if (Number.isNaN(ms)) throw new FieldError(`Invalid value: ${JSON.stringify(ts)}: not an RFC 3339 timestamp`, path);
  return ms;
}

function compileSpec(spec: PodSpecManifest, namespace: string, labels: Labels) {
  const path = ['spec'];
  const containers = spec.containers.map((c, i) => containerResources(c, [...path, 'containers', i]));
  const initContainers = (spec.initContainers ?? []).map((c, i) => containerResources(c, [...path, 'initContainers', i]));
  let podLevelRequests: ResourceList | undefined;
  if (spec.resources?.requests || spec.resources?.limits) {
    const req = quantityMap(spec.resources.requests, [...path, 'resources', 'requests']);
    const lim = quantityMap(spec.resources.limits, [...path, 'resources', 'limits']);
    for (const [k, v] of Object.entries(lim)) if (!(k in req) && POD_LEVEL_RESOURCES.has(k)) req[k] = v;
    podLevelRequests = req;
  }
  const overhead = spec.overhead ? quantityMap(spec.overhead, [...path, 'overhead']) : undefined;
  const resources = computePodRequests({ containers, initContainers, ...(podLevelRequests ? { podLevelRequests } : {}), ...(overhead ? { overhead } : {}) });

  const aff = spec.affinity ?? {};
  const nodeAff = aff.nodeAffinity ?? {};
  const affPath = [...path, 'affinity'];
  const requiredNodeAffinity = nodeAff.requiredDuringSchedulingIgnoredDuringExecution
    ? compileNodeSelector(nodeAff.requiredDuringSchedulingIgnoredDuringExecution, [...affPath, 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution'])
    : null;
  const preferredNodeAffinity = (nodeAff.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((p, i) => {
    const ppath = [...affPath, 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution', i];
    if (!(Number.isInteger(p.weight) && p.weight >= 1 && p.weight <= 100)) throw new FieldError(`Invalid value: ${p.weight}: must be in the range 1-100`, [...ppath, 'weight']);
    return { weight: p.weight, matches: compileNodeSelectorTerm(p.preference, [...ppath, 'preference']) };
  });
  const terms = (kind: 'podAffinity' | 'podAntiAffinity') => {
    const a = aff[kind] ?? {};
    const base = [...affPath, kind];
    const required = (a.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t, i) =>
      compilePodAffinityTerm(t, namespace, labels, [...base, 'requiredDuringSchedulingIgnoredDuringExecution', i]),
    );
    const preferred = (a.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w, i) => {
      const wpath = [...base, 'preferredDuringSchedulingIgnoredDuringExecution', i];
      if (!(Number.isInteger(w.weight) && w.weight >= 1 && w.weight <= 100)) throw new FieldError(`Invalid value: ${w.weight}: must be in the range 1-100`, [...wpath, 'weight']);
      return { weight: w.weight, term: compilePodAffinityTerm(w.podAffinityTerm, namespace, labels, [...wpath, 'podAffinityTerm']) };
    });
    return { required, preferred };
  };
  const podAffinity = terms('podAffinity');
  const podAntiAffinity = terms('podAntiAffinity');

  // Host ports of sidecars (they run for the pod's lifetime) and of regular containers (util.GetHostPorts).
  const hostPorts: HostPort[] = [];
  for (const c of [...(spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'), ...spec.containers]) {
    for (const p of c.ports ?? []) {
      if (p.hostPort && p.hostPort > 0) hostPorts.push({ hostIP: p.hostIP ?? '', protocol: p.protocol ?? 'TCP', port: p.hostPort });
    }
  }
  return {
    resources,
    requiredNodeAffinity,
    preferredNodeAffinity,
    requiredAffinity: podAffinity.required,
    preferredAffinity: podAffinity.preferred,
    requiredAntiAffinity: podAntiAffinity.required,
    preferredAntiAffinity: podAntiAffinity.preferred,
    tolerations: (spec.tolerations ?? []).map((t, i) => compileToleration(t, [...path, 'tolerations', i])),
    topologySpreadConstraints: (spec.topologySpreadConstraints ?? []).map((c, i) => compileSpread(c, labels, [...path, 'topologySpreadConstraints', i])),
    hostPorts,
    images: [...(spec.initContainers ?? []), ...spec.containers].map((c) => c.image ?? '').concat((spec.volumes ?? []).flatMap((v) => (v.image ? [v.image.reference ?? ''] : []))),
  };
}

/** The first DisruptionTarget condition decides, as preemption.PodTerminatingByPreemption reads it. */
function preemptedByScheduler(conditions: readonly { type: string; status: string; reason?: string }[] | undefined): boolean {
  const c = conditions?.find((x) => x.type === 'DisruptionTarget');
  return c !== undefined && c.status === 'True' && c.reason === 'PreemptionByScheduler';
}

/** Compiles a validated Pod manifest. Throws FieldError with a path relative to the object. */
export function compilePod(m: PodManifest, ctx: PodContext): Pod {
  const namespace = m.metadata.namespace || 'default';
  const name = m.metadata.name ?? '';
  if (!name) throw new FieldError('Required value: name or generateName is required', ['metadata', 'name']);
  const labels = m.metadata.labels ?? {};
  const spec = m.spec;
  const compiled = compileSpec(spec, namespace, labels);
  const created = parseTimestamp(m.metadata.creationTimestamp, ['metadata', 'creationTimestamp']);
  return {
    namespace,
    name,
    key: `${namespace}/${name}`,
    uid: m.metadata.uid ?? `${namespace}/${name}`,
    labels,
    annotations: m.metadata.annotations ?? {},
    creation: created ?? ctx.order,
    ownerReferences: (m.metadata.ownerReferences ?? []).map((o) => ({ kind: o.kind, name: o.name, uid: o.uid ?? '', controller: o.controller ?? false })),
    nodeName: spec.nodeName ?? '',
    nominatedNodeName: m.status?.nominatedNodeName ?? '',
    schedulerName: spec.schedulerName ?? 'default-scheduler',
    priority: spec.priority ?? ctx.resolvedPriority ?? 0,
    priorityClassName: spec.priorityClassName ?? '',
    preemptionPolicy: spec.preemptionPolicy ?? ctx.resolvedPreemptionPolicy ?? 'PreemptLowerPriority',
    phase: m.status?.phase ?? (spec.nodeName ? 'Running' : 'Pending'),
    terminating: m.metadata.deletionTimestamp != null,
    preemptedByScheduler: preemptedByScheduler(m.status?.conditions),
    schedulingGates: (spec.schedulingGates ?? []).map((g) => g.name),
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? 30,
    nodeSelector: spec.nodeSelector ?? {},
    ...compiled,
  };
}

/** A copy of `pod` bound to `nodeName` (what the binder writes). */
export function bindPod(pod: Pod, nodeName: string): Pod {
  return { ...pod, nodeName, nominatedNodeName: '', phase: pod.phase === 'Pending' ? 'Running' : pod.phase };
}

/**
 * nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): spec.nodeSelector and the
 * required node affinity terms both have to match.
 */
export function matchesRequiredNodeAffinity(pod: Pod, node: NodeLike): boolean {
  for (const [k, v] of Object.entries(pod.nodeSelector)) if (node.labels[k] !== v) return false;
  return pod.requiredNodeAffinity === null || pod.requiredNodeAffinity.matches(node);
}
