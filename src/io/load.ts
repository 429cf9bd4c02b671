// Loads manifests (YAML or JSON texts) into model objects, or into a list of
// precise diagnostics. Pure: the caller reads files (read-files.ts) and passes texts.
//
// Stages: parse documents → split Lists into objects → validate each against its
// kind's schema → drop duplicates → compile (PriorityClasses first, since pods
// resolve their priority through them) → expand workloads whose pods are missing.
// Every stage keeps going after an error, so one run reports all it can.

import type { ClusterInput, OwnerSelector } from '../cluster/state.js';
import type { FieldPath } from '../model/errors.js';
import type { ObjectMetaManifest } from '../model/manifest.js';
import { compileNode, type Node } from '../model/node.js';
import { compileNodeClaim, type NodeClaim } from '../model/nodeclaim.js';
import type { HorizontalPodAutoscaler } from '../model/hpa.js';
import type { NodePool } from '../model/nodepool.js';
import { compilePdb, type PodDisruptionBudget } from '../model/pdb.js';
import { compilePod, type Pod } from '../model/pod.js';
import { compilePriorityClass, PriorityResolver, type PriorityClass } from '../model/priority.js';
import { compileLabelSelector, nothingSelector, type Labels } from '../model/selector.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import { LoadContext } from './context.js';
import type { Diagnostic } from './diagnostics.js';
import { parseObject, type KnownKind, type ParsedObject } from './kinds.js';
import { loadHpas } from './load-hpas.js';
import { loadStorage, type LoadedStorage, type PodSource } from './load-volumes.js';
import { legacyLabelSelectorValues, legacySelectorValues } from './legacy-selectors.js';
import { loadCatalogs, loadNodePools } from './load-nodepools.js';
import { loadWorkloads, type WorkloadSummary } from './load-workloads.js';
import { loadJobs, type CronJobSummary, type JobSummary } from './load-jobs.js';
import { generatedName } from '../model/names.js';
import { collectObjects, isNamespaced, positionOf, type RawObject } from './objects.js';
import { Reporter } from './reporter.js';
import { skippedObject, type SkippedObject } from './skipped.js';
import type { ValidationMode } from './strict-fields.js';
import { readSource } from './json-text.js';
import type { Locator, SourceDocument, SourceInput } from './yaml-source.js';
import { reparsedDocuments, reparsedLocator } from './detached-source.js';

export type { SourceInput } from './yaml-source.js';
export { buildClusterState } from '../cluster/state.js';
export { formatDiagnostic, type Diagnostic } from './diagnostics.js';
export type { WorkloadSummary } from './load-workloads.js';

export interface NamespaceInfo {
  readonly name: string;
  /** Includes kubernetes.io/metadata.name, which the API server always sets. */
  readonly labels: Labels;
}

export interface LoadedInput extends ClusterInput {
  readonly nodes: Node[];
  /** Pods of the input in input order, then pods generated for workloads, in creation order. */
  readonly pods: Pod[];
  readonly namespaces: NamespaceInfo[];
  readonly pdbs: PodDisruptionBudget[];
  readonly priorityClasses: PriorityClass[];
  readonly services: OwnerSelector[];
  readonly replicationControllers: OwnerSelector[];
  /** ReplicaSets of the input, plus the ones implied by Deployments whose ReplicaSet is not in it. */
  readonly replicaSets: OwnerSelector[];
  readonly statefulSets: OwnerSelector[];
  readonly workloads: WorkloadSummary[];
  /** Jobs (batch/v1); their pods are created by the simulated Job controller. */
  readonly jobs?: readonly JobSummary[];
  /** CronJobs (batch/v1); they create Jobs at their scheduled times. */
  readonly cronJobs?: readonly CronJobSummary[];
  /** HorizontalPodAutoscalers (autoscaling/v2) whose target workload is in the input. */
  readonly hpas: HorizontalPodAutoscaler[];
  /** Karpenter NodeClaims (karpenter.sh/v1): in-flight and uninitialized capacity, claims being deleted. */
  readonly nodeClaims?: readonly NodeClaim[];
  /** Karpenter NodePools (karpenter.sh/v1), highest weight first, then by name descending (Karpenter's order). */
  readonly nodePools: NodePool[];
  /** The instance types of each berth.dev/v1alpha1 InstanceTypeCatalog, in input order. */
  readonly catalogs: InstanceType[][];
  /** PersistentVolumes, claims (with those berth created for StatefulSets and ephemeral volumes), classes and CSI objects. */
  readonly storage: LoadedStorage;
  /** Where each object is written ("Kind/namespace/name", or "Kind/name" for cluster-scoped kinds), for reports. */
  readonly locations: ObjectLocations;
  /** Objects of kinds berth does not read, in input order. */
  readonly skipped?: readonly SkippedObject[];
}

export interface SourceLocation {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly column: number;
}

/** The key reports name an object by: Deployment/ns/name, Node/name. */
export function objectRef(kind: string, namespace: string, name: string): string {
  return isNamespaced(kind) ? `${kind}/${namespace}/${name}` : `${kind}/${name}`;
}

/** Where objects are written, by objectRef. */
export interface ObjectLocations {
  get(ref: string): SourceLocation | undefined;
}

/**
 * Positions are worked out when asked for: a report names a few objects of the
 * 100,000 an input may have. What is kept is where each object sits (its
 * document and path), not the parser's tree of a text, which for a 50 MB dump
 * outweighs the loaded cluster many times over: a text is parsed again the first
 * time a position in it is asked for.
 */
function locationsOf(objects: readonly ParsedObject[], inputs: readonly SourceInput[]): ObjectLocations {
  const reparsed = new Map<number, () => ReadonlyMap<number, SourceDocument>>();
  const byRef = new Map<string, { readonly locator: Locator; readonly file: string; readonly base: RawObject['base'] }>();
  for (const p of objects) {
    const name = p.manifest.metadata.name;
    if (!name) continue;
    const { doc, base, input } = p.raw;
    let locator = doc.lightLocator;
    if (!locator) {
      let documents = reparsed.get(input);
      if (!documents) reparsed.set(input, (documents = reparsedDocuments(inputs[input]!.name, inputs[input]!.text)));
      locator = reparsedLocator(documents, doc.index);
    }
    byRef.set(objectRef(p.kind, p.manifest.metadata.namespace || 'default', name), { locator, file: doc.file, base });
  }
  return {
    get(ref) {
      const at = byRef.get(ref);
      if (!at) return undefined;
      const pos = at.locator.locate([...at.base, 'metadata', 'name']);
      return { file: at.file, line: pos.line, column: pos.column };
    },
  };
}

export type LoadResult =
  | { readonly ok: true; readonly input: LoadedInput; readonly warnings: Diagnostic[] }
  | { readonly ok: false; readonly errors: Diagnostic[]; readonly warnings: Diagnostic[] };

type Of<K extends KnownKind> = Extract<ParsedObject, { kind: K }>;

const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

export interface LoadOptions {
  /**
   * Inputs from this index on describe the running cluster (a kubectl dump): an
   * object there that an earlier input defines too is dropped in favour of the
   * earlier one — the change under review — instead of being a duplicate.
   */
  readonly clusterFrom?: number;
  /** Fields the kind's schema does not declare, and fields written twice: errors (the default, as kubectl), warnings, or ignored. */
  readonly validate?: ValidationMode;
  /**
   * A pod naming a PriorityClass the input lacks gets the priority of a pod that names
   * none (the global default class, else 0), with a warning; otherwise it is an error.
   */
  readonly allowMissing?: boolean;
  /** Whether hand-written Nodes get what a kubelet adds (NodeCompileOptions.kubeletDefaults); default true. */
  readonly kubeletDefaults?: boolean;
  /** The TaintTolerationComparisonOperators gate: Lt/Gt tolerations are accepted; off (the v1.37.2 default) they are refused. */
  readonly tolerationComparisonOperators?: boolean;
  /** The PodLevelResources gate (default on): off, pod specs lose spec.resources, as the API server drops it. */
  readonly podLevelResources?: boolean;
}

/** Objects of the same kind and name (and namespace, when namespaced): later ones are errors and dropped. */
function dropDuplicates(objects: readonly ParsedObject[], reporter: Reporter, clusterFrom = Infinity): ParsedObject[] {
  const seen = new Map<string, RawObject>();
  return objects.filter((p) => {
    const name = p.manifest.metadata.name;
    if (!name) return true;
    const key = isNamespaced(p.kind) ? `${p.kind}/${p.manifest.metadata.namespace || 'default'}/${name}` : `${p.kind}/${name}`;
    const first = seen.get(key);
    if (!first) {
      seen.set(key, p.raw);
      return true;
    }
    if (p.raw.input >= clusterFrom && first.input < clusterFrom) return false;
    const at = positionOf(first, ['metadata', 'name']);
    reporter.error(p.raw, ['metadata', 'name'], `Duplicate value: ${JSON.stringify(name)}: already defined at ${first.doc.file}:${at.line}:${at.column}`);
    return false;
  });
}

function compilePriorityClasses(reporter: Reporter, objects: readonly Of<'PriorityClass'>[]): PriorityClass[] {
  const out: PriorityClass[] = [];
  let globalDefault: PriorityClass | undefined;
  for (const p of objects) {
    const pc = reporter.attempt(p.raw, () => compilePriorityClass(p.manifest));
    if (!pc) continue;
    if (pc.globalDefault) {
      if (globalDefault) {
        reporter.error(p.raw, ['globalDefault'], `Forbidden: PriorityClass ${globalDefault.name} is already marked as default. Only one default can exist`);
        continue;
      }
      globalDefault = pc;
    }
    out.push(pc);
  }
  return out;
}

/**
 * Pods written with only metadata.generateName get a name as the API server would
 * give them: the prefix and five characters, here derived from the prefix and how
 * many pods before this one used it, so the name is stable.
 */
function podNamer(objects: readonly Of<'Pod'>[]) {
  const taken = new Map<string, Set<string>>();
  const takenIn = (ns: string) => {
    let set = taken.get(ns);
    if (!set) taken.set(ns, (set = new Set()));
    return set;
  };
  for (const p of objects) if (p.manifest.metadata.name) takenIn(p.manifest.metadata.namespace || 'default').add(p.manifest.metadata.name);
  const uses = new Map<string, number>();
  return (m: Of<'Pod'>['manifest']): Of<'Pod'>['manifest'] => {
    const { name, generateName } = m.metadata;
    if (name || !generateName) return m;
    const ns = m.metadata.namespace || 'default';
    const seen = uses.get(`${ns}/${generateName}`) ?? 0;
    uses.set(`${ns}/${generateName}`, seen + 1);
    return { ...m, metadata: { ...m.metadata, name: generatedName(generateName, `Pod/${ns}/${generateName}/${seen}`, takenIn(ns)) } };
  };
}

/** Owner selectors of objects that select pods with a plain label map; an absent map selects nothing. */
function mapSelectors<M extends { metadata: ObjectMetaManifest }>(ctx: LoadContext, objects: readonly { raw: RawObject; manifest: M }[], selectorOf: (m: M) => Labels | undefined): OwnerSelector[] {
  const out: OwnerSelector[] = [];
  for (const p of objects) {
    const name = ctx.requireName(p);
    if (!name) continue;
    const namespace = p.manifest.metadata.namespace || 'default';
    const map = selectorOf(p.manifest);
    out.push({ namespace, name, uid: p.manifest.metadata.uid ?? `${namespace}/${name}`, selector: map ? compileLabelSelector({ matchLabels: map }) : nothingSelector() });
  }
  return out;
}

const HASH_KEYS = ['karpenter.sh/nodepool-hash', 'karpenter.sh/nodepool-hash-version'] as const;

/** Node name → the NodePool hash stamp of its NodeClaim (absent keys included, as undefined). */
function nodeClaimStamps(claims: readonly Of<'NodeClaim'>[]): Map<string, Record<string, string | undefined>> {
  const out = new Map<string, Record<string, string | undefined>>();
  for (const c of claims) {
    const nodeName = c.manifest.status?.nodeName;
    if (nodeName) out.set(nodeName, Object.fromEntries(HASH_KEYS.map((k) => [k, c.manifest.metadata.annotations?.[k]])));
  }
  return out;
}

/**
 * A Node copies its NodeClaim's annotations only when it registers; Karpenter decides
 * drift on the NodeClaim's, which it re-stamps when the hash version changes. With the
 * NodeClaim in the input, its stamp replaces the Node's.
 */
function withStamp(node: Node, stamp: Record<string, string | undefined> | undefined): Node {
  if (!stamp) return node;
  const annotations: Record<string, string> = { ...node.annotations };
  for (const [k, v] of Object.entries(stamp)) {
    if (v === undefined) delete annotations[k];
    else annotations[k] = v;
  }
  return { ...node, annotations };
}

const LEGACY_PDB_SELECTOR =
  "kube-scheduler v1.37.2's preemption and the eviction API cannot parse it, so this PDB protects no pod; Karpenter v1.14.1 cannot read the cluster's PDBs, so it disrupts no node";

/** A legacy label key or value in a pod spec's selectors is loaded as upstream reads it, with a warning at its place. */
function warnLegacySelectors(reporter: Reporter, raw: RawObject, at: FieldPath, spec: unknown): void {
  for (const v of legacySelectorValues(spec)) reporter.warn(raw, [...at, ...v.path], v.message);
}

const templateSpec = (workload: Record<string, unknown>): unknown => {
  const spec = workload['spec'] as { template?: { spec?: unknown } } | undefined;
  return spec?.template?.spec;
};

/** Loads all inputs together (objects in one may refer to objects in another). */
export function loadSources(inputs: readonly SourceInput[], opts: LoadOptions = {}): LoadResult {
  const reporter = new Reporter();
  const parsed: ParsedObject[] = [];
  const invalidKinds = new Set<string>();
  const skipped: SkippedObject[] = [];
  inputs.forEach((input, i) => {
    const validate = input.validate ?? opts.validate;
    const source = input.parsed ?? readSource(input, validate);
    for (const d of source.diagnostics) reporter.add(i, d);
    for (const doc of source.documents) {
      const found: Diagnostic[] = [];
      const objects = collectObjects(doc, i, found);
      for (const d of found) reporter.add(i, d);
      for (const raw of objects) {
        const p = parseObject(raw, reporter, validate);
        if (p === 'invalid') invalidKinds.add(raw.kind);
        else if (p === 'skipped') skipped.push(skippedObject(raw));
        else parsed.push(p);
      }
    }
  });
  const objects = dropDuplicates(parsed, reporter, opts.clusterFrom);
  const of = <K extends KnownKind>(kind: K): Of<K>[] => objects.filter((p): p is Of<K> => p.kind === kind);

  const priorityClasses = compilePriorityClasses(reporter, of('PriorityClass'));
  const classesComplete = !invalidKinds.has('PriorityClass') && priorityClasses.length === of('PriorityClass').length;
  const ctx = new LoadContext(reporter, new PriorityResolver(priorityClasses), classesComplete, opts.allowMissing ?? false, opts.tolerationComparisonOperators ?? false, opts.podLevelResources ?? true);

  const stamps = nodeClaimStamps(of('NodeClaim'));
  const nodes: Node[] = [];
  of('Node').forEach((p, order) => {
    const node = reporter.attempt(p.raw, () => compileNode(p.manifest, order, { kubeletDefaults: opts.kubeletDefaults ?? true }));
    if (node) nodes.push(withStamp(node, stamps.get(node.name)));
  });

  const nodeClaims: NodeClaim[] = [];
  of('NodeClaim').forEach((p, order) => {
    const claim = reporter.attempt(p.raw, () => compileNodeClaim(p.manifest, order));
    if (claim) nodeClaims.push(claim);
  });

  const namespaces: NamespaceInfo[] = [];
  for (const p of of('Namespace')) {
    const name = ctx.requireName(p);
    if (name) namespaces.push({ name, labels: { ...p.manifest.metadata.labels, [NAMESPACE_NAME_LABEL]: name } });
  }

  const pods: Pod[] = [];
  const podSources = new Map<Pod, RawObject>();
  const podObjects = of('Pod');
  const nameOf = podNamer(podObjects);
  const named = podObjects.map((p) => nameOf(p.manifest));
  podObjects.forEach((p, order) => {
    const manifest = named[order]!;
    const admitted = ctx.admit(p.raw, manifest.spec, []);
    const pod = reporter.attempt(p.raw, () => compilePod({ ...manifest, spec: admitted.spec }, { order, ...admitted.context }));
    if (!pod) return;
    pods.push(pod);
    podSources.set(pod, p.raw);
    warnLegacySelectors(reporter, p.raw, ['spec'], manifest.spec);
  });

  const pdbs: PodDisruptionBudget[] = [];
  for (const p of of('PodDisruptionBudget')) {
    const pdb = reporter.attempt(p.raw, () => compilePdb(p.manifest));
    if (!pdb) continue;
    pdbs.push(pdb);
    for (const v of legacyLabelSelectorValues(p.manifest.spec.selector, ['spec', 'selector'], LEGACY_PDB_SELECTOR)) reporter.warn(p.raw, v.path, v.message);
  }

  // helper.GetPodServices skips a Service without a selector: it selects nothing, not everything.
  const services = mapSelectors(ctx, of('Service'), (m) => m.spec?.selector);
  // The API server defaults an RC's absent selector to its template's labels.
  const replicationControllers = mapSelectors(ctx, of('ReplicationController'), (m) => m.spec?.selector ?? m.spec?.template?.metadata?.labels);

  const workloadObjects = objects.filter((p): p is Of<'Deployment' | 'ReplicaSet' | 'StatefulSet' | 'DaemonSet'> =>
    p.kind === 'Deployment' || p.kind === 'ReplicaSet' || p.kind === 'StatefulSet' || p.kind === 'DaemonSet',
  );
  const workloads = loadWorkloads(ctx, workloadObjects, nodes, pods);

  const batch = loadJobs(ctx, of('Job'), of('CronJob'));
  const hpas = loadHpas(ctx, of('HorizontalPodAutoscaler'), workloads.summaries);
  const workloadRaw = new Map(workloadObjects.map((p) => [`${p.kind}/${p.manifest.metadata.namespace || 'default'}/${p.manifest.metadata.name ?? ''}`, p.raw]));
  const workloadSources = workloads.summaries.flatMap((summary) => {
    const raw = workloadRaw.get(`${summary.kind}/${summary.key}`);
    return raw ? [{ summary, raw }] : [];
  });
  for (const { summary, raw } of workloadSources) {
    if (summary.generatedPods.length > 0) warnLegacySelectors(reporter, raw, ['spec', 'template', 'spec'], templateSpec(raw.value));
  }
  const generatedByKey = new Map(workloads.pods.map((p) => [p.key, p]));
  const generatedSources: PodSource[] = workloadSources.flatMap(({ summary, raw }) =>
    summary.generatedPods.flatMap((key) => {
      const pod = generatedByKey.get(key);
      return pod ? [{ pod, raw, at: ['spec', 'template'] }] : [];
    }),
  );
  const storage = loadStorage(
    ctx,
    {
      persistentVolumes: of('PersistentVolume'),
      persistentVolumeClaims: of('PersistentVolumeClaim'),
      storageClasses: of('StorageClass'),
      csiNodes: of('CSINode'),
      csiDrivers: of('CSIDriver'),
      csiStorageCapacities: of('CSIStorageCapacity'),
      volumeAttachments: of('VolumeAttachment'),
    },
    [...pods.map((pod) => ({ pod, raw: podSources.get(pod)!, at: [] })), ...generatedSources],
    workloadSources,
  );
  const nodePools = loadNodePools(reporter, of('NodePool'));
  const catalogs = loadCatalogs(ctx, of('InstanceTypeCatalog'));

  // A pod bound to a node the input lacks is kept, but no node accounts for it.
  const nodeNames = new Set(nodes.map((n) => n.name));
  for (const pod of pods) {
    if (!pod.nodeName || nodeNames.has(pod.nodeName) || pod.phase === 'Succeeded' || pod.phase === 'Failed') continue;
    const raw = podSources.get(pod);
    if (raw) reporter.warn(raw, ['spec', 'nodeName'], `Not found: node ${JSON.stringify(pod.nodeName)} is not in the input; the pod is not counted on any node`);
  }

  const warnings = reporter.sorted('warning');
  if (reporter.errorCount > 0) return { ok: false, errors: reporter.sorted('error'), warnings };
  return {
    ok: true,
    input: {
      nodes,
      pods: [...pods, ...workloads.pods],
      namespaces,
      pdbs,
      priorityClasses,
      services,
      replicationControllers,
      replicaSets: workloads.replicaSets,
      statefulSets: workloads.statefulSets,
      workloads: workloads.summaries,
      jobs: batch.jobs,
      cronJobs: batch.cronJobs,
      hpas,
      ...(nodeClaims.length > 0 ? { nodeClaims } : {}),
      nodePools,
      catalogs,
      storage,
      locations: locationsOf(objects, inputs),
      skipped,
    },
    warnings,
  };
}
