import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { BUNDLED_CATALOG } from '../src/provisioner/catalog/catalog.js';
import { generate } from './gen-catalog.js';
import { buildCatalog } from './catalog/build.js';
import { parseEbsLimits, parseInstanceTypeReference, parseOnDemandPrices, parseVpcLimits, SourceError } from './catalog/sources.js';

const DIR = new URL('../test/fixtures/catalog-gen/', import.meta.url).pathname;
const ARGS = ['--region', 'us-west-2', '--zones', 'us-west-2a,us-west-2b,us-west-2c,us-west-2d', '--reference', `${DIR}instance-types.md`, '--vpc-limits', `${DIR}zz_generated.vpclimits.go`, '--pricing', `${DIR}zz_generated.pricing_aws.go`, '--price-region', 'us-east-1', '--ebs-limits', `${DIR}volume_limits_table.go`, '--date', '2026-12-04'];

const SELECTION = { region: 'us-west-2', zones: ['us-west-2a'], families: [], minVcpu: 2, minMemoryMiB: 4096, source: {} };

function sources(reference: string, onDemand = parseOnDemandPrices(readFileSync(`${DIR}zz_generated.pricing_aws.go`, 'utf8')).get('us-east-1')!) {
  return {
    documented: parseInstanceTypeReference(reference),
    vpcLimits: parseVpcLimits(readFileSync(`${DIR}zz_generated.vpclimits.go`, 'utf8')),
    onDemand,
    ebs: parseEbsLimits(readFileSync(`${DIR}volume_limits_table.go`, 'utf8')),
  };
}

function types(json: string): { name: string; [k: string]: unknown }[] {
  return (JSON.parse(json) as { instanceTypes: { name: string }[] }).instanceTypes;
}

describe('gen-catalog on the bundled sample', () => {
  it('reproduces the bundled us-west-2 entries of the sampled types byte for byte', () => {
    const { json } = generate([...ARGS, '--families', 'm5,t3,g5,p5,inf2']);
    const generated = types(json);
    assert.deepEqual(generated.map((t) => t.name), ['m5.large', 'm5.xlarge', 'g5.xlarge', 'p5.48xlarge', 'inf2.xlarge']);
    for (const t of generated) assert.deepEqual(t, BUNDLED_CATALOG.instanceTypes.find((b) => b.name === t.name), t.name);
  });

  it('leaves out sizes under 2 vCPU / 4 GiB (t3.small) unless the floors are lowered', () => {
    assert.deepEqual(types(generate([...ARGS, '--families', 't3']).json), []);
    assert.deepEqual(types(generate([...ARGS, '--families', 't3', '--min-memory-mib', '2048']).json).map((t) => t.name), ['t3.small']);
  });

  it('takes the latest Linux/UNIX spot price per zone from describe-spot-price-history, and offers no spot where it has none', () => {
    const [m5] = types(generate([...ARGS, '--families', 'm5', '--spot-history', `${DIR}spot-price-history.json`]).json);
    assert.deepEqual(m5!.spot, { 'us-west-2a': 0.0382, 'us-west-2b': 0.0361 });
  });

  it('skips a type with no price in the region, saying so; refuses a region the pricing file lacks', () => {
    const onDemand = parseOnDemandPrices(readFileSync(`${DIR}zz_generated.pricing_aws.go`, 'utf8')).get('us-east-1')!;
    onDemand.delete('g5.xlarge');
    const { catalog, skipped } = buildCatalog(sources(readFileSync(`${DIR}instance-types.md`, 'utf8'), onDemand), { ...SELECTION, families: ['m5', 'g5'] });
    assert.deepEqual(catalog.instanceTypes.map((t) => t.name), ['m5.large', 'm5.xlarge']);
    assert.deepEqual(skipped, ['g5.xlarge: no on-demand price in us-west-2']);
    assert.throws(() => generate([...ARGS, '--price-region', 'eu-west-1']), /no prices for eu-west-1 \(it lists us-east-1\)/);
  });

  it('refuses a type whose computed allocatable differs from the published one', () => {
    const doctored = readFileSync(`${DIR}instance-types.md`, 'utf8').replace('|memory|14162Mi|', '|memory|15000Mi|');
    assert.throws(
      () => buildCatalog(sources(doctored), { ...SELECTION, families: ['g5'] }),
      /g5\.xlarge: allocatable memory \d+ does not match the reference's 15000Mi/,
    );
  });

  it('names file and line of a malformed VPC limits entry', () => {
    const text = '\t"x1.large": {\n\t\tInterface: 3,\n\t\tIPv4PerInterface: 10,\n\t\tDefaultNetworkCardIndex: 1,\n\t\tHypervisor: "nitro",\n\t},\n';
    assert.throws(() => parseVpcLimits(text, 'limits.go'), (e: unknown) => e instanceof SourceError && e.message === 'limits.go:1: x1.large: no network card with index 1');
  });
});
