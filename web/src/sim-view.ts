// A simulation's cluster at one simulated instant, for the replay (runs on the page,
// from the frames the worker recorded).

import { frameAt } from '../../src/sim/history.js';
import type { RunView, SimulationView } from './engine.js';

/** The placement at simulated time `t`, with each pending pod's latest FailedScheduling message by then. */
export function viewAt(sim: Omit<SimulationView, keyof RunView> & Pick<RunView, 'warnings'>, t: number): RunView {
  const frame = frameAt(sim.history, t);
  if (!frame) return { nodes: [], pods: [], pending: [], warnings: sim.warnings };
  const first = new Set(sim.history.frames[0]?.nodes.map((n) => n.name));
  const lastFailure = (pod: string) => sim.failures.get(pod)?.filter((f) => f.t <= t).at(-1)?.message;
  return {
    // A node the run launched (absent from its first frame) shows as new.
    nodes: frame.nodes.map((n) => ({ ...n, zone: n.zone || '(no zone)', nodePool: '', planned: !first.has(n.name), detail: n.up ? '' : 'down' })),
    pods: frame.pods.filter((p) => p.node && !p.terminating).map((p) => ({ key: p.key, workload: p.workload, node: p.node, placement: 'scheduled' })),
    pending: frame.pods.filter((p) => !p.node).map((p) => ({ pod: p.key, message: lastFailure(p.key) ?? 'not yet tried by the scheduler' })),
    warnings: sim.warnings,
  };
}

