// Selectors in a pod spec whose label keys or values the API server refuses today.
// Pods stored before it did keep them (a `kubectl get -o yaml` dump shows them), so
// berth loads them, schedules them as kube-scheduler v1.37.2 reads them (see
// model/selector.ts), and says where each one is and what it does.

import type { FieldPath } from '../model/errors.js';
import { labelValueErrors, qualifiedNameErrors } from '../model/label-syntax.js';

export interface LegacySelectorValue {
  /** Relative to the pod spec. */
  readonly path: FieldPath;
  /** A label key or a label value: the API server has always refused the first in selectors, and keeps the second on some objects stored before it refused them. */
  readonly part: 'key' | 'value';
  readonly message: string;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const NODE_REQUIRED = 'kube-scheduler v1.37.2 cannot parse this term, so it matches no node';
const NODE_PREFERRED = "kube-scheduler v1.37.2 cannot parse it: NodeAffinity's PreScore fails and the pod is not scheduled";
const POD_AFFINITY = "kube-scheduler v1.37.2 cannot parse it: InterPodAffinity's PreFilter refuses this pod, and other pods ignore this pod's terms of this kind";
const SPREAD = "kube-scheduler v1.37.2 cannot parse it: PodTopologySpread fails for this pod";

function problems(keyAt: FieldPath, key: string, values: readonly { readonly value: unknown; readonly at: FieldPath }[], effect: string, out: LegacySelectorValue[]): void {
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) out.push({ path: keyAt, part: 'key', message: `Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')} (refused by the API server today; ${effect})` });
  for (const { value, at } of values) {
    if (typeof value !== 'string') continue;
    const errs = labelValueErrors(value);
    if (errs.length > 0) out.push({ path: at, part: 'value', message: `Invalid value: ${JSON.stringify(value)}: ${errs.join('; ')} (refused by the API server today; ${effect})` });
  }
}

function requirements(reqs: unknown, at: FieldPath, effect: string, out: LegacySelectorValue[]): void {
  list(reqs).forEach((r, i) => {
    const req = obj(r);
    if (!req || typeof req['key'] !== 'string') return;
    const values = list(req['values']).map((value, j) => ({ value, at: [...at, i, 'values', j] }));
    problems([...at, i, 'key'], req['key'], values, effect, out);
  });
}

function labelSelector(sel: unknown, at: FieldPath, effect: string, out: LegacySelectorValue[]): void {
  const s = obj(sel);
  if (!s) return;
  for (const [k, v] of Object.entries(obj(s['matchLabels']) ?? {})) problems([...at, 'matchLabels', k], k, [{ value: v, at: [...at, 'matchLabels', k] }], effect, out);
  requirements(s['matchExpressions'], [...at, 'matchExpressions'], effect, out);
}

function affinityTerm(term: unknown, at: FieldPath, out: LegacySelectorValue[]): void {
  const t = obj(term);
  if (!t) return;
  labelSelector(t['labelSelector'], [...at, 'labelSelector'], POD_AFFINITY, out);
  labelSelector(t['namespaceSelector'], [...at, 'namespaceSelector'], POD_AFFINITY, out);
}

/** Every label key or value in a label selector (at `at`) that today's API server refuses, each message ending with `effect`. */
export function legacyLabelSelectorValues(sel: unknown, at: FieldPath, effect: string): LegacySelectorValue[] {
  const out: LegacySelectorValue[] = [];
  labelSelector(sel, at, effect, out);
  return out;
}

/** Every label key or value in the spec's affinity and spread selectors that today's API server refuses. */
export function legacySelectorValues(spec: unknown): LegacySelectorValue[] {
  const out: LegacySelectorValue[] = [];
  const s = obj(spec);
  if (!s) return out;
  const aff = obj(s['affinity']);
  const nodeAff = obj(aff?.['nodeAffinity']);
  const requiredAt = ['affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'];
  list(obj(nodeAff?.['requiredDuringSchedulingIgnoredDuringExecution'])?.['nodeSelectorTerms']).forEach((t, i) =>
    requirements(obj(t)?.['matchExpressions'], [...requiredAt, i, 'matchExpressions'], NODE_REQUIRED, out),
  );
  const preferredAt = ['affinity', 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution'];
  list(nodeAff?.['preferredDuringSchedulingIgnoredDuringExecution']).forEach((p, i) =>
    requirements(obj(obj(p)?.['preference'])?.['matchExpressions'], [...preferredAt, i, 'preference', 'matchExpressions'], NODE_PREFERRED, out),
  );
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = obj(aff?.[kind]);
    list(a?.['requiredDuringSchedulingIgnoredDuringExecution']).forEach((t, i) => affinityTerm(t, ['affinity', kind, 'requiredDuringSchedulingIgnoredDuringExecution', i], out));
    list(a?.['preferredDuringSchedulingIgnoredDuringExecution']).forEach((w, i) =>
      affinityTerm(obj(w)?.['podAffinityTerm'], ['affinity', kind, 'preferredDuringSchedulingIgnoredDuringExecution', i, 'podAffinityTerm'], out),
    );
  }
  list(s['topologySpreadConstraints']).forEach((c, i) => labelSelector(obj(c)?.['labelSelector'], ['topologySpreadConstraints', i, 'labelSelector'], SPREAD, out));
  return out;
}
