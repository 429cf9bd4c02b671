// Taints and tolerations with core/v1 helper semantics (Toleration.ToleratesTaint).

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  readonly key: string;
  readonly value: string;
  readonly effect: TaintEffect;
}

export interface Toleration {
  readonly key: string;
  /** '' is treated as Equal. */
  readonly operator: 'Equal' | 'Exists' | '';
  readonly value: string;
  /** '' tolerates every effect. */
  readonly effect: TaintEffect | '';
  readonly tolerationSeconds?: number;
}

export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect !== '' && t.effect !== taint.effect) return false;
  // An empty key with Exists tolerates every taint.
  if (t.key !== '' && t.key !== taint.key) return false;
  switch (t.operator) {
    case 'Exists':
      return true;
    case 'Equal':
    case '':
      return t.value === taint.value;
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(tolerations: readonly Toleration[], taint: Taint): boolean {
  for (const t of tolerations) if (toleratesTaint(t, taint)) return true;
  return false;
}

/** The first taint matched by `inScope` that no toleration tolerates (v1helper.FindMatchingUntoleratedTaint). */
export function findUntoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  inScope: (t: Taint) => boolean,
): Taint | undefined {
  for (const taint of taints) {
    if (inScope(taint) && !tolerationsTolerateTaint(tolerations, taint)) return taint;
  }
  return undefined;
}

/** The node lifecycle controller's taints for a node that is not Ready or not heard from. */
export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';

export const doNotScheduleTaints = (t: Taint): boolean => t.effect === 'NoSchedule' || t.effect === 'NoExecute';
