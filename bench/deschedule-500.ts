// One-off: one descheduling pass over a 500-node cluster after a repair. 400 nodes
// hold 100 Deployments' ReplicaSets (10 replicas each, 500m cpu, zone spread maxSkew 1
// ScheduleAnyway) packed two or three per node; 100 empty nodes have just joined.
// RemoveDuplicates, soft topology spread and LowNodeUtilization run with the
// scheduler validating every eviction, pass after pass until one evicts nothing.
// Usage: npx tsx bench/deschedule-500.ts
import { ClusterState } from '../src/cluster/state.js';
import { compileNode } from '../src/model/node.js';
import { bindPod, compilePod } from '../src/model/pod.js';
import { deschedule, type DeschedulerPolicy } from '../src/disruption/deschedule.js';
import { singleProfilePolicy } from '../src/model/descheduler-policy.js';

const c = new ClusterState();
const NODES = 500;
const FULL = 400;
for (let i = 0; i < NODES; i++) {
  const name = `n${i}`;
  c.addNode(compileNode({ metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': `z${i % 3}` } }, status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' } } }, i));
}
let order = 0;
for (let d = 0; d < 100; d++) {
  const app = `app${d}`;
  for (let r = 0; r < 10; r++) {
    // Replicas land on a few nodes of the packed part: duplicates and zone skew.
    const node = `n${(d * 4 + (r % 3) * 3) % FULL}`;
    c.addPod(
      compilePod(
        {
          metadata: { name: `${app}-${r}`, namespace: 'default', labels: { app }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: app, uid: app, controller: true }] },
          spec: {
            nodeName: node,
            topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app } } }],
            containers: [{ name: 'c', image: 'img', resources: { requests: { cpu: '250m', memory: '512Mi' } } }],
          },
          status: { phase: 'Running' },
        },
        { order: order++ },
      ),
    );
  }
}
const policy: DeschedulerPolicy = singleProfilePolicy(
  {
    RemoveDuplicates: {},
    RemovePodsViolatingTopologySpreadConstraint: { constraints: ['DoNotSchedule', 'ScheduleAnyway'] },
    LowNodeUtilization: { thresholds: { cpu: 20, memory: 20, pods: 20 }, targetThresholds: { cpu: 50, memory: 50, pods: 50 } },
  },
  { predictPlacement: true },
);
// Passes until one evicts nothing; each pass's evictions are applied where predicted.
for (let pass = 1; ; pass++) {
  const t0 = performance.now();
  const r = deschedule({ cluster: c, policy });
  const ms = performance.now() - t0;
  const by = new Map<string, number>();
  for (const e of r.evictions) by.set(e.strategy, (by.get(e.strategy) ?? 0) + 1);
  console.log(`pass ${pass}, ${NODES} nodes, ${order} pods: ${r.evictions.length} evictions (${[...by].map(([k, v]) => `${k} ${v}`).join(', ')}), ${r.skipped.length} candidates left, ${ms.toFixed(0)} ms`);
  if (r.evictions.length === 0) break;
  for (const e of r.evictions) c.updatePod(bindPod({ ...c.getPod(e.pod)!, nodeName: '', phase: 'Running' }, e.predictedNode));
}
