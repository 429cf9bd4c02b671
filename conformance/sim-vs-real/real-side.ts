// The real side: the scenario on the test cluster (test/cluster/cluster.sh with
// its own state directory and ports, the aligned flags of settings.ts). Nodes
// are kwok's; each phase is applied and then waited out until the cluster is
// quiet, and observed from informers (pods, nodes, ReplicaSets, Deployments,
// StatefulSets), a Pending pod's reason from its PodScheduled condition.

import { CoreV1Api, type V1Eviction } from '@kubernetes/client-node';
import { Kube, statusCode } from '../../src/live/kube.js';
import type { KubeObject } from '../../src/live/objects.js';
import { replicaSequence, type Observation, type PhaseObservation } from './observation.js';
import { describePhase, imageOf, manifests, phases, type Phase, type SvrScenario } from './scenario.js';
import { DEFAULT_TOLERATION_SECONDS } from './settings.js';

export interface RealObservation extends Observation {
  /**
   * When each phase started and was observed, ms from the first phase's start (the simulator
   * replays these times), and that start's milliseconds within its wall-clock second: the
   * controllers keep times in whole seconds (metav1.Time), and the simulator's seconds start
   * where the real ones did (absent in runs saved before it was recorded: 0).
   */
  readonly timing: { readonly startMs: readonly number[]; readonly endMs: readonly number[]; readonly originMs?: number };
  /** Per phase, each pod bound during the phase (workload, pod, node) in the order seen (the guide of sim-side.ts for upstream's random choices). */
  readonly bindings?: readonly PodEvents[];
  /** Per phase, each bound pod deleted during the phase (terminating or gone) in the order seen. */
  readonly deletions?: readonly PodEvents[];
}

export type PodEvents = readonly { readonly app: string; readonly pod: string; readonly node: string }[];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DRAIN_RETRY_MS = 5_000;
const STOPPED_ANNOTATION = 'kwok.berth.dev/kubelet-stopped';
const PHASE_TIMEOUT_MS = 150_000;
/** Pod GC's quarantine: the pods of a node deleted this long ago are force-deleted at its next 20 s pass. */
const POD_GC_QUARANTINE_MS = 40_000;

interface PodState {
  readonly name: string;
  readonly uid: string;
  readonly app: string;
  readonly node: string;
  readonly terminating: boolean;
  readonly created: string;
  /** The message of its latest failed scheduling attempt (failureMessage). */
  readonly failure: string | undefined;
}

/** The cluster as informers see it, with the time of the last change that matters. */
export class Watcher {
  readonly pods = new Map<string, PodState>();
  readonly objects = new Map<string, KubeObject>();
  /** ReplicaSet uid → its spec.replicas values as seen. */
  readonly rsHistory = new Map<string, { deployment: string; revision: number; values: number[] }>();
  /** Each pod's first binding as seen: its workload and node. */
  readonly bindings: { readonly app: string; readonly pod: string; readonly node: string }[] = [];
  /** Each bound pod's deletion as first seen (terminating, or gone). */
  readonly deletions: { readonly app: string; readonly pod: string; readonly node: string }[] = [];
  /** Nodes seen with Ready other than True since the scenario's nodes first were all Ready (stopSeenNotReady). */
  readonly seenNotReady = new Set<string>();
  private readonly deleted = new Set<string>();
  private readonly bound = new Set<string>();
  lastChange = Date.now();
  private readonly fingerprints = new Map<string, string>();
  private readonly informers: { stop(): Promise<void>; synced: boolean }[] = [];

  constructor(
    private readonly kube: Kube,
    private namespace: string,
  ) {}

  start(): void {
    const on = (kind: string, fingerprint: (o: KubeObject) => string) => (o: KubeObject, verb: string) => {
      if (kind !== 'Node' && o.metadata?.namespace !== this.namespace) return;
      const key = `${kind}/${o.metadata?.name}`;
      const fp = verb === 'delete' ? '' : fingerprint(o);
      if (this.fingerprints.get(key) !== fp) {
        this.fingerprints.set(key, fp);
        this.lastChange = Date.now();
      }
      if (verb === 'delete') this.objects.delete(key);
      else this.objects.set(key, o);
      if (kind === 'Node' && verb !== 'delete' && !nodeReady(o)) this.seenNotReady.add(o.metadata?.name ?? '');
      if (kind === 'Pod') {
        const p = podState(o);
        if (p.node && p.app && (verb === 'delete' || p.terminating) && !this.deleted.has(p.uid)) {
          this.deleted.add(p.uid);
          this.deletions.push({ app: p.app, pod: p.name, node: p.node });
        }
        if (verb === 'delete') this.pods.delete(p.name);
        else {
          this.pods.set(p.name, p);
          if (p.node && p.app && !this.bound.has(p.uid)) {
            this.bound.add(p.uid);
            this.bindings.push({ app: p.app, pod: p.name, node: p.node });
          }
        }
      }
      if (kind === 'ReplicaSet' && verb !== 'delete') this.recordReplicaSet(o);
    };
    const spec = (o: KubeObject) => o.spec as Record<string, unknown>;
    const status = (o: KubeObject) => (o.status ?? {}) as Record<string, unknown>;
    const ready = (o: KubeObject) => ((status(o)['conditions'] ?? []) as { type: string; status: string }[]).find((c) => c.type === 'Ready')?.status ?? '';
    const add = (apiVersion: string, kind: string, path: string, fp: (o: KubeObject) => string) =>
      this.informers.push(this.kube.informer({ apiVersion, kind, path }, on(kind, fp), () => {}));
    add('v1', 'Pod', '/api/v1/pods', (o) => JSON.stringify([spec(o)['nodeName'], status(o)['phase'], ready(o), o.metadata?.deletionTimestamp, failureMessage(o)]));
    add('v1', 'Node', '/api/v1/nodes', (o) => JSON.stringify([spec(o)['unschedulable'], spec(o)['taints'], ready(o)]));
    add('apps/v1', 'ReplicaSet', '/apis/apps/v1/replicasets', (o) => JSON.stringify([spec(o)['replicas'], status(o)]));
    add('apps/v1', 'Deployment', '/apis/apps/v1/deployments', (o) => JSON.stringify([spec(o)['replicas'], status(o)]));
    add('apps/v1', 'StatefulSet', '/apis/apps/v1/statefulsets', (o) => JSON.stringify([spec(o)['replicas'], status(o)]));
  }

  get synced(): boolean {
    return this.informers.every((i) => i.synced);
  }

  /** Follows another scenario's namespace; what the last one left is forgotten. */
  reset(namespace: string): void {
    this.namespace = namespace;
    this.pods.clear();
    this.rsHistory.clear();
    this.bindings.length = 0;
    this.bound.clear();
    this.deletions.length = 0;
    this.deleted.clear();
    for (const k of [...this.objects.keys()]) if (!k.startsWith('Node/')) this.objects.delete(k);
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  private recordReplicaSet(o: KubeObject): void {
    const owner = o.metadata?.ownerReferences?.find((r) => r.controller)?.name;
    if (!owner) return;
    const revision = Number(o.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? 0);
    const replicas = ((o.spec as { replicas?: number }).replicas ?? 0);
    const h = this.rsHistory.get(o.metadata!.uid!) ?? { deployment: owner, revision, values: [] };
    h.revision = revision;
    if (h.values[h.values.length - 1] !== replicas) h.values.push(replicas);
    this.rsHistory.set(o.metadata!.uid!, h);
  }
}

function podState(o: KubeObject): PodState {
  return {
    name: o.metadata!.name!,
    uid: o.metadata!.uid!,
    app: o.metadata?.labels?.['app'] ?? '',
    node: (o.spec as { nodeName?: string }).nodeName ?? '',
    terminating: Boolean(o.metadata?.deletionTimestamp),
    created: String(o.metadata?.creationTimestamp ?? ''),
    failure: failureMessage(o),
  };
}

/**
 * The message of a pod's latest failed scheduling attempt: its PodScheduled
 * condition, which kube-scheduler patches whenever the message changes. Not its
 * latest FailedScheduling event: client-go's events recorder (tools/events) keys
 * an event by reason and the pod's reference, resourceVersion included, not by
 * message, so a failure whose message changed while the pod's resourceVersion did
 * not only counts up the older event's series in memory, and its message never
 * reaches the API server (s2-33).
 */
export function failureMessage(pod: KubeObject): string | undefined {
  const conditions = ((pod.status ?? {}) as { conditions?: { type?: string; status?: string; message?: string }[] }).conditions ?? [];
  const c = conditions.find((x) => x.type === 'PodScheduled');
  return c?.status === 'False' ? c.message : undefined;
}

/** kubectl drain's eviction loop: each pod evicted through the Eviction API, retried every 5 s while a PDB refuses. */
class Drain {
  private stopped = false;
  readonly targets: PodState[];
  constructor(
    private readonly core: CoreV1Api,
    private readonly w: Watcher,
    readonly node: string,
    private readonly namespace: string,
  ) {
    this.targets = [...w.pods.values()].filter((p) => p.node === node && !p.terminating);
    for (const p of this.targets) void this.evict(p);
  }

  get complete(): boolean {
    return this.targets.every((t) => this.w.pods.get(t.name)?.uid !== t.uid);
  }

  stop(): void {
    this.stopped = true;
  }

  private async evict(p: PodState): Promise<void> {
    while (!this.stopped && this.w.pods.get(p.name)?.uid === p.uid) {
      try {
        const body: V1Eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: p.name, namespace: this.namespace } };
        await this.core.createNamespacedPodEviction({ name: p.name, namespace: this.namespace, body });
        return;
      } catch (e) {
        if (statusCode(e) === 404) return;
        if (statusCode(e) !== 429) throw e;
      }
      await sleep(DRAIN_RETRY_MS);
    }
  }
}

export async function runReal(kube: Kube, w: Watcher, s: SvrScenario, namespace: string): Promise<RealObservation> {
  const core = kube.config.makeApiClient(CoreV1Api);
  w.reset(namespace);
  const drains: Drain[] = [];
  const revisions = new Map<string, number>();
  try {
    // What an interrupted run left behind: every kwok node (another scenario's would take
    // pods), and its pods, which would count against a new node of the same name.
    await forceDeletePods(kube, (await kube.api.list('v1', 'Pod')).items.filter((p) => Boolean(((p as KubeObject).spec as { nodeName?: string } | undefined)?.nodeName)));
    const leftNodes = [...w.objects.keys()].filter((k) => k.startsWith('Node/')).map((k) => k.slice('Node/'.length));
    for (const n of new Set([...leftNodes, ...s.nodes.map((x) => x.name)])) await kube.delete('v1', 'Node', n);
    await waitUntil('nodes gone', () => ![...w.objects.keys()].some((k) => k.startsWith('Node/')), 30_000);
    await kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const objects = manifests(s, namespace);
    for (const o of objects.filter((x) => x.kind === 'Node')) await createNode(kube, o);
    // Ready, and the node lifecycle controller's not-ready taint gone again (the scheduler skips a node that has it).
    const untainted = (n: KubeObject | undefined) => (((n?.spec ?? {}) as { taints?: unknown[] }).taints ?? []).length === 0;
    await waitUntil('nodes Ready', () => s.nodes.every((n) => nodeReady(w.objects.get(`Node/${n.name}`)) && untainted(w.objects.get(`Node/${n.name}`))), 60_000);
    w.seenNotReady.clear();
    const failed = new Set(s.steps.flatMap((x) => ('failNode' in x ? [x.failNode] : [])));
    // Pods wait for the namespace's default ServiceAccount (kube-controller-manager creates it).
    await waitUntil(`ServiceAccount ${namespace}/default`, async () => Boolean(await kube.read('v1', 'ServiceAccount', 'default', namespace)), 30_000);
    for (const o of objects.filter((x) => x.kind !== 'Node')) await kube.create(o);
    const observed: PhaseObservation[] = [];
    const startMs: number[] = [];
    const endMs: number[] = [];
    const t0 = Date.now();
    const bindingsFrom: number[] = [];
    const deletionsFrom: number[] = [];
    for (const p of phases(s)) {
      const started = Date.now();
      bindingsFrom.push(w.bindings.length);
      deletionsFrom.push(w.deletions.length);
      startMs.push(started - t0);
      const until = await applyPhase(kube, core, w, s, p, namespace, revisions, drains);
      await settle(w, drains, started, until);
      const lost = nodesLostUnasked(w.seenNotReady, failed);
      if (lost.length > 0) throw new Error(`node(s) ${lost.join(', ')} went NotReady with no failNode (kwok's leases or the node lifecycle controller lagged)`);
      endMs.push(Date.now() - t0);
      observed.push(observe(w, s, describePhase(p), drains));
      if (process.env.SVR_DEBUG) console.error(describePhase(p), endMs[endMs.length - 1], JSON.stringify(observed[observed.length - 1]));
    }
    const perPhase = (events: PodEvents, from: readonly number[]) => from.map((start, i) => events.slice(start, from[i + 1]));
    return { phases: observed, replicaSets: replicaSetHistory(w, s), timing: { startMs, endMs, originMs: t0 % 1000 }, bindings: perPhase(w.bindings, bindingsFrom), deletions: perPhase(w.deletions, deletionsFrom) };
  } finally {
    for (const d of drains) d.stop();
    await cleanUp(kube, w, s, namespace);
  }
}

/**
 * Nodes that went NotReady though the scenario never failed them: kwok's lease renewals or the
 * node lifecycle controller fell behind on an overloaded machine (the controller then marks
 * their pods NotReady and rollouts read as incomplete), an infrastructure failure.
 */
export function nodesLostUnasked(seenNotReady: ReadonlySet<string>, failed: ReadonlySet<string>): string[] {
  return [...seenNotReady].filter((n) => !failed.has(n)).sort();
}

async function createNode(kube: Kube, o: KubeObject): Promise<void> {
  await kube.create(o);
  const core = kube.config.makeApiClient(CoreV1Api);
  const want = o.status as { capacity: Record<string, string>; allocatable: Record<string, string> };
  // Whether status survives a create is the API server's business: set it through the
  // status subresource until it sticks (kwok writes conditions meanwhile: conflicts).
  for (let attempt = 0; ; attempt++) {
    const current = (await kube.read('v1', 'Node', o.metadata!.name!))!;
    const status = (current.status ?? {}) as { allocatable?: Record<string, string> };
    if (status.allocatable?.['cpu'] === want.allocatable['cpu']) return;
    try {
      await core.replaceNodeStatus({ name: o.metadata!.name!, body: { ...current, status: { ...status, ...want } } as never });
    } catch (e) {
      if (statusCode(e) !== 409) throw e;
    }
    if (attempt > 20) throw new Error(`node ${o.metadata!.name!}: allocatable not taken`);
  }
}

async function setReadyUnknown(kube: Kube, core: CoreV1Api, name: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const n = (await kube.read('v1', 'Node', name))!;
    const status = n.status as { conditions: { type: string; status: string; reason?: string; message?: string }[] };
    const conditions = status.conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: new Date().toISOString() } : c));
    try {
      await core.replaceNodeStatus({ name, body: { ...n, status: { ...status, conditions } } as never });
      return;
    } catch (e) {
      if (statusCode(e) !== 409 || attempt > 20) throw e;
    }
  }
}

const nodeReady = (n: KubeObject | undefined) => ((n?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** Applies one phase; returns a condition the phase must also meet before it is observed. */
async function applyPhase(kube: Kube, core: CoreV1Api, w: Watcher, s: SvrScenario, p: Phase, ns: string, revisions: Map<string, number>, drains: Drain[]): Promise<(() => boolean) | undefined> {
  const workload = (name: string) => s.workloads.find((x) => x.name === name)!;
  // The workload's controller has seen the new spec (its informer event can come late on a loaded machine).
  const seen = (name: string, updated: KubeObject | undefined) => {
    const generation = updated?.metadata?.generation ?? 0;
    const key = `${workload(name).kind}/${name}`;
    return () => {
      const o = w.objects.get(key);
      return (o?.metadata?.generation ?? 0) >= generation && (((o?.status ?? {}) as { observedGeneration?: number }).observedGeneration ?? 0) >= generation;
    };
  };
  const setReplicas = async (name: string, replicas: number) => seen(name, await kube.update('apps/v1', workload(name).kind, name, (o) => ({ ...o, spec: { ...(o.spec as object), replicas } }), { namespace: ns }));
  const nodeExists = (name: string) => w.objects.has(`Node/${name}`);
  if ('create' in p) return setReplicas(p.create, workload(p.create).replicas);
  if ('scale' in p) return setReplicas(p.scale.workload, p.scale.replicas);
  if ('rollout' in p) {
    const revision = (revisions.get(p.rollout.workload) ?? 1) + 1;
    revisions.set(p.rollout.workload, revision);
    const updated = await kube.update('apps/v1', workload(p.rollout.workload).kind, p.rollout.workload, (o) => {
      const spec = o.spec as { template: { spec: { containers: { image: string }[] } } };
      const containers = spec.template.spec.containers.map((c, i) => (i === 0 ? { ...c, image: imageOf(revision) } : c));
      return { ...o, spec: { ...spec, template: { ...spec.template, spec: { ...spec.template.spec, containers } } } };
    }, { namespace: ns });
    return seen(p.rollout.workload, updated);
  }
  if ('cordon' in p || 'drain' in p) {
    const node = 'cordon' in p ? p.cordon : p.drain;
    if (!nodeExists(node)) return undefined;
    await kube.update('v1', 'Node', node, (o) => ({ ...o, spec: { ...(o.spec as object), unschedulable: true } }));
    if ('drain' in p) drains.push(new Drain(core, w, node, ns));
  } else if ('failNode' in p) {
    if (!nodeExists(p.failNode)) return undefined;
    // The kubelet stops. Its lease cannot be taken from kwok (kube-controller-manager then
    // refuses to judge the node: "read version ... is not as new as written version"), so
    // the node's Ready condition is set to Unknown, as the node lifecycle controller does
    // after the grace period; kwok's Ready stage leaves an annotated node alone, and a
    // finalizer keeps its pods Terminating as a dead kubelet would (kwok would delete them,
    // and a StatefulSet cannot replace a pod before it is gone).
    await kube.update('v1', 'Node', p.failNode, (o) => ({ ...o, metadata: { ...o.metadata, annotations: { ...o.metadata?.annotations, [STOPPED_ANNOTATION]: 'true' } } }));
    for (const pod of [...w.pods.values()].filter((x) => x.node === p.failNode)) {
      await kube.update('v1', 'Pod', pod.name, (o) => ({ ...o, metadata: { ...o.metadata, finalizers: [...(o.metadata?.finalizers ?? []), STOPPED_ANNOTATION] } }), { namespace: ns });
    }
    await setReadyUnknown(kube, core, p.failNode);
    const node = p.failNode;
    let notReadyAt: number | undefined;
    // Noticed after the grace period, then the pods' tolerations run out.
    return () => {
      if (notReadyAt === undefined && !nodeReady(w.objects.get(`Node/${node}`))) notReadyAt = Date.now();
      return notReadyAt !== undefined && Date.now() - notReadyAt > DEFAULT_TOLERATION_SECONDS * 1000 + 2_000;
    };
  } else if ('removeNode' in p) {
    if (!nodeExists(p.removeNode)) return undefined;
    const node = p.removeNode;
    await kube.delete('v1', 'Node', node);
    // Pod GC removes the pods of a deleted node after 40 s, at a 20 s pass. The finalizer that
    // kept a failed node's pods Terminating (failNode) would outlive that force deletion (s3-41:
    // the phase never settled): it is dropped when the quarantine ends, where the window of
    // pod GC's pass begins (its force deletion of a pod already deleted shows no change).
    const held = [...w.objects].filter(([key, o]) => key.startsWith('Pod/') && (o.spec as { nodeName?: string }).nodeName === node && o.metadata?.finalizers?.includes(STOPPED_ANNOTATION)).map(([, o]) => o);
    let released = held.length === 0;
    if (!released) {
      void sleep(POD_GC_QUARANTINE_MS)
        .then(() => forceDeletePods(kube, held))
        .catch((e: unknown) => console.error(`removeNode ${node}: releasing its pods failed: ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => (released = true));
    }
    return () => released && ![...w.pods.values()].some((x) => x.node === node);
  } else {
    const { workload: name, node } = p.deletePod;
    const newest = [...w.pods.values()].filter((x) => x.app === name && x.node === node && !x.terminating).sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : 0))[0];
    if (newest) await kube.delete('v1', 'Pod', newest.name, ns);
  }
  return undefined;
}

async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * Quiet: every controller has seen the latest spec of its objects (a loaded machine
 * can delay a sync past any quiet window), every Deployment's status counts its pods as
 * they are (controllers stalled by an overloaded machine leave it behind them, and the
 * phase times out as an infrastructure failure instead of reading a rollout as
 * incomplete), and nothing that matters changed for
 * 1.5 s (2.5 s with a pod Pending, past the scheduler's 1 s backoff; 6 s while a
 * drain waits, past its 5 s retry).
 */
async function settle(w: Watcher, drains: readonly Drain[], started: number, until: (() => boolean) | undefined): Promise<void> {
  await waitUntil('the cluster to settle', () => {
    const pending = [...w.pods.values()].some((p) => !p.node && !p.terminating);
    const quiet = drains.some((d) => !d.complete) ? 6_000 : pending ? 2_500 : 1_500;
    return Date.now() - started > 1_000 && controllersCaughtUp(w) && deploymentStatusesCurrent(w) && Date.now() - w.lastChange > quiet && (until?.() ?? true);
  }, PHASE_TIMEOUT_MS);
}

/** Every Deployment, ReplicaSet and StatefulSet has status.observedGeneration up to its metadata.generation. */
function controllersCaughtUp(w: Watcher): boolean {
  for (const [key, o] of w.objects) {
    if (!/^(Deployment|ReplicaSet|StatefulSet)\//.test(key)) continue;
    const observed = ((o.status ?? {}) as { observedGeneration?: number }).observedGeneration ?? 0;
    if (observed < (o.metadata?.generation ?? 0)) return false;
  }
  return true;
}

/**
 * Every Deployment's status.replicas, updatedReplicas and readyReplicas equal the counts of its
 * pods the watcher sees: active (not terminating), of its newest ReplicaSet, Ready.
 */
export function deploymentStatusesCurrent(w: Pick<Watcher, 'objects'>): boolean {
  const count = new Map<string, { replicas: number; updated: number; ready: number }>();
  const newest = new Map<string, { name: string; revision: number }>();
  const ownerOf = (o: KubeObject) => o.metadata?.ownerReferences?.find((r) => r.controller)?.name;
  for (const [key, o] of w.objects) {
    if (!key.startsWith('ReplicaSet/')) continue;
    const d = ownerOf(o);
    const revision = Number(o.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? 0);
    if (d && revision >= (newest.get(d)?.revision ?? 0)) newest.set(d, { name: o.metadata!.name!, revision });
  }
  for (const [key, o] of w.objects) {
    if (!key.startsWith('Pod/') || o.metadata?.deletionTimestamp) continue;
    const rsName = ownerOf(o);
    const d = rsName ? w.objects.get(`ReplicaSet/${rsName}`) : undefined;
    const deployment = d && ownerOf(d);
    if (!deployment) continue;
    const phase = ((o.status ?? {}) as { phase?: string }).phase;
    if (phase === 'Succeeded' || phase === 'Failed') continue;
    const c = count.get(deployment) ?? { replicas: 0, updated: 0, ready: 0 };
    c.replicas++;
    if (newest.get(deployment)?.name === rsName) c.updated++;
    if (((o.status ?? {}) as { conditions?: { type: string; status: string }[] }).conditions?.some((x) => x.type === 'Ready' && x.status === 'True')) c.ready++;
    count.set(deployment, c);
  }
  for (const [key, o] of w.objects) {
    if (!key.startsWith('Deployment/')) continue;
    const st = (o.status ?? {}) as { replicas?: number; updatedReplicas?: number; readyReplicas?: number };
    const c = count.get(o.metadata!.name!) ?? { replicas: 0, updated: 0, ready: 0 };
    if ((st.replicas ?? 0) !== c.replicas || (st.updatedReplicas ?? 0) !== c.updated || (st.readyReplicas ?? 0) !== c.ready) return false;
  }
  return true;
}

function observe(w: Watcher, s: SvrScenario, phase: string, drains: readonly Drain[]): PhaseObservation {
  const placement: Record<string, Record<string, number>> = {};
  const pending: Record<string, { count: number; reasons: string[] }> = {};
  for (const p of w.pods.values()) {
    if (!p.app || p.terminating) continue;
    if (p.node) {
      const m = (placement[p.app] ??= {});
      m[p.node] = (m[p.node] ?? 0) + 1;
    } else {
      const e = (pending[p.app] ??= { count: 0, reasons: [] });
      e.count++;
      if (p.failure !== undefined) e.reasons.push(p.failure);
    }
  }
  const rolloutComplete: Record<string, boolean> = {};
  for (const wl of s.workloads) {
    const o = w.objects.get(`${wl.kind}/${wl.name}`);
    const want = (o?.spec as { replicas?: number } | undefined)?.replicas ?? 0;
    const st = (o?.status ?? {}) as Record<string, number | undefined>;
    const current = (st['observedGeneration'] ?? 0) >= (o?.metadata?.generation ?? 0);
    rolloutComplete[wl.name] =
      wl.kind === 'Deployment'
        ? current && (st['updatedReplicas'] ?? 0) === want && (st['replicas'] ?? 0) === want && (st['availableReplicas'] ?? 0) === want
        : current && (st['updatedReplicas'] ?? 0) === want && (st['readyReplicas'] ?? 0) === want && (st['replicas'] ?? 0) === want;
  }
  const drainComplete: Record<string, boolean> = {};
  for (const d of drains) drainComplete[d.node] = d.complete;
  return { phase, placement, pending, rolloutComplete, drainComplete };
}

function replicaSetHistory(w: Watcher, s: SvrScenario): Observation['replicaSets'] {
  const out: Record<string, number[][]> = {};
  for (const wl of s.workloads) {
    if (wl.kind !== 'Deployment') continue;
    out[wl.name] = [...w.rsHistory.values()].filter((h) => h.deployment === wl.name).sort((a, b) => a.revision - b.revision).map((h) => replicaSequence(h.values)).filter((v) => v.length > 0);
  }
  return out;
}

async function cleanUp(kube: Kube, w: Watcher, s: SvrScenario, ns: string): Promise<void> {
  await kube.delete('v1', 'Namespace', ns);
  for (const n of s.nodes) await kube.delete('v1', 'Node', n.name);
  for (const n of s.nodes) await kube.delete('coordination.k8s.io/v1', 'Lease', n.name, 'kube-node-lease');
  // Pods whose kubelet is gone never finish on their own.
  await waitUntil(`pods of ${ns} gone`, async () => {
    const left = (await kube.api.list('v1', 'Pod', ns)).items;
    await forceDeletePods(kube, left);
    return left.length === 0;
  }, 60_000);
  await waitUntil('nodes gone', () => s.nodes.every((n) => !w.objects.has(`Node/${n.name}`)), 30_000);
}

/** Deletes pods at once, finalizers dropped (no kubelet will finish them). */
async function forceDeletePods(kube: Kube, pods: readonly KubeObject[]): Promise<void> {
  const core = kube.config.makeApiClient(CoreV1Api);
  for (const p of pods) {
    const { name, namespace } = p.metadata ?? {};
    try {
      if (p.metadata?.finalizers?.length) await kube.update('v1', 'Pod', name!, (o) => ({ ...o, metadata: { ...o.metadata, finalizers: [] } }), { namespace: namespace! });
      await core.deleteNamespacedPod({ name: name!, namespace: namespace!, gracePeriodSeconds: 0 });
    } catch (e) {
      if (statusCode(e) !== 404) throw e;
    }
  }
}
