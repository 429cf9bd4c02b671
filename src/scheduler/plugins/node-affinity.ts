// NodeAffinity: spec.nodeSelector and required node affinity filter nodes;
// preferred terms add their weights to a node's score. Also the profile-level
// addedAffinity arg, which every pod of the profile must satisfy.

import { FieldError, type FieldPath } from '../../model/errors.js';
import type { NodeSelectorTermManifest } from '../../model/manifest.js';
import { matchesRequiredNodeAffinity, type Pod } from '../../model/pod.js';
import { compileNodeSelector, compileNodeSelectorTerm, type NodeLike, type NodeSelector } from '../../model/selector.js';
import type { FilterPlugin, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { Status } from '../status.js';
import { normalizeToMax } from './normalize.js';

export const NODE_AFFINITY = 'NodeAffinity';
export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector";
export const ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity";
export const ERR_REASON_CONFLICT = 'pod affinity terms conflict';

interface AddedAffinityArgs {
  requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: NodeSelectorTermManifest[] };
  preferredDuringSchedulingIgnoredDuringExecution?: { weight: number; preference: NodeSelectorTermManifest }[];
}

interface WeightedTerm {
  readonly weight: number;
  matches(node: NodeLike): boolean;
}

/** A field path as upstream prints it: `a.b[0].c`. */
function formatPath(path: FieldPath): string {
  return path.map((seg, i) => (typeof seg === 'number' ? `[${seg}]` : i === 0 ? seg : `.${seg}`)).join('');
}

/** Compiles one part of addedAffinity; a selector error becomes a plain Error naming the full field. */
function compileAt<T>(path: FieldPath, compile: () => T): T {
  try {
    return compile();
  } catch (e) {
    if (!(e instanceof FieldError)) throw e;
    // Selector errors start with their own leaf field ("values: ..."), which is the path's last segment.
    const leaf = e.path[e.path.length - 1];
    const full = [...path, ...e.path];
    if (typeof leaf === 'string' && e.message.startsWith(`${leaf}: `)) throw new Error(`${formatPath(full.slice(0, -1))}.${e.message}`);
    throw new Error(`${formatPath(full)}: ${e.message}`);
  }
}

/**
 * Args come undecoded from the configuration: a requirement written without
 * `values` (Exists, DoesNotExist) has none, as a nil slice decodes upstream.
 */
function decodeTerm(term: NodeSelectorTermManifest | undefined | null): NodeSelectorTermManifest {
  const withValues = (reqs: NodeSelectorTermManifest['matchExpressions']) => reqs?.map((r) => ({ ...r, values: r.values ?? [] }));
  const out: NodeSelectorTermManifest = {};
  const exprs = withValues(term?.matchExpressions);
  const fields = withValues(term?.matchFields);
  if (exprs) out.matchExpressions = exprs;
  if (fields) out.matchFields = fields;
  return out;
}

function parseAddedAffinity(args: Readonly<Record<string, unknown>>): { required: NodeSelector | null; preferred: WeightedTerm[] } {
  const added = args.addedAffinity as AddedAffinityArgs | undefined | null;
  if (!added) return { required: null, preferred: [] };
  const req = added.requiredDuringSchedulingIgnoredDuringExecution;
  const required = req
    ? compileAt(['addedAffinity', 'requiredDuringSchedulingIgnoredDuringExecution'], () => compileNodeSelector({ nodeSelectorTerms: (req.nodeSelectorTerms ?? []).map(decodeTerm) }))
    : null;
  // Upstream's path for a preferred term leaves out "preference" (it validates the term in place).
  const preferred = (added.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((t, i) => ({
    weight: t.weight,
    matches: compileAt(['addedAffinity', 'preferredDuringSchedulingIgnoredDuringExecution', i], () => compileNodeSelectorTerm(decodeTerm(t.preference))),
  }));
  return { required, preferred };
}

function scoreTerms(terms: readonly WeightedTerm[], node: NodeLike): number {
  let sum = 0;
  for (const t of terms) if (t.weight !== 0 && t.matches(node)) sum += t.weight;
  return sum;
}

/**
 * Node names a required node affinity restricts the pod to through
 * `matchFields: metadata.name In [...]`: the union over terms of each term's
 * intersection; null when some term does not restrict by name.
 */
function nodeNamesFromAffinity(pod: Pod): Set<string> | null {
  const terms = pod.requiredNodeAffinity?.terms ?? [];
  if (terms.length === 0) return null;
  let union: Set<string> | null = null;
  for (const term of terms) {
    const nameSets = (term.matchFields ?? []).filter((f) => f.key === 'metadata.name' && f.operator === 'In').map((f) => new Set(f.values));
    if (nameSets.length === 0) return null;
    const names = nameSets.reduce((acc, s) => new Set([...acc].filter((v) => s.has(v))));
    union = new Set([...(union ?? []), ...names]);
  }
  return union;
}

export const newNodeAffinity: PluginFactory = ({ args }): PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin => {
  const added = parseAddedAffinity(args);
  return {
    name: NODE_AFFINITY,
    preFilter: (_state, pod) => {
      if (pod.requiredNodeAffinity === null && added.required === null && Object.keys(pod.nodeSelector).length === 0) return { status: Status.SKIP };
      const names = nodeNamesFromAffinity(pod);
      if (names !== null && names.size === 0) return { status: Status.unresolvable(ERR_REASON_CONFLICT) };
      return names !== null ? { result: { nodeNames: names }, status: Status.SUCCESS } : { status: Status.SUCCESS };
    },
    filter: (_state, pod, nodeInfo) => {
      const node = nodeInfo.node;
      if (added.required !== null && !added.required.matches(node)) return Status.unresolvable(ERR_REASON_ENFORCED);
      return matchesRequiredNodeAffinity(pod, node) ? Status.SUCCESS : Status.unresolvable(ERR_REASON_POD);
    },
    preScore: (_state, pod) => (pod.preferredNodeAffinity.length === 0 && added.preferred.length === 0 ? Status.SKIP : Status.SUCCESS),
    score: (_state, pod, nodeInfo) => scoreTerms(added.preferred, nodeInfo.node) + scoreTerms(pod.preferredNodeAffinity, nodeInfo.node),
    normalizeScore: normalizeToMax(false),
  };
};
