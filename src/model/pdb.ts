// PodDisruptionBudgets (policy/v1) and the disruption arithmetic of the disruption controller.

import { FieldError } from './errors.js';
import type { IntOrString, LabelSelectorManifest, ObjectMetaManifest } from './manifest.js';
import { atPath } from './errors.js';
import { compileLabelSelector, labelSelectorParseError, nothingSelector, type Selector } from './selector.js';

export interface PdbManifest {
  apiVersion?: string;
  kind?: 'PodDisruptionBudget';
  metadata: ObjectMetaManifest;
  spec: { selector?: LabelSelectorManifest | null; minAvailable?: IntOrString; maxUnavailable?: IntOrString; unhealthyPodEvictionPolicy?: string };
  status?: { disruptionsAllowed?: number; currentHealthy?: number; desiredHealthy?: number; expectedPods?: number } | null;
}

export interface PodDisruptionBudget {
  readonly namespace: string;
  readonly name: string;
  readonly key: string;
  readonly selector: Selector;
  /**
   * metav1.LabelSelectorAsSelector's error for a selector stored before the API server
   * refused its label keys or values: the selector then matches no pod.
   */
  readonly selectorError?: string;
  readonly minAvailable?: IntOrString;
  readonly maxUnavailable?: IntOrString;
  /** status.disruptionsAllowed when the input carried a status; otherwise computed from the cluster. */
  readonly statusDisruptionsAllowed?: number;
}

/** Parses "30%" or 3 into either a count or a percentage. */
export function parseIntOrPercent(v: IntOrString, path: (string | number)[]): { percent: boolean; value: number } {
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < 0) throw new FieldError(`Invalid value: ${v}: must be greater than or equal to 0`, path);
    return { percent: false, value: v };
  }
  const m = /^([0-9]+)%$/.exec(v);
  if (!m) {
    if (/^[0-9]+$/.test(v)) return { percent: false, value: Number(v) };
    throw new FieldError(`Invalid value: ${JSON.stringify(v)}: must be an integer or percentage (e.g '5%')`, path);
  }
  const value = Number(m[1]);
  if (value > 100) throw new FieldError(`Invalid value: ${JSON.stringify(v)}: must not be greater than 100%`, path);
  return { percent: true, value };
}

/** intstr.GetScaledValueFromIntOrPercent: percentages of `total`, rounded up or down. */
export function scaledValue(v: IntOrString, total: number, roundUp: boolean): number {
  const p = parseIntOrPercent(v, []);
  if (!p.percent) return p.value;
  const exact = (p.value * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

export function compilePdb(m: PdbManifest): PodDisruptionBudget {
  const namespace = m.metadata.namespace || 'default';
  const name = m.metadata.name ?? '';
  if (!name) throw new FieldError('Required value: name or generateName is required', ['metadata', 'name']);
  const { minAvailable, maxUnavailable } = m.spec;
  if (minAvailable !== undefined && maxUnavailable !== undefined) {
    throw new FieldError('Invalid value: minAvailable and maxUnavailable cannot be both set', ['spec', 'maxUnavailable']);
  }
  if (minAvailable !== undefined) parseIntOrPercent(minAvailable, ['spec', 'minAvailable']);
  if (maxUnavailable !== undefined) parseIntOrPercent(maxUnavailable, ['spec', 'maxUnavailable']);
  // A legacy key or value: kube-scheduler's preemption and the eviction API skip a PDB whose selector does not parse.
  const selectorError = labelSelectorParseError(m.spec.selector);
  return {
    namespace,
    name,
    key: `${namespace}/${name}`,
    // policy/v1: a null selector matches no pods, an empty one every pod in the namespace.
    selector: selectorError !== undefined ? nothingSelector() : atPath(['spec', 'selector'], () => compileLabelSelector(m.spec.selector)),
    ...(selectorError !== undefined ? { selectorError } : {}),
    ...(minAvailable !== undefined ? { minAvailable } : {}),
    ...(maxUnavailable !== undefined ? { maxUnavailable } : {}),
    ...(m.status?.disruptionsAllowed !== undefined ? { statusDisruptionsAllowed: m.status.disruptionsAllowed } : {}),
  };
}

/**
 * Disruptions allowed as the disruption controller computes them, given how many
 * matching pods are expected (the owners' replicas) and how many are healthy.
 */
export function disruptionsAllowed(pdb: PodDisruptionBudget, expectedPods: number, healthyPods: number): number {
  let desiredHealthy: number;
  if (pdb.maxUnavailable !== undefined) {
    desiredHealthy = expectedPods - scaledValue(pdb.maxUnavailable, expectedPods, true);
    if (desiredHealthy < 0) desiredHealthy = 0;
  } else if (pdb.minAvailable !== undefined) {
    desiredHealthy = scaledValue(pdb.minAvailable, expectedPods, true);
  } else {
    desiredHealthy = expectedPods;
  }
  return Math.max(0, healthyPods - desiredHealthy);
}
