// Pods compiled for scheduling: selectors, affinity terms and requests computed once.
// Compilation applies what the API server does at admission (limits as default
// requests, pod-level request defaults, host ports for hostNetwork, matchLabelKeys
// merged into label selectors) and the validation that decides scheduling, so a
// pod read from a manifest behaves like the same pod read back from a cluster.

import { compileOwnerReferences, type OwnerReference } from './owner-references.js';
import { atPath, FieldError, type FieldPath } from './errors.js';
import type {
  ContainerStatusManifest,
  ContainerManifest,
  LabelSelectorManifest,
  NodeSelectorTermManifest,
  PodAffinityTermManifest,
  PodManifest,
  PodSpecManifest,
  QuantityMap,
  TolerationManifest,
  TopologySpreadConstraintManifest,
} from './manifest.js';
import { nanosToResourceValue, QuantityError, quantityNanos } from './quantity.js';
import {
  aggregateContainerRequests,
  computePodRequests,
  isOvercommitAllowed,
  isSupportedPodLevelResource,
  type ContainerResources,
  type ExactResourceList,
  type PodRequests,
  type PodResourceSpec,
} from './resources.js';
import {
  aggregateErrors,
  compileLabelSelector,
  compileNodeSelector,
  compileNodeSelectorTerm,
  labelSelectorParseError,
  nodeSelectorTermErrors,
  nothingSelector,
  type Labels,
  type NodeLike,
  type NodeSelector,
  type Requirement,
  type Selector,
} from './selector.js';
import { parseDecimalInt64, type Toleration } from './taints.js';
import { isStandardContainerResourceName } from './resource-names.js';
import { compilePodVolumes, type PodVolume } from './volumes.js';

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

export interface PreferredNodeTermSpec {
  readonly weight: number;
  readonly preference: NodeSelectorTermManifest;
}

export interface TopologySpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  /** labelSelector with matchLabelKeys merged in. */
  readonly selector: Selector;
  /** labelSelector alone: what counts when MatchLabelKeysInPodTopologySpread is off (matchLabelKeys then neither merged nor read). */
  readonly labelSelectorOnly: Selector;
  /** Set when labelSelector carries a label key or value upstream cannot parse (PodTopologySpread fails with it). */
  readonly selectorError?: string;
  /** 1 when unset. */
  readonly minDomains: number;
  readonly nodeAffinityPolicy: 'Honor' | 'Ignore';
  readonly nodeTaintsPolicy: 'Honor' | 'Ignore';
}

export interface ContainerStatusInfo {
  readonly restartCount: number;
  readonly waitingReason?: string;
  readonly terminatedReason?: string;
  readonly exitCode?: number;
}

export interface PodStatusInfo {
  readonly reason: string;
  readonly containers: readonly ContainerStatusInfo[];
  readonly initContainers: readonly ContainerStatusInfo[];
}

export interface HostPort {
  readonly hostIP: string;
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
  readonly port: number;
}


export type { OwnerReference };

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
  /** status.startTime (ms since epoch): when the kubelet started the pod; absent when not known. */
  readonly startTime?: number;
  readonly terminating: boolean;
  /** status has the DisruptionTarget=True condition with reason PreemptionByScheduler (a preemption victim). */
  readonly preemptedByScheduler?: boolean;
  readonly schedulingGates: readonly string[];
  readonly terminationGracePeriodSeconds: number;
  /** spec.restartPolicy when written other than Always (a Job's pods: OnFailure or Never). */
  readonly restartPolicy?: 'OnFailure' | 'Never';
  /** What the kubelet reported (status.reason, container states); the descheduler's restart, lifetime and failed-pod plugins read it. */
  readonly status?: PodStatusInfo;

  readonly nodeSelector: Labels;
  /** null when the pod has no required node affinity. */
  readonly requiredNodeAffinity: NodeSelector | null;
  readonly preferredNodeAffinity: readonly PreferredNodeTerm[];
  /** Set when a preferred node affinity term cannot be parsed upstream (NodeAffinity's PreScore fails with it). */
  readonly preferredNodeAffinityError?: string;
  /** The raw preferred node affinity terms, in spec order (the provisioner derives node requirements from them). */
  readonly preferredNodeAffinityTerms: readonly PreferredNodeTermSpec[];
  readonly requiredAffinity: readonly PodAffinityTerm[];
  readonly preferredAffinity: readonly WeightedPodAffinityTerm[];
  readonly requiredAntiAffinity: readonly PodAffinityTerm[];
  readonly preferredAntiAffinity: readonly WeightedPodAffinityTerm[];
  /**
   * Set when a pod affinity term carries a label key or value upstream cannot parse
   * (framework.NewPodInfo's error): InterPodAffinity's PreFilter fails with it, and
   * the affinity lists of each kind with a bad term are empty, as upstream drops them.
   */
  readonly affinityParseError?: string;
  /**
   * Set with affinityParseError when only labelSelectors fail to parse: every term of
   * every kind kept, each such selector selecting nothing — how Karpenter's topology
   * reads the terms (NewTopologyGroup), where kube-scheduler drops the kind's terms.
   */
  readonly affinityWithUnparsedSelectingNothing?: Pick<Pod, 'requiredAffinity' | 'preferredAffinity' | 'requiredAntiAffinity' | 'preferredAntiAffinity'>;
  readonly tolerations: readonly Toleration[];
  readonly topologySpreadConstraints: readonly TopologySpreadConstraint[];
  readonly hostPorts: readonly HostPort[];
  /** Images of init containers, containers and image volumes, one entry each ('' when unset), for ImageLocality. */
  readonly images: readonly string[];
  readonly resources: PodRequests;
  /** Has an emptyDir or hostPath volume (set only when true): data lost on eviction. */
  readonly localStorage?: boolean;
  /** Has a persistentVolumeClaim volume (set only when true). */
  readonly persistentVolumeClaims?: boolean;
  /** The volumes the volume plugins read (claims, ephemeral claims, CSI and in-tree disks), in spec order; absent when none. */
  readonly volumes?: readonly PodVolume[];
}

export function hasAffinityTerms(pod: Pod): boolean {
  return pod.requiredAffinity.length + pod.preferredAffinity.length + pod.requiredAntiAffinity.length + pod.preferredAntiAffinity.length > 0;
}

// The engine counts cpu in millicores and everything else in units, as safe integers:
// 2^53 millicores is far beyond any node, but a quantity like 1Ei of cpu would not fit.
const TOO_LARGE = 'too large: berth counts cpu in millicores and other resources in units up to 2^53-1';

function fitsEngine(name: string, nanos: bigint): boolean {
  try {
    nanosToResourceValue(name, nanos);
    return true;
  } catch (e) {
    if (e instanceof QuantityError) return false;
    throw e;
  }
}

/**
 * Exact amounts (nano-units); sums and comparisons happen before any rounding, as on
 * Quantities. A name without a domain must be a standard container resource, as
 * validateContainerResourceName requires: besides following the API, that keeps
 * names such as `constructor` or `toString`, which every plain object inherits,
 * out of the resource arithmetic.
 */
function quantityMap(map: QuantityMap | undefined, path: FieldPath): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  for (const [name, q] of Object.entries(map ?? {})) {
    if (!name.includes('/') && !isStandardContainerResourceName(name)) throw new FieldError(`Invalid value: ${JSON.stringify(name)}: must be a standard resource for containers`, [...path, name]);
    const v = atPath([...path, name], () => quantityNanos(q));
    if (v < 0n) throw new FieldError(`Invalid value: ${JSON.stringify(String(q))}: must be greater than or equal to 0`, [...path, name]);
    if (!fitsEngine(name, v)) throw new FieldError(`Invalid value: ${JSON.stringify(String(q))}: ${TOO_LARGE}`, [...path, name]);
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
    if (lim !== undefined && v > lim) {
      // Upstream prints both in canonical form; berth prints them as written.
      const request = JSON.stringify(String(c.resources?.requests?.[k]));
      throw new FieldError(`Invalid value: ${request}: must be less than or equal to ${k} limit of ${String(c.resources?.limits?.[k])}`, [...path, 'resources', 'requests', k]);
    }
  }
  return { name: c.name, requests, limits, restartable: c.restartPolicy === 'Always' };
}

/**
 * Pod-level requests as the API server leaves them (podutil.DefaultPodLevelResources,
 * run at create time since PodLevelResourcesFixDefaulting): cpu/memory requests
 * missing at pod level come from the containers' aggregated requests; any other
 * supported resource with a pod-level limit but no request takes the limit.
 * (Its hugepages limit defaulting is left out: validation makes container
 * hugepages requests equal their limits, so it changes no request.)
 */
function defaultPodLevelRequests(
  requests: Record<string, bigint>,
  limits: Record<string, bigint>,
  containers: Pick<PodResourceSpec, 'containers' | 'initContainers'>,
): Record<string, bigint> {
  const podRequests = { ...requests };
  for (const [k, v] of Object.entries(aggregateContainerRequests(containers))) {
    if (!(k in podRequests) && isSupportedPodLevelResource(k) && isOvercommitAllowed(k)) podRequests[k] = v;
  }
  for (const [k, v] of Object.entries(limits)) if (!(k in podRequests) && isSupportedPodLevelResource(k)) podRequests[k] = v;
  return podRequests;
}

/** ValidateMatchLabelKeysAndMismatchLabelKeys, run (as upstream) on the selector after the keys were merged in. */
function validateLabelKeys(
  original: LabelSelectorManifest | null | undefined,
  merged: LabelSelectorManifest | null | undefined,
  matchKeys: readonly string[],
  mismatchKeys: readonly string[],
  path: FieldPath,
): void {
  for (const [field, keys] of [['matchLabelKeys', matchKeys], ['mismatchLabelKeys', mismatchKeys]] as const) {
    if (keys.length > 0 && original == null) throw new FieldError('Forbidden: must not be specified when labelSelector is not set', [...path, field]);
  }
  if (merged != null) {
    // A merged `key In (value)` repeating a key the selector already uses means the key was in both places.
    const index = new Map(matchKeys.map((k, i) => [k, i]));
    const seen = new Set(Object.keys(merged.matchLabels ?? {}));
    for (const e of merged.matchExpressions ?? []) {
      const i = index.get(e.key);
      if (i !== undefined && seen.has(e.key)) throw new FieldError(`Invalid value: ${JSON.stringify(e.key)}: exists in both matchLabelKeys and labelSelector`, [...path, 'matchLabelKeys', i]);
      seen.add(e.key);
    }
  }
  const mismatch = new Set(mismatchKeys);
  for (const [i, k] of matchKeys.entries()) {
    if (mismatch.has(k)) throw new FieldError(`Invalid value: ${JSON.stringify(k)}: exists in both matchLabelKeys and mismatchLabelKeys`, [...path, 'matchLabelKeys', i]);
  }
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
  if (endsWithMerged(selector.matchExpressions ?? [], extra)) return selector;
  return { ...selector, matchExpressions: [...(selector.matchExpressions ?? []), ...extra] };
}

/**
 * Whether the selector already ends with what the merge would append: a pod read back
 * from the API server (a `kubectl get -o yaml` dump), which merged the keys when it
 * created the pod. Merging again would list each key twice, which validation refuses.
 */
function endsWithMerged(expressions: readonly Requirement[], extra: readonly Requirement[]): boolean {
  if (extra.length === 0 || expressions.length < extra.length) return false;
  const tail = expressions.slice(expressions.length - extra.length);
  return tail.every((e, i) => e.key === extra[i]!.key && e.operator === extra[i]!.operator && e.values?.length === 1 && e.values[0] === extra[i]!.values![0]);
}

/** GetAffinityTerms' error: the first term whose labelSelector or namespaceSelector upstream cannot parse. */
function affinityTermsParseError(terms: readonly PodAffinityTermManifest[]): string | undefined {
  for (const t of terms) {
    const err = labelSelectorParseError(t.labelSelector) ?? labelSelectorParseError(t.namespaceSelector);
    if (err !== undefined) return err;
  }
  return undefined;
}

/** One kind's compiled terms with their manifests, for Karpenter's reading of them. */
interface KindTerms {
  readonly required: readonly PodAffinityTerm[];
  readonly preferred: readonly WeightedPodAffinityTerm[];
  readonly requiredSpec: readonly PodAffinityTermManifest[];
  readonly preferredSpec: readonly { readonly podAffinityTerm: PodAffinityTermManifest }[];
}

/**
 * affinityWithUnparsedSelectingNothing of a pod with an affinity parse error: every term kept,
 * each labelSelector upstream cannot parse selecting nothing (Karpenter's NewTopologyGroup).
 * None when a namespaceSelector does not parse: Karpenter's topology then fails as a whole.
 */
function karpenterReading(affinity: KindTerms, antiAffinity: KindTerms): { affinityWithUnparsedSelectingNothing: NonNullable<Pod['affinityWithUnparsedSelectingNothing']> } | undefined {
  const specs = [affinity, antiAffinity].flatMap((k) => [...k.requiredSpec, ...k.preferredSpec.map((w) => w.podAffinityTerm)]);
  if (specs.some((t) => labelSelectorParseError(t.namespaceSelector) !== undefined)) return undefined;
  const unparsed = (t: PodAffinityTermManifest) => labelSelectorParseError(t.labelSelector) !== undefined;
  const selectingNothing = (t: PodAffinityTerm) => ({ ...t, selector: nothingSelector() });
  const required = (k: KindTerms) => k.required.map((t, i) => (unparsed(k.requiredSpec[i]!) ? selectingNothing(t) : t));
  const preferred = (k: KindTerms) => k.preferred.map((w, i) => (unparsed(k.preferredSpec[i]!.podAffinityTerm) ? { ...w, term: selectingNothing(w.term) } : w));
  return {
    affinityWithUnparsedSelectingNothing: {
      requiredAffinity: required(affinity),
      preferredAffinity: preferred(affinity),
      requiredAntiAffinity: required(antiAffinity),
      preferredAntiAffinity: preferred(antiAffinity),
    },
  };
}

export function compilePodAffinityTerm(t: PodAffinityTermManifest, podNamespace: string, podLabels: Labels, path: FieldPath): PodAffinityTerm {
  const merged = mergeLabelKeys(t.labelSelector, podLabels, t.matchLabelKeys ?? [], t.mismatchLabelKeys ?? []);
  const selector = atPath([...path, 'labelSelector'], () => compileLabelSelector(merged));
  const namespaceSelector = atPath([...path, 'namespaceSelector'], () => compileLabelSelector(t.namespaceSelector));
  validateLabelKeys(t.labelSelector, merged, t.matchLabelKeys ?? [], t.mismatchLabelKeys ?? [], path);
  if (!t.topologyKey) throw new FieldError('Required value: can not be empty', [...path, 'topologyKey']);
  const explicit = t.namespaces ?? [];
  const namespaces = new Set(explicit.length === 0 && t.namespaceSelector == null ? [podNamespace] : explicit);
  return { selector, namespaces, namespaceSelector, topologyKey: t.topologyKey };
}

const NODE_INCLUSION_POLICIES = ['Honor', 'Ignore'];

function compileSpread(c: TopologySpreadConstraintManifest, podLabels: Labels, path: FieldPath, later: readonly TopologySpreadConstraintManifest[]): TopologySpreadConstraint {
  if (!(Number.isInteger(c.maxSkew) && c.maxSkew > 0)) throw new FieldError(`Invalid value: ${c.maxSkew}: must be greater than zero`, [...path, 'maxSkew']);
  if (!c.topologyKey) throw new FieldError('Required value: can not be empty', [...path, 'topologyKey']);
  if (c.whenUnsatisfiable !== 'DoNotSchedule' && c.whenUnsatisfiable !== 'ScheduleAnyway') {
    throw new FieldError(`Unsupported value: ${JSON.stringify(c.whenUnsatisfiable)}: supported values: "DoNotSchedule", "ScheduleAnyway"`, [...path, 'whenUnsatisfiable']);
  }
  if (later.some((o) => o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable)) {
    throw new FieldError(`Duplicate value: ${JSON.stringify(`{${c.topologyKey}, ${c.whenUnsatisfiable}}`)}`, [...path, '{topologyKey, whenUnsatisfiable}']);
  }
  const minDomains = c.minDomains ?? 1;
  if (!(Number.isInteger(minDomains) && minDomains > 0)) throw new FieldError(`Invalid value: ${minDomains}: must be greater than zero`, [...path, 'minDomains']);
  if (c.minDomains != null && c.whenUnsatisfiable !== 'DoNotSchedule') {
    throw new FieldError(`Invalid value: ${c.minDomains}: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${c.whenUnsatisfiable}`, [...path, 'minDomains']);
  }
  for (const field of ['nodeAffinityPolicy', 'nodeTaintsPolicy'] as const) {
    const policy = c[field];
    if (policy != null && !NODE_INCLUSION_POLICIES.includes(policy)) {
      throw new FieldError(`Unsupported value: ${JSON.stringify(policy)}: supported values: "Honor", "Ignore"`, [...path, field]);
    }
  }
  const merged = mergeLabelKeys(c.labelSelector, podLabels, c.matchLabelKeys ?? [], []);
  validateLabelKeys(c.labelSelector, merged, c.matchLabelKeys ?? [], [], path);
  const selectorError = labelSelectorParseError(c.labelSelector);
  const selector = atPath([...path, 'labelSelector'], () => compileLabelSelector(merged));
  return {
    maxSkew: c.maxSkew,
    topologyKey: c.topologyKey,
    whenUnsatisfiable: c.whenUnsatisfiable,
    selector,
    labelSelectorOnly: merged === c.labelSelector ? selector : compileLabelSelector(c.labelSelector),
    ...(selectorError !== undefined && { selectorError }),
    minDomains,
    nodeAffinityPolicy: c.nodeAffinityPolicy ?? 'Honor',
    nodeTaintsPolicy: c.nodeTaintsPolicy ?? 'Ignore',
  };
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** ValidateTolerations, in its order, with TaintTolerationComparisonOperators on (Lt/Gt take an int64 value). */
export function compileToleration(t: TolerationManifest, path: FieldPath): Toleration {
  const operator: string = t.operator ?? '';
  const key = t.key ?? '';
  const value = t.value ?? '';
  const effect: string = t.effect ?? '';
  if (key === '' && operator !== 'Exists') {
    throw new FieldError(`Invalid value: ${JSON.stringify(operator)}: operator must be Exists when \`key\` is empty, which means "match all values and all keys"`, [...path, 'operator']);
  }
  if (t.tolerationSeconds != null && effect !== 'NoExecute') {
    throw new FieldError(`Invalid value: ${JSON.stringify(effect)}: effect must be 'NoExecute' when \`tolerationSeconds\` is set`, [...path, 'effect']);
  }
  if (operator === 'Exists' && value !== '') {
    throw new FieldError(`Invalid value: ${JSON.stringify(value)}: value must be empty when \`operator\` is 'Exists'`, [...path, 'operator']);
  }
  if (operator === 'Lt' || operator === 'Gt') {
    // As with TaintTolerationComparisonOperators on; loading refuses Lt/Gt when it is off (tolerationComparisonError).
    if (value === '') throw new FieldError(`Invalid value: "": must be non-empty`, [...path, 'value']);
    if (!/^(0|-?[1-9][0-9]*)$/.test(value)) throw new FieldError(`Invalid value: ${JSON.stringify(value)}: must be a valid decimal integer in canonical form`, [...path, 'value']);
    if (parseDecimalInt64(value) === undefined) throw new FieldError(`Invalid value: ${JSON.stringify(value)}: strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`, [...path, 'value']);
  } else if (operator !== '' && operator !== 'Equal' && operator !== 'Exists') {
    throw new FieldError(`Unsupported value: ${JSON.stringify(operator)}: supported values: "Equal", "Exists"`, [...path, 'operator']);
  }
  if (effect !== '' && !TAINT_EFFECTS.includes(effect)) {
    throw new FieldError(`Unsupported value: ${JSON.stringify(effect)}: supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`, [...path, 'effect']);
  }
  return {
    key,
    operator: operator as Toleration['operator'],
    value,
    effect: effect as Toleration['effect'],
    ...(t.tolerationSeconds != null ? { tolerationSeconds: t.tolerationSeconds } : {}),
  };
}

/**
 * ValidateTolerations' refusal of Lt/Gt when TaintTolerationComparisonOperators is off (its v1.37.2
 * default): the first such toleration of `tolerations`, as a FieldError under `path`.
 */
export function tolerationComparisonError(tolerations: readonly TolerationManifest[] | null | undefined, path: FieldPath): FieldError | undefined {
  const i = (tolerations ?? []).findIndex((t) => t.operator === 'Lt' || t.operator === 'Gt');
  if (i < 0) return undefined;
  const operator = tolerations![i]!.operator!;
  return new FieldError(`Unsupported value: ${JSON.stringify(operator)}: supported values: "Equal", "Exists", "Lt", "Gt" (${operator} needs --feature-gates TaintTolerationComparisonOperators=true)`, [...path, i, 'operator']);
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
  let podLevelRequests: ExactResourceList | undefined;
  if (Object.keys(spec.resources?.requests ?? {}).length + Object.keys(spec.resources?.limits ?? {}).length > 0) {
    const req = quantityMap(spec.resources?.requests, [...path, 'resources', 'requests']);
    const lim = quantityMap(spec.resources?.limits, [...path, 'resources', 'limits']);
    podLevelRequests = defaultPodLevelRequests(req, lim, { containers, initContainers });
  }
  const overhead = spec.overhead ? quantityMap(spec.overhead, [...path, 'overhead']) : undefined;
  let resources: PodRequests;
  try {
    resources = computePodRequests({ containers, initContainers, ...(podLevelRequests ? { podLevelRequests } : {}), ...(overhead ? { overhead } : {}) });
  } catch (e) {
    // Each amount fits (checked above); their sum over containers may not.
    if (e instanceof QuantityError) throw new FieldError(`Invalid value: the pod's requests add up to more than berth can count (${TOO_LARGE.slice('too large: '.length)})`, [...path, 'containers']);
    throw e;
  }

  const aff = spec.affinity ?? {};
  const nodeAff = aff.nodeAffinity ?? {};
  const affPath = [...path, 'affinity'];
  const requiredSpec = nodeAff.requiredDuringSchedulingIgnoredDuringExecution;
  const requiredPath = [...affPath, 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution'];
  if (requiredSpec && requiredSpec.nodeSelectorTerms.length === 0) {
    throw new FieldError('Required value: must have at least one node selector term', [...requiredPath, 'nodeSelectorTerms']);
  }
  // The scheduler reads required terms lazily: a term it cannot parse only fails itself.
  const requiredNodeAffinity = requiredSpec ? compileNodeSelector(requiredSpec, requiredPath, { lazyValueErrors: true }) : null;
  const preferredSpec = nodeAff.preferredDuringSchedulingIgnoredDuringExecution ?? [];
  const preferredNodeAffinity = preferredSpec.map((p, i) => {
    const ppath = [...affPath, 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution', i];
    if (!(Number.isInteger(p.weight) && p.weight >= 1 && p.weight <= 100)) throw new FieldError(`Invalid value: ${p.weight}: must be in the range 1-100`, [...ppath, 'weight']);
    return { weight: p.weight, matches: compileNodeSelectorTerm(p.preference, [...ppath, 'preference']) };
  });
  // nodeaffinity.NewPreferredSchedulingTerms: every term's parse errors, each under its index.
  const preferredErrors = preferredSpec.flatMap((p, i) => nodeSelectorTermErrors(p.preference, `[${i}]`));
  const preferredNodeAffinityTerms = (nodeAff.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((p) => ({ weight: p.weight, preference: p.preference }));
  const terms = (kind: 'podAffinity' | 'podAntiAffinity') => {
    const a = aff[kind] ?? {};
    const base = [...affPath, kind];
    const requiredSpec = a.requiredDuringSchedulingIgnoredDuringExecution ?? [];
    const preferredSpec = a.preferredDuringSchedulingIgnoredDuringExecution ?? [];
    const required = requiredSpec.map((t, i) => compilePodAffinityTerm(t, namespace, labels, [...base, 'requiredDuringSchedulingIgnoredDuringExecution', i]));
    const preferred = preferredSpec.map((w, i) => {
      const wpath = [...base, 'preferredDuringSchedulingIgnoredDuringExecution', i];
      if (!(Number.isInteger(w.weight) && w.weight >= 1 && w.weight <= 100)) throw new FieldError(`Invalid value: ${w.weight}: must be in the range 1-100`, [...wpath, 'weight']);
      return { weight: w.weight, term: compilePodAffinityTerm(w.podAffinityTerm, namespace, labels, [...wpath, 'podAffinityTerm']) };
    });
    return {
      required,
      preferred,
      requiredSpec,
      preferredSpec,
      requiredError: affinityTermsParseError(requiredSpec),
      preferredError: affinityTermsParseError(preferredSpec.map((w) => w.podAffinityTerm)),
    };
  };
  const podAffinity = terms('podAffinity');
  const podAntiAffinity = terms('podAntiAffinity');
  // framework.NewPodInfo: a kind with a term it cannot parse keeps no terms; the errors are aggregated in this order.
  const affinityErrors = [
    ['requiredAffinityTerms', podAffinity.requiredError],
    ['requiredAntiAffinityTerms', podAntiAffinity.requiredError],
    ['preferredAffinityTerms', podAffinity.preferredError],
    ['preferredAntiAffinityTerms', podAntiAffinity.preferredError],
  ].flatMap(([kind, err]) => (err === undefined ? [] : [`${kind}: ${err}`]));

  // Host ports of sidecars (they run for the pod's lifetime) and of regular containers (util.GetHostPorts).
  // With hostNetwork, API defaulting makes every container port a host port.
  const hostPorts: HostPort[] = [];
  for (const c of [...(spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'), ...spec.containers]) {
    for (const p of c.ports ?? []) {
      const hostPort = p.hostPort || (spec.hostNetwork ? p.containerPort : 0);
      if (hostPort > 0) hostPorts.push({ hostIP: p.hostIP ?? '', protocol: p.protocol ?? 'TCP', port: hostPort });
    }
  }
  return {
    resources,
    requiredNodeAffinity,
    preferredNodeAffinityTerms,
    preferredNodeAffinity,
    ...(preferredErrors.length > 0 && { preferredNodeAffinityError: aggregateErrors(preferredErrors) }),
    requiredAffinity: podAffinity.requiredError === undefined ? podAffinity.required : [],
    preferredAffinity: podAffinity.preferredError === undefined ? podAffinity.preferred : [],
    requiredAntiAffinity: podAntiAffinity.requiredError === undefined ? podAntiAffinity.required : [],
    preferredAntiAffinity: podAntiAffinity.preferredError === undefined ? podAntiAffinity.preferred : [],
    ...(affinityErrors.length > 0 && { affinityParseError: aggregateErrors(affinityErrors) }),
    ...(affinityErrors.length > 0 && karpenterReading(podAffinity, podAntiAffinity)),
    tolerations: (spec.tolerations ?? []).map((t, i) => compileToleration(t, [...path, 'tolerations', i])),
    topologySpreadConstraints: (spec.topologySpreadConstraints ?? []).map((c, i, all) =>
      compileSpread(c, labels, [...path, 'topologySpreadConstraints', i], all.slice(i + 1)),
    ),
    hostPorts,
    images: [...(spec.initContainers ?? []), ...spec.containers].map((c) => c.image ?? '').concat((spec.volumes ?? []).flatMap((v) => (v.image ? [v.image.reference ?? ''] : []))),
    ...((spec.volumes ?? []).some((v) => v.emptyDir != null || v.hostPath != null) ? { localStorage: true } : {}),
    ...((spec.volumes ?? []).some((v) => v.persistentVolumeClaim != null) ? { persistentVolumeClaims: true } : {}),
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
  const startTime = parseTimestamp(m.status?.startTime ?? undefined, ['status', 'startTime']);
  const volumes = compilePodVolumes(name, spec.volumes, ['spec', 'volumes']);
  return podOf({
    namespace,
    name,
    key: `${namespace}/${name}`,
    uid: m.metadata.uid ?? `${namespace}/${name}`,
    labels,
    annotations: m.metadata.annotations ?? {},
    creation: created ?? ctx.order,
    ownerReferences: compileOwnerReferences(m.metadata.ownerReferences),
    nodeName: spec.nodeName ?? '',
    nominatedNodeName: m.status?.nominatedNodeName ?? '',
    schedulerName: spec.schedulerName ?? 'default-scheduler',
    priority: spec.priority ?? ctx.resolvedPriority ?? 0,
    priorityClassName: spec.priorityClassName ?? '',
    preemptionPolicy: spec.preemptionPolicy ?? ctx.resolvedPreemptionPolicy ?? 'PreemptLowerPriority',
    phase: m.status?.phase ?? (spec.nodeName ? 'Running' : 'Pending'),
    startTime,
    terminating: m.metadata.deletionTimestamp != null,
    preemptedByScheduler: preemptedByScheduler(m.status?.conditions),
    volumes: volumes.length > 0 ? volumes : undefined,
    schedulingGates: (spec.schedulingGates ?? []).map((g) => g.name),
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? 30,
    restartPolicy: spec.restartPolicy === 'OnFailure' || spec.restartPolicy === 'Never' ? spec.restartPolicy : undefined,
    nodeSelector: spec.nodeSelector ?? {},
    ...compiled,
    status: podStatus(m.status),
  });
}

/**
 * The one place a Pod object is made: every field, optional ones undefined when
 * absent, in one fixed order. Pods made here (and copies of them by spread that
 * only change fields) share one hidden class in V8, so the scheduler's and the
 * controllers' code that reads pods stays monomorphic; each pod shape more costs
 * deoptimizations and recompiles in every worker.
 */
export function podOf(p: Pod): Pod {
  const pod: EveryField<Pod> = {
    namespace: p.namespace,
    name: p.name,
    key: p.key,
    uid: p.uid,
    labels: p.labels,
    annotations: p.annotations,
    creation: p.creation,
    ownerReferences: p.ownerReferences,
    nodeName: p.nodeName,
    nominatedNodeName: p.nominatedNodeName,
    schedulerName: p.schedulerName,
    priority: p.priority,
    priorityClassName: p.priorityClassName,
    preemptionPolicy: p.preemptionPolicy,
    phase: p.phase,
    startTime: p.startTime,
    terminating: p.terminating,
    preemptedByScheduler: p.preemptedByScheduler,
    schedulingGates: p.schedulingGates,
    terminationGracePeriodSeconds: p.terminationGracePeriodSeconds,
    restartPolicy: p.restartPolicy,
    status: p.status,
    nodeSelector: p.nodeSelector,
    requiredNodeAffinity: p.requiredNodeAffinity,
    preferredNodeAffinity: p.preferredNodeAffinity,
    preferredNodeAffinityError: p.preferredNodeAffinityError,
    preferredNodeAffinityTerms: p.preferredNodeAffinityTerms,
    requiredAffinity: p.requiredAffinity,
    preferredAffinity: p.preferredAffinity,
    requiredAntiAffinity: p.requiredAntiAffinity,
    preferredAntiAffinity: p.preferredAntiAffinity,
    affinityParseError: p.affinityParseError,
    affinityWithUnparsedSelectingNothing: p.affinityWithUnparsedSelectingNothing,
    tolerations: p.tolerations,
    topologySpreadConstraints: p.topologySpreadConstraints,
    hostPorts: p.hostPorts,
    images: p.images,
    resources: p.resources,
    localStorage: p.localStorage,
    persistentVolumeClaims: p.persistentVolumeClaims,
    volumes: p.volumes,
  };
  return pod;
}

/** Every key of T required, optional ones possibly undefined: a field added to Pod but not to podOf fails to compile. */
type EveryField<T> = { [K in keyof Required<T>]: T[K] };

/** A copy of `pod` with `change` applied, made by podOf (so it keeps the pods' shared hidden class). */
export function changedPod(pod: Pod, change: Partial<Pod>): Pod {
  return podOf({ ...pod, ...change });
}

function containerStatuses(list: readonly ContainerStatusManifest[] | undefined): ContainerStatusInfo[] {
  return (list ?? []).map((c) => ({
    restartCount: c.restartCount ?? 0,
    ...(c.state?.waiting ? { waitingReason: c.state.waiting.reason ?? '' } : {}),
    ...(c.state?.terminated ? { terminatedReason: c.state.terminated.reason ?? '', exitCode: c.state.terminated.exitCode ?? 0 } : {}),
  }));
}

/** The status fields the descheduler reads, undefined unless the manifest reports any of them. */
function podStatus(s: PodManifest['status']): PodStatusInfo | undefined {
  if (!s || (s.reason === undefined && !s.containerStatuses && !s.initContainerStatuses)) return undefined;
  return { reason: s.reason ?? '', containers: containerStatuses(s.containerStatuses), initContainers: containerStatuses(s.initContainerStatuses) };
}

/** A copy of `pod` bound to `nodeName` (what the binder writes). */
export function bindPod(pod: Pod, nodeName: string): Pod {
  return changedPod(pod, { nodeName, nominatedNodeName: '', phase: pod.phase === 'Pending' ? 'Running' : pod.phase });
}

/**
 * nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): spec.nodeSelector and the
 * required node affinity terms both have to match.
 */
export function matchesRequiredNodeAffinity(pod: Pod, node: NodeLike): boolean {
  // for-in rather than Object.entries: this runs per node, and most pods have no nodeSelector.
  const selector = pod.nodeSelector;
  for (const k in selector) if (Object.hasOwn(selector, k) && node.labels[k] !== selector[k]) return false;
  return pod.requiredNodeAffinity === null || pod.requiredNodeAffinity.matches(node);
}
