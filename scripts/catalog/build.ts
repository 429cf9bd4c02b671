// Turns the facts read by sources.ts into one bundled catalog (the shape of
// src/provisioner/catalog/aws-*.json), and checks every type against the allocatable
// Karpenter publishes for it, so a wrong ENI limit or memory figure cannot slip in.

import type { Ec2CatalogData, Ec2CatalogEntry, GpuInfo, AcceleratorInfo } from '../../src/provisioner/catalog/catalog.js';
import { EXTENDED_RESOURCES } from '../../src/provisioner/catalog/catalog.js';
import { ec2Sizing } from '../../src/provisioner/catalog/overhead.js';
import { allocatableOf } from '../../src/provisioner/catalog/types.js';
import { resourceValue } from '../../src/model/quantity.js';
import { ebsLimitOf, type DocumentedType, type EbsLimit, type VpcLimits } from './sources.js';

export interface CatalogSources {
  readonly documented: ReadonlyMap<string, DocumentedType>;
  readonly vpcLimits: ReadonlyMap<string, VpcLimits>;
  /** On-demand prices of the region the catalog's prices are taken from. */
  readonly onDemand: ReadonlyMap<string, number>;
  readonly ebs: { limits: Map<string, EbsLimit>; nonNitro: Set<string> };
  /** Market spot prices per type and zone; absent: illustrative ones (illustrativeSpotPrice). */
  readonly spot?: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

export interface Selection {
  readonly region: string;
  readonly zones: readonly string[];
  /** Families in output order. */
  readonly families: readonly string[];
  /** Sizes below both floors are left out (nano..small, and the 1-vCPU mediums). */
  readonly minVcpu: number;
  readonly minMemoryMiB: number;
  readonly source: Readonly<Record<string, string>>;
}

export interface BuildResult {
  readonly catalog: Ec2CatalogData & { readonly source: Readonly<Record<string, string>> };
  /** Selected types left out, and why (no price in the region, no network limits). */
  readonly skipped: readonly string[];
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * A stand-in spot price when no market data is given: a fixed discount of 55% to 75% off
 * on-demand per (type, zone), from a hash so it is stable and differs between zones.
 */
export function illustrativeSpotPrice(name: string, zone: string, onDemand: number): number {
  const discount = 0.55 + (fnv1a(`${name}|${zone}`) % 2001) / 10000;
  return Math.round(onDemand * (1 - discount) * 1e5) / 1e5;
}

function label(doc: DocumentedType, key: string): string {
  const v = doc.labels[`karpenter.k8s.aws/${key}`] ?? doc.labels[key];
  if (v === undefined) throw new Error(`${doc.name}: the reference lists no ${key} label`);
  return v;
}

function gpuOf(doc: DocumentedType): GpuInfo | undefined {
  if (doc.labels['karpenter.k8s.aws/instance-gpu-name'] === undefined) return undefined;
  return {
    name: label(doc, 'instance-gpu-name'),
    manufacturer: label(doc, 'instance-gpu-manufacturer'),
    count: Number(label(doc, 'instance-gpu-count')),
    memoryMiB: Number(label(doc, 'instance-gpu-memory')),
  };
}

function acceleratorOf(doc: DocumentedType): AcceleratorInfo | undefined {
  if (doc.labels['karpenter.k8s.aws/instance-accelerator-name'] === undefined) return undefined;
  return {
    name: label(doc, 'instance-accelerator-name'),
    manufacturer: label(doc, 'instance-accelerator-manufacturer'),
    count: Number(label(doc, 'instance-accelerator-count')),
  };
}

function extendedResourcesOf(doc: DocumentedType): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  for (const name of EXTENDED_RESOURCES) {
    const v = doc.resources[name];
    if (v !== undefined && Number(v) > 0) out[name] = Number(v);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Compares berth's sizing of `entry` with the allocatable the reference publishes for it. */
function verifyAllocatable(entry: Ec2CatalogEntry, doc: DocumentedType): void {
  const { capacity, overhead } = ec2Sizing(entry);
  const ours = allocatableOf(capacity, overhead);
  for (const resource of ['cpu', 'memory', 'ephemeral-storage', 'pods']) {
    const written = doc.resources[resource];
    if (written === undefined) throw new Error(`${entry.name}: the reference lists no ${resource}`);
    const theirs = resourceValue(resource, written);
    const mine = ours[resource] ?? 0;
    // The reference rounds memory and storage down to a whole Mi/Gi.
    const unit = resource === 'memory' ? 2 ** 20 : resource === 'ephemeral-storage' ? 2 ** 30 : 1;
    if (Math.floor(mine / unit) !== Math.floor(theirs / unit)) {
      throw new Error(`${entry.name}: allocatable ${resource} ${mine} does not match the reference's ${written}`);
    }
  }
}

function sizeOrder(a: Ec2CatalogEntry, b: Ec2CatalogEntry): number {
  return Number(a.bareMetal) - Number(b.bareMetal) || a.vcpu - b.vcpu || a.memoryMiB - b.memoryMiB || a.name.localeCompare(b.name);
}

export function buildCatalog(src: CatalogSources, sel: Selection): BuildResult {
  const skipped: string[] = [];
  const entries: Ec2CatalogEntry[] = [];
  for (const family of sel.families) {
    const members: Ec2CatalogEntry[] = [];
    for (const doc of src.documented.values()) {
      if (label(doc, 'instance-family') !== family) continue;
      const vcpu = Number(label(doc, 'instance-cpu'));
      const memoryMiB = Number(label(doc, 'instance-memory'));
      if (vcpu < sel.minVcpu || memoryMiB < sel.minMemoryMiB) continue;
      const vpc = src.vpcLimits.get(doc.name);
      if (!vpc) {
        skipped.push(`${doc.name}: no VPC limits`);
        continue;
      }
      const onDemand = src.onDemand.get(doc.name);
      if (onDemand === undefined) {
        skipped.push(`${doc.name}: no on-demand price in ${sel.region}`);
        continue;
      }
      const spot: Record<string, number> = {};
      for (const zone of sel.zones) {
        const market = src.spot ? src.spot.get(doc.name)?.get(zone) : illustrativeSpotPrice(doc.name, zone, onDemand);
        if (market !== undefined) spot[zone] = market;
      }
      const ebs = ebsLimitOf(doc.name, src.ebs);
      const arch = label(doc, 'kubernetes.io/arch');
      if (arch !== 'amd64' && arch !== 'arm64') throw new Error(`${doc.name}: unknown arch ${arch}`);
      const gpu = gpuOf(doc);
      const accelerator = acceleratorOf(doc);
      const extendedResources = extendedResourcesOf(doc);
      const entry: Ec2CatalogEntry = {
        name: doc.name,
        family,
        category: label(doc, 'instance-category'),
        generation: Number(label(doc, 'instance-generation')),
        size: label(doc, 'instance-size'),
        vcpu,
        memoryMiB,
        arch,
        hypervisor: vpc.hypervisor,
        bareMetal: vpc.bareMetal,
        maxENIs: vpc.defaultCardENIs,
        ipv4PerENI: vpc.ipv4PerENI,
        onDemand,
        spot,
        ebsMaxAttachments: ebs.maxAttachments,
        ebsAttachmentLimitType: ebs.limitType,
        ...(gpu ? { gpu } : {}),
        ...(accelerator ? { accelerator } : {}),
        ...(extendedResources ? { extendedResources } : {}),
      };
      verifyAllocatable(entry, doc);
      members.push(entry);
    }
    entries.push(...members.sort(sizeOrder));
  }
  return { catalog: { source: sel.source, region: sel.region, zones: sel.zones, instanceTypes: entries }, skipped };
}

/** The catalog as stored: readable header, one instance type per line (so diffs show which types changed). */
export function formatCatalog(catalog: BuildResult['catalog']): string {
  const head = JSON.stringify({ source: catalog.source, region: catalog.region, zones: catalog.zones }, null, 2).slice(0, -2);
  const types = catalog.instanceTypes.map((t) => `    ${JSON.stringify(t)}`).join(',\n');
  return `${head},\n  "instanceTypes": [\n${types}\n  ]\n}\n`;
}
