// What both sides report for a scenario, and how two reports are compared.
// Only what users rely on is compared, never timestamps: at the end of each
// phase, where each workload's pods are (count per node), which pods are
// Pending and why, whether each workload's rollout is complete, whether each
// drain finished; over the whole run, each ReplicaSet's sequence of replica
// counts. The README lists every dimension and its tolerance.

export interface PhaseObservation {
  readonly phase: string;
  /** workload → node → running or bound pods (not terminating). */
  readonly placement: Record<string, Record<string, number>>;
  /** workload → Pending pods (not terminating) and the distinct messages of their latest FailedScheduling. */
  readonly pending: Record<string, { readonly count: number; readonly reasons: readonly string[] }>;
  /** workload → all replicas updated to the latest template and available. */
  readonly rolloutComplete: Record<string, boolean>;
  /** drained node → every pod the drain targeted is gone. */
  readonly drainComplete: Record<string, boolean>;
}

export interface Observation {
  readonly phases: readonly PhaseObservation[];
  /** Deployment → per revision (1, 2, …) its ReplicaSet's spec.replicas values in order, repeats and a leading 0 dropped. */
  readonly replicaSets: Record<string, readonly (readonly number[])[]>;
}

export interface Difference {
  readonly dimension: 'placement' | 'pending' | 'rollout' | 'drain' | 'replicaSets';
  readonly phase: string;
  readonly real: unknown;
  readonly sim: unknown;
}

const stable = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));

/** Drops zero counts and empty workloads so an absent key equals a zero. */
export function normalizePlacement(p: Record<string, Record<string, number>>): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [w, nodes] of Object.entries(p)) {
    const kept = Object.fromEntries(Object.entries(nodes).filter(([, n]) => n > 0));
    if (Object.keys(kept).length > 0) out[w] = kept;
  }
  return out;
}

function normalizePending(p: PhaseObservation['pending']): PhaseObservation['pending'] {
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v.count > 0).map(([w, v]) => [w, { count: v.count, reasons: [...new Set(v.reasons)].sort() }]));
}

/** Every difference between the real side's observation and the simulator's. */
export function compare(real: Observation, sim: Observation): Difference[] {
  const out: Difference[] = [];
  const n = Math.max(real.phases.length, sim.phases.length);
  for (let i = 0; i < n; i++) {
    const r = real.phases[i];
    const s = sim.phases[i];
    const phase = r?.phase ?? s?.phase ?? String(i);
    if (!r || !s) {
      out.push({ dimension: 'placement', phase, real: r ?? null, sim: s ?? null });
      continue;
    }
    const check = (dimension: Difference['dimension'], a: unknown, b: unknown) => {
      if (stable(a) !== stable(b)) out.push({ dimension, phase, real: a, sim: b });
    };
    check('placement', normalizePlacement(r.placement), normalizePlacement(s.placement));
    check('pending', normalizePending(r.pending), normalizePending(s.pending));
    check('rollout', r.rolloutComplete, s.rolloutComplete);
    check('drain', r.drainComplete, s.drainComplete);
  }
  if (stable(turningPointsOf(real.replicaSets)) !== stable(turningPointsOf(sim.replicaSets))) out.push({ dimension: 'replicaSets', phase: 'run', real: real.replicaSets, sim: sim.replicaSets });
  return out;
}

/** A replica-count history as compared: consecutive repeats and a leading 0 (creation before the first scale) dropped. */
export function replicaSequence(values: readonly number[]): number[] {
  const out: number[] = [];
  for (const v of values) if (out[out.length - 1] !== v) out.push(v);
  if (out[0] === 0) out.shift();
  return out;
}

/**
 * A replica-count sequence reduced to its ends and the values where it turns: the
 * steps inside one monotone run depend on how many pods became available before a
 * controller's sync (its work queue merges the events that arrive meanwhile), which
 * is timing, not behaviour.
 */
export function turningPoints(values: readonly number[]): number[] {
  return values.filter((v, i) => {
    const prev = values[i - 1];
    const next = values[i + 1];
    return prev === undefined || next === undefined || Math.sign(v - prev) !== Math.sign(next - v);
  });
}

const turningPointsOf = (r: Observation['replicaSets']) => Object.fromEntries(Object.entries(r).map(([d, revisions]) => [d, revisions.map(turningPoints)]));
