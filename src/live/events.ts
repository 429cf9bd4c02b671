// Kubernetes Events the controller writes (core/v1 Event): on pods (why a pod gets,
// or cannot get, a node), on nodes (why a node is disrupted) and on NodeClaims (why a
// launch failed). Events of a cluster-scoped object live in the default namespace, as
// the kubelet's do.

import type { KubeObject } from './objects.js';

/** `about.apiVersion` defaults to v1 (core objects). */
export function eventObject(about: { apiVersion?: string; kind: string; object: KubeObject }, reason: string, message: string, type: 'Normal' | 'Warning', identity: string, now = new Date()): KubeObject {
  const { metadata } = about.object;
  const namespace = metadata?.namespace ?? 'default';
  const at = now.toISOString();
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { generateName: `${metadata?.name ?? about.kind.toLowerCase()}.`, namespace },
    involvedObject: { apiVersion: about.apiVersion ?? 'v1', kind: about.kind, name: metadata?.name, ...(metadata?.namespace ? { namespace: metadata.namespace } : {}), uid: metadata?.uid },
    reason,
    message,
    type,
    source: { component: 'berth' },
    reportingComponent: 'berth',
    reportingInstance: identity,
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
  } as KubeObject;
}
