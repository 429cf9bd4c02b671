// Builders shared by the analyzer's tests (not used by the checks).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadSources, type LoadedInput } from '../io/load.js';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import type { AnalysisContext } from './check.js';

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
