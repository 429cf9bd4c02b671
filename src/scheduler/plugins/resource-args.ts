// Validation of the `resources` list in NodeResourcesFit and BalancedAllocation args.

import type { ResourceSpec } from './resource-scoring.js';

export function parseResourceSpecs(raw: unknown, field: string): ResourceSpec[] {
  if (!Array.isArray(raw)) throw new Error(`${field}: Invalid value: must be a list`);
  const seen = new Set<string>();
  return raw.map((r: { name?: unknown; weight?: unknown }, i) => {
    const name = r.name;
    if (typeof name !== 'string' || name === '') throw new Error(`${field}[${i}].name: Required value`);
    if (seen.has(name)) throw new Error(`${field}[${i}].name: Duplicate value: ${JSON.stringify(name)}`);
    seen.add(name);
    // Weight 0 means "unset" and defaults to 1, as SetDefaults_* do.
    const weight = r.weight === undefined || r.weight === 0 ? 1 : Number(r.weight);
    if (!Number.isInteger(weight) || weight < 1 || weight > 100) throw new Error(`${field}[${i}].weight: Invalid value: ${String(r.weight)}: resource weight of ${name} not in valid range [1, 100]`);
    return { name, weight };
  });
}
