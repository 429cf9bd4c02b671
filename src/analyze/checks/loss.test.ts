import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Check } from '../check.js';
import { checkCases, contextFor, deploymentYaml, listYaml, loadInput, nodeYaml, nodesYaml, type CheckCase } from '../test-input.js';
import type { Node } from '../../model/node.js';
import type { PodGroup } from '../pod-groups.js';
import { apart, batches, lossRecoveries, nodeLossCheck, simulateLoss, UNITS_PER_ZONE, zoneLossCheck, type Unit } from './loss.js';
import { podGroups } from '../pod-groups.js';

const antiAffinity = `        affinity:
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}`;
const pdb = (min: number) => `- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: web, namespace: default}, spec: {minAvailable: ${min}, selector: {matchLabels: {app: web}}}}`;

const cases: (CheckCase & { check: Check })[] = [
  { name: 'incident 2b: preferred anti-affinity stacks both kube-dns replicas on the one node', check: nodeLossCheck, input: () => loadInput({ file: 'examples/kube-dns-preferred.yaml' }), want: ['error Deployment/kube-system/kube-dns'], message: /all 2 ready replicas run on node node-1/ },
  { name: 'incident 2a: required anti-affinity on one node leaves a single ready replica', check: nodeLossCheck, input: () => loadInput({ file: 'examples/kube-dns-required.yaml' }), want: ['error Deployment/kube-system/kube-dns'], message: /the only ready replica runs on node node-1 \(the other 1 of 2 never got a place\)/ },
  { name: 'a single replica is a warning: it cannot survive any loss', check: nodeLossCheck, input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'a'), deploymentYaml('web', 1)) }), want: ['warning Deployment/default/web'], message: /its only replica runs on node n1.*1 ready again/ },
  {
    name: 'two replicas stacked on one of two nodes: the PDB (minAvailable 2 of 3) breaks when that node goes',
    check: nodeLossCheck,
    input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a', '1.5'), nodeYaml('n2', 'a', '1'), deploymentYaml('web', 3), pdb(2)) }),
    want: ['warning Deployment/default/web'],
    message: /leaves 1\/3 ready for .*below the 2 PodDisruptionBudget default\/web asks for/,
  },
  { name: 'clean: two replicas kept apart on three nodes, one to spare', check: nodeLossCheck, input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'a'), nodeYaml('n3', 'a'), deploymentYaml('web', 2, antiAffinity)) }), want: [] },
  {
    name: 'both replicas in zone a (zone b has no room for them): losing zone a takes the workload down',
    check: zoneLossCheck,
    input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'a'), nodeYaml('n3', 'b', '0.2'), deploymentYaml('web', 2, antiAffinity)) }),
    want: ['error Deployment/default/web'],
    message: /all 2 ready replicas run in zone a/,
  },
  { name: 'clean zones: one replica per zone with room to spare', check: zoneLossCheck, input: () => loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'b'), nodeYaml('n3', 'c'), deploymentYaml('web', 2)) }), want: [] },
  { name: 'one zone only: zone loss is not analysed (co-location reports it)', check: zoneLossCheck, input: () => loadInput({ file: 'examples/kube-dns-preferred.yaml' }), want: [] },
];

describe('node-loss and zone-loss', () => {
  for (const check of [nodeLossCheck, zoneLossCheck]) {
    describe(check.rule, () =>
      checkCases(check, cases.filter((c) => c.check === check), (f) => {
        assert.ok(f.evidence.some((e) => /fail(Node|Zone)/.test(e)), 'the evidence shows the simulated loss');
        assert.match(f.evidence[0]!, check === nodeLossCheck ? /^failure model "node loss"/ : /^failure model "zone loss"/);
        assert.ok(f.remedies && f.remedies.length > 0, 'a machine-applicable fix');
      }),
    );
  }

  it('with the provisioner on, the lost replica comes back on a launched node and the finding says recovery needs it', () => {
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'us-west-2a'), nodeYaml('n2', 'us-west-2b', '0.2'), deploymentYaml('web', 2, antiAffinity)) }, { file: 'examples/nodepools/default.yaml' });
    const findings = nodeLossCheck.run(contextFor(input, { provisioner: true }));
    assert.ok(findings.length > 0);
    const f = findings[0]!;
    assert.equal(f.severity, 'info');
    assert.match(f.message, /1 of 2 replicas are down for .*they come back only on capacity the provisioner launches/);
    assert.ok(f.evidence.some((e) => /NodeClaimLaunched/.test(e)), f.evidence.join('\n'));
  });
  it('with the provisioner off, two groups on the lost node each learn that it would have brought them back (one run with it on, a tracker per group)', () => {
    const apart = (app: string) => antiAffinity.replace('app: web', `app: ${app}`);
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'us-west-2a'), nodeYaml('n2', 'us-west-2b', '1'), deploymentYaml('web', 2, apart('web')), deploymentYaml('api', 2, apart('api'))) }, { file: 'examples/nodepools/default.yaml' });
    const findings = nodeLossCheck.run(contextFor(input, { provisioner: false }));
    assert.deepEqual(findings.map((f) => f.object).sort(), ['Deployment/default/api', 'Deployment/default/web']);
    for (const f of findings) assert.match(f.message, /are not back .*though the provisioner \(off\) would launch capacity for them/, f.message);
  });
});

describe('eviction timing in the evidence', () => {
  it('the only node lost: nothing is evicted, and the message says why (every node NotReady stops all evictions)', () => {
    const [f] = nodeLossCheck.run(contextFor(loadInput({ file: 'examples/kube-dns-preferred.yaml' })));
    assert.match(f!.message, /not back 10m00s later \(no pod is evicted: every node is NotReady/);
  });

  it('one of several nodes lost: the NoExecute taint and the 300 s toleration are in the evidence', () => {
    const [f] = nodeLossCheck.run(contextFor(loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'a'), deploymentYaml('web', 1)) })));
    assert.ok(f!.evidence.some((e) => /n1 gets the node.kubernetes.io\/unreachable:NoExecute taint .*300 s/.test(e)), f!.evidence.join('\n'));
  });

  it('zone loss with a NodePool: no replacement is launched into the failed zone', () => {
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'us-west-2a'), nodeYaml('n2', 'us-west-2b', '0.2'), deploymentYaml('web', 2)) }, { file: 'examples/nodepools/default.yaml' });
    const findings = zoneLossCheck.run(contextFor(input, { provisioner: true }));
    assert.ok(findings.length > 0);
    for (const f of findings) {
      assert.ok(!f.evidence.some((e) => /NodeClaimLaunched .* in us-west-2a/.test(e)), f.evidence.join('\n'));
      assert.ok(f.evidence.some((e) => /NodeClaimLaunched .* in us-west-2[bcd]/.test(e)), f.evidence.join('\n'));
    }
  });
});

describe('node-loss of a StatefulSet', () => {
  it('its pod on the lost node stays Terminating, so the replica is not back: the fix is removing the node, not capacity', () => {
    const sts = `- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: db, namespace: default}
  spec:
    replicas: 2
    selector: {matchLabels: {app: db}}
    template:
      metadata: {labels: {app: db}}
      spec:
        containers: [{name: c, image: db:v1, resources: {requests: {cpu: 500m}}}]`;
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'a'), nodeYaml('n3', 'a'), sts) });
    const findings = nodeLossCheck.run(contextFor(input));
    assert.ok(findings.length > 0);
    for (const f of findings) {
      assert.equal(f.severity, 'warning');
      assert.match(f.message, /ready replicas are not back 10m00s later/);
      assert.match(f.fix[0]!, /replaced only once its Node object is deleted/);
      assert.ok(f.evidence.some((e) => /PodTerminating default\/db-\d .*TaintManagerEviction/.test(e)));
    }
  });
});

describe('zone-loss of a StatefulSet with zonal volumes', () => {
  it('one replica per zone (examples/etcd-zonal-volumes.yaml): the one in the lost zone cannot return, its volume is there; 2/3 keep running (info)', () => {
    const input = loadInput({ file: 'examples/etcd-zonal-volumes.yaml' });
    const findings = zoneLossCheck.run(contextFor(input, {}));
    assert.deepEqual(findings.map((f) => `${f.severity} ${f.object}`), ['info StatefulSet/kube-system/etcd']);
    const f = findings[0]!;
    assert.match(f.message, /; 1 of 3 replica\(s\) cannot return outside zone (us-west-2[abc]): their volumes are there — kube-system\/etcd-\d \(claim data-etcd-\d → PersistentVolume pvc-kube-system-data-etcd-\d in zone \1\)/);
    assert.match(f.fix[0]!, /return only when it does, and 2 of 3 keep running meanwhile; .*a regional or replicated class/);
  });

  it('a class pinned to one zone (examples/etcd-single-zone-volumes.yaml): all 3 replicas are stranded (error); spreading them and unpinning the class, re-checked, leaves one stranded replica of 3', () => {
    const input = loadInput({ file: 'examples/etcd-single-zone-volumes.yaml' });
    const findings = zoneLossCheck.run(contextFor(input, {}));
    assert.deepEqual(findings.map((f) => `${f.severity} ${f.object}`), ['error StatefulSet/kube-system/etcd']);
    const f = findings[0]!;
    assert.match(f.message, /3 of 3 replica\(s\) cannot return outside zone us-west-2a: their volumes are there/);
    assert.equal(f.evidence.filter((e) => /no surviving node matches its node affinity/.test(e)).length, 3);
    const remedy = f.remedies![0]!;
    assert.match(remedy.description, /topology spread constraint on topology.kubernetes.io\/zone.*remove allowedTopologies from StorageClass gp3-us-west-2a/);
    const again = zoneLossCheck.run(contextFor(remedy.apply(input), {}));
    assert.deepEqual(again.map((x) => x.severity), ['info']);
    assert.match(again[0]!.message, /1 of 3 replica\(s\) cannot return/);
  });
});

describe('lossRecoveries', () => {
  // Twenty nodes in one zone, so two fail per batch (the second evicted 10 s later, 362 s against 352 s alone); four one-replica workloads, each on its own node.
  const input = () => loadInput({ text: nodesYaml(20, ['us-west-2a']) }, { text: listYaml(...['a', 'b', 'c', 'd'].map((n) => deploymentYaml(n, 1))) });
  it('a loss over the limit in its batch is what simulating it alone gives (the batch\'s other node delays its eviction by 10 s)', () => {
    const ctx = contextFor(input(), { provisioner: false });
    const all = lossRecoveries(ctx, 'node', 355);
    assert.equal(all.length, 4);
    for (const r of all) assert.deepEqual(r.verdicts, simulateLoss(ctx, 'node', r.target)!.verdicts, r.target);
  });
});

describe('loss batches', () => {
  it('fail at most UNITS_PER_ZONE units of one zone together (the zone taints its unreachable nodes one per 10 s), and never two units of one group', () => {
    // 60 nodes of one zone and 6 of another, each running one replica of its own workload.
    const unit = (i: number): Unit => {
      const name = `n${i}`;
      const group = { object: `Deployment/default/w${i}` } as PodGroup;
      const node = { name, labels: { 'topology.kubernetes.io/zone': i < 60 ? 'a' : 'b' } } as unknown as Node;
      return { label: `node ${name}`, name, steps: [], nodes: [node], hosts: new Map([[group, 1]]) };
    };
    const list = Array.from({ length: 66 }, (_, i) => unit(i));
    const packed = batches(list, 40, UNITS_PER_ZONE);
    assert.equal(UNITS_PER_ZONE, 13);
    assert.deepEqual(packed.map((b) => b.length), [19, 13, 13, 13, 8]);
    for (const b of packed) assert.ok(b.filter((u) => u.nodes[0]!.labels['topology.kubernetes.io/zone'] === 'a').length <= UNITS_PER_ZONE);
    assert.deepEqual(packed.flat().map((u) => u.name).sort(), list.map((u) => u.name).sort());
    // Units sharing a group never share a batch.
    const shared = { object: 'Deployment/default/shared' } as PodGroup;
    const two = [unit(0), unit(1)].map((u) => ({ ...u, hosts: new Map([[shared, 1]]) }));
    assert.equal(batches(two, 40, UNITS_PER_ZONE).length, 2);
  });
});

describe('groups apart (a shared input\'s zone-loss proofs place them all at once)', () => {
  const groupsOf = (...items: string[]) => podGroups(loadInput({ text: listYaml(nodeYaml('n1', 'a'), ...items) }));
  const relabel = (yaml: string, labels: string) => yaml.replace(/\{app: (\w+)\}/g, labels);
  const cases = [
    { name: 'workloads selecting one label key with values of their own', items: [deploymentYaml('web', 2), deploymentYaml('api', 2)], want: true },
    { name: 'two workloads selecting the same value', items: [deploymentYaml('web', 2), relabel(deploymentYaml('web2', 2), '{app: web}')], want: false },
    { name: 'two workloads selecting by different keys (a pod may carry both)', items: [deploymentYaml('web', 2), relabel(deploymentYaml('api', 2), '{tier: api}')], want: false },
    { name: 'the same value in two namespaces', items: [deploymentYaml('web', 2), deploymentYaml('web', 2).replace(/namespace: default/g, 'namespace: other')], want: true },
  ];
  for (const c of cases) it(c.name, () => assert.equal(apart(groupsOf(...c.items)), c.want));
});

