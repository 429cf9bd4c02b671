// One provisioning decision from the informers' caches, pure: the cached API
// objects go through io/'s loader (the same validation and compilation as
// manifests from files), in-flight claims join as the nodes they will become,
// and the provisioner plans for the batch's pods exactly as the simulator's
// provisioning loop does: bound pods and the batch's pods only, so a pod that
// fits on a claim still launching triggers no second launch.

import { buildClusterState } from '../cluster/state.js';
import { dataInput } from '../io/json-source.js';
import { formatDiagnostic, loadSources, type LoadedInput, type SourceInput } from '../io/load.js';
import type { NodePool } from '../model/nodepool.js';
import type { Pod } from '../model/pod.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import { planProvisioning, type ProvisionPlan } from '../provisioner/plan.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import { inFlightNodes, nodeClaimOf, readClaim, type Claim } from './claims.js';
import { isEphemeralTaint, startupTaints, type TaintFields } from './lifecycle.js';
import { isBound, isFinished, objectKey, type KubeObject } from './objects.js';

/** Cached objects by resource; list items carry no kind, so each group names its own. */
export interface LiveObjects {
  readonly pods: readonly KubeObject[];
  readonly nodes: readonly KubeObject[];
  readonly namespaces: readonly KubeObject[];
  readonly nodePools: readonly KubeObject[];
  readonly nodeClaims: readonly KubeObject[];
  readonly pdbs: readonly KubeObject[];
  readonly services: readonly KubeObject[];
  readonly replicaSets: readonly KubeObject[];
  readonly statefulSets: readonly KubeObject[];
  readonly daemonSets: readonly KubeObject[];
}

const KINDS: readonly [keyof LiveObjects, string, string][] = [
  ['nodes', 'v1', 'Node'],
  ['namespaces', 'v1', 'Namespace'],
  ['pods', 'v1', 'Pod'],
  ['nodePools', 'karpenter.sh/v1', 'NodePool'],
  ['pdbs', 'policy/v1', 'PodDisruptionBudget'],
  ['services', 'v1', 'Service'],
  ['replicaSets', 'apps/v1', 'ReplicaSet'],
  ['statefulSets', 'apps/v1', 'StatefulSet'],
  ['daemonSets', 'apps/v1', 'DaemonSet'],
];

export interface BatchInput {
  readonly objects: LiveObjects;
  /** Keys (namespace/name) of the pods kube-scheduler found unschedulable in this batch. */
  readonly batch: ReadonlySet<string>;
  readonly instanceTypes: readonly InstanceType[];
  readonly config?: SchedulerConfig;
  readonly seed?: number;
}

export type BatchResult = { readonly ok: true; readonly plan: ProvisionPlan; readonly claims: Claim[]; readonly inFlight: string[] } | { readonly ok: false; readonly errors: string[] };

function withoutManagedFields(o: KubeObject): KubeObject {
  if (!o.metadata) return o;
  const { managedFields: _dropped, ...metadata } = o.metadata as KubeObject['metadata'] & { managedFields?: unknown };
  return { ...o, metadata };
}

interface NodeFields {
  readonly spec?: { readonly taints?: readonly TaintFields[] };
}

/**
 * A node berth launched is planned as it will be once initialized (Karpenter's
 * StateNode taints): until its claim is Initialized, without the claim's startup
 * taints and the known ephemeral taints (not-ready and the like), which will go
 * away. Otherwise pods waiting for it look unplaceable and trigger a second
 * launch. Once Initialized, every taint counts: a node that went NotReady keeps
 * the not-ready taint and its pods need another node.
 */
export function planningNode(node: KubeObject, claim: KubeObject | undefined): KubeObject {
  const taints = (node as NodeFields).spec?.taints ?? [];
  if (nodeClaimOf(node) === '' || !claim || readClaim(claim)?.initialized !== false || taints.length === 0) return node;
  const startup = startupTaints(claim);
  const kept = taints.filter((t) => !isEphemeralTaint(t) && !startup.some((s) => s.key === t.key && s.effect === t.effect));
  return kept.length === taints.length ? node : { ...node, spec: { ...(node.spec as object), taints: kept } };
}

/**
 * The objects as one v1 List, pods limited to bound ones and the batch's. The
 * client's cached objects hold Dates (creationTimestamp...) where the API's JSON has
 * strings, so they go through JSON once; the parsed List is loaded as it is, the
 * text kept for the positions of diagnostics.
 */
function liveSource(objects: LiveObjects, batch: ReadonlySet<string>): SourceInput {
  const items: unknown[] = [];
  const claims = new Map(objects.nodeClaims.map((c) => [c.metadata?.name ?? '', c]));
  for (const [group, apiVersion, kind] of KINDS) {
    for (const o of objects[group]) {
      if (group === 'pods' && (isFinished(o) || !(isBound(o) || batch.has(objectKey(o))))) continue;
      items.push({ ...withoutManagedFields(group === 'nodes' ? planningNode(o, claims.get(nodeClaimOf(o))) : o), apiVersion, kind });
    }
  }
  const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
  return dataInput('<api-server>', JSON.parse(text), 'json', () => text);
}

/**
 * The API server has validated what it serves, and a newer server declares fields
 * v1.37's schemas do not: its objects are not checked for undeclared fields again.
 */
const LIVE_LOAD = { validate: 'ignore' } as const;

/** The NodePools alone (to launch a claim); those that fail validation are left out. */
export function liveNodePools(objects: Pick<LiveObjects, 'nodePools'>): NodePool[] {
  const empty = { pods: [], nodes: [], namespaces: [], nodeClaims: [], pdbs: [], services: [], replicaSets: [], statefulSets: [], daemonSets: [] };
  const loaded = loadSources([liveSource({ ...empty, nodePools: objects.nodePools }, new Set())], LIVE_LOAD);
  return loaded.ok ? loaded.input.nodePools : [];
}

/**
 * The cached objects loaded as files are (bound pods and the batch's), with only the
 * pods that exist: the loader also expands workloads that have no pods yet.
 */
export function loadLive(objects: LiveObjects, batch: ReadonlySet<string>): { ok: true; live: LoadedInput } | { ok: false; errors: string[] } {
  const loaded = loadSources([liveSource(objects, batch)], LIVE_LOAD);
  if (!loaded.ok) return { ok: false, errors: loaded.errors.map(formatDiagnostic) };
  const podKeys = new Set(objects.pods.map(objectKey));
  return { ok: true, live: { ...loaded.input, pods: loaded.input.pods.filter((p) => podKeys.has(p.key)) } };
}

/** One template pod per DaemonSet: what every new node will also run. */
export function daemonSetPods(live: LoadedInput): Pod[] {
  return live.workloads.filter((w) => w.kind === 'DaemonSet').map((w) => w.templatePod);
}

export function planBatch(input: BatchInput): BatchResult {
  const loaded = loadLive(input.objects, input.batch);
  if (!loaded.ok) return loaded;
  const { live } = loaded;
  const claims = input.objects.nodeClaims.flatMap((o) => readClaim(o) ?? []);
  const registered = new Set(input.objects.nodes.map(nodeClaimOf).filter((c) => c !== ''));
  const inflight = inFlightNodes(claims, registered, live.nodePools, input.instanceTypes);
  const cluster = buildClusterState({ ...live, nodes: [...live.nodes, ...inflight] });
  const plan = planProvisioning({
    cluster,
    // Static NodePools keep a fixed node count and never provision for pending pods.
    pools: live.nodePools.filter((np) => np.replicas === null),
    instanceTypes: input.instanceTypes,
    daemonSetPods: daemonSetPods(live),
    config: input.config ?? {},
    ...(input.seed === undefined ? {} : { seed: input.seed }),
  });
  return { ok: true, plan, claims, inFlight: inflight.map((n) => n.name) };
}
