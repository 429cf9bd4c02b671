// Taints and tolerations with core/v1 helper semantics (Toleration.ToleratesTaint).

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  readonly key: string;
  readonly value: string;
  readonly effect: TaintEffect;
}

export interface Toleration {
  readonly key: string;
  /** '' is treated as Equal; Lt and Gt compare integer values (TaintTolerationComparisonOperators). */
  readonly operator: 'Equal' | 'Exists' | '' | 'Lt' | 'Gt';
  readonly value: string;
  /** '' tolerates every effect. */
  readonly effect: TaintEffect | '';
  readonly tolerationSeconds?: number;
}

/** content.IsDecimalInteger then strconv.ParseInt: an int64 written without a sign, leading zeros or spaces ('-' allowed). */
export function parseDecimalInt64(value: string): bigint | undefined {
  if (!/^(0|-?[1-9][0-9]*)$/.test(value)) return undefined;
  const n = BigInt(value);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/**
 * Toleration.ToleratesTaint. `comparisonOperators` is the TaintTolerationComparisonOperators
 * gate of the component asking: with it off an Lt/Gt toleration tolerates nothing; with it on
 * Lt tolerates a taint whose value is below the toleration's, Gt one above, both read as int64
 * (a value that is not one tolerates nothing).
 */
export function toleratesTaint(t: Toleration, taint: Taint, comparisonOperators = false): boolean {
  if (t.effect !== '' && t.effect !== taint.effect) return false;
  // An empty key with Exists tolerates every taint.
  if (t.key !== '' && t.key !== taint.key) return false;
  switch (t.operator) {
    case 'Exists':
      return true;
    case 'Equal':
    case '':
      return t.value === taint.value;
    case 'Lt':
    case 'Gt': {
      if (!comparisonOperators) return false;
      const want = parseDecimalInt64(t.value);
      const have = parseDecimalInt64(taint.value);
      if (want === undefined || have === undefined) return false;
      return t.operator === 'Lt' ? have < want : have > want;
    }
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(tolerations: readonly Toleration[], taint: Taint, comparisonOperators = false): boolean {
  for (const t of tolerations) if (toleratesTaint(t, taint, comparisonOperators)) return true;
  return false;
}

/** The first taint matched by `inScope` that no toleration tolerates (v1helper.FindMatchingUntoleratedTaint). */
export function findUntoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  inScope: (t: Taint) => boolean,
  comparisonOperators = false,
): Taint | undefined {
  for (const taint of taints) {
    if (inScope(taint) && !tolerationsTolerateTaint(tolerations, taint, comparisonOperators)) return taint;
  }
  return undefined;
}

/** The node lifecycle controller's taints for a node that is not Ready or not heard from. */
export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';

export const doNotScheduleTaints = (t: Taint): boolean => t.effect === 'NoSchedule' || t.effect === 'NoExecute';
