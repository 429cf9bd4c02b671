// Scenario actions applied to a running simulation: operations (scale, rollout,
// cordon, drain, nodes added or removed by hand, the provisioner switched) and
// faults (a node or zone failing and recovering, an instance terminated, a spot
// interruption, insufficient capacity for some offerings).

import { admitClass, defaultClass } from '../io/load-volumes.js';
import { LABEL_ZONE } from '../model/node.js';
import { changedPod, type Pod } from '../model/pod.js';
import { compilePersistentVolumeClaim } from '../model/volumes.js';
import type { Action } from '../io/scenario-spec.js';
import type { Simulation } from './simulation.js';

/** The annotation `kubectl rollout restart` sets; used when a rollout names no image. */
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';

interface TemplateLike {
  metadata?: { annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: { containers: { name: string; image?: string }[] };
}

/** The written template and its compiled pod with one container's image changed, or the restart annotation set. */
export function changedTemplate(template: unknown, templatePod: Pod, change: { image?: string; container?: string }, now: number): { template: TemplateLike; templatePod: Pod } {
  const t = structuredClone(template) as TemplateLike;
  if (change.image === undefined) {
    const stamp = `t+${now / 1000}s`;
    t.metadata = { ...t.metadata, annotations: { ...t.metadata?.annotations, [RESTARTED_AT_ANNOTATION]: stamp } };
    return { template: t, templatePod: changedPod(templatePod, { annotations: { ...templatePod.annotations, [RESTARTED_AT_ANNOTATION]: stamp } }) };
  }
  const i = change.container === undefined ? 0 : t.spec.containers.findIndex((c) => c.name === change.container);
  const container = t.spec.containers[i];
  if (!container) throw new Error(`no container ${JSON.stringify(change.container)} in the template`);
  const old = container.image ?? '';
  container.image = change.image;
  const images = [...templatePod.images];
  const at = images.indexOf(old);
  if (at >= 0) images[at] = change.image;
  return { template: t, templatePod: changedPod(templatePod, { images }) };
}

/** An error in a step that names something the cluster does not have. */
export class ActionError extends Error {}

function nodesOfZone(sim: Simulation, zone: string): string[] {
  const names = sim.world.cluster.nodeInfos().filter((i) => i.node.labels[LABEL_ZONE] === zone).map((i) => i.node.name);
  if (names.length === 0) throw new ActionError(`no node in zone ${JSON.stringify(zone)}`);
  return names;
}

function requireNode(sim: Simulation, name: string): void {
  if (!sim.world.cluster.nodeInfo(name)) throw new ActionError(`no node ${JSON.stringify(name)}`);
}

function setUnschedulable(sim: Simulation, name: string, unschedulable: boolean): void {
  requireNode(sim, name);
  const node = sim.world.cluster.nodeInfo(name)!.node;
  if (node.unschedulable !== unschedulable) sim.world.updateNode({ ...node, unschedulable }, unschedulable ? 'Cordoned' : 'Uncordoned');
}

export function applyAction(sim: Simulation, a: Action): void {
  const { world, engine } = sim;
  const volumes = world.cluster.volumes;
  engine.record('Step', { action: a.type, ...describe(a) });
  switch (a.type) {
    case 'scale':
      if (a.kind === 'Deployment') sim.deployments.scaleDeployment(mustHave(sim.deployments.objects, a.name, a.kind), a.replicas);
      else if (a.kind === 'StatefulSet') sim.statefulSets.scale(mustHave(sim.statefulSets.objects, a.name, a.kind), a.replicas);
      else sim.replicaSets.scale(sim.replicaSets.objects.get(mustHave(sim.replicaSets.objects, a.name, a.kind))!, a.replicas);
      return;
    case 'rollout': {
      if (a.kind === 'Deployment') {
        const d = sim.deployments.objects.get(mustHave(sim.deployments.objects, a.name, a.kind))!;
        const next = changedTemplate(d.template, d.templatePod, a, engine.now);
        sim.deployments.setTemplate(d.key, next.template, next.templatePod);
      } else if (a.kind === 'StatefulSet') {
        const s = sim.statefulSets.objects.get(mustHave(sim.statefulSets.objects, a.name, a.kind))!;
        const current = s.revisions.get(s.updateRevision)!;
        // The set keeps compiled revisions only; the written form it hashes is the change applied to the last revision.
        const next = changedTemplate({ spec: { containers: current.images.map((image, i) => ({ name: `c${i}`, image })) } }, current, a, engine.now);
        sim.statefulSets.setTemplate(s.key, { revision: s.updateRevision, ...next.template }, next.templatePod);
      } else {
        const ds = sim.daemonSets.objects.get(mustHave(sim.daemonSets.objects, a.name, a.kind))!;
        const next = changedTemplate(ds.template, ds.templatePod, a, engine.now);
        sim.daemonSets.setTemplate(ds.key, next.template as typeof ds.template);
      }
      return;
    }
    case 'failNode':
      requireNode(sim, a.node);
      world.setKubeletRunning(a.node, false);
      return;
    case 'recoverNode':
      requireNode(sim, a.node);
      world.setKubeletRunning(a.node, true);
      return;
    case 'failZone':
      // The zone is gone for launches too: replacements must come up elsewhere.
      sim.cloud.zoneDown(a.zone);
      for (const n of nodesOfZone(sim, a.zone)) world.setKubeletRunning(n, false);
      return;
    case 'recoverZone':
      sim.cloud.zoneUp(a.zone);
      for (const n of nodesOfZone(sim, a.zone)) world.setKubeletRunning(n, true);
      return;
    case 'terminateNode':
      requireNode(sim, a.node);
      sim.cloud.terminate(a.node, 'Terminated');
      return;
    case 'spotInterruption':
      requireNode(sim, a.node);
      sim.cloud.interrupt(a.node);
      return;
    case 'insufficientCapacity':
      sim.cloud.addIceWindow({
        ...(a.instanceType ? { instanceType: a.instanceType } : {}),
        ...(a.zone ? { zone: a.zone } : {}),
        ...(a.capacityType ? { capacityType: a.capacityType } : {}),
        from: engine.now,
        until: engine.now + a.durationMs,
      });
      return;
    case 'cordon':
      setUnschedulable(sim, a.node, true);
      return;
    case 'uncordon':
      setUnschedulable(sim, a.node, false);
      return;
    case 'drain':
      requireNode(sim, a.node);
      sim.disruption.drainNode(a.node);
      return;
    case 'addNode':
      if (world.cluster.nodeInfo(a.node.name)) throw new ActionError(`node ${JSON.stringify(a.node.name)} already exists`);
      world.addNode({ ...a.node, creation: engine.now });
      return;
    case 'removeNode':
      requireNode(sim, a.node);
      world.setKubeletRunning(a.node, false);
      world.deleteNode(a.node, 'Removed');
      return;
    case 'deletePod':
      if (!world.cluster.getPod(a.pod)) throw new ActionError(`no pod ${JSON.stringify(a.pod)}`);
      world.deletePod(a.pod, 'Deleted');
      return;
    case 'deleteStatefulSet':
      sim.statefulSets.remove(mustHave(sim.statefulSets.objects, a.name, 'StatefulSet'));
      return;
    case 'provisioner':
      if (!sim.provisioner) throw new ActionError('the scenario has no NodePool: there is no provisioner to switch');
      sim.provisioner.setEnabled(a.enabled);
      return;
    case 'updateNodePool':
      if (!sim.provisioner?.updatePool(a.pool)) throw new ActionError(`no NodePool ${JSON.stringify(a.pool.name)}`);
      sim.nodeDisruption?.updatePool(a.pool);
      return;
    case 'addPersistentVolume':
      if (volumes.persistentVolume(a.volume.name)) throw new ActionError(`PersistentVolume ${JSON.stringify(a.volume.name)} already exists`);
      world.setPersistentVolume(a.volume, 'VolumeCreated');
      return;
    case 'deletePersistentVolume':
      if (!volumes.persistentVolume(a.name)) throw new ActionError(`no PersistentVolume ${JSON.stringify(a.name)}`);
      world.deletePersistentVolume(a.name, 'Deleted');
      return;
    case 'addPersistentVolumeClaim': {
      const pvc = compilePersistentVolumeClaim(admitClass({ ...a.claim, metadata: { ...a.claim.metadata, uid: world.newUid() } }, defaultClass(volumes.storageClasses())));
      if (volumes.claim(pvc.namespace, pvc.name)) throw new ActionError(`PersistentVolumeClaim ${pvc.key} already exists`);
      world.setClaim(pvc, 'ClaimCreated');
      return;
    }
    case 'deletePersistentVolumeClaim': {
      const slash = a.claim.indexOf('/');
      if (!volumes.claim(a.claim.slice(0, slash), a.claim.slice(slash + 1))) throw new ActionError(`no PersistentVolumeClaim ${a.claim}`);
      world.deleteClaim(a.claim, 'Deleted');
      return;
    }
    case 'addStorageClass':
      if (volumes.storageClass(a.storageClass.name)) throw new ActionError(`StorageClass ${JSON.stringify(a.storageClass.name)} already exists`);
      world.setStorageClass(a.storageClass);
      return;
    case 'deleteStorageClass':
      if (!volumes.storageClass(a.name)) throw new ActionError(`no StorageClass ${JSON.stringify(a.name)}`);
      world.deleteStorageClass(a.name);
      return;
  }
}

function mustHave(map: ReadonlyMap<string, unknown>, key: string, kind: string): string {
  if (!map.has(key)) throw new ActionError(`no ${kind} ${key}`);
  return key;
}

/** The action's fields for the log (the node object of addNode reduced to its name). */
function describe(a: Action): Record<string, unknown> {
  const { type: _type, ...rest } = a;
  if (a.type === 'addNode') return { node: a.node.name };
  if (a.type === 'addPersistentVolume') return { volume: a.volume.name };
  if (a.type === 'addPersistentVolumeClaim') return { claim: `${a.claim.metadata.namespace || 'default'}/${a.claim.metadata.name ?? ''}` };
  if (a.type === 'addStorageClass') return { storageClass: a.storageClass.name };
  return a.type === 'updateNodePool' ? { nodePool: a.pool.name } : rest;
}
