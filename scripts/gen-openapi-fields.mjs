// Regenerates src/io/openapi/fields.generated.ts: which fields each Kubernetes kind
// declares, as the API server's strict field validation knows them. Sources:
//  - the OpenAPI v3 documents of Kubernetes v1.37.2 (api/openapi-spec/v3 in the
//    k8s.io/kubernetes module) for core/v1, apps/v1, batch/v1, policy/v1,
//    scheduling.k8s.io/v1, storage.k8s.io/v1 and autoscaling/v2;
//  - Karpenter v1.14.1's CRDs (pkg/apis/crds in sigs.k8s.io/karpenter) for karpenter.sh.
// Both modules come through the Go module proxy (`go mod download`), so the table is
// the same on every machine. Run: node scripts/gen-openapi-fields.mjs
//
// Only field names are kept (types are checked by berth's own schemas where it reads
// a field): each node is a mapping's declared fields, a map's value, a list's item,
// ANY (free-form: RawExtension, FieldsV1, x-kubernetes-preserve-unknown-fields) or
// LEAF (a scalar).

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const KUBERNETES = 'k8s.io/kubernetes@v1.37.2';
const KARPENTER = 'sigs.k8s.io/karpenter@v1.14.1';
const GROUP_VERSIONS = ['v1', 'apps/v1', 'batch/v1', 'policy/v1', 'scheduling.k8s.io/v1', 'storage.k8s.io/v1', 'autoscaling/v2'];
const KARPENTER_CRDS = ['karpenter.sh_nodepools.yaml', 'karpenter.sh_nodeclaims.yaml', 'karpenter.sh_nodeoverlays.yaml'];
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const LEAF = 0;
const ANY = 1;

function moduleDir(mod) {
  const out = execFileSync('go', ['mod', 'download', '-json', mod], { encoding: 'utf8', cwd: '/' });
  return JSON.parse(out).Dir;
}

/** Nodes are deduplicated by content; named OpenAPI types get their slot first, so recursive types work. */
class Table {
  nodes = [LEAF, ANY];
  byContent = new Map();
  byName = new Map();

  add(node) {
    const key = JSON.stringify(node);
    let at = this.byContent.get(key);
    if (at === undefined) {
      at = this.nodes.length;
      this.nodes.push(node);
      this.byContent.set(key, at);
    }
    return at;
  }
}

function shapeOf(table, schema, resolveRef) {
  if (schema.$ref) return resolveRef(schema.$ref.slice(schema.$ref.lastIndexOf('/') + 1));
  if (schema.allOf?.length === 1) return shapeOf(table, schema.allOf[0], resolveRef);
  if (schema['x-kubernetes-preserve-unknown-fields'] || schema['x-kubernetes-int-or-string']) return schema.properties ? fieldsOf(table, schema, resolveRef) : schema.type === 'object' ? ANY : LEAF;
  if (schema.type === 'array') return table.add({ a: schema.items ? shapeOf(table, schema.items, resolveRef) : ANY });
  if (schema.properties) return fieldsOf(table, schema, resolveRef);
  if (schema.additionalProperties === true) return ANY;
  if (schema.additionalProperties) return table.add({ m: shapeOf(table, schema.additionalProperties, resolveRef) });
  if (schema.type === 'object') return ANY;
  return LEAF;
}

function fieldsOf(table, schema, resolveRef) {
  const p = {};
  for (const name of Object.keys(schema.properties).sort()) p[name] = shapeOf(table, schema.properties[name], resolveRef);
  return table.add({ p });
}

function kubernetesKinds(table, dir) {
  const kinds = {};
  for (const gv of GROUP_VERSIONS) {
    const file = gv === 'v1' ? 'api__v1_openapi.json' : `apis__${gv.replace('/', '__')}_openapi.json`;
    const schemas = JSON.parse(readFileSync(join(dir, 'api/openapi-spec/v3', file), 'utf8')).components.schemas;
    const resolveRef = (name) => {
      const known = table.byName.get(name);
      if (known !== undefined) return known;
      // Reserve the slot, then fill it: a type may refer to itself.
      const at = table.nodes.length;
      table.nodes.push(null);
      table.byName.set(name, at);
      const shape = shapeOf(table, schemas[name], resolveRef);
      table.nodes[at] = shape <= ANY ? shape : table.nodes[shape];
      return at;
    };
    const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
    for (const name of Object.keys(schemas).sort()) {
      if (!name.startsWith('io.k8s.api.')) continue;
      for (const gvk of schemas[name]['x-kubernetes-group-version-kind'] ?? []) {
        if (gvk.group !== group || gvk.version !== version || gvk.kind.endsWith('List')) continue;
        kinds[`${gv}/${gvk.kind}`] = resolveRef(name);
      }
    }
  }
  return kinds;
}

function karpenterKinds(table, dir, objectMeta) {
  const kinds = {};
  for (const file of KARPENTER_CRDS) {
    const crd = parse(readFileSync(join(dir, 'pkg/apis/crds', file), 'utf8'));
    for (const v of crd.spec.versions) {
      if (!v.served) continue;
      const schema = structuredClone(v.schema.openAPIV3Schema);
      // The API server validates a custom resource's metadata as ObjectMeta, whatever the CRD says of it.
      delete schema.properties.metadata;
      const at = fieldsOf(table, schema, () => {
        throw new Error(`${file}: unexpected $ref`);
      });
      const node = { p: { ...table.nodes[at].p, metadata: objectMeta } };
      kinds[`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`] = table.add({ p: Object.fromEntries(Object.entries(node.p).sort(([a], [b]) => (a < b ? -1 : 1))) });
    }
  }
  return kinds;
}

const table = new Table();
const k8s = kubernetesKinds(table, moduleDir(KUBERNETES));
const karpenter = karpenterKinds(table, moduleDir(KARPENTER), table.byName.get(OBJECT_META));
const kinds = { ...k8s, ...karpenter };
const data = { sources: [`${KUBERNETES} api/openapi-spec/v3`, `${KARPENTER} pkg/apis/crds`], kinds, nodes: table.nodes };

const out = `// Generated by scripts/gen-openapi-fields.mjs from ${data.sources.join(' and ')}: do not edit.
// The fields each kind declares (see src/io/strict-fields.ts for the format).
import type { FieldTable } from '../strict-fields.js';

export const FIELD_TABLE: FieldTable = JSON.parse(${JSON.stringify(JSON.stringify(data))});
`;
writeFileSync(new URL('../src/io/openapi/fields.generated.ts', import.meta.url), out);
console.log(`${Object.keys(kinds).length} kinds, ${table.nodes.length} nodes, ${out.length} bytes`);
