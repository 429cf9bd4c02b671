// Provisioning workload: pending pods of mixed shapes (plain, zone-spread,
// hostname anti-affinity, node affinity) planned against the bundled catalog, by
// berth and by Karpenter's scheduler (the Karpenter oracle's -bench mode) from the
// very same objects. `npx tsx bench/provisioning.ts <pods>` runs berth's side in its
// own process (so its peak RSS is the plan's own) and prints one JSON line.

import { createHash } from 'node:crypto';
import { INSTANCE_TYPES, loadCase, planCase, type LoadedCase } from '../conformance/karpenter-berth.js';
import { loadHighsSolver } from '../src/cli/highs.js';
import { costLowerBound, type LpSolver } from '../src/provisioner/cost-bound.js';
import { poolTemplate, type ProvisionPlan } from '../src/provisioner/plan.js';
import { nodePoolObject, ZONES, type KarpenterCase, type Obj } from '../conformance/karpenter-gen.js';

/** One side's result; berth's and the oracle's -bench lines have this shape. */
export interface ProvisioningResult {
  readonly error?: string;
  readonly pods: number;
  readonly nodeClaims: number;
  readonly unschedulable: number;
  /** Each claim at its cheapest offering, summed (rounded to 1e-6, as the conformance runner compares). */
  readonly costPerHour: number;
  /** The planning itself: berth's planProvisioning, Karpenter's Solve. */
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly peakRssMiB: number;
  /** berth only: the first 16 hex digits of the SHA-256 of the plan's JSON, which a speed-up must leave unchanged. */
  readonly planHash?: string;
  /** berth with --optimize cost: what checkLaunchedPlan found in the repacked plan, and the LP lower bound (solved outside the timing). */
  readonly violations?: number;
  readonly lowerBound?: number;
}

const SIZES = [
  { cpu: '250m', memory: '512Mi' },
  { cpu: '500m', memory: '1Gi' },
  { cpu: '1', memory: '2Gi' },
  { cpu: '2', memory: '8Gi' },
];

/** Pod i: plain (i%4 = 0, or 2 outside the anti-affinity group), zone-spread (1), hostname anti-affinity (i%40 = 2), arm64 node affinity (3). */
function pod(i: number): Obj {
  const shape = i % 4;
  const solo = shape === 2 && i % 40 < 4;
  const app = solo ? `solo-${i % 40}` : `app-${i % 20}`;
  const selector = { matchLabels: { app } };
  const spec: Obj = { containers: [{ name: 'c', image: 'x', resources: { requests: SIZES[i % SIZES.length]! } }] };
  if (shape === 1) spec['topologySpreadConstraints'] = [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: selector }];
  if (solo) spec['affinity'] = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: selector }] } };
  if (shape === 3) {
    spec['affinity'] = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] }] } } };
  }
  const creationTimestamp = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: 'bench', uid: `uid-p-${i}`, labels: { app }, creationTimestamp }, spec };
}

/**
 * `count` pending pods and one NodePool (c, m and r instances, on-demand or spot). The
 * pool names its zones: with no zone requirement Karpenter breaks zone-spread ties in
 * Go map order, so its plan (and $/h) would vary from run to run (oracle README).
 */
export function provisioningCase(count: number): KarpenterCase {
  const pool = nodePoolObject({ name: 'default', weight: null, arch: null, category: ['c', 'm', 'r'], capacityType: ['on-demand', 'spot'], zone: [...ZONES], rack: null, limitCpu: null, taint: 'none' });
  return { id: `provisioning-${count}`, nodePools: [pool], pods: Array.from({ length: count }, (_, i) => pod(i)) };
}

/**
 * How often each side plans the case in one process: the first plan is a cold start
 * (berth's code not yet compiled by the JIT: it takes up to twice as long), the
 * median of the others is the measurement, as the scheduler lines measure after
 * their init pods. Short plans are repeated more, their CPU times being noisier.
 */
export const provisioningRepeats = (pods: number): number => (pods > 5000 ? 3 : 5);

/** The oracle's -bench input: the case's line, once per plan. */
export function oracleInput(count: number): string {
  return `${JSON.stringify({ ...provisioningCase(count), instanceTypes: INSTANCE_TYPES })}\n`.repeat(provisioningRepeats(count));
}

/** One berth plan of the case, from a fresh load; `optimize`: with `--optimize cost`, and the lower bound when a solver is given. */
export function runProvisioning(count: number, optimize?: { solver?: LpSolver }): ProvisioningResult {
  const loaded = loadCase(provisioningCase(count));
  if ('error' in loaded) return { error: loaded.error, pods: count, nodeClaims: 0, unschedulable: 0, costPerHour: 0, seconds: 0, cpuSeconds: 0, peakRssMiB: 0 };
  // The loader's garbage is collected before the clock starts, as the oracle runs a GC before Solve.
  (globalThis as { gc?: () => void }).gc?.();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const plan = optimize ? planCase(loaded, { optimize: 'cost' }) : planCase(loaded);
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    pods: count,
    nodeClaims: plan.nodeClaims.length,
    unschedulable: plan.unschedulable.length,
    costPerHour: plan.costPerHour,
    seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    planHash: createHash('sha256').update(JSON.stringify(plan)).digest('hex').slice(0, 16),
    ...(plan.optimization ? { violations: plan.optimization.violations.length } : {}),
    ...(optimize?.solver ? { lowerBound: lowerBoundOf(loaded, plan, optimize.solver) } : {}),
  };
}

/** The LP bound over the pods the plan put on new claims (all of them here: the case has no node). */
function lowerBoundOf(loaded: LoadedCase, plan: ProvisionPlan, solver: LpSolver): number {
  const onClaims = new Set(plan.nodeClaims.flatMap((c) => c.pods));
  const pods = [...loaded.cluster.pods()].filter((p) => onClaims.has(p.key));
  const pools = loaded.pools.map((p) => poolTemplate(p, INSTANCE_TYPES, loaded.daemonSetPods));
  const bound = costLowerBound(pods, pools, solver);
  if (bound.costPerHour === undefined) throw new Error(`lower bound: ${bound.status}`);
  return bound.costPerHour;
}

/** A side's plans of one case: the first (cold), the median of the rest by CPU time, and the spread of $/h and claims over all. */
export interface ProvisioningSummary extends ProvisioningResult {
  readonly cold: { readonly seconds: number; readonly cpuSeconds: number };
  readonly plans: number;
  readonly costRange: [number, number];
  /** Mean $/h over all plans (Karpenter's vary from run to run). */
  readonly costMean: number;
  readonly nodeRange: [number, number];
}

export function summarise(runs: readonly ProvisioningResult[]): ProvisioningSummary {
  const [first, ...rest] = runs;
  if (first === undefined || rest.length === 0) throw new Error(`${runs.length} plans: at least two are needed`);
  const median = [...rest].sort((a, b) => a.cpuSeconds - b.cpuSeconds)[Math.floor((rest.length - 1) / 2)]!;
  const costs = runs.map((r) => r.costPerHour);
  const nodes = runs.map((r) => r.nodeClaims);
  return {
    ...median,
    ...(runs.some((r) => r.violations !== undefined) ? { violations: Math.max(...runs.map((r) => r.violations ?? 0)) } : {}),
    ...(runs.some((r) => r.lowerBound !== undefined) ? { lowerBound: runs.find((r) => r.lowerBound !== undefined)!.lowerBound! } : {}),
    peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)),
    cold: { seconds: first.seconds, cpuSeconds: first.cpuSeconds },
    plans: runs.length,
    costRange: [Math.min(...costs), Math.max(...costs)],
    costMean: costs.reduce((a, b) => a + b, 0) / costs.length,
    nodeRange: [Math.min(...nodes), Math.max(...nodes)],
  };
}

if (process.argv[1]?.endsWith('provisioning.ts')) {
  const pods = Number(process.argv[2]);
  // --optimize: berth's --optimize cost; the last plan also reports the LP lower bound (HiGHS).
  const optimize = process.argv.includes('--optimize');
  const solver = optimize ? await loadHighsSolver() : undefined;
  const repeats = provisioningRepeats(pods);
  for (let i = 0; i < repeats; i++) process.stdout.write(`${JSON.stringify(runProvisioning(pods, optimize ? (i === repeats - 1 && solver ? { solver } : {}) : undefined))}\n`);
}
