// Instance-type catalogs: the bundled EC2 data (us-west-2 by default, us-east-1,
// us-gov-west-1), and catalogs users write themselves (kind InstanceTypeCatalog, see README.md). Both become InstanceType objects.

import { atPath, FieldError, type FieldPath } from '../../model/errors.js';
import { resourceValue } from '../../model/quantity.js';
import type { ResourceList } from '../../model/resources.js';
import usWest2 from './aws-us-west-2.json' with { type: 'json' };
import usEast1 from './aws-us-east-1.json' with { type: 'json' };
import usGovWest1 from './aws-us-gov-west-1.json' with { type: 'json' };
import { DEFAULT_EPHEMERAL_STORAGE, DEFAULT_MAX_PODS, ec2Sizing, evictionThreshold, kubeReserved, type SizingOptions } from './overhead.js';
import {
  ARCHES,
  CAPACITY_TYPES,
  LABEL_ARCH,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_CPU,
  LABEL_INSTANCE_FAMILY,
  LABEL_INSTANCE_GENERATION,
  LABEL_INSTANCE_ACCELERATOR_COUNT,
  LABEL_INSTANCE_ACCELERATOR_MANUFACTURER,
  LABEL_INSTANCE_ACCELERATOR_NAME,
  LABEL_INSTANCE_GPU_COUNT,
  LABEL_INSTANCE_GPU_MANUFACTURER,
  LABEL_INSTANCE_GPU_MEMORY,
  LABEL_INSTANCE_GPU_NAME,
  LABEL_INSTANCE_HYPERVISOR,
  LABEL_INSTANCE_MEMORY,
  LABEL_INSTANCE_SIZE,
  LABEL_INSTANCE_TYPE,
  LABEL_OS,
  LABEL_REGION,
  LABEL_ZONE,
  makeInstanceType,
  type Arch,
  type CapacityType,
  type InstanceType,
  type InstanceTypeOverhead,
  type Offering,
} from './types.js';
import { ebsCsiVolumeLimit } from './ebs-limits.js';

// ---------------------------------------------------------------------------------------
// Bundled catalog

/** One EC2 instance type as stored in aws-us-west-2.json. */
export interface Ec2CatalogEntry {
  readonly name: string;
  readonly family: string;
  readonly category: string;
  readonly generation: number;
  readonly size: string;
  readonly vcpu: number;
  readonly memoryMiB: number;
  readonly arch: Arch;
  /** "nitro", "xen", or "" for bare metal. */
  readonly hypervisor: string;
  readonly bareMetal: boolean;
  /** Network interfaces on the default network card, and IPv4 addresses each can hold. */
  readonly maxENIs: number;
  readonly ipv4PerENI: number;
  /** Linux on-demand USD per hour. */
  readonly onDemand: number;
  /** Illustrative spot USD per hour, per zone. */
  readonly spot: Readonly<Record<string, number>>;
  /** EC2's EBS attachment limit and whether ENIs and instance store share it (see `source.ebsAttachments` in the JSON). */
  readonly ebsMaxAttachments: number;
  readonly ebsAttachmentLimitType: 'shared' | 'dedicated';
  /** The GPUs of types that have one kind of GPU (Karpenter labels only those). */
  readonly gpu?: GpuInfo;
  /** The Neuron (Inferentia, Trainium) devices of types that have them. */
  readonly accelerator?: AcceleratorInfo;
  /** Device-plugin resources a node of this type advertises (EXTENDED_RESOURCES), as counts. */
  readonly extendedResources?: Readonly<Record<string, number>>;
}

export interface GpuInfo {
  /** Lower-case as Karpenter labels it: "a10g", "nvidia". */
  readonly name: string;
  readonly manufacturer: string;
  readonly count: number;
  /** Memory of one GPU. */
  readonly memoryMiB: number;
}

export interface AcceleratorInfo {
  readonly name: string;
  readonly manufacturer: string;
  readonly count: number;
}

/**
 * The extended resources Karpenter's AWS provider puts in an instance type's capacity
 * (pkg/providers/instancetype/types.go). vpc.amazonaws.com/pod-eni is left out: it exists
 * only with security groups for pods, which berth does not model.
 */
export const EXTENDED_RESOURCES: readonly string[] = [
  'nvidia.com/gpu',
  'amd.com/gpu',
  'aws.amazon.com/neuron',
  'aws.amazon.com/neuroncore',
  'habana.ai/gaudi',
  'vpc.amazonaws.com/efa',
];

export interface Ec2CatalogData {
  readonly region: string;
  readonly zones: readonly string[];
  readonly instanceTypes: readonly Ec2CatalogEntry[];
}

function checkedData(raw: typeof usWest2 | typeof usEast1 | typeof usGovWest1): Ec2CatalogData {
  for (const t of raw.instanceTypes) {
    if (!(ARCHES as readonly string[]).includes(t.arch)) throw new Error(`bundled catalog: ${t.name} has unknown arch ${t.arch}`);
    if (t.ebsAttachmentLimitType !== 'shared' && t.ebsAttachmentLimitType !== 'dedicated') throw new Error(`bundled catalog: ${t.name} has unknown ebsAttachmentLimitType ${t.ebsAttachmentLimitType}`);
  }
  return raw as Ec2CatalogData;
}

/** The bundled regions' data, as stored (facts only; see `source` in each JSON for provenance). */
export const BUNDLED_CATALOGS: ReadonlyMap<string, Ec2CatalogData> = new Map([usWest2, usEast1, usGovWest1].map((raw) => [raw.region, checkedData(raw)]));
/** The region berth plans in unless told otherwise. */
export const BUNDLED_REGION = 'us-west-2';
export const BUNDLED_CATALOG: Ec2CatalogData = BUNDLED_CATALOGS.get(BUNDLED_REGION)!;
export const BUNDLED_ZONES = BUNDLED_CATALOG.zones;

/** The bundled data of `region`; throws naming the bundled regions when there is none. */
export function bundledCatalog(region: string): Ec2CatalogData {
  const data = BUNDLED_CATALOGS.get(region);
  if (!data) throw new Error(`no bundled catalog for region ${JSON.stringify(region)} (bundled: ${[...BUNDLED_CATALOGS.keys()].join(', ')})`);
  return data;
}

/** Builds one InstanceType from a bundled entry: Karpenter's labels, sizing and one offering per zone and capacity type. */
export function ec2InstanceType(entry: Ec2CatalogEntry, region: string, zones: readonly string[], options: SizingOptions = {}): InstanceType {
  const sizing = ec2Sizing(entry, options);
  const capacity = { ...sizing.capacity, ...entry.extendedResources };
  const overhead = sizing.overhead;
  const labels: Record<string, string> = {
    [LABEL_INSTANCE_TYPE]: entry.name,
    [LABEL_INSTANCE_FAMILY]: entry.family,
    [LABEL_INSTANCE_CATEGORY]: entry.category,
    [LABEL_INSTANCE_CPU]: String(entry.vcpu),
    [LABEL_INSTANCE_MEMORY]: String(entry.memoryMiB),
    [LABEL_INSTANCE_GENERATION]: String(entry.generation),
    [LABEL_INSTANCE_SIZE]: entry.size,
    [LABEL_INSTANCE_HYPERVISOR]: entry.hypervisor,
    [LABEL_ARCH]: entry.arch,
    [LABEL_OS]: 'linux',
    [LABEL_REGION]: region,
  };
  if (entry.gpu) {
    labels[LABEL_INSTANCE_GPU_NAME] = entry.gpu.name;
    labels[LABEL_INSTANCE_GPU_MANUFACTURER] = entry.gpu.manufacturer;
    labels[LABEL_INSTANCE_GPU_COUNT] = String(entry.gpu.count);
    labels[LABEL_INSTANCE_GPU_MEMORY] = String(entry.gpu.memoryMiB);
  }
  if (entry.accelerator) {
    labels[LABEL_INSTANCE_ACCELERATOR_NAME] = entry.accelerator.name;
    labels[LABEL_INSTANCE_ACCELERATOR_MANUFACTURER] = entry.accelerator.manufacturer;
    labels[LABEL_INSTANCE_ACCELERATOR_COUNT] = String(entry.accelerator.count);
  }
  const offerings: Offering[] = [];
  for (const zone of zones) {
    offerings.push({ zone, capacityType: 'on-demand', price: entry.onDemand, available: true });
    const spot = entry.spot[zone];
    if (spot !== undefined) offerings.push({ zone, capacityType: 'spot', price: spot, available: true });
  }
  const ebsVolumeLimit = ebsCsiVolumeLimit({ maxAttachments: entry.ebsMaxAttachments, limitType: entry.ebsAttachmentLimitType });
  return makeInstanceType({ name: entry.name, labels, capacity, overhead, offerings, ebsVolumeLimit });
}

/** Every bundled instance type of `region`, sized under `options` (Karpenter's AL2023 defaults when omitted). */
export function bundledInstanceTypes(options: SizingOptions = {}, region = BUNDLED_REGION): InstanceType[] {
  const data = bundledCatalog(region);
  return data.instanceTypes.map((e) => ec2InstanceType(e, data.region, data.zones, options));
}

// ---------------------------------------------------------------------------------------
// User catalogs: apiVersion berth.dev/v1alpha1, kind InstanceTypeCatalog

/** The instance types to plan from: those of the input's InstanceTypeCatalogs, or the bundled catalog when it has none. */
export function catalogOrBundled(catalogs: readonly (readonly InstanceType[])[], region = BUNDLED_REGION): InstanceType[] {
  return catalogs.length > 0 ? catalogs.flat() : bundledInstanceTypes({}, region);
}

export const CATALOG_API_VERSION = 'berth.dev/v1alpha1';
export const CATALOG_KIND = 'InstanceTypeCatalog';

// Labels berth derives from other fields; setting them by hand would contradict those fields.
const DERIVED_LABELS: Readonly<Record<string, string>> = {
  [LABEL_INSTANCE_TYPE]: 'it is taken from name',
  [LABEL_ARCH]: 'it is taken from arch',
  [LABEL_OS]: 'catalog instance types are always linux',
  [LABEL_ZONE]: 'it is set per offering',
  [LABEL_CAPACITY_TYPE]: 'it is set per offering',
};

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function objectAt(v: unknown, path: FieldPath): Obj {
  if (!isObject(v)) throw new FieldError(`Invalid value: expected an object, got ${describe(v)}`, path);
  return v;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? `string ${JSON.stringify(v)}` : `${typeof v} ${String(v)}`;
}

function onlyFields(o: Obj, allowed: readonly string[], path: FieldPath): void {
  for (const key of Object.keys(o)) {
    if (!allowed.includes(key)) throw new FieldError(`Invalid value: unknown field ${JSON.stringify(key)}`, [...path, key]);
  }
}

function requiredString(o: Obj, key: string, path: FieldPath): string {
  const v = o[key];
  if (v === undefined || v === '') throw new FieldError('Required value', [...path, key]);
  if (typeof v !== 'string') throw new FieldError(`Invalid value: expected a string, got ${describe(v)}`, [...path, key]);
  return v;
}

function labelValue(o: Obj, key: string, path: FieldPath): string {
  const v = requiredString(o, key, path);
  if (v.length > 63 || !LABEL_VALUE.test(v)) {
    throw new FieldError(`Invalid value: ${JSON.stringify(v)}: must be a valid label value (at most 63 characters: alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric)`, [...path, key]);
  }
  return v;
}

function quantity(resource: string, v: unknown, path: FieldPath): number {
  if (typeof v !== 'string' && typeof v !== 'number') throw new FieldError(`Invalid value: expected a quantity, got ${describe(v)}`, path);
  const value = atPath(path, () => resourceValue(resource, v));
  if (value < 0) throw new FieldError(`Invalid value: ${JSON.stringify(v)}: must be greater than or equal to 0`, path);
  return value;
}

function positiveQuantity(o: Obj, resource: string, key: string, path: FieldPath): number {
  if (o[key] === undefined) throw new FieldError('Required value', [...path, key]);
  const value = quantity(resource, o[key], [...path, key]);
  if (value <= 0) throw new FieldError(`Invalid value: ${JSON.stringify(o[key])}: must be greater than 0`, [...path, key]);
  return value;
}

function resourceList(v: unknown, path: FieldPath): ResourceList {
  const o = objectAt(v, path);
  const out: Record<string, number> = {};
  for (const [name, q] of Object.entries(o)) out[name] = quantity(name, q, [...path, name]);
  return out;
}

function parseLabels(v: unknown, path: FieldPath): Record<string, string> {
  if (v === undefined) return {};
  const o = objectAt(v, path);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(o)) {
    const reason = DERIVED_LABELS[key];
    if (reason !== undefined) throw new FieldError(`Forbidden: ${key} cannot be set here: ${reason}`, [...path, key]);
    if (key === '') throw new FieldError('Invalid value: label keys must not be empty', path);
    if (typeof value !== 'string') throw new FieldError(`Invalid value: expected a string, got ${describe(value)}`, [...path, key]);
    out[key] = value;
  }
  return out;
}

function parseOffering(v: unknown, path: FieldPath): Offering {
  const o = objectAt(v, path);
  onlyFields(o, ['zone', 'capacityType', 'price', 'available'], path);
  const zone = labelValue(o, 'zone', path);
  const ct = requiredString(o, 'capacityType', path);
  if (!(CAPACITY_TYPES as readonly string[]).includes(ct)) {
    throw new FieldError(`Unsupported value: ${JSON.stringify(ct)}: supported values: ${CAPACITY_TYPES.map((c) => JSON.stringify(c)).join(', ')}`, [...path, 'capacityType']);
  }
  const price = o.price;
  if (price === undefined) throw new FieldError('Required value', [...path, 'price']);
  if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) {
    throw new FieldError(`Invalid value: ${JSON.stringify(price)}: must be a number greater than or equal to 0`, [...path, 'price']);
  }
  const available = o.available ?? true;
  if (typeof available !== 'boolean') throw new FieldError(`Invalid value: expected a boolean, got ${describe(available)}`, [...path, 'available']);
  return { zone, capacityType: ct as CapacityType, price, available };
}

function parseOverhead(v: unknown, path: FieldPath): InstanceTypeOverhead {
  const o = objectAt(v, path);
  onlyFields(o, ['kubeReserved', 'systemReserved', 'evictionThreshold'], path);
  const part = (key: string): ResourceList => (o[key] === undefined ? {} : resourceList(o[key], [...path, key]));
  return { kubeReserved: part('kubeReserved'), systemReserved: part('systemReserved'), evictionThreshold: part('evictionThreshold') };
}

const INSTANCE_TYPE_FIELDS = ['name', 'cpu', 'memory', 'pods', 'ephemeralStorage', 'arch', 'labels', 'offerings', 'overhead'] as const;

function parseUserInstanceType(v: unknown, path: FieldPath): InstanceType {
  const o = objectAt(v, path);
  onlyFields(o, INSTANCE_TYPE_FIELDS, path);
  const name = labelValue(o, 'name', path);
  const cpu = positiveQuantity(o, 'cpu', 'cpu', path);
  const memory = positiveQuantity(o, 'memory', 'memory', path);
  const ephemeralStorage = o.ephemeralStorage === undefined ? DEFAULT_EPHEMERAL_STORAGE : positiveQuantity(o, 'ephemeral-storage', 'ephemeralStorage', path);

  let pods = DEFAULT_MAX_PODS;
  if (o.pods !== undefined) {
    if (typeof o.pods !== 'number' || !Number.isSafeInteger(o.pods) || o.pods < 0) {
      throw new FieldError(`Invalid value: ${JSON.stringify(o.pods)}: must be a whole number greater than or equal to 0`, [...path, 'pods']);
    }
    pods = o.pods;
  }

  const arch = o.arch ?? 'amd64';
  if (typeof arch !== 'string' || !(ARCHES as readonly string[]).includes(arch)) {
    throw new FieldError(`Unsupported value: ${JSON.stringify(arch)}: supported values: ${ARCHES.map((a) => JSON.stringify(a)).join(', ')}`, [...path, 'arch']);
  }

  const offeringsPath = [...path, 'offerings'];
  if (o.offerings === undefined) throw new FieldError('Required value: an instance type needs at least one offering', offeringsPath);
  if (!Array.isArray(o.offerings)) throw new FieldError(`Invalid value: expected a list, got ${describe(o.offerings)}`, offeringsPath);
  if (o.offerings.length === 0) throw new FieldError('Required value: an instance type needs at least one offering', offeringsPath);
  const seen = new Set<string>();
  const offerings = o.offerings.map((raw, i) => {
    const offering = parseOffering(raw, [...offeringsPath, i]);
    const key = `${offering.zone}/${offering.capacityType}`;
    if (seen.has(key)) throw new FieldError(`Duplicate value: zone ${JSON.stringify(offering.zone)} with capacityType ${JSON.stringify(offering.capacityType)}`, [...offeringsPath, i]);
    seen.add(key);
    return offering;
  });

  const labels = { ...parseLabels(o.labels, [...path, 'labels']), [LABEL_INSTANCE_TYPE]: name, [LABEL_ARCH]: arch, [LABEL_OS]: 'linux' };
  const capacity = { cpu, memory, 'ephemeral-storage': ephemeralStorage, pods };
  // Without an explicit overhead, charge what Karpenter would for a node of this size. The
  // stated memory is taken as what the kubelet reports, so no VM overhead is subtracted.
  const overhead =
    o.overhead === undefined
      ? { kubeReserved: kubeReserved(cpu, pods), systemReserved: {}, evictionThreshold: evictionThreshold(memory, ephemeralStorage) }
      : parseOverhead(o.overhead, [...path, 'overhead']);
  return makeInstanceType({ name, labels, capacity, overhead, offerings });
}

/**
 * Reads an InstanceTypeCatalog from an already-parsed object (YAML or JSON). Throws a
 * FieldError whose path points at the offending field.
 */
export function parseInstanceTypeCatalog(input: unknown): InstanceType[] {
  const root = objectAt(input, []);
  if (root.apiVersion !== CATALOG_API_VERSION) {
    throw new FieldError(`Unsupported value: ${JSON.stringify(root.apiVersion ?? '')}: supported values: ${JSON.stringify(CATALOG_API_VERSION)}`, ['apiVersion']);
  }
  if (root.kind !== CATALOG_KIND) {
    throw new FieldError(`Unsupported value: ${JSON.stringify(root.kind ?? '')}: supported values: ${JSON.stringify(CATALOG_KIND)}`, ['kind']);
  }
  if (root.spec === undefined) throw new FieldError('Required value', ['spec']);
  const spec = objectAt(root.spec, ['spec']);
  onlyFields(spec, ['instanceTypes'], ['spec']);
  const list = spec.instanceTypes;
  const path = ['spec', 'instanceTypes'];
  if (list === undefined) throw new FieldError('Required value: a catalog needs at least one instance type', path);
  if (!Array.isArray(list)) throw new FieldError(`Invalid value: expected a list, got ${describe(list)}`, path);
  if (list.length === 0) throw new FieldError('Required value: a catalog needs at least one instance type', path);
  const names = new Set<string>();
  return list.map((raw, i) => {
    const it = parseUserInstanceType(raw, [...path, i]);
    if (names.has(it.name)) throw new FieldError(`Duplicate value: ${JSON.stringify(it.name)}`, [...path, i, 'name']);
    names.add(it.name);
    return it;
  });
}
