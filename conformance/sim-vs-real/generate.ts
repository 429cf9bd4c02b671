// Random small scenarios (2–8 nodes over 1–3 zones, 1–4 workloads, 1–4 steps)
// from a seeded generator, and shrinking: smaller variants of a scenario that
// still disagree.

import type { IntOrPercent, SvrNode, SvrScenario, SvrStep, SvrWorkload } from './scenario.js';

/** mulberry32: small, seeded, the same sequence everywhere. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generateScenario(seed: number, index: number): SvrScenario {
  const r = rng(seed * 1_000_003 + index);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const zones = ['zone-a', 'zone-b', 'zone-c'].slice(0, int(1, 3));
  const nodes: SvrNode[] = Array.from({ length: int(2, 8) }, (_, i) => ({ name: `node-${i + 1}`, zone: zones[i % zones.length]!, cpuMilli: pick([1000, 2000, 4000]) }));
  const budget = (): IntOrPercent => pick([0, 1, 2, '25%', '50%']);
  const workloads: SvrWorkload[] = Array.from({ length: int(1, 4) }, (_, i) => {
    const kind = r() < 0.75 ? 'Deployment' : 'StatefulSet';
    let maxSurge = budget();
    const maxUnavailable = budget();
    // Both zero is refused by the API server.
    if ((maxSurge === 0 || maxSurge === '0%') && (maxUnavailable === 0 || maxUnavailable === '0%')) maxSurge = 1;
    const pdb = r() < 0.35 ? (r() < 0.5 ? { minAvailable: pick<IntOrPercent>([1, 2, '50%']) } : { maxUnavailable: pick<IntOrPercent>([1, '25%']) }) : undefined;
    return {
      name: `w${i + 1}`,
      kind,
      replicas: int(1, 6),
      cpuMilli: pick([100, 250, 500, 900]),
      antiAffinity: pick(['none', 'none', 'required', 'preferred'] as const),
      zoneSpread: pick(['none', 'none', 'DoNotSchedule', 'ScheduleAnyway'] as const),
      ...(pdb ? { pdb } : {}),
      ...(kind === 'Deployment' ? { maxSurge, maxUnavailable } : {}),
    };
  });
  const steps: SvrStep[] = Array.from({ length: int(1, 4) }, () => {
    const w = pick(workloads).name;
    const n = pick(nodes).name;
    const x = r();
    if (x < 0.25) return { scale: { workload: w, replicas: int(0, 7) } };
    if (x < 0.5) return { rollout: { workload: w } };
    if (x < 0.6) return { cordon: n };
    if (x < 0.75) return { drain: n };
    if (x < 0.85) return { failNode: n };
    if (x < 0.9) return { removeNode: n };
    return { deletePod: { workload: w, node: n } };
  });
  return { name: `s${seed}-${index}`, nodes, workloads, steps };
}

/** Smaller variants, most aggressive first: fewer steps, workloads, nodes; fewer replicas. */
export function shrinkCandidates(s: SvrScenario): SvrScenario[] {
  const out: SvrScenario[] = [];
  const used = (w: string) => (step: SvrStep) => JSON.stringify(step).includes(`"workload":"${w}"`);
  const onNode = (n: string) => (step: SvrStep) => Object.values(step).some((v) => v === n || (typeof v === 'object' && (v as { node?: string }).node === n));
  for (let i = 0; i < s.steps.length; i++) out.push({ ...s, steps: s.steps.filter((_, j) => j !== i) });
  for (const w of s.workloads) if (s.workloads.length > 1) out.push({ ...s, workloads: s.workloads.filter((x) => x !== w), steps: s.steps.filter((st) => !used(w.name)(st)) });
  for (const n of s.nodes) if (s.nodes.length > 1) out.push({ ...s, nodes: s.nodes.filter((x) => x !== n), steps: s.steps.filter((st) => !onNode(n.name)(st)) });
  s.workloads.forEach((w, i) => {
    if (w.replicas > 1) out.push({ ...s, workloads: s.workloads.map((x, j) => (j === i ? { ...x, replicas: x.replicas - 1 } : x)) });
    if (w.pdb) out.push({ ...s, workloads: s.workloads.map((x, j) => (j === i ? (({ pdb: _p, ...rest }) => rest)(x) : x)) });
  });
  return out;
}
