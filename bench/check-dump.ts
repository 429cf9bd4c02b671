// Writes the `berth check` benchmark input: a kubectl-style dump of 200 nodes over 3
// zones, 60 Deployments of 3 replicas with their ReplicaSets, running pods (every
// tenth Deployment with two replicas stacked on one node) and a maxUnavailable-1
// PDB each, plus the default NodePool — the "200-node, 60-workload dump" of issue 5.
// Usage: npx tsx bench/check-dump.ts > /tmp/dump.json && time npx berth check -f /tmp/dump.json
// Per check: npx tsx bench/check-dump.ts --time  (node/zone-loss, co-location, scale-up, unsatisfiable, pdb; ms each)

import { readFileSync } from 'node:fs';
import { templateHash } from '../src/io/names.js';

const NODES = 200;
const WORKLOADS = 60;
const REPLICAS = 3;

function dump(): unknown {
  const items: unknown[] = [];
  for (let i = 0; i < NODES; i++) {
    const labels = { 'kubernetes.io/hostname': `n${i}`, 'topology.kubernetes.io/zone': `us-west-2${'abc'[i % 3]}` };
    items.push({ apiVersion: 'v1', kind: 'Node', metadata: { name: `n${i}`, labels }, status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' } } });
  }
  let k = 0;
  for (let d = 0; d < WORKLOADS; d++) {
    const app = `app${d}`;
    const template = { metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'app:v1', resources: { requests: { cpu: '500m', memory: '1Gi' } } }] } };
    const hash = templateHash(template);
    const rs = `${app}-${hash}`;
    const podLabels = { app, 'pod-template-hash': hash };
    items.push({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: app, namespace: 'default', uid: `d-${app}` }, spec: { replicas: REPLICAS, selector: { matchLabels: { app } }, template } });
    items.push({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: rs, namespace: 'default', uid: `rs-${app}`, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: app, uid: `d-${app}`, controller: true }] },
      spec: { replicas: REPLICAS, selector: { matchLabels: podLabels }, template: { ...template, metadata: { labels: podLabels } } },
    });
    items.push({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: app, namespace: 'default' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app } } } });
    for (let r = 0; r < REPLICAS; r++) {
      const node = d % 10 === 0 && r === 1 ? `n${((k - 1) * 7) % NODES}` : `n${(k * 7) % NODES}`;
      k++;
      items.push({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `${rs}-p${r}`, namespace: 'default', labels: podLabels, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: `rs-${app}`, controller: true }] },
        spec: { nodeName: node, ...template.spec },
        status: { phase: 'Running' },
      });
    }
  }
  return { apiVersion: 'v1', kind: 'List', items };
}

async function time(): Promise<void> {
  const { loadSources } = await import('../src/io/load.js');
  const { bundledInstanceTypes } = await import('../src/provisioner/catalog/catalog.js');
  const list = [
    (await import('../src/analyze/checks/loss.js')).nodeLossCheck,
    (await import('../src/analyze/checks/loss.js')).zoneLossCheck,
    (await import('../src/analyze/checks/co-location.js')).coLocationCheck,
    (await import('../src/analyze/checks/scale-up.js')).scaleUpCheck,
    (await import('../src/analyze/checks/unsatisfiable.js')).unsatisfiableCheck,
    (await import('../src/analyze/checks/pdb.js')).pdbCheck,
  ];
  const pool = readFileSync(new URL('../examples/nodepools/default.yaml', import.meta.url), 'utf8');
  const loaded = loadSources([{ name: 'dump.json', text: JSON.stringify(dump()) }, { name: 'default.yaml', text: pool }]);
  if (!loaded.ok) throw new Error('the generated dump does not load');
  const ctx = { input: loaded.input, instanceTypes: bundledInstanceTypes(), provisioner: true, seed: 1 };
  let total = 0;
  for (const c of list) {
    const t = performance.now();
    const findings = c.run(ctx);
    const ms = performance.now() - t;
    total += ms;
    console.log(`${c.rule.padEnd(22)} ${ms.toFixed(0).padStart(7)} ms  ${findings.length} finding(s)`);
  }
  console.log(`${'total'.padEnd(22)} ${total.toFixed(0).padStart(7)} ms`);
}

if (process.argv.includes('--time')) await time();
else console.log(JSON.stringify(dump()));
