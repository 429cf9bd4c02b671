// A sim-vs-real scenario: static nodes over zones, workloads, and steps. The
// same manifests are applied to the real cluster and loaded by the simulator;
// both sides run the same phases: first each workload is scaled from 0 to its
// replicas (one at a time, so the two sides create pods in the same order),
// then each step.

import type { KubeObject } from '../../src/live/objects.js';

export interface SvrNode {
  readonly name: string;
  readonly zone: string;
  /** Allocatable CPU in millicores (memory and pods are never the limit). */
  readonly cpuMilli: number;
}

export type IntOrPercent = number | string;

export interface SvrWorkload {
  readonly name: string;
  readonly kind: 'Deployment' | 'StatefulSet';
  readonly replicas: number;
  readonly cpuMilli: number;
  readonly antiAffinity: 'none' | 'required' | 'preferred';
  readonly zoneSpread: 'none' | 'DoNotSchedule' | 'ScheduleAnyway';
  readonly pdb?: { readonly minAvailable?: IntOrPercent; readonly maxUnavailable?: IntOrPercent };
  /** Deployments only. */
  readonly maxSurge?: IntOrPercent;
  readonly maxUnavailable?: IntOrPercent;
}

export type SvrStep =
  | { readonly scale: { readonly workload: string; readonly replicas: number } }
  | { readonly rollout: { readonly workload: string } }
  | { readonly cordon: string }
  | { readonly drain: string }
  | { readonly failNode: string }
  | { readonly removeNode: string }
  /** The newest pod of the workload on the node (nothing when it has none there). */
  | { readonly deletePod: { readonly workload: string; readonly node: string } };

export interface SvrScenario {
  readonly name: string;
  readonly nodes: readonly SvrNode[];
  readonly workloads: readonly SvrWorkload[];
  readonly steps: readonly SvrStep[];
}

export type Phase = { readonly create: string } | SvrStep;

/** Every phase in order: the workloads' creations, then the steps. */
export function phases(s: SvrScenario): Phase[] {
  return [...s.workloads.map((w) => ({ create: w.name })), ...s.steps];
}

export function describePhase(p: Phase): string {
  const [k, v] = Object.entries(p)[0]!;
  return `${k} ${typeof v === 'string' ? v : Object.values(v as object).join(' ')}`;
}

export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const KWOK_ANNOTATION = 'kwok.x-k8s.io/node';

export function nodeManifest(n: SvrNode): KubeObject {
  // Written as the API server canonicalizes it (2000m is stored as 2).
  const allocatable = { cpu: n.cpuMilli % 1000 === 0 ? String(n.cpuMilli / 1000) : `${n.cpuMilli}m`, memory: '64Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: n.name,
      labels: { 'kubernetes.io/hostname': n.name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', [ZONE_LABEL]: n.zone, type: 'kwok' },
      annotations: { [KWOK_ANNOTATION]: 'fake' },
    },
    spec: {},
    status: { capacity: allocatable, allocatable },
  } as KubeObject;
}

/** The image of a workload's template at a revision (1 at creation, +1 per rollout). */
export const imageOf = (revision: number) => `registry.k8s.io/pause:3.${revision}`;

function podSpec(w: SvrWorkload, revision: number): Record<string, unknown> {
  const term = { labelSelector: { matchLabels: { app: w.name } }, topologyKey: 'kubernetes.io/hostname' };
  const affinity =
    w.antiAffinity === 'required'
      ? { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } }
      : w.antiAffinity === 'preferred'
        ? { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] } }
        : undefined;
  return {
    terminationGracePeriodSeconds: 0,
    containers: [{ name: 'app', image: imageOf(revision), resources: { requests: { cpu: `${w.cpuMilli}m`, memory: '64Mi' } } }],
    ...(affinity ? { affinity } : {}),
    ...(w.zoneSpread !== 'none'
      ? { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: ZONE_LABEL, whenUnsatisfiable: w.zoneSpread, labelSelector: { matchLabels: { app: w.name } } }] }
      : {}),
  };
}

/** The workload as created (0 replicas; its creation phase scales it). */
export function workloadManifests(w: SvrWorkload, namespace: string): KubeObject[] {
  const template = { metadata: { labels: { app: w.name } }, spec: podSpec(w, 1) };
  const spec =
    w.kind === 'Deployment'
      ? {
          replicas: 0,
          selector: { matchLabels: { app: w.name } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: w.maxSurge ?? '25%', maxUnavailable: w.maxUnavailable ?? '25%' } },
          template,
        }
      : { replicas: 0, serviceName: w.name, selector: { matchLabels: { app: w.name } }, template };
  const out: KubeObject[] = [{ apiVersion: 'apps/v1', kind: w.kind, metadata: { name: w.name, namespace }, spec } as KubeObject];
  if (w.pdb) out.push({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: w.name, namespace }, spec: { ...w.pdb, selector: { matchLabels: { app: w.name } } } } as KubeObject);
  return out;
}

export function manifests(s: SvrScenario, namespace: string): KubeObject[] {
  return [...s.nodes.map(nodeManifest), ...s.workloads.flatMap((w) => workloadManifests(w, namespace))];
}

/** Checks the references of a scenario read from a file. */
export function validateScenario(s: SvrScenario, where: string): void {
  const nodes = new Set(s.nodes.map((n) => n.name));
  const workloads = new Map(s.workloads.map((w) => [w.name, w]));
  s.steps.forEach((step, i) => {
    const [k, v] = Object.entries(step)[0]!;
    const node = typeof v === 'string' ? v : (v as { node?: string }).node;
    const workload = typeof v === 'string' ? undefined : (v as { workload?: string }).workload;
    if (node !== undefined && !nodes.has(node)) throw new Error(`${where}: steps[${i}].${k}: no node ${JSON.stringify(node)}`);
    if (workload !== undefined && !workloads.has(workload)) throw new Error(`${where}: steps[${i}].${k}: no workload ${JSON.stringify(workload)}`);
    if (k === 'rollout' && workloads.get(workload!)?.kind !== 'Deployment' && workloads.get(workload!)?.kind !== 'StatefulSet') throw new Error(`${where}: steps[${i}].rollout: not a workload`);
  });
}
