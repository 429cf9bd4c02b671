// Replicas a loss strands for good: a pod whose claim is bound to a volume that no
// surviving node can reach (a zonal disk in the lost zone) cannot be recreated
// anywhere else — kube-scheduler's VolumeBinding rejects every other node with
// "node(s) had volume node affinity conflict" — whatever capacity there is.

import type { LoadedInput } from '../io/load.js';
import { LABEL_ZONE, type Node } from '../model/node.js';
import type { PersistentVolume } from '../model/volumes.js';
import type { ScenarioRun } from '../sim/scenario.js';
import type { Remedy } from './finding.js';
import type { PodGroup } from './pod-groups.js';

export interface VolumeBoundReplica {
  readonly pod: string;
  readonly claim: string;
  readonly volume: string;
  /** The volume's storage class ('' for none). */
  readonly storageClass: string;
  /** Where the volume is: "zone us-west-2a", or its node affinity's nodes. */
  readonly where: string;
}

function whereIs(pv: PersistentVolume): string {
  const zones = (pv.nodeAffinity?.terms ?? []).flatMap((t) => (t.matchExpressions ?? []).filter((e) => e.key === LABEL_ZONE && e.operator === 'In').flatMap((e) => e.values ?? []));
  return zones.length > 0 ? `zone ${[...new Set(zones)].join(', ')}` : 'the nodes its node affinity names';
}

/**
 * The group's replicas, at the end of the run, that sit on a lost node or wait
 * unscheduled while one of their claims is bound to a volume no surviving node matches.
 */
export function volumeBoundReplicas(run: ScenarioRun, group: PodGroup, lost: readonly Node[]): VolumeBoundReplica[] {
  const { cluster } = run.sim.world;
  const lostNames = new Set(lost.map((n) => n.name));
  let survivors: Node[] | undefined;
  const out: VolumeBoundReplica[] = [];
  for (const pod of cluster.pods()) {
    // Pods without a claim first (most of a large cluster's): asked once per group with a problem, a selector match per pod adds up.
    if (pod.volumes === undefined || !pod.volumes.some((v) => v.kind === 'claim')) continue;
    if ((pod.nodeName !== '' && !lostNames.has(pod.nodeName)) || !group.has(pod)) continue;
    for (const v of pod.volumes) {
      if (v.kind !== 'claim') continue;
      const pvc = cluster.volumes.claim(pod.namespace, v.claimName);
      const pv = pvc && pvc.volumeName !== '' ? cluster.volumes.persistentVolume(pvc.volumeName) : undefined;
      survivors ??= cluster.nodeInfos().map((i) => i.node).filter((n) => !lostNames.has(n.name));
      if (!pv || pv.nodeAffinity === null || survivors.some((n) => pv.nodeAffinity!.matches(n))) continue;
      out.push({ pod: pod.key, claim: pvc!.name, volume: pv.name, storageClass: pv.storageClassName, where: whereIs(pv) });
      break;
    }
  }
  return out.sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0));
}

/** "2 of 3 replicas cannot return ...: default/db-0 (claim data-db-0 → PersistentVolume pvc-1 in zone us-west-2a), ..." */
export function describeVolumeBound(bound: readonly VolumeBoundReplica[], replicas: number, lostLabel: string): string {
  const list = bound.map((b) => `${b.pod} (claim ${b.claim} → PersistentVolume ${b.volume} in ${b.where})`).join(', ');
  return `${bound.length} of ${replicas} replica(s) cannot return outside ${lostLabel}: their volumes are there — ${list}`;
}

/** Classes of the stranded volumes whose allowedTopologies confine them to the lost zone. */
export function confiningClasses(input: LoadedInput, bound: readonly VolumeBoundReplica[], zone: string): string[] {
  const names = new Set(bound.map((b) => b.storageClass));
  return input.storage.storageClasses
    .filter((sc) => names.has(sc.name) && sc.allowedTopologies.length > 0 && sc.allowedTopologies.every((term) => term.some((e) => e.key === LABEL_ZONE && e.values.every((v) => v === zone))))
    .map((sc) => sc.name);
}

/** Drops a class's allowedTopologies, so its volumes can be created in every zone where the scheduler puts a replica. */
export function allowEveryZone(classNames: readonly string[]): Remedy {
  const names = new Set(classNames);
  return {
    description: `remove allowedTopologies from StorageClass ${classNames.join(', ')} (with WaitForFirstConsumer, each volume is then created in its replica's zone)`,
    apply: (input) => ({
      ...input,
      storage: { ...input.storage, storageClasses: input.storage.storageClasses.map((sc) => (names.has(sc.name) ? { ...sc, allowedTopologies: [] } : sc)) },
    }),
  };
}
