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
import type { Node } from '../../model/node.js';
import { compilePod, matchesRequiredNodeAffinity, type Pod } from '../../model/pod.js';
import type { Selector } from '../../model/selector.js';
import { findUntoleratedTaint } from '../../model/taints.js';
import type { World } from '../world.js';
import { scaledValue } from './int-or-percent.js';
import { KeyedController } from './keyed-controller.js';

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
  readonly updateStrategy: DaemonSetUpdateStrategy;
  readonly minReadySeconds: number;
}

interface Predicates {
  readonly shouldRun: boolean;
  readonly shouldContinueRunning: boolean;
}

export class DaemonSetController extends KeyedController<SimDaemonSet> {
  /** Pod uid → the node its affinity pins it to (for pods the scheduler has not bound yet). */
  private readonly targetNode = new Map<string, string>();
  /**
   * DaemonSets whose last sync changed nothing with every live pod of the current
   * template, each with the nodes whose should-run answers or DaemonSet pods changed
   * since: until something else changes (readiness is read only when updating old
   * pods), their next sync would change nothing on any other node, so it looks at
   * those nodes alone, and is skipped when there are none. A zone loss turns
   * thousands of pods NotReady, taints hundreds of nodes and evicts their pods one
   * node at a time.
   */
  private readonly settled = new Map<SimDaemonSet, Set<string>>();

  /** Queues a sync that must look again (the DaemonSet's nodes, pods or template changed). */
  private resync(ds: SimDaemonSet): void {
    this.settled.delete(ds);
    this.enqueue(ds);
  }

  /** Queues a sync for a node whose should-run answers or pods changed: of that node alone while the DaemonSet is settled. */
  private resyncNode(ds: SimDaemonSet, node: string): void {
    const dirty = this.settled.get(ds);
    if (!dirty) return this.resync(ds);
    dirty.add(node);
    this.enqueue(ds);
  }

  constructor(world: World) {
    super(world, 'daemonset', 'ds-sync');
  }

  start(): void {
    this.world.onChange((c) => {
      if (c.kind === 'nodeUpdated') {
        // As upstream's updateNode: only the DaemonSets whose should-run or should-continue-running answer changes
        // (a node update that changes neither leaves every DaemonSet's sync a no-op).
        for (const ds of this.objects.values()) {
          const was = this.predicates(ds, c.old);
          const is = this.predicates(ds, c.node);
          if (was.shouldRun !== is.shouldRun || was.shouldContinueRunning !== is.shouldContinueRunning) this.resyncNode(ds, c.node.name);
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
      if (c.kind === 'podReady' || c.kind === 'podNotReady') this.enqueue(ds);
      else {
        // A pod changes what a sync does on its node only (and on the one it left).
        if (c.kind === 'podUpdated' && this.nodeOfPod(c.old) !== this.nodeOfPod(c.pod)) this.resyncNode(ds, this.nodeOfPod(c.old));
        this.resyncNode(ds, this.nodeOfPod(c.pod));
      }
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

  podsOf(ds: SimDaemonSet): Pod[] {
    return this.world.podsControlledBy(ds.uid);
  }

  private compileTemplate(namespace: string, name: string, t: PodTemplateManifest): Pod {
    const spec = { ...t.spec, tolerations: daemonPodTolerations(t.spec) };
    return compilePod({ metadata: { ...t.metadata, name, namespace }, spec }, { order: 0 });
  }

  /** Where the pod is or will be: its node, else the node its required affinity pins it to. */
  private nodeOfPod(p: Pod): string {
    return p.nodeName || (this.targetNode.get(p.uid) ?? '');
  }

  /** Predicates by compiled template and node object (both replaced, never changed, when they change). */
  private readonly predicateCache = new WeakMap<Pod, WeakMap<Node, Predicates>>();

  /** shouldRun (NoSchedule and NoExecute taints) and shouldContinueRunning (NoExecute only). */
  private predicates(ds: SimDaemonSet, node: Node): Predicates {
    let byNode = this.predicateCache.get(ds.templatePod);
    if (!byNode) this.predicateCache.set(ds.templatePod, (byNode = new WeakMap()));
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

  protected sync(ds: SimDaemonSet): void {
    const dirty = this.settled.get(ds);
    if (dirty && (dirty.size === 0 || this.unchangedOn(ds, dirty))) return;
    this.settled.delete(ds);
    const nodes = this.world.cluster.nodeInfos().map((ni) => ni.node);
    // The predicates read only the DaemonSet and the node, which a sync does not change: once per node.
    const preds = new Map<string, Predicates>();
    for (const n of nodes) preds.set(n.name, this.predicates(ds, n));
    const byNode = this.nodeToPods(ds);
    let desired = 0;
    for (const p of preds.values()) if (p.shouldRun) desired++;
    const { maxSurge, maxUnavailable } = this.surgeAndUnavailable(ds, desired);
    const allowsSurge = maxSurge > 0;
    const create: string[] = [];
    const del: Pod[] = [];
    for (const node of nodes) this.nodeActions(ds, node.name, preds.get(node.name)!, byNode.get(node.name), () => allowsSurge, create, del);
    this.apply(ds, create, del);
    if (create.length === 0 && del.length === 0 && this.allCurrent(ds, byNode)) {
      // A rolling update replaces old pods only: with none, it would change nothing.
      this.settled.set(ds, new Set());
      return;
    }
    // What apply changed is read again; unchanged, the same pods by node.
    const after = create.length > 0 || del.length > 0 ? this.nodeToPods(ds) : byNode;
    if (ds.updateStrategy.type === 'RollingUpdate') this.rollingUpdate(ds, nodes, after, preds, desired, maxSurge, maxUnavailable);
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

  /**
   * For a settled DaemonSet: whether a full sync would change nothing on the nodes
   * whose should-run answers or pods changed, and find their live pods all of the
   * current template (no other node can differ from the sync that settled it). True
   * keeps it settled with those nodes looked at; false means a full sync.
   */
  private unchangedOn(ds: SimDaemonSet, dirty: Set<string>): boolean {
    const pods = new Map<string, Pod[]>();
    for (const p of this.podsOf(ds)) {
      const n = this.nodeOfPod(p);
      if (!dirty.has(n)) continue;
      if (!p.terminating && !this.current(ds, p)) return false;
      pods.set(n, [...(pods.get(n) ?? []), p]);
    }
    let allowsSurge: boolean | undefined;
    const surge = () => (allowsSurge ??= this.surgeAndUnavailable(ds, this.desired(ds)).maxSurge > 0);
    const create: string[] = [];
    const del: Pod[] = [];
    for (const name of dirty) {
      const info = this.world.cluster.nodeInfo(name);
      // A node gone is a nodeDeleted, which resyncs in full; none is left here.
      if (!info) return false;
      this.nodeActions(ds, name, this.predicates(ds, info.node), pods.get(name), surge, create, del);
      if (create.length > 0 || del.length > 0) return false;
    }
    dirty.clear();
    return true;
  }

  /** desiredNumberScheduled: the nodes that should run the DaemonSet's pod. */
  private desired(ds: SimDaemonSet): number {
    let n = 0;
    for (const info of this.world.cluster.nodeInfos()) if (this.predicates(ds, info.node).shouldRun) n++;
    return n;
  }

  /** Whether every live pod is of the current template (both ways sync and rollingUpdate tell). */
  private allCurrent(ds: SimDaemonSet, byNode: ReadonlyMap<string, Pod[]>): boolean {
    for (const pods of byNode.values()) for (const p of pods) if (!p.terminating && !this.current(ds, p)) return false;
    return true;
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

  private rollingUpdate(ds: SimDaemonSet, nodes: readonly Node[], byNode: ReadonlyMap<string, Pod[]>, preds: ReadonlyMap<string, { shouldRun: boolean }>, desired: number, maxSurge: number, maxUnavailable: number): void {
    const nodeNames = nodes.map((n) => n.name).filter((n) => byNode.has(n) || preds.get(n)!.shouldRun);
    if (maxSurge === 0) {
      let numUnavailable = 0;
      const allowed: Pod[] = [];
      const candidates: Pod[] = [];
      for (const name of nodeNames) {
        const { ok, newPod, oldPod } = this.podsOnNode(ds, byNode.get(name));
        if (!ok) {
          numUnavailable++;
          continue;
        }
        if ((!oldPod && !newPod) || (oldPod && newPod)) numUnavailable++;
        else if (newPod) {
          if (!this.available(ds, newPod)) numUnavailable++;
        } else if (oldPod) {
          if (!this.available(ds, oldPod)) {
            allowed.push(oldPod);
            numUnavailable++;
          } else if (numUnavailable < maxUnavailable) candidates.push(oldPod);
        }
      }
      const remaining = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidates.length);
      this.apply(ds, [], [...allowed, ...candidates.slice(0, remaining)]);
      return;
    }
    const oldToDelete: Pod[] = [];
    const shouldNotRun: Pod[] = [];
    const candidateNew: string[] = [];
    const allowedNew: string[] = [];
    let numSurge = 0;
    let numAvailable = 0;
    for (const name of nodeNames) {
      const { ok, newPod, oldPod } = this.podsOnNode(ds, byNode.get(name));
      if (!ok) {
        numSurge++;
        continue;
      }
      if (oldPod) {
        if (this.available(ds, oldPod)) numAvailable++;
      } else if (newPod && this.available(ds, newPod)) numAvailable++;
      if (!oldPod) continue;
      const shouldRun = preds.get(name)?.shouldRun ?? false;
      if (!newPod) {
        if (!this.available(ds, oldPod)) {
          if (!shouldRun) oldToDelete.push(oldPod);
          else allowedNew.push(name);
        } else if (!shouldRun) shouldNotRun.push(oldPod);
        else if (numSurge < maxSurge) candidateNew.push(name);
        continue;
      }
      if (!this.available(ds, newPod)) {
        numSurge++;
        continue;
      }
      oldToDelete.push(oldPod);
    }
    const deletable = Math.min(numAvailable - desired, shouldNotRun.length);
    if (deletable > 0) oldToDelete.push(...shouldNotRun.slice(0, deletable));
    const remaining = Math.min(Math.max(0, maxSurge - numSurge), candidateNew.length);
    this.apply(ds, [...allowedNew, ...candidateNew.slice(0, remaining)], oldToDelete);
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
    return {
      ...compiled,
      uid,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.name, uid: ds.uid, controller: true }],
      creation: this.world.engine.now,
    };
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
