// Random scenarios for the invariant checker: nodes over zones (some tainted),
// Deployments and StatefulSets with required anti-affinity, zone affinity, node
// selectors, tolerations and DoNotSchedule spread, PDBs, an optional NodePool with
// limits, and timed steps — scale, rollout, drain, cordon, node and zone failures,
// terminations, spot interruptions, capacity shortages, nodes added and removed.
// Each is a berth.dev/v1alpha1 Scenario text run through the same loader as
// `berth simulate`, so a scenario that breaks an invariant can be replayed with it.

import fc from 'fast-check';
import { stringify } from 'yaml';
import { loadSources } from '../../src/io/load.js';
import { loadScenario } from '../../src/io/scenario.js';
import { bundledInstanceTypes } from '../../src/provisioner/catalog/catalog.js';
import { checkConverged, watchInvariants, type PdbRule, type Violation } from '../../src/sim/invariants.js';
import { runScenario } from '../../src/sim/scenario.js';

const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c'];

const nodeArb = fc.record({ cpu: fc.integer({ min: 1, max: 8 }), memGi: fc.integer({ min: 2, max: 16 }), zone: fc.nat(2), tainted: fc.boolean() });

const appArb = fc.record({
  kind: fc.constantFrom('Deployment', 'Deployment', 'StatefulSet'),
  replicas: fc.integer({ min: 0, max: 6 }),
  cpuMilli: fc.integer({ min: 100, max: 2500 }),
  memMi: fc.integer({ min: 64, max: 4096 }),
  antiAffinity: fc.boolean(),
  zoneSpread: fc.option(fc.record({ maxSkew: fc.integer({ min: 1, max: 2 }), minDomains: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }) }), { nil: undefined }),
  affinityTo: fc.option(fc.nat(3), { nil: undefined }),
  zoneSelector: fc.option(fc.nat(2), { nil: undefined }),
  tolerates: fc.boolean(),
  pdb: fc.option(fc.oneof(fc.record({ minAvailable: fc.integer({ min: 0, max: 4 }) }), fc.record({ maxUnavailable: fc.integer({ min: 1, max: 2 }) })), { nil: undefined }),
  strategy: fc.constantFrom<Record<string, unknown>>({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } }, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }, { type: 'Recreate' }),
});

const stepArb = fc.record({
  at: fc.integer({ min: 0, max: 900 }),
  action: fc.constantFrom('scale', 'rollout', 'failNode', 'recoverNode', 'drain', 'cordon', 'uncordon', 'terminateNode', 'spotInterruption', 'failZone', 'recoverZone', 'addNode', 'removeNode', 'insufficientCapacity'),
  target: fc.nat(7),
  replicas: fc.integer({ min: 0, max: 8 }),
});

export const scenarioArb = fc.record({
  nodes: fc.array(nodeArb, { minLength: 1, maxLength: 6 }),
  apps: fc.array(appArb, { minLength: 1, maxLength: 4 }),
  nodePool: fc.option(fc.record({ cpuLimit: fc.integer({ min: 2, max: 40 }) }), { nil: undefined, freq: 2 }),
  steps: fc.array(stepArb, { maxLength: 8 }),
  seed: fc.nat(1000),
});
export type ScenarioParams = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

/** The Scenario text for generated parameters. */
export function scenarioText(p: ScenarioParams): string {
  const nodeName = (i: number) => `n${i}`;
  const objects: unknown[] = p.nodes.map((n, i) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: nodeName(i), labels: { 'kubernetes.io/hostname': nodeName(i), 'topology.kubernetes.io/zone': ZONES[n.zone], 'kubernetes.io/os': 'linux' } },
    spec: n.tainted ? { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] } : {},
    status: { allocatable: { cpu: String(n.cpu), memory: `${n.memGi}Gi`, pods: '20' } },
  }));
  p.apps.forEach((a, i) => {
    const name = `app${i}`;
    const labels = { app: name };
    const affinity: Record<string, unknown> = {};
    if (a.antiAffinity) affinity['podAntiAffinity'] = { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: labels } }] };
    if (a.affinityTo !== undefined && a.affinityTo % p.apps.length !== i) affinity['podAffinity'] = { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: { app: `app${a.affinityTo % p.apps.length}` } } }] };
    if (a.zoneSelector !== undefined) affinity['nodeAffinity'] = { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: [ZONES[a.zoneSelector]] }] }] } };
    const spec = {
      ...(Object.keys(affinity).length ? { affinity } : {}),
      ...(a.zoneSpread ? { topologySpreadConstraints: [{ maxSkew: a.zoneSpread.maxSkew, ...(a.zoneSpread.minDomains ? { minDomains: a.zoneSpread.minDomains } : {}), topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: labels } }] } : {}),
      ...(a.tolerates ? { tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }] } : {}),
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      terminationGracePeriodSeconds: 10,
      containers: [{ name: 'c', image: 'img:1', resources: { requests: { cpu: `${a.cpuMilli}m`, memory: `${a.memMi}Mi` } } }],
    };
    objects.push({
      apiVersion: 'apps/v1',
      kind: a.kind,
      metadata: { name, namespace: 'default' },
      spec: { replicas: a.replicas, selector: { matchLabels: labels }, ...(a.kind === 'Deployment' ? { strategy: a.strategy } : { serviceName: name }), template: { metadata: { labels }, spec } },
    });
    if (a.pdb && a.kind === 'Deployment') objects.push({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: 'default' }, spec: { ...a.pdb, selector: { matchLabels: labels } } });
  });
  if (p.nodePool) {
    objects.push({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'pool' },
      spec: {
        template: { spec: { requirements: [{ key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm'] }, { key: 'topology.kubernetes.io/zone', operator: 'In', values: ZONES }], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } },
        limits: { cpu: String(p.nodePool.cpuLimit) },
      },
    });
  }
  let added = 0;
  const steps = [...p.steps]
    .sort((a, b) => a.at - b.at)
    .map((s) => {
      const app = p.apps[s.target % p.apps.length]!;
      const appIndex = s.target % p.apps.length;
      const workload = app.kind === 'Deployment' ? { deployment: `app${appIndex}` } : { statefulSet: `app${appIndex}` };
      const node = nodeName(s.target % p.nodes.length);
      const zone = ZONES[s.target % ZONES.length];
      const body: Record<string, unknown> = {
        scale: { ...workload, replicas: s.replicas },
        rollout: { ...workload, image: `img:${s.at}` },
        failNode: { node },
        recoverNode: { node },
        drain: { node },
        cordon: { node },
        uncordon: { node },
        terminateNode: { node },
        spotInterruption: { node },
        failZone: { zone },
        recoverZone: { zone },
        addNode: { apiVersion: 'v1', kind: 'Node', metadata: { name: `extra${added++}`, labels: { 'kubernetes.io/hostname': `extra${added}`, 'topology.kubernetes.io/zone': zone, 'kubernetes.io/os': 'linux' } }, status: { allocatable: { cpu: String(1 + (s.replicas % 4)), memory: '8Gi', pods: '20' } } },
        removeNode: { node },
        insufficientCapacity: { zone, for: '5m' },
      };
      return { at: `${s.at}s`, [s.action]: body[s.action] };
    });
  return stringify({ apiVersion: 'berth.dev/v1alpha1', kind: 'Scenario', metadata: { name: 'invariants' }, spec: { seed: p.seed, until: '30m', objects, steps } });
}

// A few sizes of two families: enough choice for the planner, and planning over the
// whole bundled catalog would make each scenario ten times slower.
const CATALOG = bundledInstanceTypes().filter((t) => /^(c6i|m6i)\.(large|xlarge|2xlarge)$/.test(t.name));

export interface InvariantRun {
  readonly violations: Violation[];
  readonly log: string;
  readonly events: number;
}

/** Loads and runs a generated scenario with every invariant watched; throws on a loader error (the generator writes valid input). */
/** `poolLimitOverride` checks against other limits than the pool runs with: how a test shows the limit check can fire. */
export function runWithInvariants(text: string, opts: { poolLimitOverride?: Record<string, number> } = {}): InvariantRun {
  const source = { name: 'invariants.yaml', text };
  const scenario = loadScenario(source);
  if (!scenario.ok) throw new Error(`generated scenario rejected: ${JSON.stringify(scenario.errors[0])}`);
  const loaded = loadSources([source]);
  if (!loaded.ok) throw new Error(`generated objects rejected: ${JSON.stringify(loaded.errors[0])}`);
  const instanceTypes = CATALOG;
  let violations: Violation[] = [];
  const run = runScenario(loaded.input, scenario.scenario.spec, {
    instanceTypes,
    observe: (sim) => {
      const pdbs: PdbRule[] = loaded.input.pdbs.map((b) => {
        const selector = b.selector;
        const owner = [...sim.deployments.objects.values()].find((d) => d.namespace === b.namespace && d.name === b.name);
        return {
          name: b.name,
          namespace: b.namespace,
          matches: (pod) => selector.matches(pod.labels),
          desiredHealthy: () => (b.minAvailable !== undefined ? Number(b.minAvailable) : Math.max(0, (owner?.replicas ?? 0) - Number(b.maxUnavailable ?? 0))),
        };
      });
      const nodePools = opts.poolLimitOverride ? loaded.input.nodePools.map((np) => ({ ...np, limits: opts.poolLimitOverride! })) : loaded.input.nodePools;
      violations = watchInvariants(sim, { nodePools, instanceTypes, pdbs });
    },
  });
  violations.push(...checkConverged(run.sim));
  return { violations, log: JSON.stringify(run.events), events: run.events.length };
}
