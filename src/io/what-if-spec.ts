// Inputs of `berth what-if`: the disruption settings to compare (a berth.dev/v1alpha1
// DisruptionVariants file) and an optional daily load curve (a CSV of replica counts per
// workload over time) that becomes scale steps. Every problem is reported at
// file:line:column with the field or column it concerns.

import { z } from 'zod';
import { compileNodePoolDisruption, type NodePoolDisruption } from '../model/nodepool.js';
import { DurationError, parseGoDuration } from '../model/go-duration.js';
import type { WorkloadSummary } from './load-workloads.js';
import type { Diagnostic } from './diagnostics.js';
import type { ScalableKind, Step } from './scenario-spec.js';
import { parseSingleDocument } from './single-document.js';
import type { SourceInput } from './yaml-source.js';

export const VARIANTS_KIND = 'DisruptionVariants';
const API_VERSION = 'berth.dev/v1alpha1';

export interface DisruptionVariant {
  readonly name: string;
  /** Replaces spec.disruption of every provisioning NodePool. */
  readonly disruption: NodePoolDisruption;
  readonly spotToSpotConsolidation: boolean;
  /** berth's consolidation cost step past Karpenter's fixed point (off by default). */
  readonly optimize?: 'cost';
}

const budget = z.object({ nodes: z.string(), schedule: z.string().optional(), duration: z.string().optional(), reasons: z.array(z.string()).optional() }).strict();
const schema = z
  .object({
    apiVersion: z.literal(API_VERSION, { error: `must be ${JSON.stringify(API_VERSION)}` }),
    kind: z.literal(VARIANTS_KIND, { error: `must be ${JSON.stringify(VARIANTS_KIND)}` }),
    metadata: z.object({ name: z.string().optional() }).strict().optional(),
    spec: z
      .object({
        variants: z
          .array(
            z
              .object({
                name: z.string().regex(/^[A-Za-z0-9][-A-Za-z0-9_.]*$/, 'must be letters, digits, "-", "_" or "."'),
                disruption: z.object({ consolidationPolicy: z.string().optional(), consolidateAfter: z.string().optional(), budgets: z.array(budget).optional() }).strict(),
                spotToSpotConsolidation: z.boolean().optional(),
                optimize: z.literal('cost', { error: 'must be "cost"' }).optional(),
              })
              .strict(),
          )
          .min(1)
          .max(20),
      })
      .strict(),
  })
  .strict();

export type VariantsResult = { ok: true; variants: DisruptionVariant[] } | { ok: false; errors: Diagnostic[] };

export function loadDisruptionVariants(input: SourceInput): VariantsResult {
  const parsed = parseSingleDocument(input, VARIANTS_KIND, schema);
  if (!parsed.ok) return parsed;
  const { data, at } = parsed;
  const errors: Diagnostic[] = [];
  const names = new Set<string>();
  const variants = data.spec.variants.map((v, i) => {
    if (names.has(v.name)) errors.push(at(['spec', 'variants', i, 'name'], `Duplicate value: ${JSON.stringify(v.name)}`));
    names.add(v.name);
    const compiled = compileNodePoolDisruption(v.disruption, ['spec', 'variants', i, 'disruption']);
    for (const p of compiled.problems) errors.push(at(p.path, p.message));
    return { name: v.name, disruption: compiled.disruption, spotToSpotConsolidation: v.spotToSpotConsolidation ?? false, ...(v.optimize ? { optimize: v.optimize } : {}) };
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, variants };
}

export const SCALABLE: readonly ScalableKind[] = ['Deployment', 'StatefulSet', 'ReplicaSet'];

/** A workload written `[Kind/][namespace/]name` (Deployment and the default namespace when left out): its kind and namespace/name key. */
export function parseWorkloadRef(text: string): { kind: string; key: string } {
  // Kinds are capitalised, namespaces never are.
  const parts = text.split('/');
  const kind = parts.length > 1 && /^[A-Z]/.test(parts[0]!) ? parts.shift()! : 'Deployment';
  return { kind, key: parts.length === 1 ? `default/${parts[0]}` : parts.join('/') };
}

/** A time cell: a Go duration from the start ("90m", "1h30m") or a time of day "HH:MM". */
function parseTimeCell(cell: string): number {
  const clock = /^(\d{1,2}):(\d{2})$/.exec(cell);
  if (clock) {
    const [h, m] = [Number(clock[1]), Number(clock[2])];
    if (h > 24 || m > 59) throw new DurationError(`${JSON.stringify(cell)} is not a time of day`);
    return (h * 60 + m) * 60_000;
  }
  const ns = parseGoDuration(cell);
  if (ns < 0n) throw new DurationError('must not be negative');
  return Number(ns / 1_000_000n);
}

export type LoadCurveResult = { ok: true; steps: Step[] } | { ok: false; errors: Diagnostic[] };

/**
 * Reads a load curve: a header `time,<workload>,...` (a workload is `[Kind/][namespace/]name`;
 * Deployment and namespace default), then one row per time with each workload's replica count; an empty
 * cell keeps the previous count. Each change becomes a scale step at that time.
 */
export function loadLoadCurve(input: SourceInput, workloads: readonly Pick<WorkloadSummary, 'kind' | 'key'>[]): LoadCurveResult {
  const errors: Diagnostic[] = [];
  const err = (line: number, column: number, field: string, message: string) => errors.push({ severity: 'error', file: input.name, line, column, field, message });
  const lines = input.text.split(/\r?\n/);
  const rows = lines.map((l, i) => ({ line: i + 1, cells: l.split(',').map((c) => c.trim()) })).filter((r) => r.cells.some((c) => c !== '') && !r.cells[0]!.startsWith('#'));
  const header = rows.shift();
  if (!header || header.cells[0] !== 'time' || header.cells.length < 2) {
    err(header?.line ?? 1, 1, 'time', 'expected a header row "time,<workload>,..." (a workload is [Kind/][namespace/]name)');
    return { ok: false, errors };
  }
  const columnOf = (cells: readonly string[], i: number) => cells.slice(0, i).reduce((n, c) => n + c.length + 1, 1);
  const targets = header.cells.slice(1).map((cell, j) => {
    const { kind, key } = parseWorkloadRef(cell);
    if (!(SCALABLE as readonly string[]).includes(kind)) err(header.line, columnOf(header.cells, j + 1), cell, `Unsupported value: ${JSON.stringify(kind)}: supported kinds: ${SCALABLE.join(', ')}`);
    else if (!workloads.some((w) => w.kind === kind && w.key === key)) err(header.line, columnOf(header.cells, j + 1), cell, `Not found: no ${kind} ${key} in the scenario's objects`);
    return { kind: kind as ScalableKind, name: key, column: cell };
  });
  const steps: Step[] = [];
  const last = new Map<string, number>();
  let previousTime = -1;
  for (const row of rows) {
    if (row.cells.length > header.cells.length) {
      err(row.line, columnOf(row.cells, header.cells.length), 'time', `expected ${header.cells.length} cells, found ${row.cells.length}`);
      continue;
    }
    let at: number;
    try {
      at = parseTimeCell(row.cells[0]!);
    } catch (e) {
      err(row.line, 1, 'time', `Invalid value: ${JSON.stringify(row.cells[0])}: ${e instanceof Error ? e.message : String(e)} (write a duration such as 90m, or HH:MM)`);
      continue;
    }
    if (at <= previousTime) err(row.line, 1, 'time', `Invalid value: ${JSON.stringify(row.cells[0])}: times must increase from row to row`);
    previousTime = at;
    targets.forEach((t, j) => {
      const cell = row.cells[j + 1] ?? '';
      if (cell === '') return;
      if (!/^\d+$/.test(cell) || Number(cell) > 100_000) {
        err(row.line, columnOf(row.cells, j + 1), t.column, `Invalid value: ${JSON.stringify(cell)}: must be a whole number of replicas from 0 to 100000`);
        return;
      }
      const replicas = Number(cell);
      if (last.get(t.column) === replicas) return;
      last.set(t.column, replicas);
      steps.push({ at, action: { type: 'scale', kind: t.kind, name: t.name, replicas }, source: `${input.name}:${row.line}` });
    });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, steps };
}
