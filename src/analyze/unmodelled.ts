// Objects of the input that create pods berth does not simulate: the pod-creating kinds of common operators (prometheus-operator's
// Prometheus, Alertmanager and ThanosRuler, KubeVirt's VirtualMachineInstance...),
// and any other custom resource kind the input shows owning pods or workloads,
// when the input has no pods of that object.

import type { LoadedInput } from '../io/load.js';
import type { SkippedObject } from '../io/skipped.js';

/** Kinds known to create pods, by API group. */
const POD_CREATING: Readonly<Record<string, readonly string[]>> = {
  'monitoring.coreos.com': ['Prometheus', 'Alertmanager', 'ThanosRuler', 'PrometheusAgent'],
  'kubevirt.io': ['KubeVirt', 'VirtualMachineInstance', 'VirtualMachineInstanceReplicaSet', 'VirtualMachine'],
  'cdi.kubevirt.io': ['CDI', 'DataVolume'],
};

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

/** The skipped objects that create pods the input lacks, in input order. */
export function unmodelledPodOwners(input: LoadedInput): SkippedObject[] {
  const owners = new Set<string>();
  const ownedKinds = new Set<string>();
  const owned = [
    ...input.pods.flatMap((p) => p.ownerReferences.map((r) => ({ namespace: p.namespace, kind: r.kind, name: r.name }))),
    ...input.workloads.flatMap((w) => (w.owner ? [{ namespace: w.namespace, ...w.owner }] : [])),
  ];
  for (const o of owned) {
    owners.add(`${o.kind}/${o.namespace}/${o.name}`);
    ownedKinds.add(o.kind);
  }
  return (input.skipped ?? []).filter((s) => {
    const creates = (POD_CREATING[groupOf(s.apiVersion)] ?? []).includes(s.kind) || ownedKinds.has(s.kind);
    return creates && !owners.has(`${s.kind}/${s.namespace}/${s.name}`);
  });
}

/** Kind → the objects of it, "namespace/name". */
export function byKind(objects: readonly SkippedObject[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const o of objects) out.set(o.kind, [...(out.get(o.kind) ?? []), o.namespace ? `${o.namespace}/${o.name}` : o.name]);
  return out;
}
