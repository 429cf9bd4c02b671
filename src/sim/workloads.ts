// Hands the loaded workloads to the simulated controllers: each Deployment,
// ReplicaSet, StatefulSet and DaemonSet becomes a controller object with the
// strategy fields it was written with, so its pods are created in simulated time.

import type { CronJobSummary, JobSummary } from '../io/load-jobs.js';
import type { WorkloadSummary } from '../io/load-workloads.js';
import type { IntOrString, RolloutFieldsManifest } from '../model/manifest.js';
import type { DeploymentStrategy } from './controllers/deployment.js';
import type { DaemonSetUpdateStrategy } from './controllers/daemonset.js';
import type { StatefulSetUpdateStrategy } from './controllers/statefulset.js';
import { workloadKey, type Adoption } from './adopt.js';
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
 * Adds the controllers. With an adoption (adopt.ts), each continues from the
 * input's pods: a Deployment's existing ReplicaSets are added as its own (not as
 * free-standing ones), and every controller keeps the revision the pods carry.
 */
export function addWorkloads(sim: Simulation, workloads: readonly WorkloadSummary[], adoption?: Adoption): void {
  const adopted = new Set<string>();
  for (const rs of adoption?.replicaSets ?? []) {
    sim.replicaSets.add(rs);
    adopted.add(`${rs.namespace}/${rs.name}`);
  }
  for (const w of workloads) {
    const r = w.rollout;
    const base = { namespace: w.namespace, name: w.name, uid: w.uid };
    const revision = adoption?.revisions.get(workloadKey(w));
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
          ...(revision !== undefined ? { podTemplateHash: revision } : {}),
        });
        break;
      }
      case 'ReplicaSet':
        if (adopted.has(w.key)) break;
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
          ...(revision !== undefined ? { revision } : {}),
          ...(w.storage ? { storage: w.storage } : {}),
          selectorLabels: w.selectorSpec.matchLabels ?? {},
        });
        break;
      }
      case 'DaemonSet': {
        const strategy = updateStrategy(r);
        sim.daemonSets.add({ ...base, selector: w.selector, template: w.template, ...minReady, ...(strategy ? { updateStrategy: strategy } : {}), ...(revision !== undefined ? { hash: revision } : {}) });
        break;
      }
    }
  }
}

/**
 * Adds the input's Jobs and CronJobs. A Job a CronJob of the input owns (a dump
 * taken while it ran) is counted among the CronJob's active Jobs.
 */
export function addJobs(sim: Simulation, jobs: readonly JobSummary[], cronJobs: readonly CronJobSummary[]): void {
  const crons = new Map(cronJobs.map((c) => [`${c.namespace}/${c.name}`, sim.cronJobs.add(c)]));
  for (const j of jobs) {
    const cron = j.owner?.kind === 'CronJob' ? crons.get(`${j.namespace}/${j.owner.name}`) : undefined;
    const job = sim.jobs.add({ namespace: j.namespace, name: j.name, uid: j.uid, spec: j.spec, finished: j.finished, ...(cron ? { owner: cron.uid } : {}) });
    if (cron && !j.finished) sim.cronJobs.adoptActive(cron, job);
  }
}
