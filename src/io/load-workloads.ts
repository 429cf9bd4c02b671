// The workload stage of loading: validate Deployments, ReplicaSets, StatefulSets and
// DaemonSets the way apps/v1 validation does (non-empty selector that matches the
// template's labels), compile their pod template once, and generate the pods of
// those whose pods the input lacks (workloads.ts decides which and builds them).

import type { OwnerSelector } from '../cluster/state.js';
import type { FieldPath } from '../model/errors.js';
import type { LabelSelectorManifest, PodManifest, PodTemplateManifest, RolloutFieldsManifest } from '../model/manifest.js';
import type { Node } from '../model/node.js';
import { compilePod, type Pod } from '../model/pod.js';
import { compileLabelSelector, type Selector } from '../model/selector.js';
import type { ParsedObject } from './kinds.js';
import type { LoadContext } from './context.js';
import { isPlainObject, type RawObject } from './objects.js';
import { legacyLabelSelectorValues } from './legacy-selectors.js';
import {
  daemonSetPods,
  daemonSetTemplate,
  daemonShouldRun,
  deploymentPods,
  deploymentReplicaSet,
  OwnedPods,
  hasOwnReplicaSet,
  POD_TEMPLATE_HASH_LABEL,
  replicaSetPods,
  statefulSetPods,
  type ClaimTemplate,
  type WorkloadKind,
  type WorkloadObject,
  MAX_GENERATED_PODS,
} from './workloads.js';

export interface WorkloadSummary {
  readonly kind: WorkloadKind;
  readonly namespace: string;
  readonly name: string;
  /** namespace/name */
  readonly key: string;
  readonly uid: string;
  /** Desired pods: spec.replicas (1 when unset); for a DaemonSet, the nodes it should run on. */
  readonly replicas: number;
  readonly selector: Selector;
  /** spec.selector as written. */
  readonly selectorSpec: LabelSelectorManifest;
  /** The pod template as validated; a DaemonSet's with the tolerations and labels its controller adds. */
  readonly template: PodTemplateManifest;
  /** The template compiled as a pod of the workload (named like it), priority resolved: what a simulator creates. */
  readonly templatePod: Pod;
  /** Keys of the pods generated for it, in creation order; empty when the input had its pods. */
  readonly generatedPods: readonly string[];
  /** Strategy and readiness fields, as validated: what a simulated controller runs rollouts with. */
  readonly rollout: RolloutFieldsManifest;
  /** The controlling owner as written (e.g. the Deployment of a ReplicaSet), when there is one. */
  readonly owner?: { readonly kind: string; readonly name: string };
  /** A StatefulSet's first ordinal (spec.ordinals.start, 0 by default). */
  readonly ordinalStart?: number;
  /** A StatefulSet's volumeClaimTemplates and what happens to their claims (persistentVolumeClaimRetentionPolicy, Retain by default). */
  readonly storage?: {
    readonly volumeClaimTemplates: readonly ClaimTemplate[];
    readonly whenDeleted: 'Retain' | 'Delete';
    readonly whenScaled: 'Retain' | 'Delete';
  };
}

export interface LoadedWorkloads {
  readonly summaries: WorkloadSummary[];
  /** Generated pods, in creation order (after every pod of the input). */
  readonly pods: Pod[];
  readonly replicaSets: OwnerSelector[];
  readonly statefulSets: OwnerSelector[];
}

type WorkloadParsed = Extract<ParsedObject, { kind: WorkloadKind }>;

const STRICT_SELECTOR = 'the selectors of Deployments, ReplicaSets and StatefulSets have always been checked so, and no stored object has one';
const STRICT_DAEMONSET_KEY = "a DaemonSet selector's keys have always been checked so, and no stored object has one";
// Since 1.27 the API server refuses such a value on create, and keeps it on update of a DaemonSet that already had one.
const LEGACY_DAEMONSET_VALUE = 'kept on a DaemonSet stored before 1.27, but the DaemonSet controller cannot parse its selector, so it creates and manages no pods';

const TEMPLATE: FieldPath = ['spec', 'template'];

/** The word apps/v1 validation uses in "empty selector is invalid for …" (ReplicaSets reuse Deployment's). */
const SELECTOR_OWNER_WORD: Record<WorkloadKind, string> = {
  Deployment: 'deployment',
  ReplicaSet: 'deployment',
  StatefulSet: 'statefulset',
  DaemonSet: 'daemonset',
};

function statefulSetStorage(spec: Extract<WorkloadParsed, { kind: 'StatefulSet' }>['manifest']['spec'], ordinalStart = 0): Pick<WorkloadSummary, 'ordinalStart' | 'storage'> {
  const policy = spec.persistentVolumeClaimRetentionPolicy;
  return {
    ordinalStart,
    ...(spec.volumeClaimTemplates?.length
      ? { storage: { volumeClaimTemplates: spec.volumeClaimTemplates, whenDeleted: policy?.whenDeleted ?? 'Retain', whenScaled: policy?.whenScaled ?? 'Retain' } }
      : {}),
  };
}

function rawTemplateOf(raw: RawObject): unknown {
  const spec = raw.value['spec'];
  return isPlainObject(spec) ? spec['template'] : undefined;
}

interface Prepared {
  readonly w: WorkloadObject;
  readonly selector: Selector;
  /** Undefined when the template does not compile (already reported). */
  readonly templatePod?: Pod;
  readonly template: PodTemplateManifest;
}

/** Validation shared by the four kinds; undefined when the object cannot be used. */
function prepare(ctx: LoadContext, p: WorkloadParsed): Prepared | undefined {
  const { reporter } = ctx;
  const m = p.manifest;
  const name = ctx.requireName(p);
  if (!name) return undefined;
  const namespace = m.metadata.namespace || 'default';
  const selector = reporter.attempt(p.raw, () => compileLabelSelector(m.spec.selector), ['spec', 'selector']);
  if (!selector) return undefined;
  let valid = true;
  // apps/v1 has always validated these selectors strictly (a DaemonSet's only since 1.27, keeping old ones): no stored object has such a key or value.
  const legacy = legacyLabelSelectorValues(m.spec.selector, ['spec', 'selector'], p.kind === 'DaemonSet' ? STRICT_DAEMONSET_KEY : STRICT_SELECTOR);
  for (const v of legacy) if (v.part === 'key' || p.kind !== 'DaemonSet') reporter.error(p.raw, v.path, v.message);
  if (p.kind === 'DaemonSet' && legacy.length > 0) {
    // ValidateDaemonSetSpec matches the template's labels only against a selector it can parse.
    for (const v of legacyLabelSelectorValues(m.spec.selector, ['spec', 'selector'], LEGACY_DAEMONSET_VALUE)) if (v.part === 'value') reporter.warn(p.raw, v.path, v.message);
    valid = false;
  } else if (selector.everything) {
    reporter.error(p.raw, ['spec', 'selector'], `Invalid value: ${JSON.stringify(m.spec.selector)}: empty selector is invalid for ${SELECTOR_OWNER_WORD[p.kind]}`);
    valid = false;
  } else {
    const labels = m.spec.template.metadata?.labels ?? {};
    if (!selector.matches(labels)) {
      reporter.error(p.raw, [...TEMPLATE, 'metadata', 'labels'], `Invalid value: ${JSON.stringify(labels)}: \`selector\` does not match template \`labels\``);
      valid = false;
    }
  }
  const spec = m.spec as { replicas?: number; ordinals?: { start?: number } };
  const status = (p.kind === 'Deployment' ? p.manifest.status : undefined) ?? {};
  const w: WorkloadObject = {
    kind: p.kind,
    namespace,
    name,
    uid: m.metadata.uid ?? `${namespace}/${name}`,
    annotations: m.metadata.annotations ?? {},
    replicas: spec.replicas ?? 1,
    template: { ...m.spec.template, spec: ctx.storedPodSpec(m.spec.template.spec, { raw: p.raw, prefix: TEMPLATE }) },
    rawTemplate: rawTemplateOf(p.raw),
    ...(status.collisionCount !== undefined ? { collisionCount: status.collisionCount } : {}),
    ...(spec.ordinals?.start !== undefined ? { ordinalStart: spec.ordinals.start } : {}),
    ...(p.kind === 'StatefulSet' && p.manifest.spec.volumeClaimTemplates?.length ? { volumeClaimTemplates: p.manifest.spec.volumeClaimTemplates } : {}),
  };
  const template = p.kind === 'DaemonSet' ? daemonSetTemplate(w) : w.template;
  const admitted = ctx.admit(p.raw, template.spec, TEMPLATE);
  const failed = admitted.problems.some((x) => x.severity === 'error');
  const manifest: PodManifest = {
    metadata: { name, namespace, labels: template.metadata?.labels ?? {}, annotations: template.metadata?.annotations ?? {} },
    spec: admitted.spec,
  };
  const templatePod = reporter.attempt(p.raw, () => compilePod(manifest, { order: 0, ...admitted.context }), TEMPLATE);
  return { w, selector, template, ...(valid && !failed && templatePod ? { templatePod } : {}) };
}

function rolloutFields(spec: RolloutFieldsManifest): RolloutFieldsManifest {
  const { minReadySeconds, strategy, progressDeadlineSeconds, podManagementPolicy, updateStrategy } = spec;
  return {
    ...(minReadySeconds !== undefined ? { minReadySeconds } : {}),
    ...(strategy ? { strategy } : {}),
    ...(progressDeadlineSeconds !== undefined ? { progressDeadlineSeconds } : {}),
    ...(podManagementPolicy ? { podManagementPolicy } : {}),
    ...(updateStrategy ? { updateStrategy } : {}),
  };
}

/** The controller ownerReference (or the only one, as hand-written inputs often omit `controller`). */
function controllerOf(refs: readonly { kind: string; name: string; controller?: boolean }[] | undefined): { owner?: { kind: string; name: string } } {
  const ref = refs?.find((r) => r.controller) ?? (refs?.length === 1 ? refs[0] : undefined);
  return ref ? { owner: { kind: ref.kind, name: ref.name } } : {};
}

/** CloneSelectorAndAddLabel: the selector of the ReplicaSet a Deployment creates for template hash `hash`. */
function replicaSetSelector(p: Extract<ParsedObject, { kind: 'Deployment' }>, hash: string): Selector {
  const sel = p.manifest.spec.selector;
  return compileLabelSelector({ ...sel, matchLabels: { ...sel.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash } });
}

export function loadWorkloads(ctx: LoadContext, objects: readonly WorkloadParsed[], nodes: readonly Node[], explicitPods: readonly Pod[]): LoadedWorkloads {
  const { reporter } = ctx;
  const replicaSetRefs = objects
    .filter((p) => p.kind === 'ReplicaSet')
    .map((p) => ({ namespace: p.manifest.metadata.namespace || 'default', name: p.manifest.metadata.name ?? '', ownerReferences: p.manifest.metadata.ownerReferences ?? [] }));

  const taken = new Map<string, Set<string>>();
  const takenIn = (ns: string) => {
    let set = taken.get(ns);
    if (!set) taken.set(ns, (set = new Set()));
    return set;
  };
  for (const pod of explicitPods) takenIn(pod.namespace).add(pod.name);
  // Generated pods are created after every pod of the input.
  let nextOrder = explicitPods.reduce((max, pod) => Math.max(max, pod.creation + 1), explicitPods.length);

  const owned = new OwnedPods(explicitPods, replicaSetRefs);
  const summaries: WorkloadSummary[] = [];
  const pods: Pod[] = [];
  const replicaSets: OwnerSelector[] = [];
  const statefulSets: OwnerSelector[] = [];
  /** Deployment → template hashes whose ReplicaSet is implied (generated, or referenced by pods of the input). */
  const implied: { p: Extract<ParsedObject, { kind: 'Deployment' }>; namespace: string; rsName: string; hash: string }[] = [];

  let generatedTotal = 0;
  for (const p of objects) {
    const prep = prepare(ctx, p);
    if (!prep) continue;
    const { w, selector, templatePod } = prep;
    if (p.kind === 'ReplicaSet') replicaSets.push({ namespace: w.namespace, name: w.name, uid: w.uid, selector });
    if (p.kind === 'StatefulSet') statefulSets.push({ namespace: w.namespace, name: w.name, uid: w.uid, selector });
    if (!templatePod) continue;

    const eligible = p.kind === 'DaemonSet' ? nodes.filter((n) => daemonShouldRun(templatePod, n)).map((n) => n.name) : [];
    const expand = !owned.has(w) && !(p.kind === 'Deployment' && hasOwnReplicaSet(w, replicaSetRefs));
    let manifests: PodManifest[] = [];
    const wanted = p.kind === 'DaemonSet' ? eligible.length : w.replicas;
    if (expand && generatedTotal + wanted > MAX_GENERATED_PODS) {
      reporter.error(p.raw, ['spec', 'replicas'], `Invalid value: ${wanted}: the input's workloads would expand to more than ${MAX_GENERATED_PODS} pods, more than berth builds`);
      continue;
    }
    if (expand) generatedTotal += wanted;
    if (expand) {
      const names = takenIn(w.namespace);
      if (p.kind === 'Deployment') manifests = deploymentPods(w, names);
      else if (p.kind === 'ReplicaSet') manifests = replicaSetPods(w, names);
      else if (p.kind === 'DaemonSet') manifests = daemonSetPods(w, eligible, names);
      else {
        manifests = statefulSetPods(w);
        const clash = manifests.find((m) => names.has(m.metadata.name ?? ''));
        if (clash) {
          reporter.error(p.raw, ['metadata', 'name'], `Invalid value: ${JSON.stringify(w.name)}: pod ${w.namespace}/${clash.metadata.name} of this StatefulSet is in the input but not owned by it`);
          manifests = [];
        }
        for (const m of manifests) names.add(m.metadata.name ?? '');
      }
    }
    const generated: string[] = [];
    for (const m of manifests) {
      const admitted = ctx.admit(p.raw, m.spec, TEMPLATE, true);
      const pod = reporter.attempt(p.raw, () => compilePod({ ...m, spec: admitted.spec }, { order: nextOrder, ...admitted.context }), TEMPLATE);
      if (!pod) break;
      nextOrder++;
      pods.push(pod);
      generated.push(pod.key);
    }
    if (p.kind === 'Deployment') {
      if (manifests.length > 0) {
        const rs = deploymentReplicaSet(w);
        implied.push({ p, namespace: w.namespace, rsName: rs.name, hash: rs.hash });
      }
      for (const { rsName, hash } of owned.hashedReplicaSets(w.namespace, w.name)) implied.push({ p, namespace: w.namespace, rsName, hash });
    }
    summaries.push({
      kind: w.kind,
      namespace: w.namespace,
      name: w.name,
      key: `${w.namespace}/${w.name}`,
      uid: w.uid,
      replicas: p.kind === 'DaemonSet' ? eligible.length : w.replicas,
      selector,
      selectorSpec: p.manifest.spec.selector,
      template: prep.template,
      templatePod,
      generatedPods: generated,
      rollout: rolloutFields(p.manifest.spec),
      ...controllerOf(p.manifest.metadata.ownerReferences),
      ...(p.kind === 'StatefulSet' ? statefulSetStorage(p.manifest.spec, w.ordinalStart) : {}),
    });
  }

  // The ReplicaSets Deployments stand for, so spreading defaults find a pod's owner.
  const known = new Set(replicaSets.map((rs) => `${rs.namespace}/${rs.name}`));
  for (const { p, namespace, rsName, hash } of implied) {
    if (known.has(`${namespace}/${rsName}`)) continue;
    known.add(`${namespace}/${rsName}`);
    replicaSets.push({ namespace, name: rsName, uid: `${namespace}/${rsName}`, selector: replicaSetSelector(p, hash) });
  }
  return { summaries, pods, replicaSets, statefulSets };
}
