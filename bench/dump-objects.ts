// The objects of a large kubectl-style dump, shared by the benchmarks that read one
// (load-strict.ts from a file, live-read.ts from a list server): nodes over three
// zones and pods bound round-robin onto them.

/** A node as `kubectl get -o json` shows one. */
export function dumpNode(i: number) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}`, 'topology.kubernetes.io/zone': `zone-${i % 3}` } },
    spec: { podCIDR: '10.0.0.0/24' },
    status: { capacity: { cpu: '64', memory: '256Gi', pods: '110' }, allocatable: { cpu: '63', memory: '250Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/** A bound pod of one of 500 apps, with labels, an owner, tolerations, node affinity, resources and a status. */
export function dumpPod(i: number, nodeCount: number) {
  const app = `app-${i % 500}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${app}-${i}`,
      namespace: 'default',
      uid: `uid-${i}`,
      labels: { app, 'pod-template-hash': 'abc12' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-abc12`, uid: `rs-${i % 500}`, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      nodeName: `node-${i % nodeCount}`,
      containers: [{ name: 'main', image: 'registry.example/app:1', ports: [{ containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } } }],
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'NotIn', values: ['windows'] }] }] } } },
      priority: 0,
      schedulerName: 'default-scheduler',
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], podIP: '10.0.0.1' },
  };
}

/** `nodeCount` nodes, then `podCount` pods. */
export function dumpObjects(nodeCount: number, podCount: number) {
  return [...Array.from({ length: nodeCount }, (_, i) => dumpNode(i)), ...Array.from({ length: podCount }, (_, i) => dumpPod(i, nodeCount))];
}
