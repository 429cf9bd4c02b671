// One-off: a 500-node underutilized cluster (one 1-cpu pod per 4-cpu node, $0.192/h each);
// consolidation passes are applied until none is proposed.
import { ClusterState } from '../src/cluster/state.js';
import { compileNode } from '../src/model/node.js';
import { compileNodePool } from '../src/model/nodepool.js';
import { compilePod } from '../src/model/pod.js';
import { applyDecision, consolidate } from '../src/disruption/consolidate.js';

const PRICE = 0.192;
const c = new ClusterState();
const pool = compileNodePool({ metadata: { name: 'default' }, spec: { template: { spec: { requirements: [], nodeClassRef: { group: 'g', kind: 'K', name: 'd' } } }, disruption: { budgets: [{ nodes: '100%' }] } } });
for (let i = 0; i < 500; i++) {
  const name = `n${i}`;
  c.addNode(compileNode({ metadata: { name, labels: { 'karpenter.sh/nodepool': 'default', 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': `z${i % 3}` } }, status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' } } }, i));
  c.addPod(compilePod({ metadata: { name: `p${i}`, namespace: 'default' }, spec: { nodeName: name, containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } }, { order: i }));
}
const before = c.numNodes;
const t0 = performance.now();
let passes = 0;
for (;;) {
  const r = consolidate({ cluster: c, pools: [pool], nowMs: 1e12, pricePerHour: () => PRICE });
  if (r.decisions.length === 0) break;
  for (const d of r.decisions) applyDecision(c, d);
  passes++;
}
const ms = performance.now() - t0;
console.log(`nodes ${before} -> ${c.numNodes}, $/h ${(before * PRICE).toFixed(2)} -> ${(c.numNodes * PRICE).toFixed(2)}, ${passes} passes, ${ms.toFixed(0)} ms`);
