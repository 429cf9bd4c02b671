// Builders shared by the analyzer's tests (not used by the checks).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { loadSources, type LoadedInput } from '../io/load.js';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import type { AnalysisContext, Check } from './check.js';
import type { Finding } from './finding.js';

export function inputOf(...texts: string[]): LoadedInput {
  const r = loadSources(texts.map((text, i) => ({ name: `input-${i}.yaml`, text })));
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  return r.input;
}

export const fileText = (path: string) => readFileSync(path, 'utf8');

export function contextOf(input: LoadedInput, provisioner = false): AnalysisContext {
  return { input, instanceTypes: bundledInstanceTypes(), provisioner, seed: 0 };
}

/** `count` nodes named node-1.. in the zones given round-robin. */
export function nodesYaml(count: number, zones: readonly string[] = ['us-west-2a', 'us-west-2b', 'us-west-2c'], cpu = '4'): string {
  return Array.from({ length: count }, (_, i) => {
    const name = `node-${i + 1}`;
    return `apiVersion: v1
kind: Node
metadata: {name: ${name}, labels: {kubernetes.io/hostname: ${name}, topology.kubernetes.io/zone: ${zones[i % zones.length]}}}
status: {allocatable: {cpu: "${cpu}", memory: 16Gi, pods: "110"}}
`;
  }).join('---\n');
}

/** A Deployment `web` whose pods keep off each other's nodes in the way `affinity` (a YAML flow map) says. */
export function webDeployment(opts: { replicas: number; affinity?: string; strategy?: string; spread?: string }): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: ${opts.replicas}
${opts.strategy ? `  strategy: ${opts.strategy}\n` : ''}  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
${opts.affinity ? `      affinity: ${opts.affinity}\n` : ''}${opts.spread ? `      topologySpreadConstraints: ${opts.spread}\n` : ''}      containers: [{name: web, image: "web:1", resources: {requests: {cpu: 500m, memory: 256Mi}}}]
`;
}

export const REQUIRED_HOSTNAME_ANTI = '{podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}';
export const PREFERRED_HOSTNAME_ANTI =
  '{podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}}]}}';

/** Loads YAML texts and files (paths relative to the repository root); throws on any load error. */
export function loadInput(...sources: readonly ({ text: string } | { file: string })[]): LoadedInput {
  const r = loadSources(sources.map((s, i) => ('file' in s ? { name: s.file, text: readFileSync(s.file, 'utf8') } : { name: `input-${i}.yaml`, text: s.text })));
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.file}:${e.line}:${e.column} ${e.message}`).join('\n'));
  return r.input;
}

/** contextOf with seed 1, the provisioner on when the input has NodePools unless told. */
export function contextFor(input: LoadedInput, opts: { provisioner?: boolean; scaleUp?: number } = {}): AnalysisContext {
  return { ...contextOf(input, opts.provisioner ?? input.nodePools.length > 0), seed: 1, ...(opts.scaleUp !== undefined ? { scaleUp: opts.scaleUp } : {}) };
}

/** A node with hostname and zone labels, as a YAML list item. */
export function nodeYaml(name: string, zone: string, cpu = '4'): string {
  return `- {apiVersion: v1, kind: Node, metadata: {name: ${name}, labels: {kubernetes.io/hostname: ${name}, topology.kubernetes.io/zone: ${zone}}}, status: {allocatable: {cpu: "${cpu}", memory: 16Gi, pods: "110"}}}`;
}

/** A Deployment whose pods request 500m CPU, as a YAML list item; `spec` is extra pod-spec YAML indented for the template. */
export function deploymentYaml(name: string, replicas: number, spec = ''): string {
  return `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: ${name}, namespace: default}
  spec:
    replicas: ${replicas}
    selector: {matchLabels: {app: ${name}}}
    template:
      metadata: {labels: {app: ${name}}}
      spec:
        containers: [{name: c, image: app:v1, resources: {requests: {cpu: 500m, memory: 256Mi}}}]
${spec}`;
}

/** deploymentYaml's workload as a StatefulSet, with a 1Gi ReadWriteOnce volumeClaimTemplate "data" (default class) unless `claims` is false. */
export function statefulSetYaml(name: string, replicas: number, claims = true): string {
  const sts = deploymentYaml(name, replicas).replace('kind: Deployment', 'kind: StatefulSet');
  return claims ? `${sts}    volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]` : sts.trimEnd();
}

export const listYaml = (...items: string[]) => `apiVersion: v1\nkind: List\nitems:\n${items.join('\n')}\n`;

export interface CheckCase {
  readonly name: string;
  readonly input: () => LoadedInput;
  /** Defaults to on when the input has NodePools. */
  readonly provisioner?: boolean;
  /** --scale-up F. */
  readonly scaleUp?: number;
  /** "severity object" of each finding, in order; [] for a clean input. */
  readonly want: readonly string[];
  /** What every finding's message must say. */
  readonly message?: RegExp;
}

/**
 * One test per case: the check finds exactly `want`, each finding carries its rule
 * and message, and every machine-applicable fix, applied and re-checked, leaves no
 * finding on that object. `more` adds assertions per finding.
 */
export function checkCases(check: Check, cases: readonly CheckCase[], more?: (f: Finding, input: LoadedInput) => void): void {
  for (const c of cases) {
    it(c.name, () => {
      const input = c.input();
      const opts = { ...(c.provisioner === undefined ? {} : { provisioner: c.provisioner }), ...(c.scaleUp === undefined ? {} : { scaleUp: c.scaleUp }) };
      const findings = check.run(contextFor(input, opts));
      assert.deepEqual(findings.map((f) => `${f.severity} ${f.object}`), c.want, findings.map((f) => f.message).join('\n'));
      for (const f of findings) {
        assert.equal(f.rule, check.rule);
        if (c.message) assert.match(f.message, c.message);
        more?.(f, input);
        for (const r of f.remedies ?? []) {
          const again = check.run(contextFor(r.apply(input), opts)).filter((x) => x.object === f.object);
          assert.deepEqual(again.map((x) => `${x.severity}: ${x.message}`), [], `after "${r.description}"`);
        }
      }
    });
  }
}
