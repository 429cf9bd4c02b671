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
