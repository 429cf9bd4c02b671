// Small builders shared by the simulator's tests (not used by the engine).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ClusterState } from '../cluster/state.js';
import { loadSources } from '../io/load.js';
import { loadScenario } from '../io/scenario.js';
import type { PodSpecManifest } from '../model/manifest.js';
import { compileNode } from '../model/node.js';
import { compilePod, type Pod } from '../model/pod.js';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import type { DeploymentInit, DeploymentStrategy } from './controllers/deployment.js';
import { runScenario, type ScenarioRun } from './scenario.js';

export function clusterWithNodes(nodes: readonly { name: string; cpu?: string; memory?: string; zone?: string }[]): ClusterState {
  const cluster = new ClusterState();
  nodes.forEach((n, i) =>
    cluster.addNode(
      compileNode(
        {
          metadata: { name: n.name, labels: { 'kubernetes.io/hostname': n.name, ...(n.zone ? { 'topology.kubernetes.io/zone': n.zone } : {}) } },
          status: { allocatable: { cpu: n.cpu ?? '4', memory: n.memory ?? '8Gi', pods: 110 } },
        },
        i,
      ),
    ),
  );
  return cluster;
}

export function node(name: string, cpu = '4') {
  return compileNode({ metadata: { name, labels: { 'kubernetes.io/hostname': name } }, status: { allocatable: { cpu, memory: '8Gi', pods: 110 } } }, 0);
}

export function pod(name: string, opts: { cpu?: string; priority?: number; nodeName?: string; labels?: Record<string, string>; grace?: number } = {}): Pod {
  return compilePod(
    {
      metadata: { name, namespace: 'default', labels: opts.labels ?? {} },
      spec: {
        containers: [{ name: 'c', resources: { requests: { cpu: opts.cpu ?? '1' } } }],
        ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
        ...(opts.nodeName ? { nodeName: opts.nodeName } : {}),
        ...(opts.grace !== undefined ? { terminationGracePeriodSeconds: opts.grace } : {}),
      },
    },
    { order: 0 },
  );
}

export interface AppOptions {
  readonly replicas: number;
  readonly strategy?: DeploymentStrategy;
  readonly cpu?: string;
  readonly antiAffinity?: boolean;
  readonly image?: string;
  readonly progressDeadlineSeconds?: number | null;
  readonly grace?: number;
}

/** A Deployment `app` whose template selects app=<name>; `image` stands for the template change of a rollout. */
export function app(name: string, o: AppOptions): DeploymentInit {
  const labels = { app: name };
  const spec: PodSpecManifest = {
    containers: [{ name: 'c', image: o.image ?? 'v1', resources: { requests: { cpu: o.cpu ?? '100m' } } }],
    terminationGracePeriodSeconds: o.grace ?? 30,
    ...(o.antiAffinity
      ? { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: labels }, topologyKey: 'kubernetes.io/hostname' }] } } }
      : {}),
  };
  const template = { metadata: { labels }, spec };
  const templatePod = compilePod({ metadata: { name, namespace: 'default', labels }, spec }, { order: 0 });
  return {
    namespace: 'default',
    name,
    uid: `uid-${name}`,
    replicas: o.replicas,
    selector: { matchLabels: labels },
    template,
    templatePod,
    ...(o.strategy ? { strategy: o.strategy } : {}),
    ...(o.progressDeadlineSeconds !== undefined ? { progressDeadlineSeconds: o.progressDeadlineSeconds } : {}),
  };
}

/** The template of `app(name, o)` with another image: what a rollout sets. */
export function rolloutTemplate(name: string, o: AppOptions) {
  const d = app(name, o);
  return { template: d.template, templatePod: d.templatePod };
}

/** Loads and runs a Scenario document (its `files:` read relative to `file`), failing the test on invalid input. */
export function runScenarioText(file: string, text: string, opts: { seed?: number; untilMs?: number } = {}): ScenarioRun {
  const s = loadScenario({ name: file, text });
  assert.ok(s.ok, JSON.stringify(!s.ok && s.errors));
  const loaded = loadSources([{ name: file, text }, ...s.scenario.files.map((f) => ({ name: f, text: readFileSync(f, 'utf8') }))]);
  assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.errors));
  return runScenario(loaded.input, s.scenario.spec, { instanceTypes: bundledInstanceTypes(), ...opts });
}

/** A YAML fragment written one field a line, each line indented by `prefix` (blank lines dropped). */
export const indentLines = (text: string, prefix = '  ') =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => prefix + l)
    .join('\n');
