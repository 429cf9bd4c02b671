// Compares berth's report of one scheduling attempt with the oracle's, dimension by
// dimension, and renders the differences for a human.

import { IN_TREE_REGISTRY, PASS_THROUGH_PLUGINS } from '../src/scheduler/profile.js';
import type { AttemptResult, FilterOut, NodeOut, ScoreOut } from './result.js';

/** Ordered from causes to consequences: the first mismatching dimension usually explains the rest. */
export const DIMENSIONS = [
  'error',
  'nodeOrder',
  'preFilter',
  'filter',
  'firstFailure',
  'feasible',
  'unschedulablePlugins',
  'rawScore',
  'score',
  'total',
  'topScore',
  'selected',
  'preemption',
  'postFilter',
  'message',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export interface Mismatch {
  readonly dimension: Dimension;
  /** The plugin the difference is about, when there is one. */
  readonly plugin?: string;
  readonly node?: string;
  readonly expected: unknown;
  readonly actual: unknown;
}

export interface Comparison {
  /** Dimensions that applied to this case (e.g. scores only when scoring ran). */
  readonly compared: ReadonlySet<Dimension>;
  readonly mismatches: readonly Mismatch[];
}

const BERTH_PLUGINS: ReadonlySet<string> = new Set(Object.keys(IN_TREE_REGISTRY));
const eq = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** "Dimension:Plugin" of the first mismatch: what shrinking must preserve. */
export function signature(m: Mismatch): string {
  return m.plugin ? `${m.dimension}:${m.plugin}` : m.dimension;
}

export function primaryMismatch(c: Comparison): Mismatch | undefined {
  for (const d of DIMENSIONS) {
    const m = c.mismatches.find((x) => x.dimension === d);
    if (m) return m;
  }
  return undefined;
}

/** The oracle picks among fully tied preemption candidates in Go map order; any of them is right. */
function preemptionTies(oracle: AttemptResult): readonly string[] {
  const p = oracle.preemption;
  if (!p) return [];
  return p.tiedNodes && p.tiedNodes.length > 0 ? p.tiedNodes : [p.node];
}

function compareFilters(node: string, want: readonly FilterOut[], got: readonly FilterOut[] | null, out: Mismatch[]): void {
  const byPlugin = new Map((got ?? []).map((f) => [f.plugin, f]));
  for (const w of want) {
    const g = byPlugin.get(w.plugin);
    byPlugin.delete(w.plugin);
    if (!g) {
      // A plugin berth does not model must pass (or be skipped) upstream too.
      if (w.plugin in PASS_THROUGH_PLUGINS && (w.code === 'Success' || w.code === 'Skip')) continue;
      out.push({ dimension: 'filter', plugin: w.plugin, node, expected: `${w.code} ${JSON.stringify(w.reasons)}`, actual: 'plugin not run by berth' });
      continue;
    }
    if (g.code !== w.code || !eq(g.reasons, w.reasons)) {
      out.push({ dimension: 'filter', plugin: w.plugin, node, expected: `${w.code} ${JSON.stringify(w.reasons)}`, actual: `${g.code} ${JSON.stringify(g.reasons)}` });
    }
  }
  for (const g of byPlugin.values()) out.push({ dimension: 'filter', plugin: g.plugin, node, expected: 'plugin not run upstream', actual: `${g.code} ${JSON.stringify(g.reasons)}` });
}

function compareScores(node: string, want: readonly ScoreOut[], got: readonly ScoreOut[], out: Mismatch[]): void {
  const byPlugin = new Map(got.map((s) => [s.plugin, s]));
  for (const w of want) {
    const g = byPlugin.get(w.plugin);
    byPlugin.delete(w.plugin);
    if (!g) {
      // A plugin berth does not model must score 0 upstream too (it adds nothing to the total).
      if (w.plugin in PASS_THROUGH_PLUGINS && w.raw === 0 && w.normalized === 0) continue;
      out.push({ dimension: 'score', plugin: w.plugin, node, expected: `normalized ${w.normalized} (raw ${w.raw})`, actual: 'not scored by berth' });
      continue;
    }
    if (g.raw !== w.raw) out.push({ dimension: 'rawScore', plugin: w.plugin, node, expected: w.raw, actual: g.raw });
    if (g.normalized !== w.normalized || g.weight !== w.weight) {
      out.push({ dimension: 'score', plugin: w.plugin, node, expected: `normalized ${w.normalized} x${w.weight}`, actual: `normalized ${g.normalized} x${g.weight}` });
    }
  }
  for (const g of byPlugin.values()) out.push({ dimension: 'score', plugin: g.plugin, node, expected: 'not scored upstream', actual: `normalized ${g.normalized} (raw ${g.raw})` });
}

/** The node name in a preemption message, replaced so that equally good tied choices compare equal. */
function renameNode(message: string, from: string, to: string): string {
  return from === to ? message : message.split(`on node ${from},`).join(`on node ${to},`);
}

export function compareResults(oracle: AttemptResult, berth: AttemptResult): Comparison {
  const compared = new Set<Dimension>(['error']);
  const out: Mismatch[] = [];
  if (oracle.error && berth.error) {
    // Both reject the input (e.g. an invalid configuration): the field error must be the same.
    // The oracle prefixes args errors with their place in the config; berth says where differently.
    const core = oracle.error.replace(/^config: /, '').replace(/profiles\[\d+\]\.pluginConfig\[\d+\]\.args\./g, '');
    if (!berth.error.includes(core)) out.push({ dimension: 'error', expected: `rejected: ${oracle.error}`, actual: berth.error });
    return { compared, mismatches: out };
  }
  if (oracle.error || oracle.skipped) {
    out.push({ dimension: 'error', expected: 'an oracle result', actual: `oracle: ${oracle.error ?? `skipped (${oracle.skipped})`}` });
    return { compared, mismatches: out };
  }
  if (berth.error) {
    out.push({ dimension: 'error', expected: 'a berth result', actual: berth.error });
    return { compared, mismatches: out };
  }
  const oNodes = oracle.nodes ?? [];
  const bNodes = berth.nodes ?? [];
  const bByName = new Map<string, NodeOut>(bNodes.map((n) => [n.name, n]));

  compared.add('nodeOrder');
  if (!eq(oNodes.map((n) => n.name), bNodes.map((n) => n.name))) {
    out.push({ dimension: 'nodeOrder', expected: oNodes.map((n) => n.name), actual: bNodes.map((n) => n.name) });
  }

  if (oracle.preFilter) {
    compared.add('preFilter');
    const o = oracle.preFilter;
    const b = berth.preFilter;
    const want = { status: o.status, plugin: o.plugin ?? '', reasons: o.reasons, nodeNames: o.nodeNames, skipped: o.skippedFilterPlugins.filter((p) => BERTH_PLUGINS.has(p)) };
    const got = b ? { status: b.status, plugin: b.plugin ?? '', reasons: b.reasons, nodeNames: b.nodeNames, skipped: b.skippedFilterPlugins } : null;
    if (!eq(want, got)) out.push({ dimension: 'preFilter', plugin: o.plugin || b?.plugin || undefined, expected: want, actual: got });
  }

  if (oracle.preFilter?.status === 'Success') {
    compared.add('filter');
    compared.add('firstFailure');
    for (const o of oNodes) {
      const b = bByName.get(o.name);
      if (o.filters) compareFilters(o.name, o.filters, b?.filters ?? null, out);
      if (o.firstFailure !== (b?.firstFailure ?? '')) {
        out.push({ dimension: 'firstFailure', plugin: o.firstFailure || b?.firstFailure, node: o.name, expected: o.firstFailure, actual: b?.firstFailure ?? '' });
      }
    }
  }

  compared.add('feasible');
  if (!eq(oracle.feasible ?? [], berth.feasible ?? [])) out.push({ dimension: 'feasible', expected: oracle.feasible ?? [], actual: berth.feasible ?? [] });

  if (oracle.message !== '' && oracle.unschedulablePlugins) {
    compared.add('unschedulablePlugins');
    const want = oracle.unschedulablePlugins.filter((p) => BERTH_PLUGINS.has(p));
    if (!eq(want, berth.unschedulablePlugins ?? [])) out.push({ dimension: 'unschedulablePlugins', expected: want, actual: berth.unschedulablePlugins ?? [] });
  }

  const scored = oNodes.some((n) => n.scores) || bNodes.some((n) => n.scores);
  if (scored) {
    compared.add('rawScore');
    compared.add('score');
    compared.add('total');
    for (const o of oNodes) {
      const b = bByName.get(o.name);
      if (!o.scores && !b?.scores) continue;
      if (!o.scores || !b?.scores) {
        out.push({ dimension: 'score', node: o.name, expected: o.scores ? 'scored' : 'not scored', actual: b?.scores ? 'scored' : 'not scored' });
        continue;
      }
      compareScores(o.name, o.scores, b.scores, out);
      if (o.total !== b.total) out.push({ dimension: 'total', node: o.name, expected: o.total, actual: b.total });
    }
  }

  compared.add('topScore');
  if (!eq(oracle.topScore ?? [], berth.topScore ?? [])) out.push({ dimension: 'topScore', expected: oracle.topScore ?? [], actual: berth.topScore ?? [] });
  compared.add('selected');
  if (oracle.selected !== berth.selected) out.push({ dimension: 'selected', expected: oracle.selected, actual: berth.selected });

  // Preemption: berth may pick any node still tied after every criterion, with that node's victims.
  const ties = preemptionTies(oracle);
  const o = oracle.preemption;
  const b = berth.preemption;
  let rename = (s: string) => s;
  if (o || b) {
    compared.add('preemption');
    if (!o || !b) {
      out.push({ dimension: 'preemption', plugin: 'DefaultPreemption', expected: o ? { node: o.node, victims: o.victims } : null, actual: b });
    } else if (!ties.includes(b.node)) {
      out.push({ dimension: 'preemption', plugin: 'DefaultPreemption', expected: { node: ties.length > 1 ? ties : o.node, victims: o.victims }, actual: b });
    } else {
      const victims = b.node === o.node ? o.victims : (o.candidates?.find((c) => c.node === b.node)?.victims ?? o.victims);
      if (!eq(victims, b.victims)) out.push({ dimension: 'preemption', plugin: 'DefaultPreemption', node: b.node, expected: { node: b.node, victims }, actual: b });
      rename = (s) => renameNode(s, b.node, o.node);
    }
  }
  if (oracle.postFilter !== '' || berth.postFilter !== '') {
    compared.add('postFilter');
    if (oracle.postFilter !== rename(berth.postFilter)) out.push({ dimension: 'postFilter', plugin: 'DefaultPreemption', expected: oracle.postFilter, actual: berth.postFilter });
  }
  compared.add('message');
  if (oracle.message !== rename(berth.message)) out.push({ dimension: 'message', expected: oracle.message, actual: berth.message });
  return { compared, mismatches: out };
}

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** A readable diff: one line per difference, oracle (expected) first. */
export function formatMismatches(mismatches: readonly Mismatch[], limit = 40): string {
  const lines: string[] = [];
  for (const m of mismatches.slice(0, limit)) {
    const where = [m.node, m.plugin].filter(Boolean).join(' ');
    lines.push(`  ${m.dimension}${where ? ` [${where}]` : ''}`);
    lines.push(`    oracle: ${show(m.expected)}`);
    lines.push(`    berth:  ${show(m.actual)}`);
  }
  if (mismatches.length > limit) lines.push(`  ... and ${mismatches.length - limit} more`);
  return lines.join('\n');
}
