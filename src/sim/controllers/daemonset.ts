// The DaemonSet controller (pkg/controller/daemon): one pod per node that should
// run it (NodeShouldRunDaemonPod over nodeName, node affinity / nodeSelector and
// NoSchedule/NoExecute taints), created unbound with the required node affinity
// `metadata.name In [node]` so the scheduler loop binds it, as since v1.12. A
// rolling update replaces pods within maxUnavailable (maxSurge 0) or surges new
// pods beside old ones within maxSurge, both rounded up against
// desiredNumberScheduled. Upstream walks nodes in Go map order (random); berth
// walks them in node-tree order so runs are reproducible. Failed-pod backoff and
// ControllerRevision history are not modelled.

import { templateHash } from '../../model/names.js';
import { CONTROLLER_REVISION_HASH_LABEL, DAEMONSET_TEMPLATE_GENERATION_LABEL, daemonNodeAffinity, daemonPodTolerations, daemonShouldRun } from '../../io/workloads.js';
import type { IntOrString, PodTemplateManifest } from '../../model/manifest.js';
import type { NodeInfo } from '../../cluster/node-info.js';
import type { Node } from '../../model/node.js';
import { changedPod, compilePod, matchesRequiredNodeAffinity, type Pod } from '../../model/pod.js';
import type { Selector } from '../../model/selector.js';
import { findUntoleratedTaint } from '../../model/taints.js';
import type { World } from '../world.js';
import { scaledValue } from './int-or-percent.js';
import { KeyedController } from './keyed-controller.js';
import { LayeredMap } from '../layered-map.js';

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export type DaemonSetUpdateStrategy =
  | { readonly type: 'RollingUpdate'; readonly maxUnavailable?: IntOrString; readonly maxSurge?: IntOrString }
  | { readonly type: 'OnDelete' };

export interface DaemonSetInit {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly selector: Selector;
  /** The pod template as written (metadata + spec). */
  readonly template: PodTemplateManifest;
  /** Defaults to RollingUpdate with maxUnavailable 1, maxSurge 0. */
  readonly updateStrategy?: DaemonSetUpdateStrategy;
  readonly minReadySeconds?: number;
  /** The controller-revision-hash the cluster's pods carry for this template (adopted pods); berth's when unset. */
  readonly hash?: string;
}

export interface DaemonSetStatus {
  readonly desiredNumberScheduled: number;
  readonly currentNumberScheduled: number;
  readonly numberMisscheduled: number;
  readonly numberReady: number;
  readonly numberAvailable: number;
  readonly updatedNumberScheduled: number;
}

export interface SimDaemonSet {
  readonly namespace: string;
  readonly name: string;
  readonly key: string;
  readonly uid: string;
  readonly selector: Selector;
  template: PodTemplateManifest;
  /** The template compiled with the DaemonSet tolerations: what the "should run" predicates read. */
  templatePod: Pod;
  /** metadata.generation: bumped by each template change. */
  generation: number;
  hash: string;
  updateStrategy: DaemonSetUpdateStrategy;
  minReadySeconds: number;
}

interface Predicates {
  readonly shouldRun: boolean;
  readonly shouldContinueRunning: boolean;
}

/**
 * What a rolling update reads of one node (rollingUpdate in pkg/controller/daemon,
 * its walk over nodes cut per node): `count` is the node's share of numUnavailable
 * (maxSurge 0) or numSurge (maxSurge > 0), `available` of numAvailable; the rest are
 * the lists it may add to.
 */
interface NodeRollout {
  readonly count: number;
  readonly available: number;
  /** An old pod deleted as the walk reaches it (allowed, or oldToDelete with maxSurge). */
  readonly del?: Pod;
  /** maxSurge 0: an old available pod deleted while maxUnavailable allows. */
  readonly candidate?: Pod;
  /** maxSurge: an old available pod on a node it should no longer run on. */
  readonly shouldNotRun?: Pod;
  /** maxSurge: a new pod created beside the old one, at once ('allowed') or while maxSurge allows. */
  readonly surgeNew?: 'allowed' | 'candidate';
}

/** Values by node position, listed in node-tree order (the order the upstream walk adds to its lists). */
class InNodeOrder<T> {
  private readonly positions: number[] = [];
  private readonly values = new Map<number, T>();

  get size(): number {
    return this.positions.length;
  }

  set(position: number, value: T): void {
    if (!this.values.has(position)) this.positions.splice(this.index(position), 0, position);
    this.values.set(position, value);
  }

  delete(position: number): void {
    if (this.values.delete(position)) this.positions.splice(this.index(position), 1);
  }

  /** The first `n` values in node order. */
  first(n: number): T[] {
    return this.positions.slice(0, Math.max(0, n)).map((p) => this.values.get(p)!);
  }

  private index(position: number): number {
    let lo = 0;
    let hi = this.positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.positions[mid]! < position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Nodes a sync must look at again: some by name, or every one (a new view, a mode change) without listing them. */
class DirtyNodes {
  private every = true;
  private readonly names = new Set<string>();

  add(node: string): void {
    if (!this.every) this.names.add(node);
  }

  addEvery(): void {
    this.every = true;
    this.names.clear();
  }

  clear(): void {
    this.every = false;
    this.names.clear();
  }

  /** The dirty nodes that exist, in node-tree order. */
  in(cluster: World['cluster']): readonly NodeInfo[] {
    return this.every ? cluster.nodeInfos() : cluster.nodeInfosNamed(this.names);
  }
}

/**
 * A DaemonSet's pods filed by node and what its syncs last found per node, kept
 * up to date from pod and node changes, so that a sync looks only at the nodes
 * that changed since the last: a rolling update replaces one pod at a time, and
 * each replacement's four or five syncs walked every node and pod before. A
 * node is dirty until a sync has looked at it again; a sync after which the node
 * order, the rolling-update mode or the template changed starts from scratch
 * (every node dirty), which is the full walk.
 */
interface DaemonSetView {
  /** nodeInfos() when the view was built: another array means nodes came, went or moved. */
  readonly order: readonly NodeInfo[];
  /** Pods by the node they are on or pinned to ('' for neither), in filing order (a list, replaced on change: a node has one or two). */
  readonly podsByNode: LayeredMap<string, readonly Pod[]>;
  /** Pod key → where it is filed and whether it is live and not of the current template. */
  readonly filed: LayeredMap<string, Filed>;
  /** Live pods not of the current template (a sync with none and nothing to create or delete settles). */
  outdated: number;
  /** desiredNumberScheduled. */
  desired: number;
  /** The start filing the view was built from, until its first sync. */
  start: StartFiling | undefined;
  /** Nodes whose creations and deletions a sync must work out again. */
  readonly actionsDirty: DirtyNodes;
  /** Nodes whose rolling-update share must be worked out again. */
  readonly rolloutDirty: DirtyNodes;
  /** Whether the shares below are for maxSurge > 0. */
  surgeMode: boolean;
  readonly shares: Map<number, NodeRollout>;
  count: number;
  available: number;
  readonly del: InNodeOrder<Pod>;
  readonly candidates: InNodeOrder<Pod>;
  readonly shouldNotRun: InNodeOrder<Pod>;
  readonly allowedNew: InNodeOrder<string>;
  readonly candidateNew: InNodeOrder<string>;
}

interface Filed {
  readonly node: string;
  readonly outdated: boolean;
}

/** The pods of a view as filed from a DaemonSet's pods at the start of a run (World.unchangedStartPods), which every run over a copy of one cluster files alike. */
interface StartFiling {
  readonly podsByNode: ReadonlyMap<string, readonly Pod[]>;
  readonly filed: ReadonlyMap<string, Filed>;
  readonly outdated: number;
  /**
   * A run whose first sync from this filing looked at every node and found nothing to
   * create or delete: its nodes (in node-tree order), compiled template and surge
   * setting, and how many nodes should run a pod. Another run with the same finds the same.
   */
  quiet?: { readonly nodes: readonly Node[]; readonly templatePod: Pod; readonly allowsSurge: boolean; readonly desired: number };
}

/** By the start pods filed, and the template's generation and hash they were filed against. */
const startFilings = new WeakMap<ReadonlyMap<string, Pod>, Map<string, StartFiling>>();

/**
 * Compiled templates by written template and DaemonSet, and their predicates by
 * node object: pure functions of objects that are replaced, never changed, so every
 * simulation of one input (each starts from the same templates and node objects)
 * shares them.
 */
const compiledTemplates = new WeakMap<PodTemplateManifest, Map<string, Pod>>();
const predicateCache = new WeakMap<Pod, WeakMap<Node, Predicates>>();

export class DaemonSetController extends KeyedController<SimDaemonSet> {
  /** Pod uid → the node its affinity pins it to (for pods the scheduler has not bound yet). */
  private readonly targetNode = new Map<string, string>();
  private readonly views = new Map<SimDaemonSet, DaemonSetView>();

  constructor(world: World) {
    super(world, 'daemonset', 'ds-sync');
  }

  /** Marks a node for the DaemonSet's next sync to look at and queues the sync. */
  private dirty(ds: SimDaemonSet, node: string): void {
    const view = this.views.get(ds);
    if (view) {
      view.actionsDirty.add(node);
      view.rolloutDirty.add(node);
    }
    this.enqueue(ds);
  }

  /** A template or node set change: the next sync starts from scratch. */
  private resync(ds: SimDaemonSet): void {
    this.views.delete(ds);
    this.enqueue(ds);
  }

  start(): void {
    this.world.onChange((c) => {
      if (c.kind === 'nodeUpdated') {
        // As upstream's updateNode: only the DaemonSets whose should-run or should-continue-running answer changes
        // (a node update that changes neither leaves every DaemonSet's sync a no-op).
        for (const ds of this.objects.values()) {
          const was = this.predicates(ds, c.old);
          const is = this.predicates(ds, c.node);
          if (was.shouldRun === is.shouldRun && was.shouldContinueRunning === is.shouldContinueRunning) continue;
          const view = this.views.get(ds);
          if (view && was.shouldRun !== is.shouldRun) view.desired += is.shouldRun ? 1 : -1;
          this.dirty(ds, c.node.name);
        }
        return;
      }
      if (c.kind === 'nodeAdded' || c.kind === 'nodeDeleted') {
        for (const ds of this.objects.values()) this.resync(ds);
        return;
      }
      if (!('pod' in c)) return;
      const ds = this.ownerOf(c.pod);
      if (!ds) return;
      if (c.kind === 'podReady' && ds.minReadySeconds > 0) this.world.engine.after(ds.minReadySeconds * 1000 + 1, 'ds-min-ready', () => this.enqueue(ds));
      const view = this.views.get(ds);
      if (view && c.kind !== 'podReady' && c.kind !== 'podNotReady') {
        // Filed as the store has it now (listeners may hear of a pod's changes out of order).
        const was = view.filed.get(c.pod.key);
        if (was) this.dirty(ds, was.node);
        this.file(ds, view, c.pod.key);
      }
      this.dirty(ds, this.nodeOfPod(c.pod));
    });
  }
  add(init: DaemonSetInit): SimDaemonSet {
    const key = `${init.namespace}/${init.name}`;
    this.assertNew(key);
    const ds: SimDaemonSet = {
      namespace: init.namespace,
      name: init.name,
      key,
      uid: init.uid,
      selector: init.selector,
      template: init.template,
      templatePod: this.compileTemplate(init.namespace, init.name, init.template),
      generation: 1,
      hash: init.hash ?? templateHash(init.template),
      updateStrategy: init.updateStrategy ?? { type: 'RollingUpdate' },
      minReadySeconds: init.minReadySeconds ?? 0,
    };
    this.register(ds);
    this.world.engine.record('DaemonSetCreated', { daemonSet: key });
    this.enqueue(ds);
    return ds;
  }

  /** A template change: a new generation and hash, which starts a rolling update. */
  setTemplate(key: string, template: PodTemplateManifest): void {
    const ds = this.mustGet(key);
    ds.template = template;
    ds.templatePod = this.compileTemplate(ds.namespace, ds.name, template);
    ds.generation++;
    ds.hash = templateHash(template);
    this.world.engine.record('DaemonSetTemplateChanged', { daemonSet: key, generation: ds.generation, hash: ds.hash });
    this.resync(ds);
  }

  /** A spec change outside the template (strategy, minReadySeconds): same generation and hash, synced again as upstream's updateDaemonset handler does. */
  setUpdateStrategy(key: string, updateStrategy: DaemonSetUpdateStrategy, minReadySeconds?: number): void {
    const ds = this.mustGet(key);
    ds.updateStrategy = updateStrategy;
    if (minReadySeconds !== undefined) ds.minReadySeconds = minReadySeconds;
    this.world.engine.record('DaemonSetUpdated', { daemonSet: key });
    this.resync(ds);
  }

  /**
   * Whether the DaemonSet has live pods of an older template, as its last sync's view
   * has them (kept up to date with every pod change); undefined when no sync has
   * looked since the view was dropped. A cheap test before status(), which walks every node.
   */
  hasOutdatedPods(ds: SimDaemonSet): boolean | undefined {
    const view = this.views.get(ds);
    return view && view.outdated > 0;
  }

  podsOf(ds: SimDaemonSet): Pod[] {
    return this.world.podsControlledBy(ds.uid);
  }

  private compileTemplate(namespace: string, name: string, t: PodTemplateManifest): Pod {
    let byName = compiledTemplates.get(t);
    if (!byName) compiledTemplates.set(t, (byName = new Map()));
    const key = `${namespace}/${name}`;
    let pod = byName.get(key);
    if (!pod) {
      const spec = { ...t.spec, tolerations: daemonPodTolerations(t.spec) };
      byName.set(key, (pod = compilePod({ metadata: { ...t.metadata, name, namespace }, spec }, { order: 0 })));
    }
    return pod;
  }

  /** Where the pod is or will be: its node, else the node its required affinity pins it to. */
  private nodeOfPod(p: Pod): string {
    return p.nodeName || (this.targetNode.get(p.uid) ?? '');
  }

  /** shouldRun (NoSchedule and NoExecute taints) and shouldContinueRunning (NoExecute only). */
  private predicates(ds: SimDaemonSet, node: Node): Predicates {
    let byNode = predicateCache.get(ds.templatePod);
    if (!byNode) predicateCache.set(ds.templatePod, (byNode = new WeakMap()));
    let p = byNode.get(node);
    if (!p) byNode.set(node, (p = this.computePredicates(ds, node)));
    return p;
  }

  private computePredicates(ds: SimDaemonSet, node: Node): Predicates {
    const tp = ds.templatePod;
    if ((tp.nodeName !== '' && tp.nodeName !== node.name) || !matchesRequiredNodeAffinity(tp, node)) return { shouldRun: false, shouldContinueRunning: false };
    const shouldContinueRunning = findUntoleratedTaint(node.taints, tp.tolerations, (t) => t.effect === 'NoExecute') === undefined;
    return { shouldRun: daemonShouldRun(tp, node), shouldContinueRunning };
  }

  private updated(ds: SimDaemonSet, p: Pod): boolean {
    return p.labels[DAEMONSET_TEMPLATE_GENERATION_LABEL] === String(ds.generation) || p.labels[CONTROLLER_REVISION_HASH_LABEL] === ds.hash;
  }

  private available(ds: SimDaemonSet, p: Pod): boolean {
    const since = this.world.readySince(p.key);
    if (since === undefined) return false;
    return ds.minReadySeconds === 0 || since + ds.minReadySeconds * 1000 < this.world.engine.now;
  }

  private nodeToPods(ds: SimDaemonSet): Map<string, Pod[]> {
    const m = new Map<string, Pod[]>();
    for (const p of this.podsOf(ds)) {
      const n = this.nodeOfPod(p);
      const list = m.get(n) ?? [];
      list.push(p);
      m.set(n, list);
    }
    return m;
  }

  private surgeAndUnavailable(ds: SimDaemonSet, desired: number): { maxSurge: number; maxUnavailable: number } {
    if (ds.updateStrategy.type !== 'RollingUpdate') return { maxSurge: 0, maxUnavailable: 0 };
    const maxSurge = scaledValue(ds.updateStrategy.maxSurge ?? 0, desired, true);
    let maxUnavailable = scaledValue(ds.updateStrategy.maxUnavailable ?? 1, desired, true);
    if (desired > 0 && maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
    return { maxSurge, maxUnavailable };
  }

  /** The view of the DaemonSet, built (every node dirty) when it has none or the node order changed. */
  private viewOf(ds: SimDaemonSet): DaemonSetView {
    const order = this.world.cluster.nodeInfos();
    const had = this.views.get(ds);
    if (had && had.order === order) return had;
    const start = this.startFiling(ds);
    const view: DaemonSetView = {
      order,
      podsByNode: new LayeredMap(start?.podsByNode ?? new Map()),
      filed: new LayeredMap(start?.filed ?? new Map()),
      outdated: start?.outdated ?? 0,
      desired: 0,
      start,
      actionsDirty: new DirtyNodes(),
      rolloutDirty: new DirtyNodes(),
      surgeMode: false,
      shares: new Map(),
      count: 0,
      available: 0,
      del: new InNodeOrder(),
      candidates: new InNodeOrder(),
      shouldNotRun: new InNodeOrder(),
      allowedNew: new InNodeOrder(),
      candidateNew: new InNodeOrder(),
    };
    const quiet = start?.quiet;
    if (quiet && quiet.templatePod === ds.templatePod && sameNodes(quiet.nodes, order)) view.desired = quiet.desired;
    else for (const ni of order) if (this.predicates(ds, ni.node).shouldRun) view.desired++;
    // The controller's pods as the store has them now (world.podsControlledBy).
    if (!start) for (const p of this.podsOf(ds)) this.fileAt(ds, view, p);
    this.views.set(ds, view);
    return view;
  }

  /**
   * The DaemonSet's pods filed as a view files them, when they are those of the start
   * of the run (filed once for every run over a copy of one cluster; a view reads
   * them through its own layer). Undefined once a pod of it changed here.
   */
  private startFiling(ds: SimDaemonSet): StartFiling | undefined {
    const pods = this.world.unchangedStartPods(ds.uid);
    if (!pods) return undefined;
    let byTemplate = startFilings.get(pods);
    if (!byTemplate) startFilings.set(pods, (byTemplate = new Map()));
    const template = `${ds.generation}/${ds.hash}`;
    const known = byTemplate.get(template);
    if (known) return known;
    const podsByNode = new Map<string, readonly Pod[]>();
    const filed = new Map<string, Filed>();
    let outdated = 0;
    for (const p of pods.values()) {
      const node = this.nodeOfPod(p);
      podsByNode.set(node, [...(podsByNode.get(node) ?? []), p]);
      const old = !p.terminating && !this.current(ds, p);
      if (old) outdated++;
      filed.set(p.key, { node, outdated: old });
    }
    const filing = { podsByNode, filed, outdated };
    byTemplate.set(template, filing);
    return filing;
  }

  /** Files the pod with this key where the store has it now, or nowhere when it is gone. */
  private file(ds: SimDaemonSet, view: DaemonSetView, key: string): void {
    const was = view.filed.get(key);
    if (was) {
      const pods = view.podsByNode.get(was.node)!;
      const rest = pods.filter((p) => p.key !== key);
      if (rest.length === 0) view.podsByNode.delete(was.node);
      else view.podsByNode.set(was.node, rest);
      if (was.outdated) view.outdated--;
      view.filed.delete(key);
    }
    const p = this.world.cluster.getPod(key);
    if (p && this.ownerOf(p) === ds) this.fileAt(ds, view, p);
  }

  /** Files one of the DaemonSet's pods, not filed yet, where it is. */
  private fileAt(ds: SimDaemonSet, view: DaemonSetView, p: Pod): void {
    const node = this.nodeOfPod(p);
    view.podsByNode.set(node, [...(view.podsByNode.get(node) ?? []), p]);
    const outdated = !p.terminating && !this.current(ds, p);
    if (outdated) view.outdated++;
    view.filed.set(p.key, { node, outdated });
  }

  /** The DaemonSet's pods on (or pinned to) a node, in podsOf's order: the view's own list when it has one pod (read it before the view changes). */
  private podsAt(view: DaemonSetView, node: string): readonly Pod[] | undefined {
    const pods = view.podsByNode.get(node);
    return pods && pods.length > 1 ? [...pods].sort(this.world.byControllerOrder) : pods;
  }

  protected sync(ds: SimDaemonSet): void {
    const view = this.viewOf(ds);
    if (ds.minReadySeconds > 0) {
      // Availability then depends on the clock, not only on changes: every node is looked at.
      this.dirtyEvery(view);
    }
    const { maxSurge, maxUnavailable } = this.surgeAndUnavailable(ds, view.desired);
    const allowsSurge = maxSurge > 0;
    if (allowsSurge !== view.surgeMode) {
      // Each node's creations with pods all stopped, and its rolling-update share, depend on it.
      this.clearShares(view);
      view.surgeMode = allowsSurge;
      this.dirtyEvery(view);
    }
    // The first sync of a view filed from the start pods looks at every node: nothing to do when a run with the same found nothing.
    const start = ds.minReadySeconds === 0 ? view.start : undefined;
    view.start = undefined;
    const quiet = start?.quiet;
    if (quiet && quiet.templatePod === ds.templatePod && quiet.allowsSurge === allowsSurge && sameNodes(quiet.nodes, view.order)) view.actionsDirty.clear();
    // A node no sync has had to look at since its last look would get nothing created or deleted.
    const create: string[] = [];
    const del: Pod[] = [];
    for (const ni of view.actionsDirty.in(this.world.cluster)) this.nodeActions(ds, ni.node.name, this.predicates(ds, ni.node), this.podsAt(view, ni.node.name), () => allowsSurge, create, del);
    view.actionsDirty.clear();
    if (start && !quiet && create.length === 0 && del.length === 0) start.quiet = { nodes: view.order.map((ni) => ni.node), templatePod: ds.templatePod, allowsSurge, desired: view.desired };
    this.apply(ds, create, del);
    // A rolling update replaces old pods only: with none, it would change nothing.
    if ((create.length === 0 && del.length === 0 && view.outdated === 0) || ds.updateStrategy.type !== 'RollingUpdate') return;
    this.rollingUpdate(ds, view, maxSurge, maxUnavailable);
  }

  private dirtyEvery(view: DaemonSetView): void {
    view.actionsDirty.addEvery();
    view.rolloutDirty.addEvery();
  }

  /**
   * What a sync creates on and deletes from one node (appended to `create` and
   * `del`), from its predicates and the DaemonSet's pods there; `allowsSurge` is
   * asked only for a node whose pods all stopped or are terminating.
   */
  private nodeActions(ds: SimDaemonSet, node: string, preds: Predicates, pods: readonly Pod[] | undefined, allowsSurge: () => boolean, create: string[], del: Pod[]): void {
    const { shouldRun, shouldContinueRunning } = preds;
    if (shouldRun && !pods) {
      create.push(node);
      return;
    }
    if (!pods) return;
    if (!shouldContinueRunning) {
      for (const p of pods) if (!p.terminating) del.push(p);
      return;
    }
    // The common case, one running pod: nothing to create or delete.
    if (pods.length === 1 && !pods[0]!.terminating && pods[0]!.phase !== 'Failed' && pods[0]!.phase !== 'Succeeded') return;
    const running = pods.filter((p) => !p.terminating);
    const live: Pod[] = [];
    for (const p of running) (p.phase === 'Failed' || p.phase === 'Succeeded' ? del : live).push(p);
    live.sort((a, b) => a.creation - b.creation || a.uid.localeCompare(b.uid));
    if (live.length > 1 && !allowsSurge()) {
      del.push(...live.slice(1));
      return;
    }
    if (live.length === 0) {
      if (shouldRun && allowsSurge()) create.push(node);
      return;
    }
    if (live.length === 1) return;
    let oldestNew: Pod | undefined;
    let oldestOld: Pod | undefined;
    for (const p of live) {
      if (p.labels[CONTROLLER_REVISION_HASH_LABEL] === ds.hash) {
        if (!oldestNew) {
          oldestNew = p;
          continue;
        }
      } else if (!oldestOld) {
        oldestOld = p;
        continue;
      }
      del.push(p);
    }
    if (oldestNew && oldestOld && (!this.world.isReady(oldestOld.key) || this.available(ds, oldestNew))) del.push(oldestOld);
  }

  private current(ds: SimDaemonSet, p: Pod): boolean {
    return p.labels[CONTROLLER_REVISION_HASH_LABEL] === ds.hash && this.updated(ds, p);
  }

  private apply(ds: SimDaemonSet, create: readonly string[], del: readonly Pod[]): void {
    for (const p of del) {
      const cur = this.world.cluster.getPod(p.key);
      if (cur && !cur.terminating) this.world.deletePod(p.key, 'DaemonSet');
    }
    for (const n of create) this.world.createPod(this.newPod(ds, n));
  }

  /** findUpdatedPodsOnNode: at most one old and one new live pod, else ok = false. */
  private podsOnNode(ds: SimDaemonSet, pods: readonly Pod[] | undefined): { ok: boolean; newPod?: Pod; oldPod?: Pod } {
    let newPod: Pod | undefined;
    let oldPod: Pod | undefined;
    for (const p of pods ?? []) {
      if (p.terminating) continue;
      if (this.updated(ds, p)) {
        if (newPod) return { ok: false };
        newPod = p;
      } else {
        if (oldPod) return { ok: false };
        oldPod = p;
      }
    }
    return { ok: true, ...(newPod ? { newPod } : {}), ...(oldPod ? { oldPod } : {}) };
  }

  private clearShares(view: DaemonSetView): void {
    for (const position of [...view.shares.keys()]) this.setShare(view, position, undefined);
  }

  /** Replaces a node's rolling-update share (its counts and list entries) with `share`. */
  private setShare(view: DaemonSetView, position: number, share: NodeRollout | undefined): void {
    const old = view.shares.get(position);
    if (old) {
      view.count -= old.count;
      view.available -= old.available;
      view.del.delete(position);
      view.candidates.delete(position);
      view.shouldNotRun.delete(position);
      view.allowedNew.delete(position);
      view.candidateNew.delete(position);
      view.shares.delete(position);
    }
    if (!share) return;
    view.shares.set(position, share);
    view.count += share.count;
    view.available += share.available;
    if (share.del) view.del.set(position, share.del);
    if (share.candidate) view.candidates.set(position, share.candidate);
    if (share.shouldNotRun) view.shouldNotRun.set(position, share.shouldNotRun);
    const name = view.order[position]!.node.name;
    if (share.surgeNew === 'allowed') view.allowedNew.set(position, name);
    if (share.surgeNew === 'candidate') view.candidateNew.set(position, name);
  }

  /** One node's part of upstream's walk over the nodes that run or should run a pod (none for the others). */
  private share(ds: SimDaemonSet, view: DaemonSetView, node: Node): NodeRollout | undefined {
    const pods = this.podsAt(view, node.name);
    const { shouldRun } = this.predicates(ds, node);
    if (!pods && !shouldRun) return undefined;
    const { ok, newPod, oldPod } = this.podsOnNode(ds, pods);
    if (!ok) return { count: 1, available: 0 };
    if (!view.surgeMode) {
      if ((!oldPod && !newPod) || (oldPod && newPod)) return { count: 1, available: 0 };
      if (newPod) return { count: this.available(ds, newPod) ? 0 : 1, available: 0 };
      return this.available(ds, oldPod!) ? { count: 0, available: 0, candidate: oldPod! } : { count: 1, available: 0, del: oldPod! };
    }
    const available = (oldPod ? this.available(ds, oldPod) : newPod !== undefined && this.available(ds, newPod)) ? 1 : 0;
    if (!oldPod) return { count: 0, available };
    if (!newPod) {
      if (!this.available(ds, oldPod)) return shouldRun ? { count: 0, available, surgeNew: 'allowed' } : { count: 0, available, del: oldPod };
      return shouldRun ? { count: 0, available, surgeNew: 'candidate' } : { count: 0, available, shouldNotRun: oldPod };
    }
    return this.available(ds, newPod) ? { count: 0, available, del: oldPod } : { count: 1, available };
  }

  /**
   * Upstream's rollingUpdate from the nodes' shares, the dirty ones worked out
   * again. Its walk adds a candidate only while the count so far is under the
   * limit, then takes (limit − count) of them: the same as the first (limit −
   * total count) candidates in node order, since the count only grows.
   */
  private rollingUpdate(ds: SimDaemonSet, view: DaemonSetView, maxSurge: number, maxUnavailable: number): void {
    for (const ni of view.rolloutDirty.in(this.world.cluster)) {
      const position = this.world.cluster.nodePosition(ni.node.name)!;
      this.setShare(view, position, this.share(ds, view, ni.node));
    }
    view.rolloutDirty.clear();
    const del = view.del.first(view.del.size);
    if (!view.surgeMode) {
      this.apply(ds, [], [...del, ...view.candidates.first(maxUnavailable - view.count)]);
      return;
    }
    const deletable = Math.min(view.available - view.desired, view.shouldNotRun.size);
    const create = [...view.allowedNew.first(view.allowedNew.size), ...view.candidateNew.first(maxSurge - view.count)];
    this.apply(ds, create, [...del, ...view.shouldNotRun.first(deletable)]);
  }

  /** generateName `<name>-` with five random characters, as the API server names them. */
  private generateName(ds: SimDaemonSet): string {
    const { cluster, engine } = this.world;
    for (;;) {
      let suffix = '';
      for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[engine.rand.intn(NAME_ALPHABET.length)];
      const name = `${ds.name}-${suffix}`;
      if (!cluster.getPod(`${ds.namespace}/${name}`)) return name;
    }
  }

  private newPod(ds: SimDaemonSet, nodeName: string): Pod {
    const t = ds.template;
    const name = this.generateName(ds);
    const labels = { ...t.metadata?.labels, [DAEMONSET_TEMPLATE_GENERATION_LABEL]: String(ds.generation), [CONTROLLER_REVISION_HASH_LABEL]: ds.hash };
    const spec = { ...t.spec, tolerations: daemonPodTolerations(t.spec), affinity: daemonNodeAffinity(t.spec.affinity, nodeName) };
    const compiled = compilePod({ metadata: { ...t.metadata, name, namespace: ds.namespace, labels }, spec }, { order: 0 });
    const uid = this.world.newUid();
    this.targetNode.set(uid, nodeName);
    return changedPod(compiled, {
      uid,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.name, uid: ds.uid, controller: true }],
      creation: this.world.engine.now,
    });
  }

  status(ds: SimDaemonSet): DaemonSetStatus {
    const nodes = this.world.cluster.nodeInfos().map((ni) => ni.node);
    const byNode = this.nodeToPods(ds);
    let desired = 0;
    let current = 0;
    let mis = 0;
    let ready = 0;
    let available = 0;
    let updated = 0;
    for (const node of nodes) {
      const { shouldRun } = this.predicates(ds, node);
      const pods = (byNode.get(node.name) ?? []).filter((p) => !p.terminating && p.nodeName === node.name);
      if (shouldRun) desired++;
      if (pods.length === 0) continue;
      if (!shouldRun) {
        mis++;
        continue;
      }
      current++;
      const p = [...pods].sort((a, b) => a.creation - b.creation)[0]!;
      if (this.world.isReady(p.key)) {
        ready++;
        if (this.available(ds, p)) available++;
      }
      if (this.updated(ds, p)) updated++;
    }
    return { desiredNumberScheduled: desired, currentNumberScheduled: current, numberMisscheduled: mis, numberReady: ready, numberAvailable: available, updatedNumberScheduled: updated };
  }
}

/** The same node objects in the same order. */
function sameNodes(nodes: readonly Node[], order: readonly NodeInfo[]): boolean {
  return nodes.length === order.length && nodes.every((n, i) => n === order[i]!.node);
}
