import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { podGroups } from '../pod-groups.js';
import { settledGroups } from '../settle.js';
import { checkCases, contextFor, deploymentYaml, listYaml, loadInput, nodeYaml, type CheckCase } from '../test-input.js';
import { coverByNodes, keptApart, runCycle, stackedAfterRecovery } from './stacked-after-recovery.js';

const required = `        affinity:
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}`;

const preferred = `        affinity:
          podAntiAffinity:
            preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 100
              podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}`;

const cases: CheckCase[] = [
  {
    name: 'incident 2b on three nodes, one cordoned: after node-1 is lost and returns both kube-dns replicas stay on node-2',
    input: () => loadInput({ file: 'examples/kube-dns-stacked-after-recovery.yaml' }),
    want: ['warning Deployment/kube-system/kube-dns'],
    message: /^after node node-1 is lost and comes back, all 2 replicas share node node-2 and stay there.*only preferred/,
  },
  { name: 'clean: required anti-affinity brings the replica back to the returned node', input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'a'), deploymentYaml('web', 2, required)) }), want: [] },
  { name: 'clean: preferred anti-affinity with a spare node: the lost replica goes to the spare', input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'a'), nodeYaml('n3', 'a'), deploymentYaml('web', 2, preferred)) }), want: [] },
];

describe('stacked-after-recovery', () =>
  checkCases(stackedAfterRecovery, cases, (f) => {
    assert.ok(f.evidence.some((e) => /failNode node-1/.test(e)) && f.evidence.some((e) => /recoverNode node-1/.test(e)), f.evidence.join('\n'));
    assert.match(f.evidence.at(-1)!, /still 2 on node-2; node node-1 runs none of them/);
    assert.ok(f.remedies && f.remedies.length > 0, 'a re-simulated fix');
    assert.match(f.fix[0]!, /^add required pod anti-affinity on kubernetes.io\/hostname/);
  }));

describe('stacked-after-recovery: one simulation per node for every group with a replica there', () => {
  it('greedy cover: the node running the most groups first, ties in node order, each group once', () => {
    const g = (object: string) => ({ object });
    const [a, b, c, d] = [g('a'), g('b'), g('c'), g('d')];
    const { plans, nodeOf } = coverByNodes([
      [a, ['n1', 'n2']],
      [b, ['n2', 'n3']],
      [c, ['n3', 'n2']],
      [d, ['n4', 'n5']],
    ]);
    assert.deepEqual(plans.map((p) => [p.node, p.groups.map((x) => x.object)]), [
      ['n2', ['a', 'b', 'c']],
      ['n4', ['d']],
    ]);
    assert.deepEqual([...nodeOf], [['a', 'n2'], ['b', 'n2'], ['c', 'n2'], ['d', 'n4']]);
  });

  it('two workloads whose first replicas run on different nodes are judged by the loss of the node they share', () => {
    // a may run on n1 and n2, b on n2 and n3: a's first replica is on n1, b's on n2; n2's loss serves both.
    const node = (name: string, labels: string) => nodeYaml(name, 'a').replace('topology.kubernetes.io/zone: a', `topology.kubernetes.io/zone: a, ${labels}`);
    const input = loadInput({
      text: listYaml(
        node('n1', 'left: "1"'),
        node('n2', 'left: "1", right: "1"'),
        node('n3', 'right: "1"'),
        deploymentYaml('a', 2, '        nodeSelector: {left: "1"}'),
        deploymentYaml('b', 2, '        nodeSelector: {right: "1"}'),
      ),
    });
    assert.deepEqual(
      stackedAfterRecovery.run(contextFor(input)).map((f) => [f.object, f.message.match(/^after node (\S+) is lost/)?.[1]]),
      [
        ['Deployment/default/a', 'n2'],
        ['Deployment/default/b', 'n2'],
      ],
    );
  });
});

describe('stacked-after-recovery: keptApart never hides a finding', () => {
  const self = (key: string, selector: string) => `        affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: ${key}, labelSelector: ${selector}}]}}`;
  const variants = (app: string): string[] => [
    '',
    `        affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: ${app}}}}}]}}`,
    self('kubernetes.io/hostname', `{matchLabels: {app: ${app}}}`),
    self('topology.kubernetes.io/zone', `{matchLabels: {app: ${app}}}`),
    self('kubernetes.io/hostname', '{matchLabels: {app: other}}'),
    self('kubernetes.io/hostname', `{matchExpressions: [{key: app, operator: In, values: [${app}, other]}]}`),
    self('kubernetes.io/hostname', '{matchExpressions: [{key: app, operator: NotIn, values: [zzz]}]}'),
    self('kubernetes.io/hostname', '{matchExpressions: [{key: app, operator: Exists}]}'),
    self('rack', `{matchLabels: {app: ${app}}}`),
  ];
  /** A Deployment counted by `app`'s group: its labels carry app, its selector one more. */
  const lookalike = (app: string, spec: string) =>
    deploymentYaml(`${app}-x`, 2, spec)
      .replace(`selector: {matchLabels: {app: ${app}-x}}`, `selector: {matchLabels: {app: ${app}, tier: x}}`)
      .replace(`labels: {app: ${app}-x}`, `labels: {app: ${app}, tier: x}`);
  const node = (i: number, zone: boolean, rack: boolean, cpu: string) =>
    `- {apiVersion: v1, kind: Node, metadata: {name: n${i}, labels: {kubernetes.io/hostname: n${i}${zone ? `, topology.kubernetes.io/zone: z${i % 2}` : ''}${rack ? `, rack: r${i}` : ''}}}, status: {allocatable: {cpu: "${cpu}", memory: 16Gi, pods: "110"}}}`;
  const arbitraryCluster = fc.record({
    nodes: fc.array(fc.record({ zone: fc.boolean(), rack: fc.boolean(), cpu: fc.constantFrom('1', '2', '4') }), { minLength: 2, maxLength: 5 }),
    apps: fc.array(fc.record({ replicas: fc.integer({ min: 2, max: 4 }), variant: fc.nat(8), lookalike: fc.option(fc.nat(8), { freq: 3 }) }), { minLength: 1, maxLength: 3 }),
    /** A NodePool: the provisioner launches nodes (with a hostname, without the rack label) for pods that fit nowhere. */
    pool: fc.boolean(),
    /** Every node in a rack (else only those drawn so). */
    racked: fc.boolean(),
  });
  const pool = `- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: default}
  spec:
    template:
      spec:
        requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}, {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}]
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
    limits: {cpu: "8"}`;

  it('anti-affinity on a key launched nodes lack does not keep replicas apart: the provisioner puts one on a new node, where the lost one joins it', () => {
    const spec = '        affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: rack, labelSelector: {matchLabels: {app: a}}}]}}';
    const ctx = contextFor(loadInput({ text: listYaml(node(0, false, true, '1'), node(1, false, true, '1'), deploymentYaml('a', 3, spec), pool) }));
    const [group] = podGroups(ctx.input);
    const { t0, placements } = settledGroups(ctx, [group!]);
    const at = placements.get(group!)!;
    assert.deepEqual(at.map((p) => p.pods.length), [1, 1, 1], 'one replica per node, one of them launched');
    assert.equal(keptApart(ctx, group!, at), false);
    assert.ok(runCycle(ctx, 'n0', t0, [group!]).stacked.has(group!), 'the replacement joins the replica on the launched node');
  });

  it('in random clusters, a group keptApart ends stacked after no node loss and return (and others do)', () => {
    let kept = 0;
    let stacked = 0;
    fc.assert(
      fc.property(arbitraryCluster, ({ nodes, apps, pool: launches, racked }) => {
        const names = apps.map((_, i) => `app${i}`);
        const items = [
          ...nodes.map((n, i) => node(i, n.zone, racked || n.rack, n.cpu)),
          ...apps.flatMap((a, i) => [deploymentYaml(names[i]!, a.replicas, variants(names[i]!)[a.variant]), ...(a.lookalike === null ? [] : [lookalike(names[i]!, variants(names[i]!)[a.lookalike]!)])]),
          ...(launches ? [pool] : []),
        ];
        const ctx = contextFor(loadInput({ text: listYaml(...items) }));
        const groups = podGroups(ctx.input).filter((g) => g.workload && g.replicas >= 2);
        const { t0, placements } = settledGroups(ctx, groups);
        for (const [g, at] of placements) {
          if (at.length < 2 || at.some((p) => p.pods.length > 1)) continue;
          const apart = keptApart(ctx, g, at);
          kept += Number(apart);
          for (const { node: n } of at) {
            const ends = runCycle(ctx, n.name, t0, [g]).stacked.size > 0;
            stacked += Number(ends);
            assert.ok(!(apart && ends), `${g.object} kept apart, yet stacked after ${n.name} fails:\n${items.join('\n')}`);
          }
        }
      }),
      { numRuns: 80, seed: 21 },
    );
    assert.ok(kept >= 10 && stacked >= 10, `the generator exercises both sides: ${kept} kept apart, ${stacked} stacked cycles`);
  });
});
