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

/** A group of a Deployment's pods in the input: those of one of its ReplicaSets (in the input, or implied by the pods). */
interface Group {
  readonly name: string;
  readonly rs?: WorkloadSummary;
  readonly pods: readonly Pod[];
  readonly hash: string;
  readonly rev: Revision;
  /** The uid its simulated ReplicaSet gets. */
  readonly uid: string;
}

/**
 * What adoption works out from the input's pods and from who the workloads are
 * (kinds, names, uids, owners; the input's ReplicaSets), not from their templates or
 * specs: the same for an input a check changed only there (a strategy, a template).
 */
interface Claims {
  /** The input's ReplicaSets it was worked out with. */
  readonly replicaSetWorkloads: readonly WorkloadSummary[];
  /** Per Deployment (workloadKey): its groups in the input's order, and oldest first. */
  readonly deployments: ReadonlyMap<string, { readonly groups: readonly Group[]; readonly oldestFirst: readonly Group[] }>;
  /** Per other workload but an owned ReplicaSet (workloadKey): the revisions of its pods. */
  readonly revisionsOf: ReadonlyMap<string, readonly Revision[]>;
  readonly pods: Pod[];
}

/** By input pods, then by the workloads' identities (identityOf). */
const claimsCache = new WeakMap<readonly Pod[], Map<string, Claims>>();

const identityOf = (workloads: readonly WorkloadSummary[]) => workloads.map((w) => [w.kind, w.namespace, w.name, w.uid, w.owner?.kind ?? '', w.owner?.name ?? ''].join('\0')).join('\n');

function claimsFor(workloads: readonly WorkloadSummary[], inputPods: readonly Pod[]): Claims {
  let byIdentity = claimsCache.get(inputPods);
  if (!byIdentity) claimsCache.set(inputPods, (byIdentity = new Map()));
  const identity = identityOf(workloads);
  const replicaSetWorkloads = workloads.filter((w) => w.kind === 'ReplicaSet');
  const known = byIdentity.get(identity);
  if (known && known.replicaSetWorkloads.every((rs, i) => rs === replicaSetWorkloads[i])) return known;
  const claims = workOutClaims(workloads, replicaSetWorkloads, inputPods);
  byIdentity.set(identity, claims);
  return claims;
}

function workOutClaims(workloads: readonly WorkloadSummary[], replicaSetWorkloads: readonly WorkloadSummary[], inputPods: readonly Pod[]): Claims {
  /** Pod key → the controller reference it gets. */
  const controllerOf = new Map<string, OwnerReference>();
  const claim = (pods: readonly Pod[], kind: string, name: string, uid: string) => {
    const ref: OwnerReference = { apiVersion: 'apps/v1', kind, name, uid, controller: true };
    for (const p of pods) controllerOf.set(p.key, ref);
  };
  const refersTo = (p: Pod, kind: string, name: string) => p.ownerReferences.some((r) => r.kind === kind && r.name === name);
  // Live pods by namespace/owner kind/owner name, for every ownerReference they have.
  const byOwner = new Map<string, Pod[]>();
  for (const p of inputPods) {
    if (!live(p)) continue;
    for (const r of p.ownerReferences) push(byOwner, `${p.namespace}/${r.kind}/${r.name}`, p);
  }
  const ownedBy = (ns: string, kind: string, name: string) => byOwner.get(`${ns}/${kind}/${name}`) ?? [];
  const deploymentKeys = new Set(workloads.filter((w) => w.kind === 'Deployment').map((w) => w.key));
  // The input's ReplicaSets by namespace/owning Deployment, in input order.
  const replicaSetsOf = new Map<string, WorkloadSummary[]>();
  for (const w of replicaSetWorkloads) if (w.owner?.kind === 'Deployment') push(replicaSetsOf, `${w.namespace}/${w.owner.name}`, w);
  // Pods by namespace/ReplicaSet owner name and every `<prefix>` of it that ends before a '-', in byOwner's order:
  // the pods of the ReplicaSets `<prefix>-…` a Deployment named `<prefix>` may imply.
  const byNamePrefix = new Map<string, Pod[][]>();
  for (const [k, pods] of byOwner) {
    const slash = k.indexOf('/');
    if (!k.startsWith('/ReplicaSet/', slash)) continue;
    const name = k.slice(slash + '/ReplicaSet/'.length);
    for (let dash = name.indexOf('-'); dash >= 0; dash = name.indexOf('-', dash + 1)) push(byNamePrefix, `${k.slice(0, slash)}/${name.slice(0, dash)}`, pods);
  }

  const deployments = new Map<string, { groups: Group[]; oldestFirst: Group[] }>();
  for (const d of workloads.filter((w) => w.kind === 'Deployment')) {
    const ownRs = replicaSetsOf.get(`${d.namespace}/${d.name}`) ?? [];
    const byName = new Map<string, { rs?: WorkloadSummary; pods: Pod[] }>();
    for (const rs of ownRs) byName.set(rs.name, { rs, pods: [] });
    // Pods of its ReplicaSets in the input, and of `<deployment>-<pod-template-hash>` ones implied by a pod.
    const candidates = new Set(ownRs.flatMap((rs) => ownedBy(d.namespace, 'ReplicaSet', rs.name)));
    for (const pods of byNamePrefix.get(`${d.namespace}/${d.name}`) ?? []) for (const p of pods) candidates.add(p);
    for (const p of candidates) {
      const hash = p.labels[POD_TEMPLATE_HASH_LABEL];
      const ref = p.ownerReferences.find((r) => r.kind === 'ReplicaSet' && (byName.get(r.name)?.rs !== undefined || (hash !== undefined && r.name === `${d.name}-${hash}`)));
      if (!ref) continue;
      let g = byName.get(ref.name);
      if (!g) byName.set(ref.name, (g = { pods: [] }));
      g.pods.push(p);
    }
    const groups = [...byName].map(([name, g]): Group => {
      const hash = g.rs?.templatePod.labels[POD_TEMPLATE_HASH_LABEL] ?? g.pods[0]?.labels[POD_TEMPLATE_HASH_LABEL] ?? '';
      const images = g.rs?.templatePod.images ?? g.pods[0]?.images ?? [];
      const newest = Math.max(-Infinity, ...g.pods.map((p) => p.creation));
      const uid = g.rs?.uid ?? g.pods.find((p) => refersTo(p, 'ReplicaSet', name))?.ownerReferences.find((r) => r.name === name)?.uid ?? '';
      return { name, ...(g.rs ? { rs: g.rs } : {}), pods: g.pods, hash, rev: { label: hash, images, newest }, uid: uid || `${d.namespace}/${name}` };
    });
    // Oldest first, created before the simulation starts (negative times keep their order).
    const oldestFirst = [...groups].sort((a, b) => a.rev.newest - b.rev.newest || (a.name < b.name ? -1 : 1));
    for (const g of oldestFirst) claim(g.pods, 'ReplicaSet', g.name, g.uid);
    deployments.set(workloadKey(d), { groups, oldestFirst });
  }

  const revisions = new Map<string, readonly Revision[]>();
  for (const w of workloads) {
    if (w.kind === 'Deployment' || (w.kind === 'ReplicaSet' && w.owner?.kind === 'Deployment' && deploymentKeys.has(`${w.namespace}/${w.owner.name}`))) continue;
    const pods = ownedBy(w.namespace, w.kind, w.name);
    claim(pods, w.kind, w.name, w.uid);
    if (w.kind !== 'ReplicaSet') revisions.set(workloadKey(w), revisionsOf(pods, CONTROLLER_REVISION_HASH_LABEL));
  }

  const pods = inputPods.map((p) => {
    const ref = controllerOf.get(p.key);
    return ref ? adopted(p, ref) : p;
  });
  return { replicaSetWorkloads, deployments, revisionsOf: revisions, pods };
}

/**
 * The adoption of `inputPods` by `workloads`. Who claims which pod is worked out
 * once for inputs with the same pods and the same workloads but for their templates
 * and specs (what a fix proof changes): only the revisions and ReplicaSets, which
 * read the templates, are worked out again (100,000 pods and 1,000 Deployments).
 */
export function adoptInputPods(workloads: readonly WorkloadSummary[], inputPods: readonly Pod[]): Adoption {
  const claims = claimsFor(workloads, inputPods);
  const revisions = new Map<string, string>();
  const replicaSets: ReplicaSetInit[] = [];
  for (const d of workloads) {
    if (d.kind !== 'Deployment') continue;
    const { groups, oldestFirst } = claims.deployments.get(workloadKey(d))!;
    const current = currentRevision(
      groups.map((g) => g.rev),
      d.templatePod,
    );
    if (current !== undefined) revisions.set(workloadKey(d), current);
    oldestFirst.forEach((g, i) => {
      // The current ReplicaSet creates pods from the Deployment's template; an old one from what its pods run.
      const base = g.hash === current ? d.templatePod : (g.rs?.templatePod ?? g.pods[0]!);
      const template = changedPod(base, { labels: { ...base.labels, [POD_TEMPLATE_HASH_LABEL]: g.hash } });
      replicaSets.push({
        namespace: d.namespace,
        name: g.name,
        uid: g.uid,
        replicas: g.rs?.replicas ?? g.pods.length,
        selector: g.rs?.selector ?? compileLabelSelector({ ...d.selectorSpec, matchLabels: { ...d.selectorSpec.matchLabels, [POD_TEMPLATE_HASH_LABEL]: g.hash } }),
        template,
        minReadySeconds: d.rollout.minReadySeconds ?? 0,
        owner: d.uid,
        creation: i - oldestFirst.length,
      });
    });
  }
  for (const w of workloads) {
    const revs = claims.revisionsOf.get(workloadKey(w));
    const current = revs && currentRevision(revs, w.templatePod);
    if (current !== undefined) revisions.set(workloadKey(w), current);
  }
  return { pods: claims.pods, replicaSets, revisions };
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
