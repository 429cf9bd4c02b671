// Hands the loaded workloads to the simulated controllers: each Deployment,
// ReplicaSet, StatefulSet and DaemonSet becomes a controller object with the
// strategy fields it was written with, so its pods are created in simulated time.

import type { WorkloadSummary } from '../io/load-workloads.js';
import type { RolloutFieldsManifest } from '../model/manifest.js';
import type { DeploymentStrategy } from './controllers/deployment.js';
import type { DaemonSetUpdateStrategy } from './controllers/daemonset.js';
import type { StatefulSetUpdateStrategy } from './controllers/statefulset.js';
import type { Simulation } from './simulation.js';

function deploymentStrategy(r: RolloutFieldsManifest): DeploymentStrategy | undefined {
  const s = r.strategy;
  if (!s) return undefined;
  if (s.type === 'Recreate') return { type: 'Recreate' };
  const ru = s.rollingUpdate ?? {};
  return { type: 'RollingUpdate', ...(ru.maxSurge !== undefined ? { maxSurge: ru.maxSurge } : {}), ...(ru.maxUnavailable !== undefined ? { maxUnavailable: ru.maxUnavailable } : {}) };
}

function statefulSetStrategy(r: RolloutFieldsManifest): StatefulSetUpdateStrategy | undefined {
  const s = r.updateStrategy;
  if (!s) return undefined;
  if (s.type === 'OnDelete') return { type: 'OnDelete' };
  const ru = s.rollingUpdate ?? {};
  return { type: 'RollingUpdate', ...(ru.partition !== undefined ? { partition: ru.partition } : {}), ...(ru.maxUnavailable !== undefined ? { maxUnavailable: ru.maxUnavailable } : {}) };
}

function daemonSetStrategy(r: RolloutFieldsManifest): DaemonSetUpdateStrategy | undefined {
  const s = r.updateStrategy;
  if (!s) return undefined;
  if (s.type === 'OnDelete') return { type: 'OnDelete' };
  const ru = s.rollingUpdate ?? {};
  return { type: 'RollingUpdate', ...(ru.maxSurge !== undefined ? { maxSurge: ru.maxSurge } : {}), ...(ru.maxUnavailable !== undefined ? { maxUnavailable: ru.maxUnavailable } : {}) };
}

/** The template as written: a Deployment's hash is computed over it. */
const written = (w: WorkloadSummary) => w.template as unknown;

export function addWorkloads(sim: Simulation, workloads: readonly WorkloadSummary[]): void {
  for (const w of workloads) {
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
        const updateStrategy = statefulSetStrategy(r);
        sim.statefulSets.add({
          ...base,
          replicas: w.replicas,
          selector: w.selector,
          template: written(w),
          templatePod: w.templatePod,
          ...minReady,
          ...(r.podManagementPolicy ? { podManagementPolicy: r.podManagementPolicy } : {}),
          ...(updateStrategy ? { updateStrategy } : {}),
        });
        break;
      }
      case 'DaemonSet': {
        const updateStrategy = daemonSetStrategy(r);
        sim.daemonSets.add({ ...base, selector: w.selector, template: w.template, ...minReady, ...(updateStrategy ? { updateStrategy } : {}) });
        break;
      }
    }
  }
}
