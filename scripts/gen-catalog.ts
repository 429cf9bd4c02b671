// Rebuilds a bundled instance-type catalog (src/provisioner/catalog/aws-<region>.json)
// from public files you download first; see "Regenerating the bundled catalogs" in
// src/provisioner/catalog/README.md for the exact inputs and commands.
//
//   npx tsx scripts/gen-catalog.ts --region us-west-2 --zones us-west-2a,us-west-2b \
//     --reference instance-types.md --vpc-limits zz_generated.vpclimits.go \
//     --pricing zz_generated.pricing_aws.go --price-region us-east-1 \
//     --ebs-limits volume_limits_table.go [--spot-history spot.json] \
//     --families m5,c5,g5 [--karpenter-ref SHA] [--ebs-csi-ref SHA] > aws-us-west-2.json

import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildCatalog, formatCatalog } from './catalog/build.js';
import { parseEbsLimits, parseInstanceTypeReference, parseOnDemandPrices, parseSpotPriceHistory, parseVpcLimits } from './catalog/sources.js';

/** The bundled catalogs' family list, in the order they are stored. */
export const DEFAULT_FAMILIES = 'm5,m5a,m6i,m7i,m6g,m7g,c5,c5a,c6i,c7i,c6g,c7g,r5,r6i,r7i,r6g,r7g,t3,g4dn,g5,g6,p4d,p5,inf2,trn1';

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new Error(`--${name} is required`);
  return v;
}

export function generate(argv: readonly string[]): { json: string; skipped: readonly string[] } {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      region: { type: 'string' },
      zones: { type: 'string' },
      reference: { type: 'string' },
      'vpc-limits': { type: 'string' },
      pricing: { type: 'string' },
      'price-region': { type: 'string' },
      'ebs-limits': { type: 'string' },
      'spot-history': { type: 'string' },
      families: { type: 'string', default: DEFAULT_FAMILIES },
      'min-vcpu': { type: 'string', default: '2' },
      'min-memory-mib': { type: 'string', default: '4096' },
      'karpenter-ref': { type: 'string', default: 'unknown' },
      'ebs-csi-ref': { type: 'string', default: 'unknown' },
      date: { type: 'string', default: new Date().toISOString().slice(0, 10) },
      out: { type: 'string' },
    },
    strict: true,
  });
  const region = required(values, 'region');
  const priceRegion = values['price-region'] ?? region;
  const pricingFile = required(values, 'pricing');
  const prices = parseOnDemandPrices(read(pricingFile), pricingFile);
  const onDemand = prices.get(priceRegion);
  if (!onDemand) throw new Error(`${pricingFile}: no prices for ${priceRegion} (it lists ${[...prices.keys()].join(', ')})`);
  const reference = required(values, 'reference');
  const vpcFile = required(values, 'vpc-limits');
  const ebsFile = required(values, 'ebs-limits');
  const spotFile = values['spot-history'];
  const karpenterRef = values['karpenter-ref']!;
  const standIn = priceRegion === region ? `as listed for ${region}` : `as listed for ${priceRegion}, standing in for ${region} (that file carries no ${region} prices; not cross-checked against a ${region} price list)`;
  const result = buildCatalog(
    {
      documented: parseInstanceTypeReference(read(reference), reference),
      vpcLimits: parseVpcLimits(read(vpcFile), vpcFile),
      onDemand,
      ebs: parseEbsLimits(read(ebsFile), ebsFile),
      ...(spotFile ? { spot: parseSpotPriceHistory(read(spotFile), spotFile) } : {}),
    },
    {
      region,
      zones: required(values, 'zones').split(','),
      families: values.families!.split(','),
      minVcpu: Number(values['min-vcpu']),
      minMemoryMiB: Number(values['min-memory-mib']),
      source: {
        facts: `aws/karpenter-provider-aws @ ${karpenterRef}: vCPU, memory, category, generation, size, arch, GPU and accelerator labels, extended resources from website/content/en/docs/reference/instance-types.md (which also checks the allocatable berth computes); ENI/IPv4 limits of the default network card, hypervisor, bare-metal from pkg/providers/instancetype/zz_generated.vpclimits.go`,
        onDemandPrices: `Linux on-demand per hour from pkg/providers/pricing/${pricingFile.split('/').pop()}, ${standIn}.`,
        spotPrices: spotFile
          ? `Latest Linux/UNIX price per type and zone in ${spotFile.split('/').pop()} (aws ec2 describe-spot-price-history).`
          : 'Illustrative, not market data: each zone gets a fixed discount of 55-75% off on-demand, derived from an FNV-1a hash of "<name>|<zone>", rounded to 5 decimals.',
        extracted: values.date!,
        ebsAttachments: `MaximumEbsAttachments and AttachmentLimitType of EC2 DescribeInstanceTypes (EbsInfo) as kubernetes-sigs/aws-ebs-csi-driver records them in pkg/cloud/limits/volume_limits_table.go @ ${values['ebs-csi-ref']}: types that table leaves out have the Nitro default, 27 shared.`,
      },
    },
  );
  return { json: formatCatalog(result.catalog), skipped: result.skipped };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const { json, skipped } = generate(process.argv.slice(2));
    for (const s of skipped) process.stderr.write(`skipped ${s}\n`);
    const out = process.argv.indexOf('--out');
    if (out > 0) writeFileSync(process.argv[out + 1]!, json);
    else process.stdout.write(json);
  } catch (e) {
    process.stderr.write(`gen-catalog: ${(e as Error).message}\n`);
    process.exit(2);
  }
}
