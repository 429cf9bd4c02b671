// Workload controllers' pod creation, reduced to what a static input needs: a
// Deployment, ReplicaSet, StatefulSet or DaemonSet whose pods are not in the input
// stands for the pods its controller would create. They are built from the pod
// template the way the controllers build them (labels, owner reference, the
// DaemonSet's node affinity and tolerations), with deterministic names (names.ts).

import type { AffinityManifest, PodManifest, PodSpecManifest, PodTemplateManifest, TolerationManifest } from '../model/manifest.js';
import type { Node } from '../model/node.js';
import { matchesRequiredNodeAffinity, type Pod } from '../model/pod.js';
import type { Labels } from '../model/selector.js';
import type { PersistentVolumeClaimManifest, PodVolumeManifest } from '../model/volumes.js';
import { doNotScheduleTaints, findUntoleratedTaint } from '../model/taints.js';
import { generatedName, templateHash } from '../model/names.js';

export type WorkloadKind = 'Deployment' | 'ReplicaSet' | 'StatefulSet' | 'DaemonSet';

/**
 * The most pods berth builds from workloads for one input (and the most replicas a
 * scenario may scale to): far above the 20,000-pod churn benchmark, and far below
 * where a mistyped replica count (1e9) would exhaust memory instead of failing.
 */
export const MAX_GENERATED_PODS = 100_000;

export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';
export const STATEFULSET_POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
export const DAEMONSET_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
/** Where apps/v1 keeps a DaemonSet's template generation; the API server starts it at 1. */
const DEPRECATED_TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

export interface WorkloadObject {
  readonly kind: WorkloadKind;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly annotations: Labels;
  /** Desired pods (1 when unset); unused for DaemonSets. */
  readonly replicas: number;
  readonly template: PodTemplateManifest;
  /** The template as written (nulls dropped): what the pod-template hash covers. */
  readonly rawTemplate: unknown;
  readonly collisionCount?: number;
  /** StatefulSet spec.ordinals.start. */
  readonly ordinalStart?: number;
  /** StatefulSet spec.volumeClaimTemplates. */
  readonly volumeClaimTemplates?: readonly ClaimTemplate[];
}

/** A StatefulSet volumeClaimTemplate as written. */
export type ClaimTemplate = Pick<PersistentVolumeClaimManifest, 'metadata' | 'spec'>;

export interface Owner {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
}

/** GetPodFromTemplate: the template's labels (plus the controller's), annotations and spec, controlled by `owner`. */
function podFromTemplate(template: PodTemplateManifest, namespace: string, name: string, labels: Labels, owner: Owner): PodManifest {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: { ...template.metadata?.labels, ...labels },
      annotations: { ...template.metadata?.annotations },
      ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid, controller: true }],
    },
    spec: template.spec,
  };
}

/** The ReplicaSet a Deployment's controller creates for its current template: `<deployment>-<hash>`. */
export function deploymentReplicaSet(d: WorkloadObject): { name: string; hash: string } {
  const hash = templateHash(d.rawTemplate, d.collisionCount);
  return { name: `${d.name}-${hash}`, hash };
}

/** `count` pods named `<owner>-<suffix>`, the suffix seeded by the workload and the pod's index. */
function replicaPods(w: WorkloadObject, owner: Owner, labels: Labels, taken: Set<string>): PodManifest[] {
  const pods: PodManifest[] = [];
  for (let i = 0; i < w.replicas; i++) {
    const name = generatedName(`${owner.name}-`, `${w.kind}/${w.namespace}/${w.name}/${i}`, taken);
    pods.push(podFromTemplate(w.template, w.namespace, name, labels, owner));
  }
  return pods;
}

/** A Deployment's pods, owned by its (implied) ReplicaSet and labelled with the template hash. */
export function deploymentPods(d: WorkloadObject, taken: Set<string>): PodManifest[] {
  const rs = deploymentReplicaSet(d);
  const owner: Owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.name, uid: `${d.namespace}/${rs.name}` };
  return replicaPods(d, owner, { [POD_TEMPLATE_HASH_LABEL]: rs.hash }, taken);
}

export function replicaSetPods(rs: WorkloadObject, taken: Set<string>): PodManifest[] {
  return replicaPods(rs, { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.name, uid: rs.uid }, {}, taken);
}

/** The revision a StatefulSet's pods are labelled with: `<name>-<hash>`. */
export function statefulSetRevision(sts: WorkloadObject): string {
  return `${sts.name}-${templateHash(sts.rawTemplate, sts.collisionCount)}`;
}

/** `<name>-<ordinal>` for each ordinal from spec.ordinals.start, with the identity and revision labels. */
export function statefulSetPods(sts: WorkloadObject): PodManifest[] {
  const owner: Owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: sts.name, uid: sts.uid };
  const revision = statefulSetRevision(sts);
  const start = sts.ordinalStart ?? 0;
  const pods: PodManifest[] = [];
  for (let ordinal = start; ordinal < start + sts.replicas; ordinal++) {
    const name = `${sts.name}-${ordinal}`;
    const labels = { [STATEFULSET_POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal), [CONTROLLER_REVISION_HASH_LABEL]: revision };
    const pod = podFromTemplate(sts.template, sts.namespace, name, labels, owner);
    pods.push({ ...pod, spec: { ...pod.spec, volumes: withClaimVolumes(pod.spec.volumes ?? [], sts, ordinal) } });
  }
  return pods;
}

/** getPersistentVolumeClaimName: `<template>-<statefulset>-<ordinal>`. */
export function statefulSetClaimName(templateName: string, stsName: string, ordinal: number): string {
  return `${templateName}-${stsName}-${ordinal}`;
}

/**
 * updateStorage: every claim template becomes the pod volume of its name (replacing
 * a template volume of the same name), backed by the ordinal's claim.
 */
function withClaimVolumes(volumes: readonly PodVolumeManifest[], sts: WorkloadObject, ordinal: number): PodVolumeManifest[] {
  const templates = sts.volumeClaimTemplates ?? [];
  if (templates.length === 0) return [...volumes];
  const claimed = new Map(templates.map((t) => [t.metadata.name ?? '', statefulSetClaimName(t.metadata.name ?? '', sts.name, ordinal)]));
  const out = volumes.filter((v) => !claimed.has(v.name));
  for (const [name, claimName] of claimed) out.push({ name, persistentVolumeClaim: { claimName } });
  return out;
}

/**
 * The claims the StatefulSet controller creates for one ordinal (getPersistentVolumeClaims):
 * the template's metadata and spec, named for the ordinal, labelled with the pod's
 * selector labels, in the StatefulSet's namespace.
 */
export function statefulSetClaims(sts: Pick<WorkloadObject, 'namespace' | 'name' | 'volumeClaimTemplates'>, selectorLabels: Labels, ordinal: number): PersistentVolumeClaimManifest[] {
  return (sts.volumeClaimTemplates ?? []).map((t) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      ...t.metadata,
      name: statefulSetClaimName(t.metadata.name ?? '', sts.name, ordinal),
      namespace: sts.namespace,
      labels: { ...t.metadata.labels, ...selectorLabels },
    },
    spec: t.spec,
  }));
}

const sameToleration = (a: TolerationManifest, b: TolerationManifest): boolean =>
  (a.key ?? '') === (b.key ?? '') && (a.effect ?? '') === (b.effect ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '');

/** v1helper.AddOrUpdateTolerationInPodSpec: replaces a toleration with the same key, operator, value and effect, else appends. */
function addOrUpdateToleration(list: TolerationManifest[], t: TolerationManifest): TolerationManifest[] {
  const i = list.findIndex((x) => sameToleration(x, t));
  if (i < 0) return [...list, t];
  return list.map((x, j) => (j === i ? t : x));
}

/** Tolerations every DaemonSet pod gets (AddOrUpdateDaemonPodTolerations), in the controller's order. */
export function daemonPodTolerations(spec: PodSpecManifest): TolerationManifest[] {
  const defaults: TolerationManifest[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (spec.hostNetwork) defaults.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  return defaults.reduce(addOrUpdateToleration, [...(spec.tolerations ?? [])]);
}

/** The DaemonSet's template as its controller uses it: default tolerations, revision hash and generation labels. */
export function daemonSetTemplate(ds: WorkloadObject): PodTemplateManifest {
  const labels = {
    ...ds.template.metadata?.labels,
    [DAEMONSET_TEMPLATE_GENERATION_LABEL]: ds.annotations[DEPRECATED_TEMPLATE_GENERATION] ?? '1',
    [CONTROLLER_REVISION_HASH_LABEL]: templateHash(ds.rawTemplate, ds.collisionCount),
  };
  return {
    metadata: { ...ds.template.metadata, labels },
    spec: { ...ds.template.spec, tolerations: daemonPodTolerations(ds.template.spec) },
  };
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes exactly "metadata.name In [node]". */
export function daemonNodeAffinity(affinity: AffinityManifest | null | undefined, nodeName: string): AffinityManifest {
  const required = { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In' as const, values: [nodeName] }] }] };
  return { ...affinity, nodeAffinity: { ...affinity?.nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: required } };
}

/**
 * NodeShouldRunDaemonPod's "should run": the template's nodeName (if any) is this
 * node, its nodeSelector and required node affinity match, and every NoSchedule and
 * NoExecute taint is tolerated. `templatePod` is the compiled daemonSetTemplate.
 */
export function daemonShouldRun(templatePod: Pod, node: Node): boolean {
  if (templatePod.nodeName !== '' && templatePod.nodeName !== node.name) return false;
  if (!matchesRequiredNodeAffinity(templatePod, node)) return false;
  return findUntoleratedTaint(node.taints, templatePod.tolerations, doNotScheduleTaints) === undefined;
}

/** One pod per node in `nodeNames`, each pinned there by node affinity, named `<name>-<suffix>` seeded by the node. */
export function daemonSetPods(ds: WorkloadObject, nodeNames: readonly string[], taken: Set<string>): PodManifest[] {
  const template = daemonSetTemplate(ds);
  const owner: Owner = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.name, uid: ds.uid };
  return nodeNames.map((nodeName) => {
    const name = generatedName(`${ds.name}-`, `${ds.kind}/${ds.namespace}/${ds.name}/${nodeName}`, taken);
    const pod = podFromTemplate(template, ds.namespace, name, {}, owner);
    return { ...pod, spec: { ...pod.spec, affinity: daemonNodeAffinity(pod.spec.affinity, nodeName) } };
  });
}

export interface OwnedPodRef {
  readonly namespace: string;
  readonly labels: Labels;
  readonly ownerReferences: readonly { readonly kind: string; readonly name: string }[];
}

export interface ReplicaSetRef {
  readonly namespace: string;
  readonly name: string;
  readonly ownerReferences: readonly { readonly kind: string; readonly name: string }[];
}

const ownedBy = (refs: OwnedPodRef['ownerReferences'], kind: string, name: string): boolean => refs.some((r) => r.kind === kind && r.name === name);

const key = (...parts: string[]) => parts.join('\u0000');

/**
 * The input's pods by the workloads that own them, indexed once: a dump's 1,000
 * workloads each asking of its 100,000 pods made loading quadratic.
 */
export class OwnedPods {
  /** namespace, kind and name of every owner a pod names. */
  private readonly owners = new Set<string>();
  /** By namespace and Deployment: the ReplicaSets named `<deployment>-<the pod's pod-template-hash>`, one per pod naming one, in pod order. */
  private readonly hashed = new Map<string, { readonly rsName: string; readonly hash: string }[]>();
  /** By namespace and Deployment: the names of the input's ReplicaSets it owns. */
  private readonly replicaSetsOf = new Map<string, string[]>();

  constructor(pods: readonly OwnedPodRef[], replicaSets: readonly ReplicaSetRef[]) {
    for (const p of pods) {
      const hash = p.labels[POD_TEMPLATE_HASH_LABEL];
      const seen = new Set<string>();
      for (const r of p.ownerReferences) {
        this.owners.add(key(p.namespace, r.kind, r.name));
        if (hash === undefined || r.kind !== 'ReplicaSet' || !r.name.endsWith(`-${hash}`)) continue;
        const deployment = key(p.namespace, r.name.slice(0, r.name.length - hash.length - 1));
        if (seen.has(deployment)) continue;
        seen.add(deployment);
        let list = this.hashed.get(deployment);
        if (!list) this.hashed.set(deployment, (list = []));
        list.push({ rsName: r.name, hash });
      }
    }
    for (const rs of replicaSets) {
      for (const r of rs.ownerReferences) {
        if (r.kind !== 'Deployment') continue;
        const k = key(rs.namespace, r.name);
        this.replicaSetsOf.set(k, [...(this.replicaSetsOf.get(k) ?? []), rs.name]);
      }
    }
  }

  /**
   * Whether the input already has this workload's pods, so it must not be expanded.
   * A pod belongs to a workload when one of its ownerReferences names it; for a
   * Deployment, when it names one of the Deployment's ReplicaSets — a ReplicaSet in
   * the input owned by the Deployment, or `<deployment>-<the pod's pod-template-hash>`
   * (a kubectl dump of pods often lacks the ReplicaSets). Names, not uids, are
   * compared: hand-written inputs rarely carry uids.
   */
  has(w: Pick<WorkloadObject, 'kind' | 'namespace' | 'name'>): boolean {
    if (w.kind !== 'Deployment') return this.owners.has(key(w.namespace, w.kind, w.name));
    const own = this.replicaSetsOf.get(key(w.namespace, w.name)) ?? [];
    return own.some((rs) => this.owners.has(key(w.namespace, 'ReplicaSet', rs))) || this.hashed.has(key(w.namespace, w.name));
  }

  /** The ReplicaSets `<deployment>-<hash>` the pods of a Deployment name with their pod-template-hash, one per such pod, in pod order. */
  hashedReplicaSets(namespace: string, deployment: string): readonly { readonly rsName: string; readonly hash: string }[] {
    return this.hashed.get(key(namespace, deployment)) ?? [];
  }
}

/** Whether a Deployment's pods come from a ReplicaSet of the input (which is then expanded instead). */
export function hasOwnReplicaSet(d: Pick<WorkloadObject, 'namespace' | 'name'>, replicaSets: readonly ReplicaSetRef[]): boolean {
  return replicaSets.some((rs) => rs.namespace === d.namespace && ownedBy(rs.ownerReferences, 'Deployment', d.name));
}
