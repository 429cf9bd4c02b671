// Throughput as scheduler_perf reports it: pods scheduled per 1-second window,
// summarised by mean and percentiles, from each measured pod's completion time.

export interface Throughput {
  /** Measured pods over the whole measured phase's seconds. */
  readonly mean: number;
  /** Percentiles over complete 1-second windows; null when the phase was shorter than one window. */
  readonly p50: number | null;
  readonly p90: number | null;
  readonly windows: number;
}

/** Nearest-rank percentile of an ascending list. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** `doneAtMs[i]` is when measured pod i finished, in ms since the phase began; `seconds` is the phase's length. */
export function throughput(doneAtMs: readonly number[], seconds: number): Throughput {
  const full = Math.floor(seconds);
  const counts = new Array<number>(full).fill(0);
  for (const t of doneAtMs) {
    const w = Math.floor(t / 1000);
    if (w < full) counts[w]!++;
  }
  counts.sort((a, b) => a - b);
  return {
    mean: seconds > 0 ? doneAtMs.length / seconds : 0,
    p50: full > 0 ? percentile(counts, 50) : null,
    p90: full > 0 ? percentile(counts, 90) : null,
    windows: full,
  };
}
