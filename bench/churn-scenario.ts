// Writes the churn scenario used for the simulator's throughput figure: by default
// 1,000 nodes over 3 zones, 100 Deployments × 200 replicas (20,000 pods), 24 h with
// a step every 10 minutes cycling rollout / node failure / scale-up / node recovery.
// Usage: npx tsx bench/churn-scenario.ts [NODES DEPLOYMENTS REPLICAS HOURS] > /tmp/churn.yaml
//        npx berth simulate /tmp/churn.yaml -o json > /dev/null
// The small variant used to check that optimisations keep the event log identical:
//        npx tsx bench/churn-scenario.ts 200 20 100 2 > /tmp/churn-200.yaml

import { pathToFileURL } from 'node:url';

export interface ChurnSize {
  readonly nodes: number;
  readonly deployments: number;
  readonly replicas: number;
  readonly hours: number;
}

export const FULL_CHURN: ChurnSize = { nodes: 1000, deployments: 100, replicas: 200, hours: 24 };

/** The scenario's YAML text. */
export function churnScenario({ nodes, deployments, replicas, hours }: ChurnSize = FULL_CHURN): string {
  const untilS = hours * 3600;
  const lines: string[] = ['apiVersion: berth.dev/v1alpha1', 'kind: Scenario', 'metadata: {name: churn}', 'spec:', `  until: ${hours}h`, '  objects:'];
  for (let i = 0; i < nodes; i++) {
    const zone = `us-west-2${'abc'[i % 3]}`;
    lines.push(`  - {apiVersion: v1, kind: Node, metadata: {name: n${i}, labels: {kubernetes.io/hostname: n${i}, topology.kubernetes.io/zone: ${zone}}}, status: {allocatable: {cpu: '8', memory: 64Gi, pods: '110'}}}`);
  }
  for (let d = 0; d < deployments; d++) {
    lines.push(
      '  - apiVersion: apps/v1',
      '    kind: Deployment',
      `    metadata: {name: app${d}}`,
      '    spec:',
      `      replicas: ${replicas}`,
      `      selector: {matchLabels: {app: app${d}}}`,
      '      template:',
      `        metadata: {labels: {app: app${d}}}`,
      '        spec:',
      '          containers: [{name: c, image: app:v1, resources: {requests: {cpu: 100m, memory: 500Mi}}}]',
    );
  }
  lines.push('  steps:');
  for (let t = 1800, k = 0; t < untilS - 1800; t += 600, k++) {
    const action = [
      `rollout: {deployment: app${k % deployments}, image: app:v${k}}`,
      `failNode: {node: n${(k * 37) % nodes}}`,
      `scale: {deployment: app${(k * 13) % deployments}, replicas: ${replicas + 20}}`,
      `recoverNode: {node: n${((k - 2) * 37) % nodes}}`,
    ][k % 4];
    lines.push(`  - at: ${t}s`, `    ${action}`);
  }
  lines.push('  expect:', '  - allScheduled: {}');
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2).map(Number);
  const [nodes, deployments, replicas, hours] = args.length ? args : [FULL_CHURN.nodes, FULL_CHURN.deployments, FULL_CHURN.replicas, FULL_CHURN.hours];
  if (![nodes, deployments, replicas, hours].every((n) => Number.isInteger(n) && n! > 0)) {
    process.stderr.write('usage: churn-scenario.ts [NODES DEPLOYMENTS REPLICAS HOURS] (positive integers)\n');
    process.exit(2);
  }
  process.stdout.write(churnScenario({ nodes: nodes!, deployments: deployments!, replicas: replicas!, hours: hours! }));
}
