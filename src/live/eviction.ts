// Evicting a pod through the Eviction API (POST pods/{name}/eviction, policy/v1),
// so the API server checks its PodDisruptionBudgets: 429 means a PDB (or the API
// server's own throttling) refuses it now and the caller tries again later. Pods
// are deleted directly only when a NodeClaim's terminationGracePeriod runs out (termination.ts).

import { CoreV1Api } from '@kubernetes/client-node';
import { statusCode, type Kube } from './kube.js';
import type { KubeObject } from './objects.js';

/** evicted: the pod is terminating; blocked: refused for now (429), try later; gone: no such pod. */
export type EvictionResult = 'evicted' | 'blocked' | 'gone';

export type Evict = (pod: KubeObject) => Promise<EvictionResult>;

/** What a failed eviction call means; other failures are thrown on. */
export function evictionFailure(e: unknown): EvictionResult {
  const code = statusCode(e);
  if (code === 429) return 'blocked';
  if (code === 404) return 'gone';
  throw e;
}

export function apiEvictor(kube: Kube): Evict {
  const core = kube.config.makeApiClient(CoreV1Api);
  return async (pod) => {
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? 'default';
    try {
      // The uid precondition: a pod of the same name recreated meanwhile is not evicted by mistake.
      const uid = pod.metadata?.uid;
      await core.createNamespacedPodEviction({
        name,
        namespace,
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace }, ...(uid ? { deleteOptions: { preconditions: { uid } } } : {}) },
      });
      return 'evicted';
    } catch (e) {
      // A changed uid fails its precondition with 409: the pod we meant is gone.
      if (statusCode(e) === 409) return 'gone';
      return evictionFailure(e);
    }
  };
}

/** Deletes a pod with the given grace period (termination past the node's deadline); a pod already gone is not an error. */
export type DeletePod = (pod: KubeObject, graceSeconds: number) => Promise<void>;

export function apiPodDeleter(kube: Kube): DeletePod {
  const core = kube.config.makeApiClient(CoreV1Api);
  return async (pod, graceSeconds) => {
    const uid = pod.metadata?.uid;
    try {
      await core.deleteNamespacedPod({
        name: pod.metadata?.name ?? '',
        namespace: pod.metadata?.namespace ?? 'default',
        gracePeriodSeconds: graceSeconds,
        body: { gracePeriodSeconds: graceSeconds, ...(uid ? { preconditions: { uid } } : {}) },
      });
    } catch (e) {
      const code = statusCode(e);
      if (code !== 404 && code !== 409) throw e;
    }
  };
}
