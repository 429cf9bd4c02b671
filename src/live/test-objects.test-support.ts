// API objects as the informers hold them, for the live controller's unit tests.

import type { Claim } from './claims.js';
import type { KubeObject } from './objects.js';
import type { LiveObjects } from './plan-batch.js';

export const T0 = Date.parse('2026-12-03T07:00:00Z');
export const iso = (ms: number): string => new Date(ms).toISOString();

export function nodePool(name: string, extra: { limits?: Record<string, string>; zones?: string[]; requirements?: unknown[] } = {}): KubeObject {
  const requirements = [
    { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
    { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm'] },
    ...(extra.zones ? [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: extra.zones }] : []),
    ...(extra.requirements ?? []),
  ];
  return {
    metadata: { name, uid: `uid-${name}`, creationTimestamp: iso(T0) },
    spec: { template: { spec: { requirements, nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } }, ...(extra.limits ? { limits: extra.limits } : {}) },
  };
}

const ANTI = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } }] } };

export function pod(name: string, opts: { node?: string; unschedulable?: boolean; antiAffinity?: boolean; cpu?: string; nodeSelector?: Record<string, string>; phase?: string } = {}): KubeObject {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { app: 'web' }, creationTimestamp: iso(T0) },
    spec: {
      ...(opts.node ? { nodeName: opts.node } : {}),
      ...(opts.antiAffinity ? { affinity: ANTI } : {}),
      ...(opts.nodeSelector ? { nodeSelector: opts.nodeSelector } : {}),
      containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: opts.cpu ?? '500m', memory: '256Mi' } } }],
    },
    status: {
      phase: opts.phase ?? (opts.node ? 'Running' : 'Pending'),
      ...(opts.unschedulable ? { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available' }] } : {}),
    },
  };
}

export function node(name: string, labels: Record<string, string> = {}, created = T0): KubeObject {
  return {
    metadata: { name, uid: `uid-${name}`, labels: { 'kubernetes.io/hostname': name, ...labels }, creationTimestamp: iso(created) },
    status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' }, capacity: { cpu: '4', memory: '16Gi', pods: '110' } },
  };
}

export function nodeClaim(name: string, spec: { nodePool: string; instanceType: string; zone: string; capacityType?: string }, created = T0): KubeObject {
  return { metadata: { name, uid: `uid-${name}`, creationTimestamp: iso(created) }, spec: { capacityType: 'on-demand', ...spec } };
}

export function liveObjects(parts: Partial<LiveObjects>): LiveObjects {
  return { pods: [], nodes: [], namespaces: [], nodePools: [], nodeClaims: [], pdbs: [], services: [], replicaSets: [], statefulSets: [], daemonSets: [], ...parts };
}

/** A Claim as readClaim returns it: on-demand m5.large in us-west-2a of NodePool "default", nothing recorded, unless overridden. */
export function claimOf(name: string, over: Partial<Claim> = {}): Claim {
  return {
    name, nodePool: 'default', instanceType: 'm5.large', zone: 'us-west-2a', capacityType: 'on-demand', created: T0, terminating: false, deleted: 0,
    launched: false, registered: false, initialized: false, providerID: '', expireAfterMs: null, terminationGracePeriodMs: null, pricePerHour: null, ...over,
  };
}
