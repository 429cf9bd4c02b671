// Stamps a WorkloadSpec out into berth's model objects, naming and labelling
// nodes and pods exactly as the oracle's bench mode does for the upstream side.

import { compileNode, LABEL_HOSTNAME, type Node } from '../src/model/node.js';
import { compilePod, type Pod } from '../src/model/pod.js';
import { LABEL_ZONE, type NodeGroup, type PodGroup, type WorkloadSpec } from './workloads.js';

export interface Materialized {
  readonly nodes: Node[];
  readonly initPods: Pod[];
  readonly measuredPods: Pod[];
}

export function nodeName(g: NodeGroup, i: number): string {
  return g.exactName ? g.prefix : `${g.prefix}-${i}`;
}

function stampNodes(groups: readonly NodeGroup[]): Node[] {
  const out: Node[] = [];
  for (const g of groups) {
    for (let i = 0; i < g.count; i++) {
      const name = nodeName(g, i);
      const m = structuredClone(g.template);
      const labels: Record<string, string> = { ...m.metadata.labels, [LABEL_HOSTNAME]: name };
      if (g.zones && g.zones.length > 0) labels[LABEL_ZONE] = g.zones[i % g.zones.length]!;
      out.push(compileNode({ ...m, metadata: { ...m.metadata, name, labels } }, out.length));
    }
  }
  return out;
}

function stampPods(groups: readonly PodGroup[], measured: boolean, first: number): Pod[] {
  const out: Pod[] = [];
  for (const g of groups) {
    if (g.measured !== measured) continue;
    for (let i = 0; i < g.count; i++) {
      // Each pod gets its own copy, as pods decoded from separate objects would (no shared arrays).
      const m = structuredClone(g.template);
      out.push(compilePod({ ...m, metadata: { ...m.metadata, name: `${g.prefix}-${i}`, namespace: g.namespace } }, { order: first + out.length }));
    }
  }
  return out;
}

export function materialize(spec: WorkloadSpec): Materialized {
  const initPods = stampPods(spec.pods, false, 0);
  return { nodes: stampNodes(spec.nodes), initPods, measuredPods: stampPods(spec.pods, true, initPods.length) };
}
