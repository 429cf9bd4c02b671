// Resource allocation scoring shared by NodeResourcesFit's strategies and
// NodeResourcesBalancedAllocation (resourceAllocationScorer upstream).

import type { NodeInfo } from '../../cluster/node-info.js';
import { isScalarResourceName } from '../../model/resource-names.js';
import { MAX_NODE_SCORE } from '../framework.js';

export interface ResourceSpec {
  readonly name: string;
  readonly weight: number;
}

export const DEFAULT_RESOURCE_SPEC: readonly ResourceSpec[] = [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

/** (requested incl. the pod, allocated before it, allocatable) → score. */
export type ResourceScorer = (requested: readonly number[], allocated: readonly number[], allocatable: readonly number[]) => number;

/**
 * Node allocatable and allocated amounts for one resource. cpu and memory use the
 * non-zero sums unless `useRequested`; other resources always use real requests.
 */
function allocatableAndAllocated(nodeInfo: NodeInfo, resource: string, useRequested: boolean): [number, number] {
  const alloc = nodeInfo.node.allocatable;
  switch (resource) {
    case 'cpu':
      return [alloc.cpu ?? 0, useRequested ? (nodeInfo.requested.cpu ?? 0) : nodeInfo.nonZeroCpu];
    case 'memory':
      return [alloc.memory ?? 0, useRequested ? (nodeInfo.requested.memory ?? 0) : nodeInfo.nonZeroMemory];
    case 'ephemeral-storage':
      return [alloc['ephemeral-storage'] ?? 0, nodeInfo.requested['ephemeral-storage'] ?? 0];
    default:
      if (resource in alloc && isScalarResourceName(resource)) return [alloc[resource] ?? 0, nodeInfo.requested[resource] ?? 0];
      return [0, 0];
  }
}

export function scoreNode(nodeInfo: NodeInfo, podRequests: readonly number[], resources: readonly ResourceSpec[], useRequested: boolean, scorer: ResourceScorer): number {
  const n = resources.length;
  const requested = new Array<number>(n).fill(0);
  const allocated = new Array<number>(n).fill(0);
  const allocatable = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    const name = resources[i]!.name;
    const podReq = podRequests[i]!;
    if (podReq === 0 && isScalarResourceName(name)) continue;
    const [a, used] = allocatableAndAllocated(nodeInfo, name, useRequested);
    if (a === 0) continue;
    allocatable[i] = a;
    allocated[i] = used;
    requested[i] = used + podReq;
  }
  return scorer(requested, allocated, allocatable);
}

function weightedMean(resources: readonly ResourceSpec[], requested: readonly number[], allocatable: readonly number[], perResource: (req: number, cap: number) => number): number {
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
  return (requested, _allocated, allocatable) =>
    weightedMean(resources, requested, allocatable, (req, cap) => (cap === 0 || req > cap ? 0 : Math.trunc(((cap - req) * MAX_NODE_SCORE) / cap)));
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

/** Fractions of allocatable in use, capped at 1, and their standard deviation → 0..100. */
function balancedResourceScore(requested: readonly number[], allocatable: readonly number[]): number {
  const fractions: number[] = [];
  let total = 0;
  for (let i = 0; i < requested.length; i++) {
    if (allocatable[i] === 0) continue;
    const f = Math.min(requested[i]! / allocatable[i]!, 1);
    total += f;
    fractions.push(f);
  }
  let std = 0;
  if (fractions.length === 2) {
    std = Math.abs((fractions[0]! - fractions[1]!) / 2);
  } else if (fractions.length > 2) {
    const mean = total / fractions.length;
    let sum = 0;
    for (const f of fractions) sum += (f - mean) * (f - mean);
    std = Math.sqrt(sum / fractions.length);
  }
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}

/** Rewards placements that improve the node's balance: 50..100, about 75 when balance is unchanged. */
export const balancedScorer: ResourceScorer = (requested, allocated, allocatable) => {
  const withPod = balancedResourceScore(requested, allocatable);
  const withoutPod = balancedResourceScore(allocated, allocatable);
  return MAX_NODE_SCORE / 2 + Math.trunc((MAX_NODE_SCORE / 2 + withPod - withoutPod) / 2);
};
