// Adoption of the input's own pods (a `kubectl get … -o yaml` dump, or bound pods
// written by hand) by the simulated workload controllers, so a running workload
// is continued, not started a second time. A pod belongs to a workload when one
// of its ownerReferences names it (for a Deployment: one of its ReplicaSets, in
// the input or implied by `<deployment>-<pod-template-hash>`); its controller
// reference is rewritten to the uid the simulated controller has. The revision
// the cluster labels the current template with (pod-template-hash,
// controller-revision-hash) is kept too, because berth's own template hash
// differs from the API server's: without it every adopted pod would look
// outdated and be rolled at once.

import type { WorkloadSummary } from '../io/load-workloads.js';
import { CONTROLLER_REVISION_HASH_LABEL, POD_TEMPLATE_HASH_LABEL } from '../io/workloads.js';
import { changedPod, type OwnerReference, type Pod } from '../model/pod.js';
import { compileLabelSelector } from '../model/selector.js';
import type { ReplicaSetInit } from './controllers/replicaset.js';

export interface Adoption {
  /** The input's pods, those of a workload controlled by the uid its simulated controller has. */
  readonly pods: Pod[];
  /** The existing ReplicaSets of each Deployment (from the input or implied by its pods), owned by it. */
  readonly replicaSets: ReplicaSetInit[];
  /** Workload key (kind/namespace/name) → the revision label value of its current template in the cluster. */
  readonly revisions: ReadonlyMap<string, string>;
}

export const workloadKey = (w: Pick<WorkloadSummary, 'kind' | 'namespace' | 'name'>): string => `${w.kind}/${w.namespace}/${w.name}`;

const live = (p: Pod) => p.phase !== 'Succeeded' && p.phase !== 'Failed';
const sameImages = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** A group of existing pods of one revision of a workload. */
interface Revision {
  readonly label: string;
  readonly images: readonly string[];
  /** Newest creation among its pods (or its position in the input when it has none). */
  readonly newest: number;
}

/**
 * The revision whose pods run the template's images, the newest when several do;
 * none when no pod does (the template changed after the dump: the simulated
 * controller then rolls the pods, as the real one would).
 */
function currentRevision(revisions: readonly Revision[], template: Pod): string | undefined {
  let best: Revision | undefined;
  for (const r of revisions) if (sameImages(r.images, template.images) && (!best || r.newest >= best.newest)) best = r;
  return best?.label;
}

function revisionsOf(pods: readonly Pod[], label: string): Revision[] {
  const byLabel = new Map<string, Revision>();
  for (const p of pods) {
    const value = p.labels[label];
    if (value === undefined) continue;
    const seen = byLabel.get(value);
    byLabel.set(value, { label: value, images: p.images, newest: Math.max(seen?.newest ?? -Infinity, p.creation) });
  }
  return [...byLabel.values()];
}

export function adoptInputPods(workloads: readonly WorkloadSummary[], inputPods: readonly Pod[]): Adoption {
  /** Pod key → the controller reference it gets. */
  const controllerOf = new Map<string, OwnerReference>();
  const revisions = new Map<string, string>();
  const replicaSets: ReplicaSetInit[] = [];
  const claim = (pods: readonly Pod[], kind: string, name: string, uid: string) => {
    const ref: OwnerReference = { apiVersion: 'apps/v1', kind, name, uid, controller: true };
    for (const p of pods) controllerOf.set(p.key, ref);
  };
  const refersTo = (p: Pod, kind: string, name: string) => p.ownerReferences.some((r) => r.kind === kind && r.name === name);
  // Live pods by namespace/owner kind/owner name, for every ownerReference they have.
  const byOwner = new Map<string, Pod[]>();
  for (const p of inputPods) {
    if (!live(p)) continue;
    for (const r of p.ownerReferences) {
      const k = `${p.namespace}/${r.kind}/${r.name}`;
      const list = byOwner.get(k);
      if (list) list.push(p);
      else byOwner.set(k, [p]);
    }
  }
  const ownedBy = (ns: string, kind: string, name: string) => byOwner.get(`${ns}/${kind}/${name}`) ?? [];
  const deploymentKeys = new Set(workloads.filter((w) => w.kind === 'Deployment').map((w) => w.key));
  // The input's ReplicaSets by namespace/owning Deployment, in input order.
  const replicaSetsOf = new Map<string, WorkloadSummary[]>();
  for (const w of workloads) if (w.kind === 'ReplicaSet' && w.owner?.kind === 'Deployment') push(replicaSetsOf, `${w.namespace}/${w.owner.name}`, w);
  // Pods by namespace/ReplicaSet owner name and every `<prefix>` of it that ends before a '-', in byOwner's order:
  // the pods of the ReplicaSets `<prefix>-…` a Deployment named `<prefix>` may imply.
  const byNamePrefix = new Map<string, Pod[][]>();
  for (const [k, pods] of byOwner) {
    const slash = k.indexOf('/');
    if (!k.startsWith('/ReplicaSet/', slash)) continue;
    const name = k.slice(slash + '/ReplicaSet/'.length);
    for (let dash = name.indexOf('-'); dash >= 0; dash = name.indexOf('-', dash + 1)) push(byNamePrefix, `${k.slice(0, slash)}/${name.slice(0, dash)}`, pods);
  }

  for (const d of workloads.filter((w) => w.kind === 'Deployment')) {
    const ownRs = replicaSetsOf.get(`${d.namespace}/${d.name}`) ?? [];
    const groups = new Map<string, { rs?: WorkloadSummary; pods: Pod[] }>();
    for (const rs of ownRs) groups.set(rs.name, { rs, pods: [] });
    // Pods of its ReplicaSets in the input, and of `<deployment>-<pod-template-hash>` ones implied by a pod.
    const candidates = new Set(ownRs.flatMap((rs) => ownedBy(d.namespace, 'ReplicaSet', rs.name)));
    for (const pods of byNamePrefix.get(`${d.namespace}/${d.name}`) ?? []) for (const p of pods) candidates.add(p);
    for (const p of candidates) {
      const hash = p.labels[POD_TEMPLATE_HASH_LABEL];
      const ref = p.ownerReferences.find((r) => r.kind === 'ReplicaSet' && (groups.get(r.name)?.rs !== undefined || (hash !== undefined && r.name === `${d.name}-${hash}`)));
      if (!ref) continue;
      let g = groups.get(ref.name);
      if (!g) groups.set(ref.name, (g = { pods: [] }));
      g.pods.push(p);
    }
    const entries = [...groups].map(([name, g]) => {
      const hash = g.rs?.templatePod.labels[POD_TEMPLATE_HASH_LABEL] ?? g.pods[0]?.labels[POD_TEMPLATE_HASH_LABEL] ?? '';
      const images = g.rs?.templatePod.images ?? g.pods[0]?.images ?? [];
      const newest = Math.max(-Infinity, ...g.pods.map((p) => p.creation));
      return { name, g, hash, rev: { label: hash, images, newest } };
    });
    const current = currentRevision(
      entries.map((e) => e.rev),
      d.templatePod,
    );
    if (current !== undefined) revisions.set(workloadKey(d), current);
    // Oldest first, created before the simulation starts (negative times keep their order).
    entries.sort((a, b) => a.rev.newest - b.rev.newest || (a.name < b.name ? -1 : 1));
    entries.forEach(({ name, g, hash }, i) => {
      const uid = g.rs?.uid ?? g.pods.find((p) => refersTo(p, 'ReplicaSet', name))?.ownerReferences.find((r) => r.name === name)?.uid ?? '';
      const rsUid = uid || `${d.namespace}/${name}`;
      claim(g.pods, 'ReplicaSet', name, rsUid);
      // The current ReplicaSet creates pods from the Deployment's template; an old one from what its pods run.
      const base = hash === current ? d.templatePod : (g.rs?.templatePod ?? g.pods[0]!);
      const template = changedPod(base, { labels: { ...base.labels, [POD_TEMPLATE_HASH_LABEL]: hash } });
      replicaSets.push({
        namespace: d.namespace,
        name,
        uid: rsUid,
        replicas: g.rs?.replicas ?? g.pods.length,
        selector: g.rs?.selector ?? compileLabelSelector({ ...d.selectorSpec, matchLabels: { ...d.selectorSpec.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash } }),
        template,
        minReadySeconds: d.rollout.minReadySeconds ?? 0,
        owner: d.uid,
        creation: i - entries.length,
      });
    });
  }

  for (const w of workloads) {
    if (w.kind === 'Deployment' || (w.kind === 'ReplicaSet' && w.owner?.kind === 'Deployment' && deploymentKeys.has(`${w.namespace}/${w.owner.name}`))) continue;
    const pods = ownedBy(w.namespace, w.kind, w.name);
    claim(pods, w.kind, w.name, w.uid);
    if (w.kind === 'ReplicaSet') continue;
    const current = currentRevision(revisionsOf(pods, CONTROLLER_REVISION_HASH_LABEL), w.templatePod);
    if (current !== undefined) revisions.set(workloadKey(w), current);
  }

  const pods = inputPods.map((p) => {
    const ref = controllerOf.get(p.key);
    return ref ? adopted(p, ref) : p;
  });
  return { pods, replicaSets, revisions };
}

/** Input pod → controller reference (kind/name/uid) → the pod adopted by it. */
const adoptedPods = new WeakMap<Pod, Map<string, Pod>>();

/**
 * The pod with `ref` as its controller reference: the same object each time the
 * same pod is adopted the same way (an input changed by a check's fix adopts its
 * pods as the input did, and the runs of both can then share one built cluster).
 */
function adopted(p: Pod, ref: OwnerReference): Pod {
  let byRef = adoptedPods.get(p);
  if (!byRef) adoptedPods.set(p, (byRef = new Map()));
  const key = `${ref.kind}/${ref.name}/${ref.uid}`;
  let pod = byRef.get(key);
  if (!pod) byRef.set(key, (pod = changedPod(p, { ownerReferences: [ref, ...p.ownerReferences.filter((r) => !(r.kind === ref.kind && r.name === ref.name)).map((r) => ({ ...r, controller: false }))] })));
  return pod;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}
