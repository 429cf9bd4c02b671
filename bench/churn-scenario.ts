// Writes the churn scenario used for the simulator's throughput figure: 1,000 nodes
// over 3 zones, 100 Deployments × 200 replicas (20,000 pods), 24 h with a step every
// 10 minutes cycling rollout / node failure / scale-up / node recovery.
// Usage: npx tsx bench/churn-scenario.ts > /tmp/churn.yaml && time npx berth simulate /tmp/churn.yaml -o json > /dev/null
// The smaller churn whose event log must stay byte-identical across engine changes:
//   npx tsx bench/churn-scenario.ts --nodes 200 --deployments 10 --hours 2 > /tmp/churn-200.yaml
//   npx berth simulate /tmp/churn-200.yaml -o json --events > /tmp/churn-200.json

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const NODES = arg('nodes', 1000);
const DEPLOYMENTS = arg('deployments', 100);
const REPLICAS = arg('replicas', 200);
const DAY_S = arg('hours', 24) * 3600;

const lines: string[] = ['apiVersion: berth.dev/v1alpha1', 'kind: Scenario', 'metadata: {name: churn}', 'spec:', `  until: ${DAY_S / 3600}h`, '  objects:'];
for (let i = 0; i < NODES; i++) {
  const zone = `us-west-2${'abc'[i % 3]}`;
  lines.push(`  - {apiVersion: v1, kind: Node, metadata: {name: n${i}, labels: {kubernetes.io/hostname: n${i}, topology.kubernetes.io/zone: ${zone}}}, status: {allocatable: {cpu: '8', memory: 64Gi, pods: '110'}}}`);
}
for (let d = 0; d < DEPLOYMENTS; d++) {
  lines.push(
    '  - apiVersion: apps/v1',
    '    kind: Deployment',
    `    metadata: {name: app${d}}`,
    '    spec:',
    `      replicas: ${REPLICAS}`,
    `      selector: {matchLabels: {app: app${d}}}`,
    '      template:',
    `        metadata: {labels: {app: app${d}}}`,
    '        spec:',
    '          containers: [{name: c, image: app:v1, resources: {requests: {cpu: 100m, memory: 500Mi}}}]',
  );
}
lines.push('  steps:');
for (let t = 1800, k = 0; t < DAY_S - 1800; t += 600, k++) {
  const action = [
    `rollout: {deployment: app${k % DEPLOYMENTS}, image: app:v${k}}`,
    `failNode: {node: n${(k * 37) % NODES}}`,
    `scale: {deployment: app${(k * 13) % DEPLOYMENTS}, replicas: ${REPLICAS + 20}}`,
    `recoverNode: {node: n${((k - 2) * 37) % NODES}}`,
  ][k % 4];
  lines.push(`  - at: ${t}s`, `    ${action}`);
}
lines.push('  expect:', '  - allScheduled: {}');
process.stdout.write(`${lines.join('\n')}\n`);
