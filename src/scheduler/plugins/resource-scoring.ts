// Resource allocation scoring shared by NodeResourcesFit's strategies and
// NodeResourcesBalancedAllocation (resourceAllocationScorer upstream).

import type { NodeInfo } from '../../cluster/node-info.js';
import { isScalarResourceName } from '../../model/resource-names.js';
import { MAX_NODE_SCORE } from '../framework.js';
import type { Pod } from '../../model/pod.js';

export interface ResourceSpec {
  readonly name: string;
  readonly weight: number;
}

export const DEFAULT_RESOURCE_SPEC: readonly ResourceSpec[] = [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

/** (requested incl. the pod, allocated before it, allocatable) → score. */
export type ResourceScorer = (requested: ArrayLike<number>, allocated: ArrayLike<number>, allocatable: ArrayLike<number>) => number;

/**
 * Memoizes a per-pod derivation (the pod's requests as a scorer reads them) for
 * the pod being scheduled: Filter and Score ask for the same pod node after node.
 * Only the last pod is remembered (a WeakMap entry per pod ever scheduled costs
 * the garbage collector more than deriving again).
 */
export function perPod<T>(derive: (pod: Pod) => T): (pod: Pod) => T {
  let lastPod: Pod | undefined;
  let last: T | undefined;
  return (pod) => {
    if (pod !== lastPod) {
      last = derive(pod);
      lastPod = pod;
    }
    return last!;
  };
}

// How scoreNode reads a resource off a node, decided once per plugin rather than by name per node.
const CPU = 0;
const MEMORY = 1;
const EPHEMERAL_STORAGE = 2;
const SCALAR = 3;
/** Neither cpu, memory, ephemeral-storage nor a scalar resource: a node never offers it. */
const UNKNOWN = 4;

function kindOf(name: string): number {
  if (name === 'cpu') return CPU;
  if (name === 'memory') return MEMORY;
  if (name === 'ephemeral-storage') return EPHEMERAL_STORAGE;
  return isScalarResourceName(name) ? SCALAR : UNKNOWN;
}

/** What one plugin instance reuses for every node it scores (scoring is synchronous), so the Score loop allocates nothing. */
export interface ScoreScratch {
  readonly kinds: Uint8Array;
  readonly requested: Float64Array;
  readonly allocated: Float64Array;
  readonly allocatable: Float64Array;
}

export function scoreScratch(resources: readonly ResourceSpec[]): ScoreScratch {
  const n = resources.length;
  return { kinds: Uint8Array.from(resources, (r) => kindOf(r.name)), requested: new Float64Array(n), allocated: new Float64Array(n), allocatable: new Float64Array(n) };
}

export function scoreNode(
  nodeInfo: NodeInfo,
  podRequests: readonly number[],
  resources: readonly ResourceSpec[],
  useRequested: boolean,
  scorer: ResourceScorer,
  scratch: ScoreScratch,
): number {
  const { kinds, requested, allocated, allocatable } = scratch;
  const alloc = nodeInfo.node.allocatable;
  const inUse = nodeInfo.requested;
  for (let i = 0; i < kinds.length; i++) {
    requested[i] = allocated[i] = allocatable[i] = 0;
    const podReq = podRequests[i]!;
    let a: number;
    let used: number;
    // Node allocatable and allocated amounts: cpu and memory use the non-zero sums
    // unless `useRequested`; other resources always use real requests.
    switch (kinds[i]) {
      case CPU:
        a = alloc.cpu ?? 0;
        used = useRequested ? (inUse.cpu ?? 0) : nodeInfo.nonZeroCpu;
        break;
      case MEMORY:
        a = alloc.memory ?? 0;
        used = useRequested ? (inUse.memory ?? 0) : nodeInfo.nonZeroMemory;
        break;
      case EPHEMERAL_STORAGE:
        a = alloc['ephemeral-storage'] ?? 0;
        used = inUse['ephemeral-storage'] ?? 0;
        break;
      case SCALAR: {
        if (podReq === 0) continue;
        const name = resources[i]!.name;
        if (!(name in alloc)) continue;
        a = alloc[name] ?? 0;
        used = inUse[name] ?? 0;
        break;
      }
      default:
        continue;
    }
    if (a === 0) continue;
    allocatable[i] = a;
    allocated[i] = used;
    requested[i] = used + podReq;
  }
  return scorer(requested, allocated, allocatable);
}

/** scoreNode for each of `nodes` into out[offset + j] (a plugin's scoreAll). */
export function scoreNodes(
  nodes: readonly NodeInfo[],
  podRequests: readonly number[],
  resources: readonly ResourceSpec[],
  useRequested: boolean,
  scorer: ResourceScorer,
  scratch: ScoreScratch,
  out: number[],
  offset: number,
): void {
  for (let j = 0; j < nodes.length; j++) out[offset + j] = scoreNode(nodes[j]!, podRequests, resources, useRequested, scorer, scratch);
}

function weightedMean(resources: readonly ResourceSpec[], requested: ArrayLike<number>, allocatable: ArrayLike<number>, perResource: (req: number, cap: number) => number): number {
  let nodeScore = 0;
  let weightSum = 0;
  for (let i = 0; i < requested.length; i++) {
    if (allocatable[i] === 0) continue;
    const w = resources[i]!.weight;
    nodeScore += perResource(requested[i]!, allocatable[i]!) * w;
    weightSum += w;
  }
  return weightSum === 0 ? 0 : Math.trunc(nodeScore / weightSum);
}

export function leastAllocatedScorer(resources: readonly ResourceSpec[]): ResourceScorer {
  // weightedMean with the per-resource score written inline: this runs for every scored node.
  return (requested, _allocated, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      const cap = allocatable[i]!;
      if (cap === 0) continue;
      const req = requested[i]!;
      const w = resources[i]!.weight;
      nodeScore += (req > cap ? 0 : Math.trunc(((cap - req) * MAX_NODE_SCORE) / cap)) * w;
      weightSum += w;
    }
    return weightSum === 0 ? 0 : Math.trunc(nodeScore / weightSum);
  };
}

export function mostAllocatedScorer(resources: readonly ResourceSpec[]): ResourceScorer {
  return (requested, _allocated, allocatable) =>
    weightedMean(resources, requested, allocatable, (req, cap) => (cap === 0 ? 0 : Math.trunc((Math.min(req, cap) * MAX_NODE_SCORE) / cap)));
}

export interface ShapePoint {
  readonly utilization: number;
  readonly score: number;
}

/** helper.BuildBrokenLinearFunction: piecewise-linear through the points, integer arithmetic. */
export function brokenLinear(shape: readonly ShapePoint[]): (p: number) => number {
  return (p) => {
    for (let i = 0; i < shape.length; i++) {
      const cur = shape[i]!;
      if (p <= cur.utilization) {
        if (i === 0) return cur.score;
        const prev = shape[i - 1]!;
        return prev.score + Math.trunc(((cur.score - prev.score) * (p - prev.utilization)) / (cur.utilization - prev.utilization));
      }
    }
    return shape[shape.length - 1]!.score;
  };
}

const MAX_CUSTOM_PRIORITY_SCORE = 10;
const MAX_UTILIZATION = 100;

/** RequestedToCapacityRatio: shape scores (0..10) scaled to 0..100; zero-score resources are left out of the mean. */
export function requestedToCapacityRatioScorer(resources: readonly ResourceSpec[], shape: readonly ShapePoint[]): ResourceScorer {
  const fn = brokenLinear(shape.map((p) => ({ utilization: p.utilization, score: p.score * (MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE) })));
  const perResource = (req: number, cap: number) => (cap === 0 || req > cap ? fn(MAX_UTILIZATION) : fn(Math.trunc((req * MAX_UTILIZATION) / cap)));
  return (requested, _allocated, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      if (allocatable[i] === 0) continue;
      const w = resources[i]!.weight;
      const s = perResource(requested[i]!, allocatable[i]!);
      if (s > 0) {
        nodeScore += s * w;
        weightSum += w;
      }
    }
    return weightSum === 0 ? 0 : goRound(nodeScore / weightSum);
  };
}

/** Go's math.Round: half away from zero. */
export function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/** Fractions of allocatable in use, capped at 1, and their standard deviation → 0..100 (no allocation: it runs per node). */
function balancedResourceScore(requested: ArrayLike<number>, allocatable: ArrayLike<number>): number {
  let count = 0;
  let total = 0;
  let first = 0;
  let second = 0;
  for (let i = 0; i < requested.length; i++) {
    if (allocatable[i] === 0) continue;
    const f = Math.min(requested[i]! / allocatable[i]!, 1);
    if (count === 0) first = f;
    else if (count === 1) second = f;
    total += f;
    count++;
  }
  let std = 0;
  if (count === 2) {
    std = Math.abs((first - second) / 2);
  } else if (count > 2) {
    const mean = total / count;
    let sum = 0;
    for (let i = 0; i < requested.length; i++) {
      if (allocatable[i] === 0) continue;
      const f = Math.min(requested[i]! / allocatable[i]!, 1);
      sum += (f - mean) * (f - mean);
    }
    std = Math.sqrt(sum / count);
  }
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}

/** Rewards placements that improve the node's balance: 50..100, about 75 when balance is unchanged. */
export const balancedScorer: ResourceScorer = (requested, allocated, allocatable) => {
  const withPod = balancedResourceScore(requested, allocatable);
  const withoutPod = balancedResourceScore(allocated, allocatable);
  return MAX_NODE_SCORE / 2 + Math.trunc((MAX_NODE_SCORE / 2 + withPod - withoutPod) / 2);
};
