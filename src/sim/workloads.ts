// Hands the loaded workloads to the simulated controllers: each Deployment,
// ReplicaSet, StatefulSet and DaemonSet becomes a controller object with the
// strategy fields it was written with, so its pods are created in simulated time.

import type { WorkloadSummary } from '../io/load-workloads.js';
import { templateHash } from '../io/names.js';
import { POD_TEMPLATE_HASH_LABEL } from '../io/workloads.js';
import type { IntOrString, RolloutFieldsManifest } from '../model/manifest.js';
import type { Pod } from '../model/pod.js';
import { compileLabelSelector } from '../model/selector.js';
import type { DeploymentStrategy } from './controllers/deployment.js';
import type { DaemonSetUpdateStrategy } from './controllers/daemonset.js';
import type { StatefulSetUpdateStrategy } from './controllers/statefulset.js';
import type { Simulation } from './simulation.js';

type RollingFields = { partition?: number; maxSurge?: IntOrString; maxUnavailable?: IntOrString };

/** The rolling-update bounds that were written, and only those (the controllers default the rest). */
function rolling(ru: RollingFields | null | undefined): RollingFields {
  return {
    ...(ru?.partition !== undefined ? { partition: ru.partition } : {}),
    ...(ru?.maxSurge !== undefined ? { maxSurge: ru.maxSurge } : {}),
    ...(ru?.maxUnavailable !== undefined ? { maxUnavailable: ru.maxUnavailable } : {}),
  };
}

function deploymentStrategy(r: RolloutFieldsManifest): DeploymentStrategy | undefined {
  const s = r.strategy;
  if (!s) return undefined;
  return s.type === 'Recreate' ? { type: 'Recreate' } : { type: 'RollingUpdate', ...rolling(s.rollingUpdate) };
}

/** StatefulSet and DaemonSet updateStrategy: RollingUpdate (with its bounds) or OnDelete. */
function updateStrategy(r: RolloutFieldsManifest): (StatefulSetUpdateStrategy & DaemonSetUpdateStrategy) | undefined {
  const s = r.updateStrategy;
  if (!s) return undefined;
  return s.type === 'OnDelete' ? { type: 'OnDelete' } : { type: 'RollingUpdate', ...rolling(s.rollingUpdate) };
}

/** The template as written: a Deployment's hash is computed over it. */
const written = (w: WorkloadSummary) => w.template as unknown;

/**
 * The ReplicaSets a Deployment of the input already has, as a kubectl dump shows
 * them: ReplicaSet objects named `<deployment>-<pod-template-hash>` whose template
 * it selects, and — when the dump lacks them — the ones its pods name as their
 * controller. They are handed to the Deployment with the uid its pods point at, so
 * it adopts them (and their pods) instead of creating replicas beside them, and a
 * dump whose template changed since rolls out as the real controller would.
 */
function adoptReplicaSets(sim: Simulation, d: WorkloadSummary, workloads: readonly WorkloadSummary[], adopted: Set<WorkloadSummary>): void {
  const ownName = (name: string, hash: string | undefined) => hash !== undefined && name === `${d.name}-${hash}`;
  for (const rs of workloads) {
    if (rs.kind !== 'ReplicaSet' || rs.namespace !== d.namespace || !d.selector.matches(rs.templatePod.labels)) continue;
    if (!ownName(rs.name, rs.templatePod.labels[POD_TEMPLATE_HASH_LABEL])) continue;
    adopted.add(rs);
    sim.replicaSets.add({ namespace: rs.namespace, name: rs.name, uid: rs.uid, replicas: rs.replicas, selector: rs.selector, template: rs.templatePod, minReadySeconds: rs.rollout.minReadySeconds ?? 0, owner: d.uid });
  }
  const implied = new Map<string, { uid: string; hash: string; pods: Pod[] }>();
  for (const pod of sim.world.cluster.pods()) {
    const ref = pod.ownerReferences.find((r) => r.controller && r.kind === 'ReplicaSet');
    const hash = pod.labels[POD_TEMPLATE_HASH_LABEL];
    if (!ref || pod.namespace !== d.namespace || !ownName(ref.name, hash) || sim.replicaSets.replicaSets.has(`${d.namespace}/${ref.name}`)) continue;
    const entry = implied.get(ref.name) ?? { uid: ref.uid, hash: hash!, pods: [] };
    implied.set(ref.name, entry);
    entry.pods.push(pod);
  }
  for (const [name, { uid, hash, pods }] of implied) {
    const labels = { ...d.templatePod.labels, [POD_TEMPLATE_HASH_LABEL]: hash };
    const selector = compileLabelSelector({ ...d.selectorSpec, matchLabels: { ...d.selectorSpec.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash } });
    // Of an older template only the pods are known: the first stands for its template.
    const template = hash === templateHash(d.template) ? { ...d.templatePod, labels } : pods[0]!;
    sim.replicaSets.add({ namespace: d.namespace, name, uid, replicas: pods.length, selector, template, minReadySeconds: d.rollout.minReadySeconds ?? 0, owner: d.uid });
  }
}

export function addWorkloads(sim: Simulation, workloads: readonly WorkloadSummary[]): void {
  const adopted = new Set<WorkloadSummary>();
  for (const d of workloads) if (d.kind === 'Deployment') adoptReplicaSets(sim, d, workloads, adopted);
  for (const w of workloads) {
    if (adopted.has(w)) continue;
    const r = w.rollout;
    const base = { namespace: w.namespace, name: w.name, uid: w.uid };
    const minReady = r.minReadySeconds !== undefined ? { minReadySeconds: r.minReadySeconds } : {};
    switch (w.kind) {
      case 'Deployment': {
        const strategy = deploymentStrategy(r);
        sim.deployments.add({
          ...base,
          replicas: w.replicas,
          selector: w.selectorSpec,
          template: written(w),
          templatePod: w.templatePod,
          ...minReady,
          ...(strategy ? { strategy } : {}),
          ...(r.progressDeadlineSeconds !== undefined ? { progressDeadlineSeconds: r.progressDeadlineSeconds } : {}),
        });
        break;
      }
      case 'ReplicaSet':
        sim.replicaSets.add({ ...base, replicas: w.replicas, selector: w.selector, template: w.templatePod, minReadySeconds: r.minReadySeconds ?? 0, owner: '' });
        break;
      case 'StatefulSet': {
        const strategy = updateStrategy(r);
        sim.statefulSets.add({
          ...base,
          replicas: w.replicas,
          selector: w.selector,
          template: written(w),
          templatePod: w.templatePod,
          ...minReady,
          ...(r.podManagementPolicy ? { podManagementPolicy: r.podManagementPolicy } : {}),
          ...(strategy ? { updateStrategy: strategy } : {}),
        });
        break;
      }
      case 'DaemonSet': {
        const strategy = updateStrategy(r);
        sim.daemonSets.add({ ...base, selector: w.selector, template: w.template, ...minReady, ...(strategy ? { updateStrategy: strategy } : {}) });
        break;
      }
    }
  }
}
