// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection
// does it: the holder renews every retry period; every write carries the read
// resourceVersion, so of two candidates only one wins. A candidate takes the lease
// over only once it has seen the record unchanged for its own lease duration, timed
// on its own clock from when it observed the last change: the times written in the
// record (another machine's clock, or a hand-edited lease) are never trusted. A
// leader acts only while its last successful renewal is younger than the renew
// deadline (shorter than the lease duration), so it has stopped acting before any
// candidate can take over — two replicas never act at once.

import type { KubeObject } from './objects.js';
import { errorText, statusCode, type Kube } from './kube.js';

export interface LeaseSpec {
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  readonly acquireTime?: string | Date;
  readonly renewTime?: string | Date;
  readonly leaseTransitions?: number;
}

export type LeaseAction = 'create' | 'renew' | 'takeover' | 'wait';

/**
 * What a candidate does with the lease it just read (undefined: none exists).
 * `observedAt` is when, on this replica's clock, the record last changed.
 */
export function leaseAction(spec: LeaseSpec | undefined, me: string, now: number, observedAt: number, leaseDurationMs: number): LeaseAction {
  if (!spec) return 'create';
  if (spec.holderIdentity === me) return 'renew';
  if (!spec.holderIdentity) return 'takeover';
  return now >= observedAt + leaseDurationMs ? 'takeover' : 'wait';
}

/** What identifies one renewal of a lease (client-go compares the whole record). */
function recordKey(spec: LeaseSpec | undefined): string {
  return JSON.stringify([spec?.holderIdentity, spec?.renewTime, spec?.acquireTime, spec?.leaseTransitions, spec?.leaseDurationSeconds]);
}

/** Lease times are MicroTime: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export interface ElectionOptions {
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export interface ElectionEvents {
  onStartedLeading(): void;
  onStoppedLeading(): void;
  onError(message: string): void;
  /** The lease names a different holder than last time (client-go's OnNewLeader): what a standby logs. */
  onNewLeader?(identity: string): void;
}

export class LeaderElector {
  private leading = false;
  private lastRenew = 0;
  private observed = '';
  private observedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private reportedLeader: string | undefined;

  constructor(
    private readonly kube: Kube,
    private readonly opts: ElectionOptions,
    private readonly events: ElectionEvents,
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  /** Leading, and the last renewal succeeded within the renew deadline: safe to write now. */
  get mayAct(): boolean {
    return this.leading && Date.now() - this.lastRenew < this.opts.renewDeadlineMs;
  }

  start(): void {
    void this.tick();
  }

  private spec(now: number, previous: LeaseSpec | undefined): LeaseSpec {
    const keepAcquire = previous?.holderIdentity === this.opts.identity && previous.acquireTime !== undefined;
    return {
      holderIdentity: this.opts.identity,
      leaseDurationSeconds: Math.ceil(this.opts.leaseDurationMs / 1000),
      acquireTime: keepAcquire ? previous.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (previous && previous.holderIdentity !== this.opts.identity ? 1 : 0),
    };
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const now = Date.now();
    try {
      const lease = await this.kube.read('coordination.k8s.io/v1', 'Lease', this.opts.name, this.opts.namespace);
      const spec = lease?.spec as LeaseSpec | undefined;
      const key = recordKey(spec);
      if (key !== this.observed) {
        // When the answer arrived: the later, the safer for a candidate.
        this.observed = key;
        this.observedAt = Date.now();
      }
      const action = leaseAction(spec, this.opts.identity, Date.now(), this.observedAt, this.opts.leaseDurationMs);
      if (action === 'create') {
        await this.kube.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.opts.name, namespace: this.opts.namespace }, spec: this.spec(now, undefined) });
      } else if (action !== 'wait') {
        const next: KubeObject = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { ...lease!.metadata }, spec: this.spec(now, spec) };
        await this.kube.replace(next);
      }
      if (this.stopped) return; // released while this round was under way
      const holder = action === 'wait' ? (spec?.holderIdentity ?? '') : this.opts.identity;
      if (holder !== this.reportedLeader) {
        this.reportedLeader = holder;
        this.events.onNewLeader?.(holder);
      }
      if (action === 'wait') this.setLeading(false);
      else {
        this.lastRenew = now;
        this.setLeading(true);
      }
    } catch (e) {
      // 409: another candidate wrote first; anything else: the API server is unreachable.
      if (statusCode(e) !== 409) this.events.onError(`lease ${this.opts.namespace}/${this.opts.name}: ${errorText(e)}`);
      if (this.leading && now - this.lastRenew > this.opts.renewDeadlineMs) this.setLeading(false);
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.opts.retryPeriodMs);
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    if (leading) this.events.onStartedLeading();
    else this.events.onStoppedLeading();
  }

  /** Stops campaigning; a leader gives the lease up so a standby takes over at once. */
  async release(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.kube.read('coordination.k8s.io/v1', 'Lease', this.opts.name, this.opts.namespace);
      const spec = lease?.spec as LeaseSpec | undefined;
      if (!lease || spec?.holderIdentity !== this.opts.identity) return;
      await this.kube.replace({ ...lease, spec: { ...spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(Date.now()) } });
    } catch (e) {
      this.events.onError(`releasing lease: ${errorText(e)}`);
    }
  }
}
