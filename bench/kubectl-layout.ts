// The check dump of check-cluster.ts written out as `kubectl get … -o yaml` writes a
// real cluster: block YAML with sorted keys, and every object carrying what the API
// server, admission, the kubelet and the controllers add (uids, timestamps, managed
// defaults, the service-account volume, the default tolerations, conditions, container
// statuses, node images and info, kubectl's last-applied annotation on workloads).
// None of it changes a scheduling decision, so `berth check` must give the same report
// as on the compact dump, while the input is about eight times larger: what a real
// 5,000-node dump costs to read, ship to the workers and hold.
// Usage: npx tsx bench/check-200.ts 1000 --kubectl > /tmp/k1000.yaml

import { readPlainYaml } from '../src/io/plain-yaml.js';

type Obj = Record<string, unknown>;

const AT = '2026-11-02T08:14:27Z';
const STARTED = '2026-11-02T08:15:03Z';

/** A fixed uuid-shaped string for the n-th object of a kind. */
const uuid = (kind: number, n: number) => `${(0x5f1e0d3c + kind).toString(16)}-8a2b-4e6f-b7c9-${n.toString(16).padStart(12, '0')}`;
/** A pod IP in 10.64.0.0/10 for the n-th pod. */
const podIp = (n: number) => `10.${64 + ((n >> 16) & 63)}.${(n >> 8) & 255}.${n & 255}`;

function dressNode(node: Obj, n: number): Obj {
  const meta = node.metadata as Obj;
  const status = node.status as Obj;
  const labels = meta.labels as Record<string, string>;
  const zone = labels['topology.kubernetes.io/zone'] ?? 'us-west-2a';
  const capacity = { ...(status.allocatable as Obj), 'ephemeral-storage': '104845292Ki', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0' };
  const condition = (type: string, healthy: string, reason: string, message: string) => ({ lastHeartbeatTime: STARTED, lastTransitionTime: AT, message, reason, status: healthy, type });
  return {
    ...node,
    metadata: {
      ...meta,
      annotations: {
        'alpha.kubernetes.io/provided-node-ip': `10.0.${(n >> 8) & 255}.${n & 255}`,
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
      creationTimestamp: AT,
      labels: {
        ...labels,
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/instance-type': 'm6i.2xlarge',
        'beta.kubernetes.io/os': 'linux',
        'failure-domain.beta.kubernetes.io/region': 'us-west-2',
        'failure-domain.beta.kubernetes.io/zone': zone,
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': 'm6i.2xlarge',
        'topology.kubernetes.io/region': 'us-west-2',
      },
      resourceVersion: String(4_000_000 + n),
      uid: uuid(0, n),
    },
    spec: { podCIDR: `100.${64 + (n >> 8)}.${n & 255}.0/24`, providerID: `aws:///${zone}/i-0${n.toString(16).padStart(16, '0')}` },
    status: {
      addresses: [
        { address: `10.0.${(n >> 8) & 255}.${n & 255}`, type: 'InternalIP' },
        { address: `ip-10-0-${(n >> 8) & 255}-${n & 255}.us-west-2.compute.internal`, type: 'InternalDNS' },
        { address: `ip-10-0-${(n >> 8) & 255}-${n & 255}.us-west-2.compute.internal`, type: 'Hostname' },
      ],
      allocatable: { ...(status.allocatable as Obj), 'ephemeral-storage': '95551679124', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0' },
      capacity,
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      // System images only: an application's image on a node would change ImageLocality's scores.
      images: SYSTEM_IMAGES.map(([image, digest, size]) => ({ names: [`${image}@sha256:${digest}`, image], sizeBytes: size })),
      nodeInfo: {
        architecture: 'amd64',
        bootID: uuid(1, n),
        containerRuntimeVersion: 'containerd://1.7.27',
        kernelVersion: '6.1.132-147.221.amzn2023.x86_64',
        kubeProxyVersion: '',
        kubeletVersion: 'v1.33.5-eks-113cf36',
        machineID: `ec2${n.toString(16).padStart(29, '0')}`,
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023.7.20250527',
        systemUUID: `ec2${n.toString(16).padStart(5, '0')}-0000-0000-0000-000000000000`,
      },
    },
  };
}

const SYSTEM_IMAGES: [string, string, number][] = [
  'registry.k8s.io/kube-proxy:v1.33.5',
  'registry.k8s.io/pause:3.10',
  'public.ecr.aws/eks/aws-vpc-cni:v1.19.5',
  'public.ecr.aws/eks/aws-vpc-cni-init:v1.19.5',
  'public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.44.0',
  'public.ecr.aws/eks-distro/kubernetes-csi/node-driver-registrar:v2.13.0',
  'public.ecr.aws/eks-distro/kubernetes-csi/livenessprobe:v2.15.0',
  'quay.io/prometheus/node-exporter:v1.9.1',
  'docker.io/fluent/fluent-bit:4.0.3',
  'registry.k8s.io/coredns/coredns:v1.12.1',
].map((image, i) => [image, (0x9e3779b9 * (i + 1)).toString(16).padStart(8, '0').repeat(8).slice(0, 64), 12_000_000 + i * 7_654_321]);

/** The pod spec fields admission and the API server's defaults add, and the service-account volume. */
function dressPodSpec(spec: Obj, tokenVolume: string): Obj {
  const containers = (spec.containers as Obj[]).map((c) => ({
    ...c,
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
      { name: 'LOG_LEVEL', value: 'info' },
    ],
    imagePullPolicy: 'IfNotPresent',
    livenessProbe: { failureThreshold: 3, httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, initialDelaySeconds: 10, periodSeconds: 10, successThreshold: 1, timeoutSeconds: 1 },
    readinessProbe: { failureThreshold: 3, httpGet: { path: '/ready', port: 8080, scheme: 'HTTP' }, periodSeconds: 5, successThreshold: 1, timeoutSeconds: 1 },
    securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    volumeMounts: [{ mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', name: tokenVolume, readOnly: true }],
  }));
  return {
    ...spec,
    containers,
    dnsPolicy: 'ClusterFirst',
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
    priority: 0,
    restartPolicy: 'Always',
    schedulerName: 'default-scheduler',
    securityContext: { fsGroup: 65534 },
    serviceAccount: 'default',
    serviceAccountName: 'default',
    terminationGracePeriodSeconds: 30,
    tolerations: [
      { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
      { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
    ],
    volumes: [
      {
        name: tokenVolume,
        projected: {
          defaultMode: 420,
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { items: [{ key: 'ca.crt', path: 'ca.crt' }], name: 'kube-root-ca.crt' } },
            { downwardAPI: { items: [{ fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' }, path: 'namespace' }] } },
          ],
        },
      },
    ],
  };
}

function dressPod(pod: Obj, n: number): Obj {
  const meta = pod.metadata as Obj;
  const spec = pod.spec as Obj;
  const containers = spec.containers as Obj[];
  const owner = (meta.ownerReferences as Obj[] | undefined)?.[0];
  const generateName = owner && owner.kind !== 'StatefulSet' ? `${String(meta.name).replace(/-[^-]*$/, '')}-` : undefined;
  const condition = (type: string) => ({ lastProbeTime: null, lastTransitionTime: STARTED, status: 'True', type });
  return {
    ...pod,
    metadata: {
      annotations: { 'kubectl.kubernetes.io/restartedAt': AT, 'prometheus.io/port': '8080', 'prometheus.io/scrape': 'true' },
      creationTimestamp: AT,
      ...(generateName ? { generateName } : {}),
      ...meta,
      ownerReferences: (meta.ownerReferences as Obj[] | undefined)?.map((o) => ({ ...o, blockOwnerDeletion: true })),
      resourceVersion: String(9_000_000 + n),
    },
    spec: dressPodSpec(spec, `kube-api-access-${(n * 7919).toString(36).padStart(5, 'x').slice(-5)}`),
    status: {
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(condition),
      containerStatuses: containers.map((c, i) => ({
        containerID: `containerd://${(n * 31 + i).toString(16).padStart(64, '0')}`,
        image: c.image,
        imageID: `docker.io/library/${String(c.image)}@sha256:${(n % 997).toString(16).padStart(64, 'a')}`,
        lastState: {},
        name: c.name,
        ready: true,
        restartCount: 0,
        started: true,
        state: { running: { startedAt: STARTED } },
        volumeMounts: [{ mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', name: 'kube-api-access', readOnly: true, recursiveReadOnly: 'Disabled' }],
      })),
      hostIP: '10.0.0.1',
      hostIPs: [{ ip: '10.0.0.1' }],
      phase: (pod.status as Obj).phase,
      podIP: podIp(n),
      podIPs: [{ ip: podIp(n) }],
      qosClass: 'Burstable',
      startTime: AT,
    },
  };
}

/** A workload as the API server returns it: defaults, kubectl's last-applied annotation (the object as applied), status. */
function dressWorkload(o: Obj, n: number): Obj {
  const meta = o.metadata as Obj;
  const spec = o.spec as Obj;
  const template = spec.template as Obj | undefined;
  const applied = JSON.stringify({ apiVersion: o.apiVersion, kind: o.kind, metadata: { annotations: {}, name: meta.name, namespace: meta.namespace }, spec });
  const replicas = typeof spec.replicas === 'number' ? spec.replicas : undefined;
  const defaults: Obj =
    o.kind === 'Deployment'
      ? { progressDeadlineSeconds: 600, revisionHistoryLimit: 10, strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' } }
      : o.kind === 'StatefulSet'
        ? { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' }, podManagementPolicy: 'OrderedReady', revisionHistoryLimit: 10, updateStrategy: { rollingUpdate: { partition: 0 }, type: 'RollingUpdate' } }
        : o.kind === 'DaemonSet'
          ? { revisionHistoryLimit: 10 }
          : {};
  const status: Obj | undefined =
    replicas !== undefined
      ? { availableReplicas: replicas, observedGeneration: 1, readyReplicas: replicas, replicas, updatedReplicas: replicas }
      : o.kind === 'DaemonSet'
        ? { observedGeneration: 1 }
        : undefined;
  return {
    ...o,
    metadata: {
      ...meta,
      annotations: { ...(o.kind === 'Deployment' ? { 'deployment.kubernetes.io/revision': '1' } : {}), 'kubectl.kubernetes.io/last-applied-configuration': `${applied}\n` },
      creationTimestamp: AT,
      generation: 1,
      resourceVersion: String(7_000_000 + n),
      ...(meta.uid ? {} : { uid: uuid(2, n) }),
    },
    spec: { ...defaults, ...spec, ...(template ? { template: { ...template, spec: dressPodSpec(template.spec as Obj, 'kube-api-access') } } : {}) },
    ...(status ? { status } : {}),
  };
}

// The pod templates must not carry the token volume: the API server adds it to pods only.
function withoutTokenVolume(o: Obj): Obj {
  const spec = o.spec as Obj;
  const template = spec.template as Obj | undefined;
  if (!template) return o;
  const podSpec = { ...(template.spec as Obj) };
  delete podSpec.volumes;
  podSpec.containers = (podSpec.containers as Obj[]).map(({ volumeMounts: _, ...c }) => c);
  return { ...o, spec: { ...spec, template: { ...template, spec: podSpec } } };
}

/** What the API server lists for one object of the compact dump. */
function dress(o: Obj, n: number): Obj {
  switch (o.kind) {
    case 'Node':
      return dressNode(o, n);
    case 'Pod':
      return dressPod(o, n);
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
      return withoutTokenVolume(dressWorkload(o, n));
    default:
      return { ...o, metadata: { ...(o.metadata as Obj), creationTimestamp: AT, generation: 1, resourceVersion: String(6_000_000 + n), uid: uuid(3, n) } };
  }
}

// Scalars as go-yaml v2 writes them: plain when YAML 1.1 reads them back as the same string, else double-quoted.
const PLAIN = /^[\w./][\w./@+ -]*(?<! )$/;
const KEYWORD = /^(y|yes|n|no|true|false|on|off|null|~)$/i;
/** Numbers, hexadecimal and octal integers and timestamps as YAML 1.1 resolves them. */
const NOT_A_STRING = /^([-+]?(\.\d|\d)[\d_]*(\.[\d_]*)?([eE][-+]?\d+)?|0x[\da-f_]+|\d{4}-\d\d?-\d\d?\b.*|\.)$/i;
function scalar(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const s = String(v);
  return PLAIN.test(s) && !KEYWORD.test(s) && !NOT_A_STRING.test(s) ? s : JSON.stringify(s);
}

/** `value` as block YAML at `indent`, the lines appended to `out`; sequences inside mappings are not indented, as go-yaml writes them. */
function emit(value: unknown, indent: string, out: string[], first: string): void {
  if (Array.isArray(value)) {
    if (value.length === 0) return void out.push(`${first}[]`);
    value.forEach((item, i) => {
      const lead = i === 0 ? `${first}- ` : `${indent}- `;
      if (item !== null && typeof item === 'object' && Object.keys(item).length > 0) emit(item, `${indent}  `, out, lead);
      else out.push(`${lead}${Array.isArray(item) ? '[]' : item !== null && typeof item === 'object' ? '{}' : scalar(item)}`);
    });
    return;
  }
  const entries = Object.entries(value as Obj)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  if (entries.length === 0) return void out.push(`${first}{}`);
  entries.forEach(([key, v], i) => {
    const head = `${i === 0 ? first : indent}${scalar(key)}:`;
    if (typeof v === 'string' && v.includes('\n')) {
      out.push(`${head} |`, ...v.replace(/\n$/, '').split('\n').map((line) => `${indent}  ${line}`));
    } else if (Array.isArray(v) && v.length > 0) {
      out.push(head);
      emit(v, indent, out, indent);
    } else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) {
      out.push(head);
      emit(v, `${indent}  `, out, `${indent}  `);
    } else {
      out.push(`${head} ${Array.isArray(v) ? '[]' : v !== null && typeof v === 'object' ? '{}' : scalar(v)}`);
    }
  });
}

/**
 * Writes `compact` (a `kind: List` dump, as check-cluster.ts writes it) as kubectl
 * writes the same objects of a real cluster, piece by piece to `write`: the text at
 * 5,000 nodes is several hundred megabytes, near the longest string V8 can hold.
 */
export function writeKubectlDump(compact: string, write: (text: string) => void): void {
  const parsed = readPlainYaml({ name: 'compact', text: compact });
  const list = parsed?.documents[0]?.value as { items: Obj[] } | undefined;
  if (!list) throw new Error('kubectl layout: the compact dump is not a List the plain reader reads');
  write('apiVersion: v1\nitems:\n');
  const counts = new Map<unknown, number>();
  for (const item of list.items) {
    const n = counts.get(item.kind) ?? 0;
    counts.set(item.kind, n + 1);
    const lines: string[] = [];
    emit(dress(item, n), '  ', lines, '- ');
    write(`${lines.join('\n')}\n`);
  }
  write('kind: List\nmetadata:\n  resourceVersion: ""\n');
}
