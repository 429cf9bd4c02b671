// The provisioner's inputs: Karpenter NodePools and berth's InstanceTypeCatalogs.

import { compileNodePool, nodePoolErrors, orderNodePools, type NodePool } from '../model/nodepool.js';
import { CATALOG_API_VERSION, CATALOG_KIND, parseInstanceTypeCatalog } from '../provisioner/catalog/catalog.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import type { LoadContext } from './context.js';
import type { ManifestOf } from './kinds.js';
import type { RawObject } from './objects.js';
import type { Reporter } from './reporter.js';

interface Parsed<K extends 'NodePool' | 'InstanceTypeCatalog'> {
  readonly raw: RawObject;
  readonly manifest: ManifestOf<K>;
}

/** Valid NodePools in Karpenter's order (weight, then name; see orderNodePools); every problem is reported. */
export function loadNodePools(reporter: Reporter, objects: readonly Parsed<'NodePool'>[]): NodePool[] {
  const pools: NodePool[] = [];
  for (const p of objects) {
    const problems = nodePoolErrors(p.manifest);
    for (const e of problems) reporter.error(p.raw, e.path, e.message);
    if (problems.length === 0) pools.push(compileNodePool(p.manifest));
  }
  return orderNodePools(pools);
}

/** The instance types of each InstanceTypeCatalog, in input order; a catalog's first problem is reported at its field. */
export function loadCatalogs(ctx: LoadContext, objects: readonly Parsed<'InstanceTypeCatalog'>[]): InstanceType[][] {
  const out: InstanceType[][] = [];
  for (const p of objects) {
    const name = ctx.requireName(p);
    // The envelope was checked by the kind registry (an absent apiVersion is accepted there).
    const instanceTypes = ctx.reporter.attempt(p.raw, () => parseInstanceTypeCatalog({ apiVersion: CATALOG_API_VERSION, kind: CATALOG_KIND, spec: p.manifest.spec }));
    if (name && instanceTypes) out.push(instanceTypes);
  }
  return out;
}
