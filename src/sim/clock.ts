// Simulated time: integer milliseconds since the start of the run. Only the
// engine moves it, and only forward, so every reader sees one consistent "now".

export class SimClock {
  private nowMs = 0;

  get now(): number {
    return this.nowMs;
  }

  advanceTo(t: number): void {
    if (!Number.isInteger(t)) throw new Error(`clock: time must be an integer number of milliseconds, got ${t}`);
    if (t < this.nowMs) throw new Error(`clock: cannot go back from ${this.nowMs} to ${t}`);
    this.nowMs = t;
  }
}
