// Differential run of berth's NodePool hash (src/model/nodepool-hash.ts) against
// Karpenter v1.14.1's NodePool.Hash() (conformance/oracle-karpenter-hash). Usage:
//   tsx conformance/nodepool-hash-run.ts --cases N --seed S [--oracle PATH] [--write FILE]
// Generates NodePools over every hashed field (template labels and annotations absent,
// empty or set, taints and startup taints with and without value and timeAdded, the
// nodeClassRef, terminationGracePeriod, expireAfter incl. "Never" and absent) and the
// ones that must not count (requirements, disruption, limits, weight). Exit 1 on any
// difference. --write stores the NodePools, each annotated with the oracle's hash and
// hash version as Karpenter's hash controller writes them, as a multi-document YAML
// table that src/model/nodepool-hash.test.ts replays without Go.

import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { NODEPOOL_HASH_VERSION, nodePoolHash } from '../src/model/nodepool-hash.js';
import type { NodePoolManifest, NodePoolRequirementManifest, NodePoolTaintManifest } from '../src/model/nodepool.js';

const here = dirname(fileURLToPath(import.meta.url));

const key = fc.constantFrom('team', 'example.com/tier', 'app', 'karpenter.k8s.aws/instance-family', 'a', 'node.kubernetes.io/role');
const value = fc.constantFrom('', 'a', 'b', 'web', 'batch', 'x-1');
const strMap = fc.option(fc.dictionary(key, value, { maxKeys: 3 }), { nil: undefined });
const duration = fc.constantFrom('0s', '1s', '30s', '5m', '1h', '1h30m', '24h', '720h', '90m', '3600s', '2h0m0s');
const time = fc.constantFrom('2024-01-02T03:04:05Z', '2025-06-30T23:59:59Z', '1999-12-31T00:00:00+02:00', '2026-12-03T20:59:08.123456789Z');

// Valid NodePools only (the table is loaded through berth's validation): a taint value is
// absent or a qualified name, and a key/effect pair appears once across both lists.
const taintOf = (keys: string[]): fc.Arbitrary<NodePoolTaintManifest> =>
  fc.record(
    {
      key: fc.constantFrom(...keys),
      value: fc.constantFrom('true', 'gpu', 'x'),
      effect: fc.constantFrom('NoSchedule', 'PreferNoSchedule', 'NoExecute'),
      timeAdded: time,
    },
    { requiredKeys: ['key', 'effect'] },
  );
const taints = (keys: string[]) => fc.option(fc.uniqueArray(taintOf(keys), { maxLength: 3, selector: (t) => `${t.key}:${t.effect}` }), { nil: undefined });

const requirement: fc.Arbitrary<NodePoolRequirementManifest> = fc.constantFrom<NodePoolRequirementManifest>(
  { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
  { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand', 'spot'] },
  { key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['us-west-2a'] },
  { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
  { key: 'example.com/team', operator: 'Exists' },
);

const nodePoolArb: fc.Arbitrary<NodePoolManifest> = fc
  .record({
    name: fc.constantFrom('default', 'gpu', 'batch'),
    labels: strMap,
    annotations: strMap,
    metadata: fc.boolean(),
    taints: taints(['dedicated', 'example.com/gpu']),
    startupTaints: taints(['node.cilium.io/agent-not-ready', 'spot']),
    nodeClassRef: fc.record({
      group: fc.constantFrom('karpenter.k8s.aws', 'karpenter.kwok.sh', 'example.com'),
      kind: fc.constantFrom('EC2NodeClass', 'KWOKNodeClass', 'NodeClass'),
      name: fc.constantFrom('default', 'gpu', 'al2023'),
    }),
    terminationGracePeriod: fc.option(duration, { nil: undefined }),
    expireAfter: fc.option(fc.oneof(duration, fc.constant('Never')), { nil: undefined }),
    requirements: fc.uniqueArray(requirement, { maxLength: 3, selector: (r) => r.key }),
    weight: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
    consolidationPolicy: fc.option(fc.constantFrom('WhenEmpty', 'WhenEmptyOrUnderutilized'), { nil: undefined }),
  })
  .map((r) => {
    const metadata = r.labels === undefined && r.annotations === undefined && !r.metadata ? undefined : { ...(r.labels && { labels: r.labels }), ...(r.annotations && { annotations: r.annotations }) };
    const spec: NodePoolManifest['spec']['template']['spec'] = {
      requirements: r.requirements,
      nodeClassRef: r.nodeClassRef,
      ...(r.taints && { taints: r.taints }),
      ...(r.startupTaints && { startupTaints: r.startupTaints }),
      ...(r.terminationGracePeriod && { terminationGracePeriod: r.terminationGracePeriod }),
      ...(r.expireAfter && { expireAfter: r.expireAfter }),
    };
    return {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: r.name },
      spec: {
        ...(r.weight !== undefined && { weight: r.weight }),
        ...(r.consolidationPolicy && { disruption: { consolidationPolicy: r.consolidationPolicy, consolidateAfter: '30s' } }),
        template: { ...(metadata && { metadata }), spec },
      },
    } as NodePoolManifest;
  });

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

function main(): number {
  const cases = Number(arg('--cases') ?? '1000');
  const seed = Number(arg('--seed') ?? '1');
  const oracle = arg('--oracle') ?? join(here, 'oracle-karpenter-hash', 'oracle');
  const write = arg('--write');
  if (!Number.isInteger(cases) || cases < 1 || !Number.isInteger(seed)) {
    process.stderr.write('usage: nodepool-hash-run.ts --cases N --seed S [--oracle PATH] [--write FILE]\n');
    return 2;
  }
  if (!existsSync(oracle)) {
    process.stderr.write(`oracle not found at ${oracle}: run conformance/oracle-karpenter-hash/build.sh\n`);
    return 2;
  }
  const pools = fc.sample(nodePoolArb, { numRuns: cases, seed });
  const run = spawnSync(oracle, [], { input: pools.map((p) => JSON.stringify(p)).join('\n') + '\n', env: { ...process.env, TZ: 'UTC' }, maxBuffer: 1 << 28 });
  if (run.status !== 0) {
    process.stderr.write(`oracle failed: ${run.stderr.toString()}\n`);
    return 1;
  }
  const answers = run.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as { hash?: string; version?: string; error?: string });
  let differ = 0;
  pools.forEach((pool, i) => {
    const want = answers[i];
    const got = nodePoolHash(pool);
    if (!want || want.error || want.hash !== got || want.version !== NODEPOOL_HASH_VERSION) {
      differ++;
      if (differ <= 5) process.stdout.write(`differ: berth ${got}, karpenter ${JSON.stringify(want)}\n  ${JSON.stringify(pool)}\n`);
    }
  });
  process.stdout.write(`${cases - differ}/${cases} NodePools hash alike (seed ${seed})\n`);
  if (write) {
    const docs = pools.map((pool, i) => {
      const a = answers[i]!;
      return stringify({ ...pool, metadata: { name: `${pool.metadata.name}-${i}`, annotations: { 'karpenter.sh/nodepool-hash': a.hash, 'karpenter.sh/nodepool-hash-version': a.version } } }, { aliasDuplicateObjects: false });
    });
    writeFileSync(write, `# NodePools with the hash Karpenter v1.14.1 computes for them (conformance/nodepool-hash-run.ts --cases ${cases} --seed ${seed} --write).\n${docs.join('---\n')}`);
    process.stdout.write(`wrote ${write}\n`);
  }
  return differ === 0 ? 0 : 1;
}

process.exitCode = main();
