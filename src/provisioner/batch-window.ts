// Karpenter's provisioning batch: the first unschedulable pod opens a window
// that closes once no new pod has arrived for `idleMs`, or `maxMs` after it
// opened, whichever comes first. Time is whatever clock the caller passes
// (simulated milliseconds in sim/, wall-clock milliseconds in live/).

export const DEFAULT_BATCH_IDLE_MS = 1_000;
export const DEFAULT_BATCH_MAX_MS = 10_000;

export class BatchWindow {
  private openedAt = -1;
  private lastAt = -1;

  constructor(
    private readonly idleMs = DEFAULT_BATCH_IDLE_MS,
    private readonly maxMs = DEFAULT_BATCH_MAX_MS,
  ) {}

  get isOpen(): boolean {
    return this.openedAt >= 0;
  }

  /** A pod arrived at `now`: opens the window or extends its idle deadline. */
  touch(now: number): void {
    if (this.openedAt < 0) this.openedAt = now;
    this.lastAt = now;
  }

  /** When the open window closes (meaningless while closed). */
  closesAt(): number {
    return Math.min(this.lastAt + this.idleMs, this.openedAt + this.maxMs);
  }

  /** Closes the window if it is due at `now`; true when the batch should be planned. */
  closeIfDue(now: number): boolean {
    if (this.openedAt < 0 || now < this.closesAt()) return false;
    this.openedAt = -1;
    return true;
  }
}
