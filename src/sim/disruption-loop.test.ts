import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadSources } from '../io/load.js';
import { loadScenario } from '../io/scenario.js';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import { runScenario } from './scenario.js';

const TYPES = bundledInstanceTypes();

function pool(disruption: string, template = '', requirements = ''): string {
  return `
  - apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata: {name: default}
    spec:
      template:
        spec:
          requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}${requirements}]
          nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}${template}
      disruption: ${disruption}`;
}

/** n nodes of m5.xlarge already in the pool (annotations on the first), as `kubectl get nodes` would show them. */
function nodes(n: number, firstAnnotations = '{}'): string {
  return Array.from({ length: n }, (_, i) => `
  - apiVersion: v1
    kind: Node
    metadata:
      name: n${i}
      annotations: ${i === 0 ? firstAnnotations : '{}'}
      labels: {karpenter.sh/nodepool: default, karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: m5.xlarge, karpenter.k8s.aws/instance-family: m5, topology.kubernetes.io/zone: us-west-2a}
    status: {allocatable: {cpu: 3920m, memory: 14Gi, pods: "58"}}`).join('');
}

function app(replicas: number, cpu: string, antiAffinity = false): string {
  const affinity = antiAffinity ? `
          affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}` : '';
  return `
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web}
    spec:
      replicas: ${replicas}
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:${affinity}
          containers: [{name: web, image: web:1, resources: {requests: {cpu: "${cpu}", memory: 256Mi}}}]`;
}

const PDB = `
  - apiVersion: policy/v1
    kind: PodDisruptionBudget
    metadata: {name: web}
    spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}`;

function run(body: string, opts: { whyNotEvents?: boolean } = {}) {
  const text = `apiVersion: berth.dev/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspec:\n${body}`;
  const s = loadScenario({ name: 't.yaml', text });
  assert.ok(s.ok, JSON.stringify(!s.ok && s.errors));
  const loaded = loadSources([{ name: 't.yaml', text }]);
  assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.errors));
  const r = runScenario(loaded.input, s.scenario.spec, { instanceTypes: TYPES, ...opts });
  for (const e of r.expectations) assert.ok(e.passed, `${e.name}: ${e.detail}`);
  return r;
}

const disrupted = (r: ReturnType<typeof run>, reason?: string) => r.events.filter((e) => e.type === 'NodeDisrupted' && (reason === undefined || e['reason'] === reason)).map((e) => e['node']);

describe('disruption loop', () => {
  it('consolidates underutilized nodes within a budget of 2 at a time, never leaving a pod without a node', () => {
    const r = run(`  until: 20m
  disruption: {enabled: true}
  objects:${pool('{budgets: [{nodes: "2"}]}')}${nodes(6)}${app(6, '500m')}${PDB}
  expect:
  - disruptions: {reason: Underutilized, min: 4, maxConcurrent: 2}
  - allScheduled: {}
  - at: 1m
    availableReplicas: {deployment: web, min: 5, throughout: true}`);
    assert.ok(r.final.nodes.length <= 2, `${r.final.nodes.length} nodes left`);
    // Every evicted pod is accounted for: the pod standing in for it, on another node.
    const evicted = r.events.filter((e) => e.type === 'DisruptionEviction').map((e) => e['pod']);
    const placed = r.events.filter((e) => e.type === 'DisruptedPodPlaced');
    assert.deepEqual(placed.map((e) => e['evicted']).sort(), [...evicted].sort());
    for (const e of placed) assert.notEqual(e['node'], e['from']);
  });

  it('reports why a node is not disrupted as Karpenter\'s DisruptionBlocked event, once per node per 2 minutes', () => {
    const pinned = app(1, '500m').replace('metadata: {labels: {app: web}}', 'metadata: {labels: {app: web}, annotations: {karpenter.sh/do-not-disrupt: "true"}}');
    const r = run(`  until: 12m
  disruption: {enabled: true}
  objects:${pool('{consolidationPolicy: WhenEmptyOrUnderutilized, budgets: [{nodes: "100%"}]}')}${nodes(1)}${pinned}`);
    const blocked = r.events.filter((e) => e.type === 'DisruptionBlocked');
    assert.ok(blocked.length >= 2, `${blocked.length} events`);
    assert.match(String(blocked[0]!['message']), /^Pod has "karpenter.sh\/do-not-disrupt" annotation \(Pod=default\/web-/);
    for (let i = 1; i < blocked.length; i++) assert.ok(blocked[i]!.t - blocked[i - 1]!.t >= 120_000);
  });

  it('without why-not events (the what-if reads none) it records none and decides the same', () => {
    const pinned = app(1, '500m').replace('metadata: {labels: {app: web}}', 'metadata: {labels: {app: web}, annotations: {karpenter.sh/do-not-disrupt: "true"}}');
    const body = `  until: 20m
  disruption: {enabled: true}
  objects:${pool('{budgets: [{nodes: "2"}]}')}${nodes(6)}${pinned.replace('name: web}', 'name: pinned}').replaceAll('app: web', 'app: pinned')}${app(6, '500m')}${PDB}`;
    const why = (r: ReturnType<typeof run>) => r.events.filter((e) => e.type === 'DisruptionBlocked' || e.type === 'Unconsolidatable').length;
    const [all, quiet] = [run(body), run(body, { whyNotEvents: false })];
    assert.ok(why(all) > 0);
    assert.equal(why(quiet), 0);
    const decisions = (r: ReturnType<typeof run>) => r.events.filter((e) => e.type === 'Disrupting' || e.type === 'NodeDisrupted');
    assert.ok(decisions(all).length > 0);
    assert.deepEqual(decisions(quiet), decisions(all));
  });

  it('waits consolidateAfter from the last pod event, then consolidates within a poll and the 15 s check', () => {
    const r = run(`  until: 10m
  disruption: {enabled: true}
  objects:${pool('{consolidateAfter: 3m, budgets: [{nodes: "100%"}]}')}${nodes(3)}${app(3, '500m')}
  expect:
  - disruptions: {min: 1}`);
    const first = r.events.find((e) => e.type === 'DisruptionProposed')!;
    assert.ok(first.t >= 3 * 60_000 && first.t <= 3 * 60_000 + 10_000, `first proposal at ${first.t}`);
  });

  it('replaces a spot node by a cheaper spot node only with spotToSpotConsolidation', () => {
    const spotPool = pool('{budgets: [{nodes: "100%"}]}').replace('values: [on-demand]', 'values: [spot]');
    const bigSpot = nodes(1).replace('on-demand', 'spot').replace('m5.xlarge', 'm5.4xlarge');
    const scenario = (flag: boolean) => `  until: 5m
  disruption: {enabled: true, spotToSpotConsolidation: ${flag}}
  objects:${spotPool}${bigSpot}${app(1, '500m')}
  expect:
  - allScheduled: {}`;
    assert.deepEqual(disrupted(run(scenario(false))), []);
    const on = run(scenario(true));
    assert.deepEqual(disrupted(on, 'Underutilized'), ['n0']);
    assert.match(String(on.events.find((e) => e.type === 'Disrupting')!['replacements']), /\/spot$/);
  });

  it('an expiring node waits for its do-not-disrupt pod, until the NodePool\'s terminationGracePeriod', () => {
    const pinned = `
  - apiVersion: v1
    kind: Pod
    metadata: {name: batch, annotations: {karpenter.sh/do-not-disrupt: "true"}}
    spec: {nodeName: n0, terminationGracePeriodSeconds: 30, containers: [{name: c, image: b, resources: {requests: {cpu: 100m}}}]}`;
    const scenario = (tgp: string) => `  until: 20m
  disruption: {enabled: true}
  objects:${pool('{budgets: [{nodes: "100%"}]}', `\n          expireAfter: 10m${tgp}`)}${nodes(1)}${pinned}
  expect:
  - disruptions: {reason: Expired, max: 1}`;
    const waits = run(scenario(''));
    assert.ok(waits.events.some((e) => e.type === 'NodeExpired'));
    assert.deepEqual(disrupted(waits), []);
    const bounded = run(scenario('\n          terminationGracePeriod: 2m'));
    // The drain starts once the replacement is up; 2 min later the pod is deleted anyway and gets its 30 s.
    const drainFrom = bounded.events.find((e) => e.type === 'ReplacementsInitialized')!.t;
    const gone = bounded.events.find((e) => e.type === 'NodeDisrupted')!.t - drainFrom;
    assert.ok(gone >= 150_000 && gone <= 155_000, `deleted ${gone} ms after the drain started`);
  });

  it('drops a drift replacement whose new node is terminated before it initializes, untainting the old node', () => {
    const template = `
          startupTaints: [{key: example.com/agent, effect: NoSchedule}]`;
    const scenario = (steps: string) => `  until: 6m
  disruption: {enabled: true}
  timing: {startupTaints: 3m}
  objects:${pool('{budgets: [{nodes: "1"}]}', template)}${app(1, '1')}
  steps:
  - at: 5m
    updateNodePool:
      metadata: {name: default}
      spec:
        template:
          metadata: {labels: {generation: "2"}}
          spec:
            requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
            nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}${template}
        disruption: {budgets: [{nodes: "1"}]}${steps}`;
    const first = run(scenario(''));
    const launched = first.events.find((e) => e.type === 'Disrupting')!;
    const replacement = String(launched['replacements']).split(':')[0]!;
    const registered = first.events.find((e) => e.type === 'NodeAdded' && e['node'] === replacement)!;
    const r = run(scenario(`\n  - at: ${(registered.t + 10_000) / 1000}s\n    terminateNode: {node: ${replacement}}`));
    const failed = r.events.find((e) => e.type === 'DisruptionFailed');
    assert.match(String(failed?.['message']), /terminated before it initialized/);
    const old = String(launched['nodes']);
    assert.ok(r.final.nodes.some((n) => n.name === old));
    assert.ok(r.events.some((e) => e.type === 'NodeUpdated' && e['node'] === old && e['reason'] === 'DisruptionTaintRemoved' && e.t === failed!.t));
  });

  it('honours karpenter.sh/do-not-disrupt on a node', () => {
    const r = run(`  until: 20m
  disruption: {enabled: true}
  objects:${pool('{budgets: [{nodes: "100%"}]}')}${nodes(3, '{karpenter.sh/do-not-disrupt: "true"}')}${app(3, '500m')}
  expect:
  - disruptions: {min: 1}`);
    assert.ok(!disrupted(r).includes('n0'));
    assert.ok(r.final.nodes.some((n) => n.name === 'n0'));
  });

  it('WhenEmpty deletes the empty node only', () => {
    const r = run(`  until: 20m
  disruption: {enabled: true}
  objects:${pool('{consolidationPolicy: WhenEmpty, budgets: [{nodes: "100%"}]}')}${nodes(4)}${app(3, '500m')}
  expect:
  - disruptions: {reason: Empty, min: 1, max: 1}
  - disruptions: {reason: Underutilized, max: 0}
  - nodeCount: {min: 3, max: 3}`);
    assert.equal(disrupted(r).length, 1);
  });

  it('a node seen NotReady stays a candidate but spends one of its NodePool\'s disruptions (Karpenter\'s budgets)', () => {
    const r = run(`  until: 4m
  disruption: {enabled: true}
  objects:${pool('{consolidationPolicy: WhenEmpty, consolidateAfter: 115s, budgets: [{nodes: "2"}]}')}${nodes(4)}
  steps:
  - at: 0s
    failNode: {node: n0}`);
    const first = r.events.find((e) => e.type === 'Disrupting');
    // Four empty nodes, a budget of 2: the NotReady n0 spends one, so one node goes at a time, n0 (first by name) among them.
    assert.equal(first?.['nodes'], 'n0');
  });

  it('a consolidation decision is checked again after 15 s and dropped when pods arrived meanwhile', () => {
    // m5 only: two m5.xlarge cannot become one cheaper node, so the decision is a delete that stops fitting.
    const r = run(`  until: 2m
  disruption: {enabled: true}
  objects:${pool('{budgets: [{nodes: "100%"}]}', '', ', {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}')}${nodes(2)}${app(2, '1500m')}
  steps:
  - at: 15s
    scale: {deployment: web, replicas: 4}
  expect:
  - allScheduled: {}`);
    const proposed = r.events.find((e) => e.type === 'DisruptionProposed');
    const dropped = r.events.find((e) => e.type === 'DisruptionInvalidated');
    assert.ok(proposed && dropped, 'a proposal and its invalidation');
    assert.equal(dropped.t - proposed.t, 15_000);
    assert.deepEqual(disrupted(r), []);
  });

  it('expires nodes after expireAfter, replacing them before they go, whatever the budget', () => {
    const r = run(`  until: 25m
  disruption: {enabled: true}
  objects:${pool('{budgets: [{nodes: "0"}]}', '\n          expireAfter: 10m')}${app(2, '1', true)}${PDB}
  expect:
  - disruptions: {reason: Expired, min: 2}
  - allScheduled: {}
  - at: 2m
    availableReplicas: {deployment: web, min: 1, throughout: true}`);
    const expired = r.events.find((e) => e.type === 'NodeExpired')!;
    assert.ok(expired.t >= 10 * 60_000 && expired.t < 11 * 60_000, `expired at ${expired.t}`);
  });
});
