// An in-memory API server for the live disruption tests: nodes, pods, NodePools
// and NodeClaims as the informers would hold them, the calls the controller makes,
// and berth-launched nodes built exactly as the kwok provider builds them.

import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import type { DisruptionHost, DisruptionKube } from './disruption.js';
import type { Evict, EvictionResult } from './eviction.js';
import { kwokNode } from './kwok-provider.js';
import type { KubeObject } from './objects.js';
import { liveNodePools, type LiveObjects } from './plan-batch.js';
import { claimOf, iso, liveObjects, nodePool, pod, T0 } from './test-objects.test-support.js';
import { LABEL_NODE_INITIALIZED, LABEL_NODE_REGISTERED } from '../provisioner/labels.js';

export const CATALOG: readonly InstanceType[] = bundledInstanceTypes();

/** A NodePool "default" with a disruption policy (budgets 100%, consolidateAfter 0s unless given). */
export function disruptionPool(disruption: Record<string, unknown> = {}): KubeObject {
  const np = nodePool('default');
  return { ...np, spec: { ...(np.spec as object), disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s', budgets: [{ nodes: '100%' }], ...disruption } } };
}

/** A Ready node berth launched for claim `name` of NodePool "default" (c5a.large: the cheapest type the pool allows), registered and initialized. */
export function launched(name: string, instanceType = 'c5a.large', pool = disruptionPool()): KubeObject {
  const node = kwokNode({
    claim: claimOf(name, { instanceType, launched: true, registered: true, initialized: true }),
    pool: liveNodePools({ nodePools: [pool] })[0]!,
    instanceType: CATALOG.find((t) => t.name === instanceType)!,
  });
  const labels = { ...node.metadata?.labels, [LABEL_NODE_REGISTERED]: 'true', [LABEL_NODE_INITIALIZED]: 'true' };
  return { ...node, metadata: { ...node.metadata, labels, uid: `uid-${name}`, creationTimestamp: iso(T0) }, status: { ...(node.status as object), conditions: [{ type: 'Ready', status: 'True' }] } };
}

export function claimFor(name: string, instanceType = 'c5a.large'): KubeObject {
  return { metadata: { name, uid: `uid-claim-${name}`, creationTimestamp: iso(T0) }, spec: { nodePool: 'default', instanceType, zone: 'us-west-2a', capacityType: 'on-demand' } };
}

/** A running pod of a ReplicaSet (or of `owner`), bound to `node`. */
export function boundPod(name: string, node: string, opts: { cpu?: string; owner?: string; annotations?: Record<string, string> } = {}): KubeObject {
  const p = pod(name, { node, cpu: opts.cpu ?? '250m' });
  return {
    ...p,
    metadata: { ...p.metadata, annotations: opts.annotations ?? {}, ownerReferences: [{ apiVersion: 'apps/v1', kind: opts.owner ?? 'ReplicaSet', name: `${name}-owner`, uid: `uid-${name}-owner`, controller: true }] } as KubeObject['metadata'],
  };
}

export type Call = [verb: string, what: string];

export class FakeCluster {
  readonly calls: Call[] = [];
  nodes: KubeObject[] = [];
  pods: KubeObject[] = [];
  nodePools: KubeObject[] = [disruptionPool()];
  nodeClaims: KubeObject[] = [];
  events: KubeObject[] = [];
  /** What the eviction of each pod answers (default evicted); an evicted pod is gone at once, as kwok deletes it. */
  readonly evictions = new Map<string, EvictionResult>();
  /** A created NodeClaim registers its Ready node at once. */
  registerClaims = true;
  leading = true;
  private generated = 0;

  /** Berth-launched Ready nodes with their claims, and pods. */
  static with(nodes: readonly string[], pods: readonly KubeObject[] = [], instanceType?: string): FakeCluster {
    const c = new FakeCluster();
    c.nodes = nodes.map((n) => launched(n, instanceType));
    c.nodeClaims = nodes.map((n) => claimFor(n, instanceType));
    c.pods = [...pods];
    return c;
  }

  objects(): LiveObjects {
    return liveObjects({ nodes: this.nodes, pods: this.pods, nodePools: this.nodePools, nodeClaims: this.nodeClaims });
  }

  readonly kube: DisruptionKube = {
    create: async <T extends KubeObject>(o: T): Promise<T> => {
      const name = o.metadata?.name ?? `${o.metadata?.generateName ?? ''}${String(++this.generated).padStart(5, 'x')}`;
      const created = { ...o, metadata: { ...o.metadata, name, creationTimestamp: iso(T0) } };
      this.calls.push(['create', `${o.kind}/${name}`]);
      if (o.kind === 'Event') this.events.push(created);
      if (o.kind === 'NodeClaim') this.nodeClaims.push(created);
      return created;
    },
    update: async (_apiVersion: string, kind: string, name: string, mutate: (o: KubeObject) => KubeObject | undefined) => {
      const node = kind === 'Node' ? this.nodes.find((n) => n.metadata?.name === name) : undefined;
      const next = node && mutate(node);
      if (!next) return node;
      this.calls.push(['update', `Node/${name}`]);
      this.nodes = this.nodes.map((n) => (n === node ? next : n));
      return next;
    },
    delete: async (_apiVersion: string, kind: string, name: string) => {
      this.calls.push(['delete', `${kind}/${name}`]);
      if (kind === 'NodeClaim') this.nodeClaims = this.nodeClaims.filter((c) => c.metadata?.name !== name);
      if (kind === 'Pod') this.pods = this.pods.filter((p) => p.metadata?.name !== name);
    },
  };

  readonly cloud = {
    delete: async (instance: { nodeName: string }): Promise<void> => {
      this.calls.push(['cloud.delete', instance.nodeName]);
      this.nodes = this.nodes.filter((n) => n.metadata?.name !== instance.nodeName);
    },
  };

  readonly evict: Evict = async (p) => {
    const name = p.metadata?.name ?? '';
    const result = this.evictions.get(name) ?? 'evicted';
    this.calls.push(['evict', `${result}:${name}`]);
    if (result === 'evicted') this.pods = this.pods.filter((x) => x.metadata?.name !== name);
    return result;
  };

  host(): DisruptionHost {
    return {
      objects: () => this.objects(),
      synced: () => true,
      leading: () => this.leading,
      identity: 'test',
      instanceTypes: () => CATALOG,
      launched: (claim) => {
        this.calls.push(['launch', claim.metadata?.name ?? '']);
        const spec = claim.spec as { instanceType: string };
        if (this.registerClaims) this.nodes.push(launched(claim.metadata!.name!, spec.instanceType));
      },
    };
  }

  /** Whether `node` carries berth's disrupted taint now. */
  tainted(node: string): boolean {
    const n = this.nodes.find((x) => x.metadata?.name === node);
    return ((n?.spec as { taints?: { key: string }[] } | undefined)?.taints ?? []).some((t) => t.key === 'karpenter.sh/disrupted');
  }
}
