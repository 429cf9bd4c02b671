// The 200-node / 2,000-pod input of the playground's Long Tasks test, generated
// deterministically (no file in git): three zones of nodes of four sizes, 40
// Deployments of 50 replicas with requests, a zone spread on every fourth one,
// and a few that ask for more than any node has, so some pods stay pending.

const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c'];
const SIZES = [
  { cpu: '4', memory: '16Gi' },
  { cpu: '8', memory: '32Gi' },
  { cpu: '16', memory: '64Gi' },
  { cpu: '32', memory: '128Gi' },
];

export function largeInput(nodes = 200, deployments = 40, replicas = 50): string {
  const docs: string[] = [];
  for (let i = 0; i < nodes; i++) {
    const name = `node-${String(i).padStart(3, '0')}`;
    const size = SIZES[i % SIZES.length]!;
    docs.push(
      [
        'apiVersion: v1',
        'kind: Node',
        `metadata: {name: ${name}, labels: {kubernetes.io/hostname: ${name}, topology.kubernetes.io/zone: ${ZONES[i % ZONES.length]}}}`,
        `status: {allocatable: {cpu: "${size.cpu}", memory: ${size.memory}, pods: "110"}}`,
      ].join('\n'),
    );
  }
  for (let d = 0; d < deployments; d++) {
    const app = `app-${String(d).padStart(2, '0')}`;
    // Every tenth Deployment asks for 40 cpu: no node has it, so its replicas stay pending.
    const cpu = d % 10 === 9 ? '40' : `${100 + (d % 7) * 150}m`;
    const spread = d % 4 === 0 ? `\n      topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: ${app}}}}]` : '';
    docs.push(
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        `metadata: {name: ${app}, namespace: default}`,
        'spec:',
        `  replicas: ${replicas}`,
        `  selector: {matchLabels: {app: ${app}}}`,
        '  template:',
        `    metadata: {labels: {app: ${app}}}`,
        `    spec:${spread}`,
        `      containers: [{name: main, image: registry.example/${app}:1, resources: {requests: {cpu: "${cpu}", memory: ${256 + (d % 5) * 256}Mi}}}]`,
      ].join('\n'),
    );
  }
  return `${docs.join('\n---\n')}\n`;
}
