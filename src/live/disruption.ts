// Live disruption (`berth controller --disruption`): every poll the leader builds
// the engine's view from the informers (disruption-view.ts) and asks the same
// engine the simulator uses (disruption/disrupt.ts) for at most one graceful
// decision — emptiness, drift, multi-node or single-node consolidation. A
// consolidation waits the validation delay and is computed again for the same
// nodes (revalidate); it is dropped when it no longer holds. Carrying it out, as
// sim/disruption-loop.ts does in simulated time: the nodes get the
// karpenter.sh/disrupted:NoSchedule taint, replacements are launched as NodeClaims
// and awaited until their nodes are Ready, then each node is drained through the
// Eviction API (PDBs enforced by the API server; a 429 is tried again later;
// DaemonSet and mirror pods stay) and deleted with its NodeClaim and instance.
// Anything that fails on the way (a replacement not Ready in time, a drain that
// cannot finish) abandons the decision: the taint comes off again. One decision
// runs at a time; losing the lease stops it where it is and the next leader
// removes the taints left behind.

import type { Logger } from 'pino';
import { revalidate, nextDisruption } from '../disruption/disrupt.js';
import type { Decision } from '../disruption/consolidate.js';
import { DO_NOT_DISRUPT } from '../disruption/candidates.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import { LABEL_NODEPOOL } from '../provisioner/labels.js';
import { DEFAULT_DISRUPTION_POLL_MS, DEFAULT_VALIDATION_MS, EVICTION_RETRY_MS, REPLACEMENT_TIMEOUT_MS } from '../sim/disruption-loop.js';
import { claimObject, NODECLAIM_API_VERSION, NODECLAIM_KIND, nodeClaimOf } from './claims.js';
import type { CloudProvider } from './cloud-provider.js';
import { disruptionView, hasDisruptedTaint, isNodeReady, nodeOfPod, podsToEvict, provisioningInFlight, withDisruptedTaint } from './disruption-view.js';
import type { Evict } from './eviction.js';
import { eventObject } from './events.js';
import { errorText, type Kube } from './kube.js';
import type { Metrics } from './metrics.js';
import { isTerminating, objectKey, type KubeObject } from './objects.js';
import { liveNodePools, type LiveObjects } from './plan-batch.js';

export interface DisruptionOptions {
  readonly pollMs: number;
  /** How long a consolidation decision waits before it is computed again (Karpenter: 15 s). */
  readonly validationMs: number;
  readonly replacementTimeoutMs: number;
  /** A drain not finished after this long is abandoned (its node is untainted). */
  readonly drainTimeoutMs: number;
  /** Pause before an eviction refused with 429 is tried again. */
  readonly evictionRetryMs: number;
  /** How often a running decision looks at its replacements and drains. */
  readonly checkMs: number;
}

export const DEFAULT_DISRUPTION_OPTIONS: DisruptionOptions = {
  pollMs: DEFAULT_DISRUPTION_POLL_MS,
  validationMs: DEFAULT_VALIDATION_MS,
  replacementTimeoutMs: REPLACEMENT_TIMEOUT_MS,
  drainTimeoutMs: 10 * 60_000,
  evictionRetryMs: EVICTION_RETRY_MS,
  checkMs: 1_000,
};

/** What the disruption loop needs of the controller around it. */
export interface DisruptionHost {
  objects(): LiveObjects;
  synced(): boolean;
  leading(): boolean;
  readonly identity: string;
  instanceTypes(): readonly InstanceType[];
  /** A NodeClaim created for a replacement: count it as in flight and launch it. */
  launched(claim: KubeObject): void;
}

export type DisruptionKube = Pick<Kube, 'create' | 'update' | 'delete'>;

/** Thrown inside a running decision when this replica stops leading: it must not act any more. */
class NotLeading extends Error {}

export class LiveDisruption {
  /** Last time a pod was bound to or left each node (Karpenter's lastPodEventTime). */
  private readonly lastPodEvent = new Map<string, number>();
  private readonly podNode = new Map<string, string>();
  private lastRejections = '';
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly kube: DisruptionKube,
    private readonly cloud: Pick<CloudProvider, 'delete'>,
    private readonly host: DisruptionHost,
    private readonly evict: Evict,
    private readonly opts: DisruptionOptions,
    private readonly log: Logger,
    private readonly metrics: Metrics,
    private readonly now: () => number = Date.now,
  ) {}

  /** Pod informer events: a pod bound to, or gone from, a node resets that node's consolidateAfter clock. */
  podChanged(pod: KubeObject, verb: 'add' | 'update' | 'delete'): void {
    const key = objectKey(pod);
    const before = this.podNode.get(key) ?? '';
    const after = verb === 'delete' ? '' : nodeOfPod(pod);
    if (before === after) return;
    const at = this.now();
    if (before !== '') this.lastPodEvent.set(before, at);
    if (after !== '') this.lastPodEvent.set(after, at);
    if (after === '') this.podNode.delete(key);
    else this.podNode.set(key, after);
  }

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        await this.sleep(this.opts.pollMs);
        if (this.stopped || !this.host.leading() || !this.host.synced()) continue;
        await this.pass().catch((e: unknown) => this.log.error({ err: errorText(e) }, 'disruption pass failed'));
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  /** Stops a running decision (without cleaning up: that is the next leader's) when the lease is gone or the process stops. */
  private check(): void {
    if (this.stopped || !this.host.leading()) throw new NotLeading();
  }

  private view(objects: LiveObjects, own: { nodes?: ReadonlySet<string>; replacements?: ReadonlySet<string> } = {}) {
    return disruptionView(objects, {
      instanceTypes: this.host.instanceTypes(),
      nowMs: this.now(),
      lastPodEventMs: this.lastPodEvent,
      ...(own.nodes ? { disrupting: own.nodes } : {}),
      ...(own.replacements ? { replacements: own.replacements } : {}),
    });
  }

  /** One poll: at most one decision, carried out to the end (or abandoned) before the next. */
  async pass(): Promise<void> {
    try {
      await this.decideAndRun();
    } catch (e) {
      if (!(e instanceof NotLeading)) throw e;
      this.log.info('no longer leading: the decision under way stops here');
    }
  }

  private async decideAndRun(): Promise<void> {
    let objects = this.host.objects();
    await this.untaintLeftovers(objects);
    const busy = provisioningInFlight(objects);
    if (busy !== undefined) {
      this.log.debug({ why: busy }, 'disruption waits for provisioning');
      return;
    }
    const view = this.view(objects);
    if (!view.ok) {
      this.log.error({ errors: view.errors.slice(0, 20) }, 'cluster objects berth cannot load; no disruption this round');
      return;
    }
    const { decision, rejected } = nextDisruption(view.input);
    const rejections = JSON.stringify(rejected);
    if (rejections !== this.lastRejections) {
      this.lastRejections = rejections;
      if (rejected.length > 0) this.log.info({ rejected }, 'nodes not disrupted');
    }
    if (!decision) return;
    this.log.info({ reason: decision.reason, kind: decision.kind, nodes: decision.nodes, savingsPerHour: decision.savingsPerHour }, 'disruption proposed');
    let d: Decision = decision;
    if (decision.reason !== 'Drifted') {
      await this.sleep(this.opts.validationMs);
      this.check();
      objects = this.host.objects();
      const fresh = this.view(objects);
      const again = fresh.ok ? revalidate(fresh.input, decision) : { invalid: 'cluster objects cannot be loaded' };
      if ('invalid' in again) {
        this.log.info({ reason: decision.reason, nodes: decision.nodes, why: again.invalid }, 'disruption invalidated');
        this.metrics.disruptionAbandoned.inc({ reason: decision.reason, stage: 'validation' });
        return;
      }
      d = again;
    }
    await this.execute(d);
  }

  /** Nodes that carry berth's taint but are in no decision (the decision was cut short, e.g. by a restart). */
  private async untaintLeftovers(objects: LiveObjects): Promise<void> {
    for (const n of objects.nodes) {
      if (!hasDisruptedTaint(n) || isTerminating(n) || nodeClaimOf(n) === '') continue;
      this.log.info({ node: n.metadata?.name }, 'removing a disrupted taint no decision owns');
      await this.taint(n.metadata?.name ?? '', false);
    }
  }

  /** Adds or removes the disrupted taint (read-modify-write, again on a conflict). False when the node is gone. */
  private async taint(name: string, on: boolean): Promise<boolean> {
    return (await this.kube.update('v1', 'Node', name, (node) => withDisruptedTaint(node, on))) !== undefined;
  }

  private async event(node: KubeObject | undefined, reason: string, message: string, type: 'Normal' | 'Warning'): Promise<void> {
    if (!node) return;
    try {
      await this.kube.create(eventObject({ kind: 'Node', object: node }, reason, message, type, this.host.identity));
    } catch (e) {
      this.log.warn({ node: node.metadata?.name, err: errorText(e) }, 'writing Event failed');
    }
  }

  private node(name: string): KubeObject | undefined {
    return this.host.objects().nodes.find((n) => n.metadata?.name === name);
  }

  private async execute(d: Decision): Promise<void> {
    const nodes = new Set(d.nodes);
    this.metrics.disruptionDecisions.inc({ reason: d.reason, kind: d.kind });
    const what = `${d.reason}/${d.kind === 'delete' ? 'Delete' : 'Replace'}`;
    const replacedBy = d.replacements.length > 0 ? `, replaced by ${d.replacements.map((r) => `${r.instanceType} in ${r.zone}`).join(', ')}` : '';
    this.log.info({ reason: d.reason, kind: d.kind, nodes: d.nodes, replacements: d.replacements.map((r) => r.instanceType), savingsPerHour: d.savingsPerHour, moves: d.displacedPods }, 'disrupting');
    for (const n of d.nodes) {
      await this.event(this.node(n), 'Disrupting', `Disrupting node: ${what}${replacedBy}`, 'Normal');
      this.check();
      if (!(await this.taint(n, true))) return await this.abandon(d, nodes, [], 'replacement', `node ${n} is gone`);
    }
    const replacements: string[] = [];
    for (const r of d.replacements) {
      this.check();
      try {
        const claim = await this.kube.create(claimObject(r, liveNodePools(this.host.objects()).find((p) => p.name === r.nodePool)));
        replacements.push(claim.metadata?.name ?? '');
        this.host.launched(claim);
        this.log.info({ nodeClaim: claim.metadata?.name, instanceType: r.instanceType, zone: r.zone, replaces: d.nodes }, 'created replacement NodeClaim');
      } catch (e) {
        return await this.abandon(d, nodes, replacements, 'replacement', `creating a replacement NodeClaim failed: ${errorText(e)}`);
      }
    }
    if (replacements.length > 0 && !(await this.replacementsReady(replacements))) {
      return await this.abandon(d, nodes, replacements, 'replacement', `replacements not Ready within ${Math.round(this.opts.replacementTimeoutMs / 1000)}s`);
    }
    const left = await this.drain(d, nodes);
    if (left.size > 0) await this.abandon(d, left, [], 'drain', `drain not finished within ${Math.round(this.opts.drainTimeoutMs / 1000)}s`);
  }

  private async replacementsReady(claims: readonly string[]): Promise<boolean> {
    const deadline = this.now() + this.opts.replacementTimeoutMs;
    for (;;) {
      this.check();
      const ready = new Set(this.host.objects().nodes.filter(isNodeReady).map(nodeClaimOf));
      if (claims.every((c) => ready.has(c))) {
        this.log.info({ replacements: claims }, 'replacements Ready');
        return true;
      }
      if (this.now() >= deadline) return false;
      await this.sleep(this.opts.checkMs);
    }
  }

  /**
   * Evicts the nodes' pods until none is left, then deletes each node. Pods with
   * do-not-disrupt are waited for, never evicted. The nodes not drained by the
   * deadline are returned.
   */
  private async drain(d: Decision, nodes: ReadonlySet<string>): Promise<Set<string>> {
    const left = new Set(nodes);
    const deadline = this.now() + this.opts.drainTimeoutMs;
    /** pod uid → when an eviction of it may be tried again. */
    const retryAt = new Map<string, number>();
    while (left.size > 0) {
      this.check();
      const { pods } = this.host.objects();
      for (const name of [...left]) {
        const remaining = podsToEvict(pods, name);
        if (remaining.length === 0) {
          await this.finish(d, name);
          left.delete(name);
          continue;
        }
        for (const pod of remaining) {
          const uid = pod.metadata?.uid ?? objectKey(pod);
          if (isTerminating(pod) || pod.metadata?.annotations?.[DO_NOT_DISRUPT] === 'true' || this.now() < (retryAt.get(uid) ?? 0)) continue;
          this.check();
          let result;
          try {
            result = await this.evict(pod);
          } catch (e) {
            this.log.warn({ pod: objectKey(pod), err: errorText(e) }, 'eviction failed');
            retryAt.set(uid, this.now() + this.opts.evictionRetryMs);
            continue;
          }
          this.metrics.evictions.inc({ result });
          if (result === 'blocked') {
            this.log.info({ pod: objectKey(pod), node: name }, 'eviction refused (429: a PodDisruptionBudget allows none now); will retry');
            retryAt.set(uid, this.now() + this.opts.evictionRetryMs);
          } else {
            if (result === 'evicted') this.log.info({ pod: objectKey(pod), node: name, reason: d.reason }, 'evicted');
            // Evicted or gone: the informer drops it once it has terminated.
            retryAt.set(uid, Number.POSITIVE_INFINITY);
          }
        }
      }
      if (left.size === 0 || this.now() >= deadline) break;
      await this.sleep(this.opts.checkMs);
    }
    return left;
  }

  /** The drained node goes: its NodeClaim first (so garbage collection never launches it again), then the instance. */
  private async finish(d: Decision, name: string): Promise<void> {
    this.check();
    const node = this.node(name) ?? {};
    const claim = nodeClaimOf(node);
    if (claim !== '') await this.kube.delete(NODECLAIM_API_VERSION, NODECLAIM_KIND, claim);
    await this.cloud.delete({ nodeName: name });
    this.metrics.claimsDisrupted.inc({ reason: d.reason, nodepool: node.metadata?.labels?.[LABEL_NODEPOOL] ?? '' });
    this.log.info({ node: name, nodeClaim: claim, reason: d.reason }, 'node disrupted');
  }

  /** Gives a decision up: the taint comes off its nodes still there; replacements that never became Ready go too. */
  private async abandon(d: Decision, nodes: ReadonlySet<string>, replacements: readonly string[], stage: 'replacement' | 'drain', why: string): Promise<void> {
    this.log.warn({ reason: d.reason, nodes: [...nodes], why }, 'disruption abandoned');
    this.metrics.disruptionAbandoned.inc({ reason: d.reason, stage });
    for (const c of replacements) {
      const node = this.host.objects().nodes.find((n) => nodeClaimOf(n) === c);
      await this.kube.delete(NODECLAIM_API_VERSION, NODECLAIM_KIND, c);
      if (node?.metadata?.name) await this.cloud.delete({ nodeName: node.metadata.name });
    }
    for (const n of nodes) {
      if (await this.taint(n, false)) await this.event(this.node(n), 'DisruptionAbandoned', `Not disrupting node after all: ${why}`, 'Warning');
    }
  }
}
