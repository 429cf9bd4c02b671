// The few facts the controller reads straight off API objects (everything else
// goes through io/'s loader, as files do). Objects are plain JSON as the API
// server sends them.

export interface ObjectMeta {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly ownerReferences?: readonly { readonly apiVersion?: string; readonly kind?: string; readonly name: string; readonly uid?: string; readonly controller?: boolean }[];
  readonly creationTimestamp?: string | Date;
  readonly deletionTimestamp?: string | Date;
  readonly finalizers?: readonly string[];
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  readonly spec?: unknown;
  readonly status?: unknown;
}

interface PodCondition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
}

interface PodFields {
  readonly spec?: { readonly nodeName?: string };
  readonly status?: { readonly phase?: string; readonly conditions?: readonly PodCondition[] };
}

const podFields = (o: KubeObject): PodFields => o as PodFields;

export function objectKey(o: KubeObject): string {
  const ns = o.metadata?.namespace;
  return ns ? `${ns}/${o.metadata?.name ?? ''}` : (o.metadata?.name ?? '');
}

/** Milliseconds since the epoch of metadata.creationTimestamp (0 when absent). */
export function createdAt(o: KubeObject): number {
  const t = o.metadata?.creationTimestamp;
  return t === undefined ? 0 : new Date(t).getTime();
}

export function isTerminating(o: KubeObject): boolean {
  return o.metadata?.deletionTimestamp != null;
}

/** Pods that finished hold no resources and are not scheduled again. */
export function isFinished(pod: KubeObject): boolean {
  const phase = podFields(pod).status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

export function isBound(pod: KubeObject): boolean {
  return Boolean(podFields(pod).spec?.nodeName);
}

/**
 * kube-scheduler tried the pod and no node fits: PodScheduled=False with reason
 * Unschedulable. Only these ask for a new node (a pod not yet tried, or gated,
 * has a different reason or no condition).
 */
export function isProvisionable(pod: KubeObject): boolean {
  if (isBound(pod) || isTerminating(pod) || isFinished(pod)) return false;
  return (podFields(pod).status?.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable');
}
