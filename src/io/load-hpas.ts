// HorizontalPodAutoscalers: validated as autoscaling/v2 validation does (min 1
// when set, max at least min, a target kind and name), then matched to the
// workload they scale; one whose target is not in the input is kept out with a
// warning, since nothing in the input would follow it.

import type { HorizontalPodAutoscaler } from '../model/hpa.js';
import type { LoadContext } from './context.js';
import type { ManifestOf } from './kinds.js';
import type { WorkloadSummary } from './load-workloads.js';
import type { RawObject } from './objects.js';

const SCALABLE = new Set(['Deployment', 'StatefulSet', 'ReplicaSet']);

export function loadHpas(ctx: LoadContext, objects: readonly { raw: RawObject; manifest: ManifestOf<'HorizontalPodAutoscaler'> }[], workloads: readonly WorkloadSummary[]): HorizontalPodAutoscaler[] {
  const { reporter } = ctx;
  const out: HorizontalPodAutoscaler[] = [];
  for (const p of objects) {
    const name = ctx.requireName(p);
    const { scaleTargetRef: ref, minReplicas, maxReplicas } = p.manifest.spec;
    const min = minReplicas ?? 1;
    let valid = name !== undefined;
    const fail = (path: (string | number)[], message: string) => {
      reporter.error(p.raw, path, message);
      valid = false;
    };
    if (!ref.kind) fail(['spec', 'scaleTargetRef', 'kind'], 'Required value');
    if (!ref.name) fail(['spec', 'scaleTargetRef', 'name'], 'Required value');
    if (min < 1) fail(['spec', 'minReplicas'], `Invalid value: ${min}: must be greater than or equal to 1`);
    if (maxReplicas < 1) fail(['spec', 'maxReplicas'], `Invalid value: ${maxReplicas}: must be greater than 0`);
    else if (maxReplicas < min) fail(['spec', 'maxReplicas'], `Invalid value: ${maxReplicas}: must be greater than or equal to \`minReplicas\``);
    if (!valid || !name) continue;
    const namespace = p.manifest.metadata.namespace || 'default';
    if (!SCALABLE.has(ref.kind) || !workloads.some((w) => w.kind === ref.kind && w.namespace === namespace && w.name === ref.name)) {
      reporter.warn(p.raw, ['spec', 'scaleTargetRef'], `Not found: ${ref.kind} ${namespace}/${ref.name} is not in the input; the autoscaler is not used`);
      continue;
    }
    out.push({ namespace, name, key: `${namespace}/${name}`, target: { kind: ref.kind, name: ref.name }, minReplicas: min, maxReplicas });
  }
  return out;
}
