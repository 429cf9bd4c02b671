// Builders shared by the disruption tests (not used by the engine): NodePools,
// nodes launched from the bundled catalog, pods.

import { ClusterState } from '../cluster/state.js';
import type { PodSpecManifest } from '../model/manifest.js';
import { compileNodePool, type NodePool, type NodePoolManifest } from '../model/nodepool.js';
import { compilePod, type Pod } from '../model/pod.js';
import type { Node } from '../model/node.js';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import type { CapacityType, InstanceType } from '../provisioner/catalog/types.js';
import { launchedNode } from '../provisioner/launched-node.js';

export const CATALOG: readonly InstanceType[] = bundledInstanceTypes();

type Spec = NodePoolManifest['spec'];

/** A NodePool "default" with the given capacity types and disruption settings. */
export function nodePool(o: { capacityTypes?: string[]; disruption?: Spec['disruption']; labels?: Record<string, string>; expireAfter?: string; terminationGracePeriod?: string; requirements?: Spec['template']['spec']['requirements'] } = {}): NodePool {
  return compileNodePool({
    metadata: { name: 'default' },
    spec: {
      template: {
        ...(o.labels ? { metadata: { labels: o.labels } } : {}),
        spec: {
          requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: o.capacityTypes ?? ['on-demand'] }, ...(o.requirements ?? [])],
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          ...(o.expireAfter ? { expireAfter: o.expireAfter } : {}),
          ...(o.terminationGracePeriod ? { terminationGracePeriod: o.terminationGracePeriod } : {}),
        },
      },
      disruption: o.disruption ?? { budgets: [{ nodes: '100%' }] },
    },
  });
}

/** A node as Karpenter launches it from `pool`, of catalog type `type`. */
export function catalogNode(name: string, pool: NodePool, type: string, o: { zone?: string; capacityType?: CapacityType; creation?: number; annotations?: Record<string, string> } = {}): Node {
  const it = CATALOG.find((t) => t.name === type)!;
  const node = launchedNode(name, pool, it, { zone: o.zone ?? 'us-west-2a', capacityType: o.capacityType ?? 'on-demand' }, o.creation ?? 0);
  return { ...node, annotations: { ...node.annotations, ...o.annotations } };
}

let order = 0;
export function boundPod(name: string, nodeName: string, cpu: string, o: { labels?: Record<string, string>; annotations?: Record<string, string>; spec?: Partial<PodSpecManifest> } = {}): Pod {
  return compilePod(
    { metadata: { name, namespace: 'default', labels: o.labels ?? {}, annotations: o.annotations ?? {} }, spec: { nodeName, containers: [{ name: 'c', resources: { requests: { cpu, memory: '256Mi' } } }], ...o.spec } },
    { order: order++ },
  );
}

export function clusterOf(nodes: readonly Node[], pods: readonly Pod[]): ClusterState {
  const c = new ClusterState();
  for (const n of nodes) c.addNode(n);
  for (const p of pods) c.addPod({ ...p, phase: p.nodeName ? 'Running' : 'Pending' });
  return c;
}
