// Readers for the public files the bundled catalogs are generated from. Each takes the
// text of one downloaded file and returns plain facts; none touches the file system.
//
//   instance-types.md          aws/karpenter-provider-aws website/content/en/docs/reference/instance-types.md
//   zz_generated.vpclimits.go  aws/karpenter-provider-aws pkg/providers/instancetype/
//   zz_generated.pricing_*.go  aws/karpenter-provider-aws pkg/providers/pricing/
//   volume_limits_table.go     kubernetes-sigs/aws-ebs-csi-driver pkg/cloud/limits/
//   describe-spot-price-history output (aws ec2 describe-spot-price-history --output json)

/** One `### \`type\`` section of Karpenter's instance-type reference: its label and resource tables. */
export interface DocumentedType {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Quantities as written (e.g. "3920m", "14162Mi", "1"). */
  readonly resources: Readonly<Record<string, string>>;
}

export class SourceError extends Error {
  constructor(file: string, line: number, message: string) {
    super(`${file}:${line}: ${message}`);
  }
}

const HEADING = /^### `([^`]+)`\s*$/;
const TABLE_ROW = /^\s*\|([^|]+)\|([^|]*)\|\s*$/;

export function parseInstanceTypeReference(text: string, file = 'instance-types.md'): Map<string, DocumentedType> {
  const out = new Map<string, DocumentedType>();
  let current: { name: string; labels: Record<string, string>; resources: Record<string, string> } | undefined;
  let table: 'labels' | 'resources' | undefined;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const heading = HEADING.exec(line);
    if (heading) {
      const name = heading[1]!;
      if (out.has(name)) throw new SourceError(file, i + 1, `instance type ${name} is described twice`);
      current = { name, labels: {}, resources: {} };
      out.set(name, current);
      table = undefined;
      return;
    }
    if (!current) return;
    if (line.startsWith('#### Labels')) table = 'labels';
    else if (line.startsWith('#### Resources')) table = 'resources';
    else if (line.startsWith('#')) table = undefined;
    else if (table) {
      const row = TABLE_ROW.exec(line);
      if (!row) return;
      const key = row[1]!.trim();
      const value = row[2]!.trim();
      if (key === 'Label' || key === 'Resource' || key.startsWith('--')) return;
      (table === 'labels' ? current.labels : current.resources)[key] = value;
    }
  });
  return out;
}

/** Network limits of one instance type as the VPC resource controller records them. */
export interface VpcLimits {
  /** Interfaces on the default network card (what the VPC CNI allocates pods from). */
  readonly defaultCardENIs: number;
  readonly ipv4PerENI: number;
  readonly hypervisor: string;
  readonly bareMetal: boolean;
}

const GO_ENTRY = /^\t"([^"]+)": \{\s*$/;

function goField(block: string, field: string): string | undefined {
  return new RegExp(`\\b${field}:\\s*("[^"]*"|[^,\\s]+),`).exec(block)?.[1];
}

export function parseVpcLimits(text: string, file = 'zz_generated.vpclimits.go'): Map<string, VpcLimits> {
  const out = new Map<string, VpcLimits>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const entry = GO_ENTRY.exec(lines[i]!);
    if (!entry) continue;
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && lines[i] !== '\t},') body.push(lines[i]!);
    const block = body.join('\n');
    const num = (field: string): number => {
      const v = goField(block, field);
      if (v === undefined || !/^\d+$/.test(v)) throw new SourceError(file, start + 1, `${entry[1]}: no whole-number ${field}`);
      return Number(v);
    };
    const defaultCard = num('DefaultNetworkCardIndex');
    let defaultCardENIs: number | undefined;
    for (const card of block.matchAll(/MaximumNetworkInterfaces:\s*(\d+),\s*NetworkCardIndex:\s*(\d+),/g)) {
      if (Number(card[2]) === defaultCard) defaultCardENIs = Number(card[1]);
    }
    if (defaultCardENIs === undefined) throw new SourceError(file, start + 1, `${entry[1]}: no network card with index ${defaultCard}`);
    const hypervisor = goField(block, 'Hypervisor');
    if (hypervisor === undefined) throw new SourceError(file, start + 1, `${entry[1]}: no Hypervisor`);
    out.set(entry[1]!, {
      defaultCardENIs,
      ipv4PerENI: num('IPv4PerInterface'),
      hypervisor: JSON.parse(hypervisor) as string,
      bareMetal: goField(block, 'IsBareMetal') === 'true',
    });
  }
  return out;
}

/** Linux on-demand USD (or CNY, for the China regions) per hour, by region then instance type. */
export function parseOnDemandPrices(text: string, file = 'zz_generated.pricing.go'): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  let region: Map<string, number> | undefined;
  text.split('\n').forEach((line, i) => {
    const opened = /^\t"([a-z0-9-]+)": \{\s*$/.exec(line);
    if (opened) {
      if (out.has(opened[1]!)) throw new SourceError(file, i + 1, `region ${opened[1]} is listed twice`);
      region = new Map();
      out.set(opened[1]!, region);
      return;
    }
    if (/^\t\},?\s*$/.test(line)) {
      region = undefined;
      return;
    }
    if (!region) return;
    for (const m of line.matchAll(/"([^"]+)":\s*([0-9.]+)/g)) {
      const price = Number(m[2]);
      if (!Number.isFinite(price)) throw new SourceError(file, i + 1, `${m[1]}: price ${m[2]} is not a number`);
      region.set(m[1]!, price);
    }
  });
  return out;
}

export interface EbsLimit {
  readonly maxAttachments: number;
  readonly limitType: 'shared' | 'dedicated';
}

/** The EBS CSI driver's table: explicit limits per type, and the non-Nitro types (40 shared). */
export function parseEbsLimits(text: string, file = 'volume_limits_table.go'): { limits: Map<string, EbsLimit>; nonNitro: Set<string> } {
  const limits = new Map<string, EbsLimit>();
  const nonNitro = new Set<string>();
  let section: 'nonNitro' | 'limits' | undefined;
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('var nonNitroInstanceTypes')) section = 'nonNitro';
    else if (line.startsWith('var volumeLimits')) section = 'limits';
    else if (line.startsWith('}')) section = undefined;
    else if (section === 'nonNitro') {
      const m = /^\t"([^"]+)":\s*\{\},/.exec(line);
      if (m) nonNitro.add(m[1]!);
    } else if (section === 'limits') {
      const m = /^\t"([^"]+)":\s*\{(\d+),\s*"([a-z]+)"\},/.exec(line);
      if (!m) return;
      if (m[3] !== 'shared' && m[3] !== 'dedicated') throw new SourceError(file, i + 1, `${m[1]}: unknown limit type ${m[3]}`);
      limits.set(m[1]!, { maxAttachments: Number(m[2]), limitType: m[3] });
    }
  });
  return { limits, nonNitro };
}

/** The EC2 default when the driver's table does not list a type: Nitro instances share 27 attachments, older ones 40. */
export function ebsLimitOf(name: string, table: { limits: Map<string, EbsLimit>; nonNitro: Set<string> }): EbsLimit {
  return table.limits.get(name) ?? (table.nonNitro.has(name) ? { maxAttachments: 40, limitType: 'shared' } : { maxAttachments: 27, limitType: 'shared' });
}

/**
 * The latest Linux/UNIX spot price per instance type and zone from
 * `aws ec2 describe-spot-price-history --product-descriptions Linux/UNIX --output json`.
 */
export function parseSpotPriceHistory(text: string, file = 'spot-price-history.json'): Map<string, Map<string, number>> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SourceError(file, 1, `not JSON: ${(e as Error).message}`);
  }
  const history = (doc as { SpotPriceHistory?: unknown }).SpotPriceHistory;
  if (!Array.isArray(history)) throw new SourceError(file, 1, 'expected an object with a SpotPriceHistory list');
  const latest = new Map<string, { t: string; price: number }>();
  history.forEach((raw: unknown, i) => {
    const r = raw as Record<string, unknown>;
    if (r.ProductDescription !== undefined && r.ProductDescription !== 'Linux/UNIX') return;
    const { InstanceType: type, AvailabilityZone: zone, SpotPrice: price, Timestamp: t } = r;
    if (typeof type !== 'string' || typeof zone !== 'string' || typeof price !== 'string' || typeof t !== 'string' || !Number.isFinite(Number(price))) {
      throw new SourceError(file, 1, `SpotPriceHistory[${i}]: needs InstanceType, AvailabilityZone, SpotPrice and Timestamp`);
    }
    const key = `${type}|${zone}`;
    const prev = latest.get(key);
    if (!prev || Date.parse(t) > Date.parse(prev.t)) latest.set(key, { t, price: Number(price) });
  });
  const out = new Map<string, Map<string, number>>();
  for (const [key, { price }] of latest) {
    const [type, zone] = key.split('|') as [string, string];
    if (!out.has(type)) out.set(type, new Map());
    out.get(type)!.set(zone, price);
  }
  return out;
}
