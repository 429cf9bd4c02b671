// intstr.GetScaledValueFromIntOrPercent and the rolling-update fenceposts
// (deployment util ResolveFenceposts), plus the apps/v1 validation that rejects
// maxSurge and maxUnavailable both 0.

import type { IntOrString } from '../../model/manifest.js';

function parsePercent(v: string): number {
  const m = /^(\d+)%$/.exec(v);
  if (!m) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  return Number(m[1]);
}

/** Percentages scale against `total` in float64, rounded up or down as asked. */
export function scaledValue(v: IntOrString, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  const pct = parsePercent(v);
  const x = (pct * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

export interface Fenceposts {
  readonly maxSurge: number;
  readonly maxUnavailable: number;
}

/** Surge rounds up, unavailability down; when both come out 0 one pod may be unavailable. */
export function resolveFenceposts(maxSurge: IntOrString, maxUnavailable: IntOrString, desired: number): Fenceposts {
  const surge = scaledValue(maxSurge, desired, true);
  let unavailable = scaledValue(maxUnavailable, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { maxSurge: surge, maxUnavailable: unavailable };
}

function numericValue(v: IntOrString): number {
  return typeof v === 'number' ? v : parsePercent(v);
}

/** ValidateRollingUpdateDeployment: field-path-prefixed messages as the API server words them. */
export function validateRollingUpdate(maxSurge: IntOrString, maxUnavailable: IntOrString): void {
  const path = 'spec.strategy.rollingUpdate';
  for (const [name, v] of [['maxUnavailable', maxUnavailable], ['maxSurge', maxSurge]] as const) {
    if (typeof v === 'string') parsePercent(v);
    if (numericValue(v) < 0) throw new Error(`${path}.${name}: Invalid value: ${JSON.stringify(v)}: must be greater than or equal to 0`);
  }
  if (typeof maxUnavailable === 'string' && parsePercent(maxUnavailable) > 100) {
    throw new Error(`${path}.maxUnavailable: Invalid value: ${JSON.stringify(maxUnavailable)}: must not be greater than 100%`);
  }
  if (numericValue(maxUnavailable) === 0 && numericValue(maxSurge) === 0) {
    throw new Error(`${path}.maxUnavailable: Invalid value: ${JSON.stringify(maxUnavailable)}: may not be 0 when \`maxSurge\` is 0`);
  }
}
