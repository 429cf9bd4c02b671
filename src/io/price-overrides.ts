// Reads a berth.dev/v1alpha1 PriceOverrides file (`--prices F`): negotiated prices per
// instance type, zone and capacity type, and discounts such as a savings plan. Every
// problem is reported at its file:line:column and field, including names that are not
// in the catalog being planned from (a misspelt type would otherwise change nothing).

import { z } from 'zod';
import { CAPACITY_TYPES, LABEL_INSTANCE_FAMILY, type InstanceType } from '../provisioner/catalog/types.js';
import type { PriceOverrides } from '../provisioner/catalog/prices.js';
import type { Diagnostic } from './diagnostics.js';
import { parseSingleDocument } from './single-document.js';
import type { SourceInput } from './yaml-source.js';

export const PRICES_API_VERSION = 'berth.dev/v1alpha1';
export const PRICES_KIND = 'PriceOverrides';

const capacityType = z.enum(CAPACITY_TYPES as [string, ...string[]]);
const price = z.number().min(0).finite();
const names = z.array(z.string().min(1)).min(1);

const schema = z
  .object({
    apiVersion: z.literal(PRICES_API_VERSION, { error: `must be ${JSON.stringify(PRICES_API_VERSION)}` }),
    kind: z.literal(PRICES_KIND, { error: `must be ${JSON.stringify(PRICES_KIND)}` }),
    metadata: z.object({ name: z.string().optional() }).strict().optional(),
    spec: z
      .object({
        prices: z.array(z.object({ instanceType: z.string().min(1), capacityType, zone: z.string().min(1).optional(), price }).strict()).optional(),
        discounts: z
          .array(
            z
              .object({
                name: z.string().min(1),
                percent: z.number().gt(0).max(100),
                capacityType: capacityType.default('on-demand'),
                instanceFamilies: names.optional(),
                instanceTypes: names.optional(),
              })
              .strict(),
          )
          .optional(),
      })
      .strict(),
  })
  .strict();

export type PricesResult = { ok: true; overrides: PriceOverrides } | { ok: false; errors: Diagnostic[] };

/** Loads `input` and checks the names it uses against `instanceTypes`, the catalog the overrides will reprice. */
export function loadPriceOverrides(input: SourceInput, instanceTypes: readonly InstanceType[]): PricesResult {
  const parsed = parseSingleDocument(input, PRICES_KIND, schema);
  if (!parsed.ok) return parsed;
  const { data, at } = parsed;
  const spec = data.spec;
  const prices = (spec.prices ?? []).map((p) => ({ ...p, capacityType: p.capacityType as PriceOverrides['prices'][number]['capacityType'] }));
  const discounts = (spec.discounts ?? []).map((d) => ({ ...d, capacityType: d.capacityType as PriceOverrides['discounts'][number]['capacityType'] }));

  const byName = new Map(instanceTypes.map((it) => [it.name, it]));
  const families = new Set(instanceTypes.map((it) => it.labels[LABEL_INSTANCE_FAMILY]).filter((f): f is string => f !== undefined));
  const errors: Diagnostic[] = [];
  const seen = new Set<string>();
  prices.forEach((p, i) => {
    const path = ['spec', 'prices', i];
    const it = byName.get(p.instanceType);
    if (!it) {
      errors.push(at([...path, 'instanceType'], `Not found: instance type ${JSON.stringify(p.instanceType)} is not in the catalog`));
      return;
    }
    if (p.zone !== undefined && !it.offerings.some((o) => o.zone === p.zone && o.capacityType === p.capacityType)) {
      errors.push(at([...path, 'zone'], `Not found: ${p.instanceType} has no ${p.capacityType} offering in zone ${JSON.stringify(p.zone)}`));
      return;
    }
    const key = `${p.instanceType}|${p.capacityType}|${p.zone ?? '*'}`;
    if (seen.has(key)) errors.push(at(path, `Duplicate value: ${p.instanceType} ${p.capacityType}${p.zone ? ` in ${p.zone}` : ''} is priced twice`));
    seen.add(key);
  });
  discounts.forEach((d, i) => {
    d.instanceFamilies?.forEach((f, j) => {
      if (!families.has(f)) errors.push(at(['spec', 'discounts', i, 'instanceFamilies', j], `Not found: no instance type of family ${JSON.stringify(f)} in the catalog`));
    });
    d.instanceTypes?.forEach((t, j) => {
      if (!byName.has(t)) errors.push(at(['spec', 'discounts', i, 'instanceTypes', j], `Not found: instance type ${JSON.stringify(t)} is not in the catalog`));
    });
  });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, overrides: { prices, discounts } };
}
