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

const at = '2026-12-04T17:00:00Z';
const fields = (o: object) => ({ fieldsType: 'FieldsV1', fieldsV1: o });

/**
 * A node as a real API server lists one that kwok runs: dumpNode's fields plus what
 * the API server, kwok and the controller-manager add (managed fields, conditions,
 * addresses, node info, the uid and timestamps).
 */
export function apiServerNode(i: number) {
  const n = dumpNode(i);
  const conditions = ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({ type, status: type === 'Ready' ? 'True' : 'False', lastHeartbeatTime: at, lastTransitionTime: at, reason: type === 'Ready' ? 'KubeletReady' : `KubeletHas${type.startsWith('M') ? 'Sufficient' : 'No'}${type}`, message: `kubelet reports ${type}` }));
  return {
    ...n,
    metadata: {
      ...n.metadata,
      uid: `0c9b7a2e-1b7d-4c55-9f0e-${String(i).padStart(12, '0')}`,
      resourceVersion: String(1000 + i),
      creationTimestamp: at,
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      managedFields: [
        { manager: 'bench', operation: 'Update', apiVersion: 'v1', time: at, ...fields({ 'f:metadata': { 'f:annotations': { '.': {}, 'f:kwok.x-k8s.io/node': {} }, 'f:labels': { '.': {}, 'f:kubernetes.io/hostname': {}, 'f:topology.kubernetes.io/zone': {} } }, 'f:spec': { 'f:podCIDR': {} } }) },
        { manager: 'kwok', operation: 'Update', apiVersion: 'v1', time: at, subresource: 'status', ...fields({ 'f:status': { 'f:addresses': {}, 'f:allocatable': {}, 'f:capacity': {}, 'f:conditions': Object.fromEntries(conditions.map((c) => [`k:{"type":"${c.type}"}`, { '.': {}, 'f:lastHeartbeatTime': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} }])), 'f:daemonEndpoints': { 'f:kubeletEndpoint': { 'f:Port': {} } }, 'f:nodeInfo': { 'f:architecture': {}, 'f:kubeletVersion': {}, 'f:operatingSystem': {} } } }) },
      ],
    },
    spec: { ...n.spec, podCIDRs: ['10.0.0.0/24'] },
    status: {
      ...n.status,
      conditions,
      addresses: [{ type: 'InternalIP', address: `10.1.${(i >> 8) & 255}.${i & 255}` }, { type: 'Hostname', address: `node-${i}` }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: { machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '', kubeletVersion: 'fake', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
    },
  };
}

/**
 * A pod as a real API server lists one: dumpPod's fields plus the defaults and
 * admission additions (the service-account token volume and its mount, the
 * not-ready/unreachable tolerations, QoS class) and the managed fields of a create
 * and a status write.
 */
export function apiServerPod(i: number, nodeCount: number) {
  const p = dumpPod(i, nodeCount);
  const [c] = p.spec.containers;
  const volume = 'kube-api-access-x7k2q';
  return {
    ...p,
    metadata: {
      ...p.metadata,
      uid: `5f1e0d3c-8a2b-4e6f-b7c9-${String(i).padStart(12, '0')}`,
      resourceVersion: String(10_000 + i),
      creationTimestamp: at,
      managedFields: [
        { manager: 'bench', operation: 'Update', apiVersion: 'v1', time: at, ...fields({ 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} }, 'f:ownerReferences': { '.': {}, [`k:{"uid":"${p.metadata.ownerReferences[0]!.uid}"}`]: {} } }, 'f:spec': { 'f:affinity': { '.': {}, 'f:nodeAffinity': { '.': {}, 'f:requiredDuringSchedulingIgnoredDuringExecution': {} } }, 'f:containers': { 'k:{"name":"main"}': { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:ports': { '.': {}, 'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } }, 'f:resources': { '.': {}, 'f:limits': { '.': {}, 'f:memory': {} }, 'f:requests': { '.': {}, 'f:cpu': {}, 'f:memory': {} } }, 'f:terminationMessagePath': {}, 'f:terminationMessagePolicy': {} } }, 'f:dnsPolicy': {}, 'f:enableServiceLinks': {}, 'f:nodeName': {}, 'f:restartPolicy': {}, 'f:schedulerName': {}, 'f:securityContext': {}, 'f:terminationGracePeriodSeconds': {}, 'f:tolerations': {} } }) },
        { manager: 'bench', operation: 'Update', apiVersion: 'v1', time: at, subresource: 'status', ...fields({ 'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:lastProbeTime': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} } }, 'f:phase': {}, 'f:podIP': {}, 'f:podIPs': { '.': {}, 'k:{"ip":"10.0.0.1"}': { '.': {}, 'f:ip': {} } }, 'f:startTime': {} } }) },
      ],
    },
    spec: {
      ...p.spec,
      volumes: [{ name: volume, projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }, { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } }], defaultMode: 420 } }],
      containers: [{ ...c!, volumeMounts: [{ name: volume, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }], terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      serviceAccount: 'default',
      securityContext: {},
      tolerations: [...p.spec.tolerations, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: { ...p.status, conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: at }], podIPs: [{ ip: '10.0.0.1' }], startTime: at, qosClass: 'Burstable' },
  };
}
