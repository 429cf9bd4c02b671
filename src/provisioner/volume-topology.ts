// Karpenter's volume topology (pkg/controllers/provisioning/scheduling/volumetopology.go,
// v1.14.1): what a pod's claims require of a new node. A claim bound to a volume
// requires one of the volume's node affinity terms (hostname dropped for local and
// hostPath volumes); an unbound claim requires one of its StorageClass's
// allowedTopologies terms. Each OR'd term is one alternative; the pod's
// alternatives are the cross product over its volumes, keeping only the compatible
// combinations (all of them when none is). These requirements narrow a NodeClaim
// only, never the pod's own requirements (topology spread counts stay the pod's).
// Before that, the provisioner's Validate leaves out a pod whose claims it cannot
// use (validatePersistentVolumeClaims): Karpenter neither schedules nor reports it.

import type { VolumeStore } from '../cluster/volumes.js';
import { LABEL_HOSTNAME } from '../model/node.js';
import type { Pod } from '../model/pod.js';
import { Requirements } from './requirements.js';

/** One volume's alternatives: undefined when the volume adds no constraint. */
function volumeAlternatives(pod: Pod, claimName: string, store: VolumeStore): Requirements[] | undefined {
  const pvc = store.claim(pod.namespace, claimName);
  if (!pvc) return undefined;
  if (pvc.volumeName !== '') {
    const pv = store.persistentVolume(pvc.volumeName);
    if (!pv || pv.nodeAffinity === null) return undefined;
    // Rescheduling a pod onto a new node cannot keep a local volume's hostname.
    const dropHostname = pv.source.kind === 'other' && (pv.source.type === 'local' || pv.source.type === 'hostPath');
    const out: Requirements[] = [];
    for (const term of pv.nodeAffinity.terms) {
      const all = term.matchExpressions ?? [];
      const exprs = dropHostname ? all.filter((e) => e.key !== LABEL_HOSTNAME) : all;
      if (dropHostname && all.length > 0 && exprs.length === 0) out.push(new Requirements());
      else if (exprs.length > 0) out.push(Requirements.fromNodeSelectorRequirements(exprs));
    }
    return out;
  }
  if (pvc.storageClassName === '') return undefined;
  const sc = store.storageClass(pvc.storageClassName);
  if (!sc) return undefined;
  return sc.allowedTopologies.filter((t) => t.length > 0).map((t) => Requirements.fromNodeSelectorRequirements(t.map((e) => ({ key: e.key, operator: 'In' as const, values: [...e.values] }))));
}

/**
 * ValidatePersistentVolumeClaims: why Karpenter would leave `pod` out for its claims
 * (as kube-scheduler rejects them), or undefined. Karpenter then also drops pods
 * whose volume topology it cannot look up (a claim, volume or class missing).
 */
export function validatePersistentVolumeClaims(pod: Pod, store: VolumeStore): string | undefined {
  for (const v of pod.volumes ?? []) {
    if (v.kind !== 'claim') continue;
    const pvc = store.claim(pod.namespace, v.claimName);
    if (!pvc) return `getting persistent volume claim, persistentvolumeclaims "${v.claimName}" not found`;
    if (pvc.deleting) return `persistentvolumeclaim "${v.claimName}" is being deleted`;
    if (pvc.phase === 'Lost') return `persistentvolumeclaim "${v.claimName}" bound to non-existent persistentvolume`;
    if (pvc.volumeName !== '') {
      const pv = store.persistentVolume(pvc.volumeName);
      if (!pv) return `failed to validate pvc "${v.claimName}", persistentvolumes "${pvc.volumeName}" not found`;
      if (pv.deleting) return `failed to validate pvc "${v.claimName}", persistentvolume is being deleted`;
      // kube-scheduler counts a claim as bound only once the PV controller marked it so.
      if (!pvc.bindCompleted) return `pvc "${v.claimName}" is considered unbound because it does not contain annotation pv.kubernetes.io/bind-completed`;
      continue;
    }
    if (pvc.storageClassName === '') return `unbound pvc "${v.claimName}" must define a storage class`;
    const sc = store.storageClass(pvc.storageClassName);
    if (!sc) return `failed to validate pvc "${v.claimName}", failed to get storage class "${pvc.storageClassName}"`;
    if (sc.volumeBindingMode === 'Immediate') return `failed to validate pvc "${v.claimName}", pvc with immediate volume binding mode must be bound`;
  }
  return undefined;
}

function merged(a: Requirements | undefined, b: Requirements): Requirements {
  const out = new Requirements();
  if (a) out.addAll(a);
  out.addAll(b);
  return out;
}

/**
 * GetRequirements: the pod's volume requirement alternatives, or an empty list when
 * its volumes constrain nothing. `undefined` inside the cross product stands for
 * Karpenter's nil alternative (matches everything).
 */
export function volumeRequirementAlternatives(pod: Pod, store: VolumeStore): Requirements[] {
  if (store.empty) return [];
  let alternatives: (Requirements | undefined)[] = [undefined];
  for (const v of pod.volumes ?? []) {
    if (v.kind !== 'claim') continue;
    const alts = volumeAlternatives(pod, v.claimName, store);
    if (!alts || alts.length === 0) continue;
    const compatible: Requirements[] = [];
    for (const existing of alternatives) {
      for (const alt of alts) if (existing === undefined || existing.intersects(alt) === undefined) compatible.push(merged(existing, alt));
    }
    alternatives = compatible.length > 0 ? compatible : alternatives.flatMap((existing) => alts.map((alt) => merged(existing, alt)));
  }
  return alternatives.filter((a): a is Requirements => a !== undefined);
}
