// kube-scheduler's scheduling queue and binding cycle, driven by simulated time:
// an activeQ ordered by the profile's QueueSort plugin, a backoffQ, and a pool of
// unschedulable pods. Defaults are upstream's (pkg/scheduler/backend/queue): 1 s
// initial backoff doubling per failed attempt up to 10 s, backoff expiries
// truncated to 1 s windows, unschedulable pods flushed every 30 s once they have
// waited more than 5 minutes, and (SchedulerPopFromBackoffQ, on by default) a pod
// still backing off is popped when the activeQ is empty.
//
// Requeueing follows upstream's queueing hints (queueing-hints.ts): a cluster event
// (an assigned pod added, relabelled, scaled down or deleted; a node added, deleted,
// tainted, relabelled or resized) moves an unschedulable pod back, to the backoffQ
// while it is still backing off, else to the activeQ, only when a plugin that
// rejected it in its last attempt has a hint saying the event may help. Other updates
// of an assigned pod (its phase, readiness, a deletion still terminating) are the
// generic Pod/Update event, which no plugin of the default profile registers for.
// Scheduling and binding take no simulated time, and one event runs cycles until the
// activeQ is empty: kube-scheduler pops the next pod as soon as a cycle ends, while
// anything reacting to a binding (a kubelet starting the pod, the controllers after
// it) needs an API write and a watch event first. Pods with scheduling gates are left
// alone (they never enter the queue here).

import { CycleState, type QueuedPod } from '../scheduler/framework.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import type { Pod } from '../model/pod.js';
import type { ClusterState } from '../cluster/state.js';
import { IndexedHeap, type HeapItem } from './indexed-heap.js';
import { assignedPodUpdateEvents, nodeUpdateEvents, worthRequeuing, type HintEvent } from './queueing-hints.js';
import type { ClusterChange, World } from './world.js';

export interface QueueOptions {
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly maxInUnschedulableMs?: number;
  /** SchedulerPopFromBackoffQ (default on in v1.37). */
  readonly popFromBackoffQ?: boolean;
  /** Picks a side of the removal race (RemovalRaceGuide); the simulator's own event order when unset. */
  readonly removalRace?: RemovalRaceGuide;
  /** Picks the next pod among pods that arrived in the same instant (ArrivalTieGuide); the order of arrival when unset. */
  readonly arrivalTie?: ArrivalTieGuide;
  /** Says which failed attempts' messages a Pending pod is known to end with (PendingMessageGuide); unset, no attempt is moved for its message. */
  readonly pendingMessage?: PendingMessageGuide;
}

/**
 * When a pod that fails to schedule is attempted among the pods of one instant is
 * unobservable upstream and decides its FailedScheduling message: the ReplicaSet
 * controller creates a drain's replacements one sync after another (each waits for its
 * last creation to be observed), so a pod tied by arrival may be attempted between
 * two of them (s1-35); a pod moved back to the queue by a removal in the removal race
 * may hear of it after the pods created at that instant are scheduled (s2-14). The
 * guide says whether a pod failing with `message` ends Pending with it. With it, a pod
 * that arrived at this instant and fails with another message takes the message of an
 * attempt before the latest pods tied with it by arrival were bound, when one gives a
 * known message and none of those bindings would have moved it back to the queue; a
 * pod moved back by a racing removal that fails with another message is attempted
 * again after the pods that arrived at this instant. A failed attempt takes no room:
 * only the pod's own message moves. Only a harness comparing with a real cluster sets it.
 */
export type PendingMessageGuide = (pod: Pod, message: string) => boolean;

/**
 * Pods the QueueSort plugin orders only by arrival (same priority, queued at the same
 * instant): upstream's queue timestamps are nanoseconds apart, set by which controller
 * created its pod first — a ReplicaSet's replacement follows the terminating pod's
 * event, a StatefulSet's recreated pod also waits for its predecessor's removal (s1-14).
 * With a pod that arrived at this instant, the pods moved to the backoffQ at it are
 * offered too (an idle Pop takes them if their move came first, s3-88). The guide is
 * offered the tied pods in the simulator's order and returns the one to schedule next,
 * or undefined for the first.
 */
export type ArrivalTieGuide = (tied: readonly Pod[]) => Pod | undefined;

/**
 * The removal race: a pod deleted with no grace period (its kubelet removes it at once)
 * leaves kube-scheduler's cache on a watch event that races with the scheduling of
 * pods created at the same instant, typically its own replacement (the ReplicaSet
 * controller creates it on the deletion's first event): a cycle sees the cache as the
 * pod informer's handler has updated it so far, and kwok's removal lands in the API
 * before or after the replacement's creation. Upstream, the replacement is scheduled with
 * the old pod still counted (terminating) or already gone, either way; a pod that arrived
 * before the deletion (a rollout's new pod against an old one scaled down at once) may
 * even be scheduled before the scheduler has heard of the deletion at all, and a pending
 * pod moved back by one removal of a batch before it hears of the others (README of
 * conformance/sim-vs-real: s1-15, s1-23, s1-32, s2-51, s2-59). When another view places the
 * pod on another node, the guide is offered the simulator's own view's node, then the
 * other views' nodes; it returns the one to take, or undefined for the simulator's own.
 */
export type RemovalRaceGuide = (pod: Pod, own: string, others: readonly string[]) => string | undefined;

/** A pod in the removal race: deleted with no grace period at `at`, removed from the store or about to be. */
interface RacingRemoval {
  /** As deleted (terminating). */
  readonly pod: Pod;
  /** As before its deletion. */
  readonly before: Pod;
  readonly at: number;
  /** How many pods had arrived in the queue (its sequence) when it was deleted. */
  readonly arrivals: number;
}

export const DEFAULT_INITIAL_BACKOFF_MS = 1000;
export const DEFAULT_MAX_BACKOFF_MS = 10_000;
export const DEFAULT_MAX_IN_UNSCHEDULABLE_MS = 5 * 60_000;
const BACKOFF_WINDOW_MS = 1000;
const UNSCHEDULABLE_FLUSH_PERIOD_MS = 30_000;

/** calculateBackoffDuration for a single pod: initial × 2^(attempts−1), capped; 0 before any attempt. */
export function backoffDurationMs(attempts: number, initialMs = DEFAULT_INITIAL_BACKOFF_MS, maxMs = DEFAULT_MAX_BACKOFF_MS): number {
  if (attempts <= 0) return 0;
  let d = initialMs;
  for (let i = 1; i < attempts; i++) {
    if (d >= maxMs) break;
    d *= 2;
  }
  return Math.min(d, maxMs);
}

/** A queued pod; it is also the QueuedPod the QueueSort plugin compares. */
interface Entry extends HeapItem, QueuedPod {
  readonly key: string;
  /** The pod as the queue last heard of it. */
  pod: Pod;
  /** When the pod last entered the queue or failed an attempt (QueuedPodInfo.Timestamp). */
  timestamp: number;
  readonly seq: number;
  attempts: number;
  /** The queue holding the pod; undefined while it is being scheduled. */
  queue: QueueName | undefined;
  /** The plugins that rejected it in its last attempt (pInfo.UnschedulablePlugins and PendingPlugins); empty before any. */
  rejectors: ReadonlySet<string>;
}

export type QueueName = 'active' | 'backoff' | 'unschedulable';

export class SchedulerLoop {
  private readonly entries = new Map<string, Entry>();
  /** The activeQ, ordered by the QueueSort plugin (then arrival). */
  private readonly activeQ: IndexedHeap<Entry>;
  /** The backoffQ, ordered by backoff expiry, then as the activeQ. */
  private readonly backoffQ: IndexedHeap<Entry>;
  private readonly unschedulablePods = new Set<Entry>();
  private seq = 0;
  private scheduleQueued = false;
  private leftoverTimerAt = -1;
  private backoffFlushAt = -1;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxInUnschedulableMs: number;
  private readonly popFromBackoffQ: boolean;
  private readonly unschedulableListeners: ((pod: Pod) => void)[] = [];
  private readonly removalRace: RemovalRaceGuide | undefined;
  private readonly arrivalTie: ArrivalTieGuide | undefined;
  private readonly pendingMessage: PendingMessageGuide | undefined;
  /** Entries moved back to the queue by a racing removal, with the instant (RemovalRaceGuide, PendingMessageGuide). */
  private readonly movedByRace = new Map<Entry, number>();
  /** Entries whose attempt waits for the pods that arrived at this instant (PendingMessageGuide). */
  private readonly deferred: Entry[] = [];
  /** The pods bound, with their queue timestamp and the instant (PendingMessageGuide); only this instant's are kept. */
  private boundNow: { readonly pod: Pod; readonly timestamp: number; readonly at: number }[] = [];
  private readonly queueLess: (a: QueuedPod, b: QueuedPod) => boolean;
  /**
   * Entries moved to the backoffQ, with the instant, the arrivals then and whether the activeQ
   * was empty: kube-scheduler's idle Pop takes those at once (SchedulerPopFromBackoffQ: the
   * move wakes it), before a pod a controller creates in reaction to the same event arrives,
   * an API write and a watch event later.
   */
  private readonly movedToBackoff = new Map<Entry, { readonly at: number; readonly arrivals: number; readonly idle: boolean }>();
  private readonly backoffLess: (a: Entry, b: Entry) => boolean;
  /** Pod key → its removal race, kept only while a removal-race or pending-message guide is set. */
  private readonly racing = new Map<string, RacingRemoval>();

  constructor(
    readonly world: World,
    readonly scheduler: Scheduler,
    opts: QueueOptions = {},
  ) {
    this.initialBackoffMs = opts.initialBackoffMs ?? DEFAULT_INITIAL_BACKOFF_MS;
    this.maxBackoffMs = opts.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
    this.maxInUnschedulableMs = opts.maxInUnschedulableMs ?? DEFAULT_MAX_IN_UNSCHEDULABLE_MS;
    this.popFromBackoffQ = opts.popFromBackoffQ ?? true;
    this.removalRace = opts.removalRace;
    this.arrivalTie = opts.arrivalTie;
    this.pendingMessage = opts.pendingMessage;
    const less = scheduler.framework.plugins.queueSort.less;
    this.queueLess = less;
    const byQueueSort = (a: Entry, b: Entry) => less(a, b) || (!less(b, a) && a.seq < b.seq);
    this.activeQ = new IndexedHeap(byQueueSort);
    this.backoffLess = (a, b) => {
      const ea = this.backoffExpiry(a.key)!;
      const eb = this.backoffExpiry(b.key)!;
      return ea !== eb ? ea < eb : byQueueSort(a, b);
    };
    this.backoffQ = new IndexedHeap(this.backoffLess);
  }

  /** Queues the cluster's pending pods of this profile and starts reacting to changes. */
  start(): void {
    for (const pod of this.world.cluster.pendingPods()) this.admit(pod);
    this.world.onChange((c) => this.onChange(c));
    this.kick();
  }

  /** Hears every failed scheduling attempt (PodScheduled=False, reason Unschedulable): what a provisioner watches. */
  onUnschedulable(listener: (pod: Pod) => void): void {
    this.unschedulableListeners.push(listener);
  }

  /** Which queue holds the pod, if any. */
  queueOf(key: string): QueueName | undefined {
    return this.entries.get(key)?.queue;
  }

  /** The aligned backoff expiry (getBackoffTime); the pod is released once a later window starts. */
  backoffExpiry(key: string): number | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    const end = e.timestamp + backoffDurationMs(e.attempts, this.initialBackoffMs, this.maxBackoffMs);
    return end - (end % BACKOFF_WINDOW_MS);
  }

  private isBackingOff(e: Entry): boolean {
    const now = this.world.engine.now;
    return this.backoffExpiry(e.key)! >= now - (now % BACKOFF_WINDOW_MS);
  }

  private enqueue(e: Entry, queue: QueueName): void {
    e.queue = queue;
    if (queue === 'active') this.activeQ.push(e);
    else if (queue === 'backoff') this.backoffQ.push(e);
    else this.unschedulablePods.add(e);
  }

  private dequeue(e: Entry): void {
    if (e.queue === 'active') this.activeQ.remove(e);
    else if (e.queue === 'backoff') this.backoffQ.remove(e);
    else if (e.queue === 'unschedulable') this.unschedulablePods.delete(e);
    e.queue = undefined;
    this.movedToBackoff.delete(e);
  }

  private admit(pod: Pod): void {
    if (pod.schedulerName !== this.scheduler.framework.profileName || pod.schedulingGates.length > 0) return;
    if (this.entries.has(pod.key)) return;
    const e: Entry = { key: pod.key, pod, timestamp: this.world.engine.now, seq: this.seq++, attempts: 0, queue: undefined, heapPos: -1, rejectors: NO_PLUGINS };
    this.entries.set(pod.key, e);
    this.enqueue(e, 'active');
  }

  private forget(e: Entry): void {
    this.dequeue(e);
    this.movedByRace.delete(e);
    this.entries.delete(e.key);
  }

  private onChange(c: ClusterChange): void {
    switch (c.kind) {
      case 'podAdded':
        if (!c.pod.nodeName) {
          this.admit(c.pod);
          this.kick();
        } else this.moveUnschedulable({ resource: 'AssignedPod', action: 'Add', pod: c.pod });
        return;
      case 'podUpdated': {
        // A queued pod changed: the heaps' order may read it.
        const e = this.entries.get(c.pod.key);
        if (e) {
          e.pod = c.pod;
          if (e.queue === 'active') this.activeQ.fix(e);
          else if (e.queue === 'backoff') this.backoffQ.fix(e);
        }
        if (!c.pod.nodeName) return;
        if ((this.removalRace || this.pendingMessage) && c.pod.terminating && !c.old.terminating && c.pod.terminationGracePeriodSeconds === 0 && this.world.kubeletRunning(c.pod.nodeName)) {
          this.racing.set(c.pod.key, { pod: c.pod, before: c.old, at: this.world.engine.now, arrivals: this.seq });
        }
        // A binding reaches the assigned-pod informer as an Add.
        if (!c.old.nodeName) this.moveUnschedulable({ resource: 'AssignedPod', action: 'Add', pod: c.pod });
        else for (const ev of assignedPodUpdateEvents(c.old, c.pod)) this.moveUnschedulable(ev);
        return;
      }
      case 'podDeleted': {
        const e = this.entries.get(c.pod.key);
        if (e) this.forget(e);
        if (c.pod.nodeName) this.moveUnschedulable({ resource: 'AssignedPod', action: 'Delete', old: c.pod }, this.isRacingNow(c.pod));
        this.scheduler.clearNomination(c.pod);
        return;
      }
      case 'nodeUpdated':
        for (const ev of nodeUpdateEvents(c.old, c.node)) this.moveUnschedulable(ev);
        return;
      case 'nodeAdded':
        this.moveUnschedulable({ resource: 'Node', action: 'Add', node: c.node });
        return;
      case 'nodeDeleted':
        this.moveUnschedulable({ resource: 'Node', action: 'Delete', old: c.node });
        return;
      case 'storage':
        this.moveUnschedulable({ resource: c.resource, action: c.action });
        return;
      case 'podReady':
      case 'podNotReady':
      case 'kubelet':
        return;
    }
  }

  /** movePodsToActiveOrBackoffQueue for the unschedulable pods the event is worth requeuing. */
  private moveUnschedulable(event: HintEvent, byRacingRemoval = false): void {
    const cluster = this.world.cluster;
    this.moveAllUnschedulable((e) => worthRequeuing(e.pod, e.rejectors, event, cluster), byRacingRemoval);
  }

  /** movePodsToActiveOrBackoffQueue for every unschedulable pod (that passes the filter). */
  private moveAllUnschedulable(filter: (e: Entry) => boolean = () => true, byRacingRemoval = false): void {
    if (this.unschedulablePods.size === 0) return;
    let moved = false;
    const move = { at: this.world.engine.now, arrivals: this.seq, idle: this.activeQ.size === 0 };
    for (const e of [...this.unschedulablePods]) {
      if (!filter(e)) continue;
      this.dequeue(e);
      const backingOff = this.isBackingOff(e);
      this.enqueue(e, backingOff ? 'backoff' : 'active');
      if (backingOff && this.popFromBackoffQ) this.movedToBackoff.set(e, move);
      if (byRacingRemoval && (this.removalRace || this.pendingMessage)) this.movedByRace.set(e, this.world.engine.now);
      moved = true;
    }
    if (moved) {
      this.armBackoffFlush();
      this.kick();
    }
  }

  private armBackoffFlush(): void {
    const first = this.backoffQ.peek();
    if (!first) return;
    const at = Math.max(this.backoffExpiry(first.key)! + BACKOFF_WINDOW_MS, this.world.engine.now);
    // One pending flush covers every later one.
    if (this.backoffFlushAt >= this.world.engine.now && this.backoffFlushAt <= at) return;
    this.backoffFlushAt = at;
    this.world.engine.at(at, 'backoff-flush', () => {
      if (this.backoffFlushAt === at) this.backoffFlushAt = -1;
      this.flushBackoff();
    });
  }

  /** Moves the pods whose backoff has ended to the activeQ (the backoffQ is ordered by expiry). */
  private flushBackoff(): void {
    let moved = false;
    for (let e = this.backoffQ.peek(); e && !this.isBackingOff(e); e = this.backoffQ.peek()) {
      this.dequeue(e);
      this.enqueue(e, 'active');
      moved = true;
    }
    if (moved) this.kick();
    this.armBackoffFlush();
  }

  private armLeftoverFlush(): void {
    const now = this.world.engine.now;
    const next = (Math.floor(now / UNSCHEDULABLE_FLUSH_PERIOD_MS) + 1) * UNSCHEDULABLE_FLUSH_PERIOD_MS;
    if (this.leftoverTimerAt >= now) return;
    this.leftoverTimerAt = next;
    this.world.engine.at(next, 'unschedulable-flush', () => {
      this.leftoverTimerAt = -1;
      const t = this.world.engine.now;
      this.moveAllUnschedulable((e) => t - e.timestamp > this.maxInUnschedulableMs);
      if (this.unschedulablePods.size > 0) this.armLeftoverFlush();
    });
  }

  private kick(): void {
    if (this.scheduleQueued) return;
    this.scheduleQueued = true;
    this.world.engine.at(this.world.engine.now, 'schedule-one', () => {
      this.scheduleQueued = false;
      while (this.scheduleOne() || this.resumeDeferred()) {
        // Cycles back to back: see the header.
      }
    });
  }

  private popNext(): Entry | undefined {
    const active = this.activeQ.peek();
    const early = active && this.poppedBefore(active);
    if (early) return early;
    if (active) return this.arrivalTie ? this.guidedAmongTied(active, this.arrivalTie) : active;
    return this.popFromBackoffQ ? this.backoffQ.peek() : undefined;
  }

  /** The first backoffQ entry popped at once (movedToBackoff while idle) before `active` arrived in this instant. */
  private poppedBefore(active: Entry): Entry | undefined {
    const now = this.world.engine.now;
    let first: Entry | undefined;
    for (const [e, m] of this.movedToBackoff) {
      if (m.idle && m.at === now && active.seq >= m.arrivals && (!first || this.backoffLess(e, first))) first = e;
    }
    return first;
  }

  /** Whether two entries are ordered only by arrival (QueueSort ties them). */
  private tiedByArrival(a: { pod: Pod; timestamp: number }, b: { pod: Pod; timestamp: number }): boolean {
    const ka: QueuedPod = { pod: a.pod, timestamp: a.timestamp, seq: 0 };
    const kb: QueuedPod = { pod: b.pod, timestamp: b.timestamp, seq: 0 };
    return !this.queueLess(ka, kb) && !this.queueLess(kb, ka);
  }

  /**
   * The entry the guide picks among the activeQ's entries tied with its head but for arrival
   * order and, when the head arrived in this instant, the entries moved to the backoffQ in it:
   * whether the move's event or the arrival reached kube-scheduler first decides whether the
   * idle Pop took the backoffQ's pod (s3-88: a rollout's old pods removed, a Pending pod of
   * another workload moved back, the new ReplicaSet's next pod created in the same instant).
   */
  private guidedAmongTied(head: Entry, guide: ArrivalTieGuide): Entry {
    const now = this.world.engine.now;
    const tied = [...this.entries.values()].filter((e) => e.queue === 'active' && this.tiedByArrival(e, head)).sort((a, b) => a.seq - b.seq);
    if (head.attempts === 0 && head.timestamp === now) {
      for (const [e, m] of this.movedToBackoff) if (m.at === now && e.queue === 'backoff') tied.push(e);
    }
    if (tied.length < 2) return head;
    const chosen = guide(tied.map((e) => e.pod));
    return tied.find((e) => e.pod === chosen) ?? head;
  }

  /**
   * A pod that arrived at this instant and fails with a message it is not known to end with,
   * attempted instead before the latest pods tied with it by arrival were bound (the fewest
   * that give a known message), when none of those bindings would have moved it back to the
   * queue (PendingMessageGuide). A failed attempt takes no room, so only its own message moves.
   */
  private earlierAttempt(e: Entry, pod: Pod): Unschedulable | undefined {
    const now = this.world.engine.now;
    const tied = this.boundNow.filter((b) => b.at === now && this.tiedByArrival(b, e)).reverse();
    for (let k = 1; k <= tied.length; k++) {
      const unbound = tied.slice(0, k);
      const outcome = this.inView(unbound.map((b) => ({ key: b.pod.key })), () => this.scheduler.schedulePod(pod, new CycleState()));
      if (outcome.kind === 'scheduled' || outcome.preemption?.nominatedNodeName) return undefined;
      if (!this.pendingMessage!(pod, outcome.message)) continue;
      const rejectors = outcome.diagnosis ? new Set([...outcome.diagnosis.unschedulablePlugins, ...outcome.diagnosis.pendingPlugins]) : NO_PLUGINS;
      const requeued = unbound.some((b) => worthRequeuing(pod, rejectors, { resource: 'AssignedPod', action: 'Add', pod: this.world.cluster.getPod(b.pod.key) ?? b.pod }, this.world.cluster));
      return requeued ? undefined : outcome;
    }
    return undefined;
  }

  /**
   * A pod moved back by a racing removal at this instant that fails with a message it is not
   * known to end with waits for the pods that arrived at this instant (PendingMessageGuide).
   */
  private deferForRace(e: Entry, pod: Pod, message: string): boolean {
    const now = this.world.engine.now;
    if (this.movedByRace.get(e) !== now) return false;
    this.movedByRace.delete(e);
    const othersArrivedNow = [...this.entries.values()].some((x) => x.queue === 'active' && x.attempts === 0 && x.timestamp === now);
    if (!othersArrivedNow || this.pendingMessage!(pod, message)) return false;
    e.attempts--;
    this.deferred.push(e);
    return true;
  }

  /** Deferred entries back in the activeQ once it is empty; false when there were none. */
  private resumeDeferred(): boolean {
    const waiting = this.deferred.splice(0).filter((e) => this.entries.get(e.key) === e);
    for (const e of waiting) this.enqueue(e, 'active');
    return waiting.length > 0;
  }

  /** One scheduling cycle; false when there was nothing to schedule. */
  private scheduleOne(): boolean {
    const e = this.popNext();
    if (!e) return false;
    this.dequeue(e);
    const pod = this.world.cluster.getPod(e.key);
    if (!pod || pod.nodeName || pod.terminating) {
      this.entries.delete(e.key);
      return true;
    }
    e.attempts++;
    const { state, outcome: own } = this.attempt(pod, e);
    const { engine } = this.world;
    if (own.kind === 'scheduled') {
      if (this.pendingMessage) this.boundNow = [...this.boundNow.filter((b) => b.at === engine.now), { pod, timestamp: e.timestamp, at: engine.now }];
      // Reserve and PreBind: volume bindings the pod needs are assumed before it is bound.
      this.scheduler.framework.runReserveAndPreBind(state, pod, own.node);
      this.scheduler.clearNomination(pod);
      this.entries.delete(e.key);
      this.movedByRace.delete(e);
      this.world.bindPod(pod.key, own.node);
      return true;
    }
    if (this.pendingMessage && this.deferForRace(e, pod, own.message)) return true;
    const guided = this.pendingMessage && e.attempts === 1 && e.timestamp === engine.now && !this.pendingMessage(pod, own.message);
    const outcome = (guided && this.earlierAttempt(e, pod)) || own;
    const preemption = outcome.preemption;
    if (preemption && preemption.nominatedNodeName) {
      for (const v of preemption.victims) {
        engine.record('Preempted', { pod: v.key, preemptor: pod.key, node: preemption.nominatedNodeName });
        this.world.deletePod(v.key, 'Preempted', { preemptedByScheduler: true });
      }
      this.scheduler.nominate(pod, preemption.nominatedNodeName);
      this.world.setNominatedNode(pod.key, preemption.nominatedNodeName);
    } else if (outcome.clearsNomination) {
      // Nothing to wait for any more: the room held for the pod is released.
      this.scheduler.clearNomination(pod);
      if (pod.nominatedNodeName) this.world.setNominatedNode(pod.key, '');
    }
    engine.record('FailedScheduling', { pod: pod.key, attempt: e.attempts, message: outcome.message });
    e.rejectors = outcome.diagnosis ? new Set([...outcome.diagnosis.unschedulablePlugins, ...outcome.diagnosis.pendingPlugins]) : NO_PLUGINS;
    for (const l of this.unschedulableListeners) l(pod);
    e.timestamp = engine.now;
    this.enqueue(e, 'unschedulable');
    this.armLeftoverFlush();
    return true;
  }

  /** One scheduling attempt; with a removal-race guide, in the view of the race the guide picks. */
  private attempt(pod: Pod, e: Entry): { state: CycleState; outcome: ReturnType<Scheduler['schedulePod']> } {
    const state = new CycleState();
    const outcome = this.scheduler.schedulePod(pod, state);
    const racing = this.racingNow();
    if (!this.removalRace || racing.length === 0 || outcome.kind !== 'scheduled') return { state, outcome };
    const others: { state: CycleState; outcome: typeof outcome }[] = [];
    for (const view of [flipped(this.world.cluster, racing), unseen(this.world.cluster, racing, e.seq), ...this.wokenByOne(e, racing)]) {
      if (view.length === 0) continue;
      const otherState = new CycleState();
      const other = this.inView(view, () => this.scheduler.schedulePod(pod, otherState));
      if (other.kind === 'scheduled' && other.node !== outcome.node && !others.some((o) => o.outcome.node === other.node)) others.push({ state: otherState, outcome: other });
    }
    if (others.length === 0) return { state, outcome };
    const chosen = this.removalRace(pod, outcome.node, others.map((o) => o.outcome.node));
    return others.find((o) => o.outcome.node === chosen) ?? { state, outcome };
  }

  /**
   * A pod moved back to the queue by a racing removal is popped as soon as that removal's
   * event is handled, before the next removals of the batch reach the cache (s2-51): one
   * view per racing removal that would move it, with only that one seen and the others
   * still there, terminating. Which one came first is kwok's order, not recorded.
   */
  private wokenByOne(e: Entry, racing: readonly RacingRemoval[]): RaceView[] {
    if (racing.length < 2 || this.movedByRace.get(e) !== this.world.engine.now) return [];
    const cluster = this.world.cluster;
    const moves = (r: RacingRemoval) => worthRequeuing(e.pod, e.rejectors, { resource: 'AssignedPod', action: 'Delete', old: r.pod }, cluster);
    return racing.filter(moves).map((seen) => [...flipped(cluster, [seen]).filter((v) => !v.put), ...flipped(cluster, racing.filter((r) => r !== seen)).filter((v) => v.put)]);
  }

  /** Whether the pod's removal is in the removal race of this instant. */
  private isRacingNow(pod: Pod): boolean {
    const r = this.racing.get(pod.key);
    return r !== undefined && r.pod.uid === pod.uid && r.at === this.world.engine.now;
  }

  /** The removal races of this instant (older ones are settled: the watch event has arrived). */
  private racingNow(): RacingRemoval[] {
    const now = this.world.engine.now;
    for (const [k, r] of this.racing) if (r.at < now) this.racing.delete(k);
    return [...this.racing.values()];
  }

  /** Runs `f` with the store changed as the view says (each key's pod out, the view's in), then puts it back. */
  private inView<T>(view: RaceView, f: () => T): T {
    const cluster = this.world.cluster;
    const saved = view.map(({ key, put }) => {
      const current = cluster.removePod(key);
      if (put) cluster.addPod(put);
      return current;
    });
    try {
      return f();
    } finally {
      view.forEach(({ key, put }, i) => {
        if (put) cluster.removePod(key);
        const current = saved[i];
        if (current) cluster.addPod(current);
      });
    }
  }
}

/** A view of the removal race: pods replaced (`put`) or taken out of the store for one attempt. */
type RaceView = readonly { readonly key: string; readonly put?: Pod }[];

/**
 * Each racing pod as the simulator does not have it now: a pod still there removed, a removed
 * one back as terminating — also in place of a StatefulSet pod recreated under its name and
 * not bound yet.
 */
function flipped(cluster: ClusterState, racing: readonly RacingRemoval[]): RaceView {
  const view: { key: string; put?: Pod }[] = [];
  for (const { pod } of racing) {
    const current = cluster.getPod(pod.key);
    if (current?.uid === pod.uid) view.push({ key: pod.key });
    else if (!current?.nodeName) view.push({ key: pod.key, put: pod });
  }
  return view;
}

/** The pods deleted after the scheduled one arrived (`arrival`, its queue sequence), as before their deletion: the scheduler has not heard of it yet. */
function unseen(cluster: ClusterState, racing: readonly RacingRemoval[], arrival: number): RaceView {
  const view: { key: string; put?: Pod }[] = [];
  for (const { pod, before, arrivals } of racing) {
    if (arrivals <= arrival) continue;
    const current = cluster.getPod(pod.key);
    if (current?.uid === pod.uid || !current?.nodeName) view.push({ key: pod.key, put: before });
  }
  return view;
}

type Unschedulable = Extract<ReturnType<Scheduler['schedulePod']>, { kind: 'unschedulable' }>;

const NO_PLUGINS: ReadonlySet<string> = new Set();

