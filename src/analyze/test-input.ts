// Builders shared by the analyzer's tests (not used by the checks): inputs from
// YAML texts or example files, and an analysis context over them.

import { readFileSync } from 'node:fs';
import { loadSources, type LoadedInput } from '../io/load.js';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import type { AnalysisContext } from './check.js';

/** Loads YAML texts and files (paths relative to the repository root); throws on any load error. */
export function loadInput(...sources: readonly ({ text: string } | { file: string })[]): LoadedInput {
  const r = loadSources(sources.map((s, i) => ('file' in s ? { name: s.file, text: readFileSync(s.file, 'utf8') } : { name: `input-${i}.yaml`, text: s.text })));
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.file}:${e.line}:${e.column} ${e.message}`).join('\n'));
  return r.input;
}

export function contextFor(input: LoadedInput, opts: { provisioner?: boolean } = {}): AnalysisContext {
  return { input, instanceTypes: bundledInstanceTypes(), provisioner: opts.provisioner ?? input.nodePools.length > 0, seed: 1 };
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

export const listYaml = (...items: string[]) => `apiVersion: v1\nkind: List\nitems:\n${items.join('\n')}\n`;
