// The berth.dev/v1alpha1 Sweep document of `berth sweep`: a matrix of what-ifs
// (scenarios × seeds × parameter values) to simulate over one input. Validated
// strictly, every problem at its line and field; names it gives (nodes, zones,
// workloads) are checked against the loaded input, so a typo is an error, not an
// empty row of the results.

import { z } from 'zod';
import { FieldError, type FieldPath } from '../model/errors.js';
import { LABEL_ZONE } from '../model/node.js';
import { capacityTypeOf, offeringPoolOf } from '../model/offering-pool.js';
import type { Labels } from '../model/selector.js';
import type { NodePool } from '../model/nodepool.js';
import type { Diagnostic } from './diagnostics.js';
import type { LoadedInput } from './load.js';
import { compileInlineNodePool } from './scenario.js';
import { MAX_GENERATED_PODS } from './workloads.js';
import { parseSingleDocument } from './single-document.js';
import { parseWorkloadRef, SCALABLE } from './what-if-spec.js';
import type { SourceInput } from './yaml-source.js';

export const SWEEP_KIND = 'Sweep';
const API_VERSION = 'berth.dev/v1alpha1';
/** More cells than this is a matrix written by mistake (each cell is a simulation). */
export const MAX_SWEEP_CELLS = 100_000;

const name = z.string().regex(/^[A-Za-z0-9][-A-Za-z0-9_.]*$/, 'must be letters, digits, "-", "_" or "."').max(63);
const names = z.array(z.string().min(1)).min(1);
const scenarioSchema = z
  .object({
    baseline: z.object({}).strict().nullable().optional(),
    nodeLoss: z.object({ nodes: names.optional() }).strict().nullable().optional(),
    zoneLoss: z.object({ zones: names.optional() }).strict().nullable().optional(),
    spotInterruption: z.object({ pools: names.optional() }).strict().nullable().optional(),
    capacityLoss: z.object({ pools: names.optional() }).strict().nullable().optional(),
  })
  .strict();
const axisSchema = z
  .object({
    replicas: z.object({ workload: z.string().min(1), values: z.array(z.int().min(0).max(MAX_GENERATED_PODS)).min(1).max(1000) }).strict().optional(),
    nodePools: z
      .array(z.object({ name, nodePools: z.array(z.record(z.string(), z.unknown())).min(1) }).strict())
      .min(1)
      .max(100)
      .optional(),
  })
  .strict();

export const sweepSchema = z
  .object({
    apiVersion: z.literal(API_VERSION, { error: `must be ${JSON.stringify(API_VERSION)}` }),
    kind: z.literal(SWEEP_KIND, { error: `must be ${JSON.stringify(SWEEP_KIND)}` }),
    metadata: z.object({ name }).strict(),
    spec: z
      .object({
        seeds: z.array(z.int().min(0).max(0xffffffff)).min(1).max(1000).optional(),
        scenarios: z.array(scenarioSchema).min(1),
        parameters: z.array(axisSchema).optional(),
      })
      .strict(),
  })
  .strict();

const SCENARIO_NAMES = ['baseline', 'nodeLoss', 'zoneLoss', 'spotInterruption', 'capacityLoss'] as const;
const AXIS_NAMES = ['replicas', 'nodePools'] as const;

/** A what-if of the matrix and the targets it runs on (every node, zone or offering pool it names, in order). */
export type SweepScenario = { readonly type: 'baseline' } | { readonly type: 'node-loss' | 'zone-loss' | 'spot-interruption' | 'capacity-loss'; readonly targets: readonly string[] };

/** One parameter of the matrix and its values, each with the label results name it by. */
export type SweepAxis =
  | { readonly type: 'replicas'; readonly label: string; readonly kind: string; readonly key: string; readonly values: readonly number[] }
  | { readonly type: 'nodePools'; readonly label: string; readonly variants: readonly { readonly name: string; readonly pools: readonly NodePool[] }[] };

export interface SweepSpec {
  readonly name: string;
  readonly seeds: readonly number[];
  readonly scenarios: readonly SweepScenario[];
  readonly axes: readonly SweepAxis[];
}

export type SweepResult = { ok: true; sweep: SweepSpec } | { ok: false; errors: Diagnostic[] };

/** How many values an axis has. */
export const axisSize = (a: SweepAxis): number => (a.type === 'replicas' ? a.values.length : a.variants.length);

/** A value's label in the results: the replica count, or the variant's name. */
export const axisValue = (a: SweepAxis, i: number): number | string => (a.type === 'replicas' ? a.values[i]! : a.variants[i]!.name);

/** Reads a Sweep against the input it sweeps: nodes, zones and workloads it names must be there. */
export function loadSweep(source: SourceInput, input: LoadedInput): SweepResult {
  const parsed = parseSingleDocument(source, SWEEP_KIND, sweepSchema);
  if (!parsed.ok) return parsed;
  const { data, at } = parsed;
  const errors: Diagnostic[] = [];
  const nodeNames = input.nodes.map((n) => n.name);
  const zones = [...new Set(input.nodes.flatMap((n) => (n.labels[LABEL_ZONE] !== undefined ? [n.labels[LABEL_ZONE]] : [])))].sort();
  const poolsOf = (nodes: readonly { readonly labels: Labels }[]) => [...new Set(nodes.flatMap((n) => offeringPoolOf(n.labels) ?? []))].sort();
  const pools = poolsOf(input.nodes);
  const spotPools = poolsOf(input.nodes.filter((n) => capacityTypeOf(n.labels) === 'spot'));
  const known = (list: readonly string[] | undefined, all: readonly string[], what: string, path: FieldPath): string[] => {
    (list ?? []).forEach((x, i) => {
      if (!all.includes(x)) errors.push(at([...path, i], `Not found: ${JSON.stringify(x)}: no ${what} of that name in the input`));
    });
    return [...(list ?? all)];
  };
  const scenarios = data.spec.scenarios.map((s, i): SweepScenario => {
    const path: FieldPath = ['spec', 'scenarios', i];
    const set = SCENARIO_NAMES.filter((n) => s[n] !== undefined);
    if (set.length !== 1) errors.push(at(path, `Invalid value: a scenario has exactly one of ${SCENARIO_NAMES.join(', ')}, found ${set.length === 0 ? 'none' : set.join(', ')}`));
    if (s.nodeLoss !== undefined) return { type: 'node-loss', targets: known(s.nodeLoss?.nodes, nodeNames, 'node', [...path, 'nodeLoss', 'nodes']) };
    if (s.zoneLoss !== undefined) return { type: 'zone-loss', targets: known(s.zoneLoss?.zones, zones, 'zone (topology.kubernetes.io/zone of a node)', [...path, 'zoneLoss', 'zones']) };
    if (s.spotInterruption !== undefined) return { type: 'spot-interruption', targets: known(s.spotInterruption?.pools, spotPools, 'spot pool (instance-type/zone of a spot node)', [...path, 'spotInterruption', 'pools']) };
    if (s.capacityLoss !== undefined) return { type: 'capacity-loss', targets: known(s.capacityLoss?.pools, pools, 'offering pool (instance-type/zone of a node)', [...path, 'capacityLoss', 'pools']) };
    return { type: 'baseline' };
  });
  const axes = (data.spec.parameters ?? []).flatMap((a, i): SweepAxis[] => {
    const path: FieldPath = ['spec', 'parameters', i];
    const set = AXIS_NAMES.filter((n) => a[n] !== undefined);
    if (set.length !== 1) {
      errors.push(at(path, `Invalid value: a parameter has exactly one of ${AXIS_NAMES.join(', ')}, found ${set.length === 0 ? 'none' : set.join(', ')}`));
      return [];
    }
    if (a.replicas) {
      const { kind, key } = parseWorkloadRef(a.replicas.workload);
      const field = [...path, 'replicas', 'workload'];
      if (!(SCALABLE as readonly string[]).includes(kind)) errors.push(at(field, `Unsupported value: ${JSON.stringify(kind)}: supported kinds: ${SCALABLE.join(', ')}`));
      else if (!input.workloads.some((w) => w.kind === kind && w.key === key)) errors.push(at(field, `Not found: no ${kind} ${key} in the input`));
      return [{ type: 'replicas', label: `replicas ${kind}/${key}`, kind, key, values: a.replicas.values }];
    }
    const seen = new Set<string>();
    const variants = a.nodePools!.map((v, j) => {
      const vpath: FieldPath = [...path, 'nodePools', j];
      if (seen.has(v.name)) errors.push(at([...vpath, 'name'], `Duplicate value: ${JSON.stringify(v.name)}`));
      seen.add(v.name);
      const pools = v.nodePools.flatMap((raw, k) => {
        try {
          const pool = compileInlineNodePool(raw, [...vpath, 'nodePools', k]);
          if (!pool.name) throw new FieldError('Required value: a NodePool of a variant has a name (it replaces the input\'s NodePool of that name, or is added)', [...vpath, 'nodePools', k, 'metadata', 'name']);
          return [pool];
        } catch (e) {
          if (!(e instanceof FieldError)) throw e;
          errors.push(at(e.path, e.message));
          return [];
        }
      });
      return { name: v.name, pools };
    });
    return [{ type: 'nodePools', label: 'nodePools', variants }];
  });
  const sweep: SweepSpec = { name: data.metadata.name, seeds: data.spec.seeds ?? [0], scenarios, axes };
  const cells = cellCount(sweep);
  if (errors.length === 0 && cells > MAX_SWEEP_CELLS) errors.push(at(['spec'], `Invalid value: the matrix has ${cells} cells (a simulation each); at most ${MAX_SWEEP_CELLS}`));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, sweep };
}

/** Cells of the matrix: parameter combinations × seeds × every target of every scenario. */
export function cellCount(s: SweepSpec): number {
  const targets = s.scenarios.reduce((n, sc) => n + (sc.type === 'baseline' ? 1 : sc.targets.length), 0);
  return s.axes.reduce((n, a) => n * axisSize(a), 1) * s.seeds.length * targets;
}

/** The JSON Schema of the Sweep document (docs/sweep.schema.json, written by `npm run scenario-schema`). */
export function sweepJsonSchema(): unknown {
  return z.toJSONSchema(sweepSchema, { io: 'input', unrepresentable: 'any' });
}
