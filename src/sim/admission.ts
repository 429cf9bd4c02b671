// What the API server's admission adds to every pod the simulation creates: the
// DefaultTolerationSeconds plugin's 300 s tolerations for the not-ready and
// unreachable NoExecute taints, unless the pod already tolerates them. These are
// what make pods on a lost node wait five minutes before they are evicted.

import { changedPod, type Pod } from '../model/pod.js';
import { TAINT_NOT_READY, TAINT_UNREACHABLE, tolerationsTolerateTaint, type Taint, type Toleration } from '../model/taints.js';

export { TAINT_NOT_READY, TAINT_UNREACHABLE };
export const DEFAULT_TOLERATION_SECONDS = 300;

export function withDefaultTolerationSeconds(pod: Pod, seconds = DEFAULT_TOLERATION_SECONDS): Pod {
  const added: Toleration[] = [];
  for (const key of [TAINT_NOT_READY, TAINT_UNREACHABLE]) {
    const taint: Taint = { key, value: '', effect: 'NoExecute' };
    if (!tolerationsTolerateTaint(pod.tolerations, taint)) added.push({ key, operator: 'Exists', value: '', effect: 'NoExecute', tolerationSeconds: seconds });
  }
  return added.length === 0 ? pod : changedPod(pod, { tolerations: [...pod.tolerations, ...added] });
}

/** Input pods as admitted, by toleration seconds: every cluster built from an input admits the same pods (a check builds one per input it changes). */
const admittedPods = new WeakMap<Pod, { readonly seconds: number; readonly pod: Pod }>();

/**
 * withDefaultTolerationSeconds for a pod that was in the input (admitExistingPods):
 * the same object each time the same pod is admitted with the same seconds, so the
 * clusters a check builds for its changed inputs share their pods instead of each
 * making its own copies.
 */
export function admittedInputPod(pod: Pod, seconds = DEFAULT_TOLERATION_SECONDS): Pod {
  const known = admittedPods.get(pod);
  if (known?.seconds === seconds) return known.pod;
  const admitted = withDefaultTolerationSeconds(pod, seconds);
  admittedPods.set(pod, { seconds, pod: admitted });
  return admitted;
}
