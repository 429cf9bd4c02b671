// zod schemas for the object shapes berth reads (src/model/manifest.ts, pdb.ts,
// priority.ts). Unknown fields are dropped, not rejected: kubectl output carries
// many (managedFields, status conditions, volumes...) that berth has no use for.
// Messages follow the API server's wording ("Required value", "Unsupported value").

import { z } from 'zod';
import type {
  CronJobManifest,
  DaemonSetManifest,
  DeploymentManifest,
  JobManifest,
  NamespaceManifest,
  NodeManifest,
  PodManifest,
  PodTemplateManifest,
  ReplicaSetManifest,
  ReplicationControllerManifest,
  ServiceManifest,
  StatefulSetManifest,
} from '../model/manifest.js';
import { labelValueErrors, qualifiedNameErrors } from '../model/label-syntax.js';
import { boundMessage } from './diagnostics.js';
import type { PdbManifest } from '../model/pdb.js';
import type { PriorityClassManifest } from '../model/priority.js';

/** How a value reads in a message: `number 5`, `list`, `mapping`. */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'object') return 'mapping';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return `${typeof v} ${JSON.stringify(v)}`;
  return typeof v;
}

const EXPECTED_NAMES: Record<string, string> = {
  object: 'mapping',
  record: 'mapping',
  map: 'mapping',
  array: 'list',
  int: 'integer',
};

/** Error map for every parse: turns zod issues into API-server-style messages. */
export const issueMessage: z.core.$ZodErrorMap = (iss) => {
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return 'Required value';
      return `Invalid type: expected ${EXPECTED_NAMES[iss.expected] ?? iss.expected}, got ${describeValue(iss.input)}`;
    case 'invalid_value':
      return `Unsupported value: ${JSON.stringify(iss.input)}: supported values: ${iss.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      if (iss.origin === 'array') return 'Required value';
      return `Invalid value: ${JSON.stringify(iss.input)}: must be greater than ${iss.inclusive ? 'or equal to ' : ''}${String(iss.minimum)}`;
    case 'too_big':
      return `Invalid value: ${JSON.stringify(iss.input)}: must be less than ${iss.inclusive ? 'or equal to ' : ''}${String(iss.maximum)}`;
    default: {
      // zod's own wording, bounded: "Unrecognized keys: …" lists every key of a mapping.
      const m = ZOD_ENGLISH.localeError(iss);
      return m == null ? undefined : boundMessage(typeof m === 'string' ? m : m.message);
    }
  }
};
const ZOD_ENGLISH = z.locales.en();

const str = z.string();
// One message for "not a number" and "not a whole number".
export const int = z.int({
  error: (iss) => (iss.code === 'invalid_type' && iss.input !== undefined ? `Invalid type: expected integer, got ${describeValue(iss.input)}` : undefined),
});
/** int32 fields (replicas, minReadySeconds): the API server refuses larger numbers when it decodes them. */
export const int32 = int.max(2147483647);
const bool = z.boolean();

/**
 * A mapping with string keys. zod's record drops a `__proto__` key without a word
 * (the yaml library keeps it as an own property, harmlessly); the API server refuses
 * it as it refuses any key that is not a qualified name, so berth says so too, at the
 * map, as ValidateLabels reports a bad key.
 */
export function mapOf<V extends z.ZodType>(value: V, key: z.ZodString = z.string()) {
  return z.preprocess((input, ctx) => {
    if (input !== null && typeof input === 'object' && Object.hasOwn(input, '__proto__')) {
      ctx.addIssue({ code: 'custom', path: [], input, message: `Invalid value: "__proto__": ${qualifiedNameErrors('__proto__').join('; ')}` });
    }
    return input;
  }, z.record(key, value));
}
export const strMap = mapOf(z.string());
export const strList = z.array(z.string());

/** A resource quantity: "100m", "1Gi" or a bare number. Parsed later, with its own errors. */
export const quantity = z.custom<string | number>((v) => typeof v === 'string' || typeof v === 'number', {
  error: (iss) => `Invalid type: expected a quantity (string or number), got ${describeValue(iss.input)}`,
});
export const quantityMap = mapOf(quantity);

const intOrString = z.custom<number | string>((v) => typeof v === 'string' || Number.isInteger(v), {
  error: (iss) => `Invalid type: expected an integer or a percentage string, got ${describeValue(iss.input)}`,
});

const ownerReference = z.object({
  apiVersion: str.optional(),
  kind: str,
  name: str,
  uid: str.optional(),
  controller: bool.optional(),
});

/** metadata.labels as the API server validates them (ValidateLabels): a bad key is reported at the map, a bad value at its key. */
const labelMap = strMap.superRefine((labels, ctx) => {
  for (const [k, v] of Object.entries(labels)) {
    const keyErrs = qualifiedNameErrors(k);
    if (keyErrs.length > 0) ctx.addIssue({ code: 'custom', path: [], message: `Invalid value: ${JSON.stringify(k)}: ${keyErrs.join('; ')}` });
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) ctx.addIssue({ code: 'custom', path: [k], message: `Invalid value: ${JSON.stringify(v)}: ${valueErrs.join('; ')}` });
  }
});

export const objectMeta = z.object({
  name: str.optional(),
  generateName: str.optional(),
  namespace: str.optional(),
  uid: str.optional(),
  labels: labelMap.optional(),
  annotations: strMap.optional(),
  creationTimestamp: str.optional(),
  deletionTimestamp: str.optional(),
  ownerReferences: z.array(ownerReference).optional(),
});

export const metadata = objectMeta.default({});

const labelSelectorRequirement = z.object({
  key: str,
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
  values: strList.default([]),
});

const nodeSelectorRequirement = z.object({
  key: str,
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']),
  values: strList.default([]),
});

export const labelSelector = z.object({
  matchLabels: strMap.optional(),
  matchExpressions: z.array(labelSelectorRequirement).optional(),
});

export const nodeSelectorTerm = z.object({
  matchExpressions: z.array(nodeSelectorRequirement).optional(),
  matchFields: z.array(nodeSelectorRequirement).optional(),
});

const podAffinityTerm = z.object({
  labelSelector: labelSelector.optional(),
  namespaces: strList.optional(),
  namespaceSelector: labelSelector.optional(),
  topologyKey: str,
  matchLabelKeys: strList.optional(),
  mismatchLabelKeys: strList.optional(),
});

const podAffinity = z.object({
  requiredDuringSchedulingIgnoredDuringExecution: z.array(podAffinityTerm).optional(),
  preferredDuringSchedulingIgnoredDuringExecution: z.array(z.object({ weight: int, podAffinityTerm })).optional(),
});

const affinity = z.object({
  nodeAffinity: z
    .object({
      requiredDuringSchedulingIgnoredDuringExecution: z.object({ nodeSelectorTerms: z.array(nodeSelectorTerm) }).optional(),
      preferredDuringSchedulingIgnoredDuringExecution: z.array(z.object({ weight: int, preference: nodeSelectorTerm })).optional(),
    })
    .optional(),
  podAffinity: podAffinity.optional(),
  podAntiAffinity: podAffinity.optional(),
});

const taintEffect = z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

const toleration = z.object({
  key: str.optional(),
  // Lt/Gt are checked against TaintTolerationComparisonOperators when loading; any other operator gets ValidateTolerations' own list.
  operator: z
    .enum(['Equal', 'Exists', 'Lt', 'Gt'], { error: (iss) => (iss.code === 'invalid_value' ? `Unsupported value: ${JSON.stringify(iss.input)}: supported values: "Equal", "Exists"` : undefined) })
    .optional(),
  value: str.optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute', '']).optional(),
  tolerationSeconds: int.optional(),
});

const topologySpreadConstraint = z.object({
  maxSkew: int,
  topologyKey: str,
  whenUnsatisfiable: z.enum(['DoNotSchedule', 'ScheduleAnyway']),
  labelSelector: labelSelector.optional(),
  minDomains: int.optional(),
  nodeAffinityPolicy: z.enum(['Honor', 'Ignore']).optional(),
  nodeTaintsPolicy: z.enum(['Honor', 'Ignore']).optional(),
  matchLabelKeys: strList.optional(),
});

const resourceRequirements = z.object({ requests: quantityMap.optional(), limits: quantityMap.optional() });

const container = z.object({
  name: str,
  image: str.optional(),
  ports: z
    .array(
      z.object({
        name: str.optional(),
        containerPort: int,
        hostPort: int.optional(),
        hostIP: str.optional(),
        protocol: z.enum(['TCP', 'UDP', 'SCTP']).optional(),
      }),
    )
    .optional(),
  resources: resourceRequirements.optional(),
  restartPolicy: str.optional(),
});

/** PersistentVolumeClaimSpec: shared by claims, StatefulSet claim templates and ephemeral volumes. */
export const claimSpec = z.object({
  accessModes: strList.optional(),
  resources: z.object({ requests: quantityMap.optional(), limits: quantityMap.optional() }).nullable().optional(),
  storageClassName: str.optional(),
  volumeName: str.optional(),
  volumeMode: z.enum(['Filesystem', 'Block']).optional(),
  selector: labelSelector.nullable().optional(),
});

const readOnly = { readOnly: bool.optional() };
/** The in-tree and CSI disk sources the volume plugins compare (VolumeRestrictions, NodeVolumeLimits). */
export const diskSources = {
  awsElasticBlockStore: z.object({ volumeID: str, ...readOnly }).nullable().optional(),
  gcePersistentDisk: z.object({ pdName: str, ...readOnly }).nullable().optional(),
  iscsi: z.object({ iqn: str, ...readOnly }).nullable().optional(),
  rbd: z.object({ monitors: strList, image: str, pool: str.optional(), ...readOnly }).nullable().optional(),
};

const podVolume = z.object({
  name: str,
  image: z.object({ reference: str.optional() }).nullable().optional(),
  emptyDir: z.object({}).loose().nullable().optional(),
  hostPath: z.object({}).loose().nullable().optional(),
  persistentVolumeClaim: z.object({ claimName: str.optional(), ...readOnly }).nullable().optional(),
  ephemeral: z.object({ volumeClaimTemplate: z.object({ metadata: objectMeta.nullable().optional(), spec: claimSpec }).nullable().optional() }).nullable().optional(),
  csi: z.object({ driver: str, ...readOnly }).nullable().optional(),
  ...diskSources,
});

const podSpec = z.object({
  nodeName: str.optional(),
  nodeSelector: strMap.optional(),
  affinity: affinity.optional(),
  tolerations: z.array(toleration).optional(),
  topologySpreadConstraints: z.array(topologySpreadConstraint).optional(),
  containers: z.array(container).min(1),
  initContainers: z.array(container).optional(),
  overhead: quantityMap.optional(),
  resources: resourceRequirements.optional(),
  priority: int.optional(),
  priorityClassName: str.optional(),
  preemptionPolicy: z.enum(['PreemptLowerPriority', 'Never']).optional(),
  schedulerName: str.optional(),
  schedulingGates: z.array(z.object({ name: str })).optional(),
  terminationGracePeriodSeconds: int.optional(),
  hostNetwork: bool.optional(),
  restartPolicy: z.enum(['Always', 'OnFailure', 'Never']).optional(),
  volumes: z.array(podVolume).optional(),
});

const podTemplate = z.object({ metadata: objectMeta.optional(), spec: podSpec }) satisfies z.ZodType<PodTemplateManifest>;

const containerStatus = z.object({
  name: str.optional(),
  restartCount: int.optional(),
  state: z
    .object({
      waiting: z.object({ reason: str.optional() }).nullish(),
      terminated: z.object({ reason: str.optional(), exitCode: int.optional() }).nullish(),
    })
    .nullish(),
});

export const podSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: podSpec,
  status: z
    .object({
      phase: str.optional(),
      nominatedNodeName: str.optional(),
      startTime: str.optional(),
      // Preemption reads the DisruptionTarget condition to tell its own victims apart.
      conditions: z.array(z.object({ type: str, status: str, reason: str.optional() })).optional(),
      // The descheduler's restart, lifetime and failed-pod plugins read these.
      reason: str.optional(),
      containerStatuses: z.array(containerStatus).optional(),
      initContainerStatuses: z.array(containerStatus).optional(),
    })
    .optional(),
}) satisfies z.ZodType<Omit<PodManifest, 'kind'>>;

export const nodeSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z
    .object({
      unschedulable: bool.optional(),
      taints: z.array(z.object({ key: str, value: str.optional(), effect: taintEffect })).optional(),
      providerID: str.optional(),
    })
    .optional(),
  status: z
    .object({
      capacity: quantityMap.optional(),
      allocatable: quantityMap.optional(),
      images: z.array(z.object({ names: strList.optional(), sizeBytes: int.optional() })).optional(),
      conditions: z.array(z.object({ type: str, status: str })).optional(),
    })
    .optional(),
}) satisfies z.ZodType<Omit<NodeManifest, 'kind'>>;

export const namespaceSchema = z.object({ apiVersion: str.optional(), metadata }) satisfies z.ZodType<Omit<NamespaceManifest, 'kind'>>;

export const priorityClassSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  value: int,
  globalDefault: bool.optional(),
  preemptionPolicy: z.enum(['PreemptLowerPriority', 'Never']).optional(),
  description: str.optional(),
}) satisfies z.ZodType<Omit<PriorityClassManifest, 'kind'>>;

export const hpaSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z.object({
    scaleTargetRef: z.object({ apiVersion: str.optional(), kind: str.default(''), name: str.default('') }),
    minReplicas: int.optional(),
    maxReplicas: int,
  }),
});

export const pdbSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z
    .object({
      selector: labelSelector.optional(),
      minAvailable: intOrString.optional(),
      maxUnavailable: intOrString.optional(),
      unhealthyPodEvictionPolicy: str.optional(),
    })
    .default({}),
  status: z
    .object({ disruptionsAllowed: int.optional(), currentHealthy: int.optional(), desiredHealthy: int.optional(), expectedPods: int.optional() })
    .optional(),
}) satisfies z.ZodType<Omit<PdbManifest, 'kind'>>;

export const serviceSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z.object({ selector: strMap.optional() }).optional(),
}) satisfies z.ZodType<Omit<ServiceManifest, 'kind'>>;

export const replicationControllerSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z.object({ replicas: int32.min(0).optional(), selector: strMap.optional(), template: podTemplate.optional() }).optional(),
}) satisfies z.ZodType<Omit<ReplicationControllerManifest, 'kind'>>;

const workloadSpec = {
  replicas: int32.min(0).optional(),
  selector: labelSelector,
  template: podTemplate,
  minReadySeconds: int32.min(0).optional(),
};

// apps/v1 validation of rolling-update bounds: a non-negative integer or a percentage up to 100%.
const PERCENT = /^[0-9]+%$/;
const rollBound = intOrString.superRefine((v, ctx) => {
  if (typeof v === 'number') {
    if (v < 0) ctx.addIssue({ code: 'custom', message: `Invalid value: ${v}: must be greater than or equal to 0` });
  } else if (!PERCENT.test(v)) {
    ctx.addIssue({ code: 'custom', message: `Invalid value: ${JSON.stringify(v)}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')` });
  } else if (Number(v.slice(0, -1)) > 100) {
    ctx.addIssue({ code: 'custom', message: `Invalid value: ${JSON.stringify(v)}: must not be greater than 100%` });
  }
});
const isZero = (v: number | string | undefined) => v === 0 || (typeof v === 'string' && PERCENT.test(v) && Number(v.slice(0, -1)) === 0);

/** Both bounds zero would let no pod be replaced; upstream's message is on maxUnavailable. */
const rollingUpdate = (defaultSurgeZero: boolean) =>
  z
    .object({ maxSurge: rollBound.optional(), maxUnavailable: rollBound.optional() })
    .superRefine((r, ctx) => {
      const surgeZero = r.maxSurge === undefined ? defaultSurgeZero : isZero(r.maxSurge);
      if (surgeZero && r.maxUnavailable !== undefined && isZero(r.maxUnavailable)) {
        ctx.addIssue({ code: 'custom', path: ['maxUnavailable'], message: `Invalid value: ${JSON.stringify(r.maxUnavailable)}: may not be 0 when \`maxSurge\` is 0` });
      }
    });

const deploymentStrategy = z.object({
  type: z.enum(['RollingUpdate', 'Recreate']).optional(),
  rollingUpdate: rollingUpdate(false).nullable().optional(),
});
const statefulSetStrategy = z.object({
  type: z.enum(['RollingUpdate', 'OnDelete']).optional(),
  rollingUpdate: z.object({ partition: int.min(0).optional(), maxUnavailable: rollBound.optional() }).nullable().optional(),
});
const daemonSetStrategy = z.object({
  type: z.enum(['RollingUpdate', 'OnDelete']).optional(),
  rollingUpdate: rollingUpdate(true).nullable().optional(),
});

export const deploymentSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z.object({ ...workloadSpec, strategy: deploymentStrategy.nullable().optional(), progressDeadlineSeconds: int.min(1).optional() }),
  status: z.object({ collisionCount: int.optional() }).optional(),
}) satisfies z.ZodType<Omit<DeploymentManifest, 'kind'>>;

export const replicaSetSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z.object(workloadSpec),
}) satisfies z.ZodType<Omit<ReplicaSetManifest, 'kind'>>;

export const statefulSetSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z.object({
    ...workloadSpec,
    serviceName: str.optional(),
    ordinals: z.object({ start: int.min(0).optional() }).optional(),
    podManagementPolicy: z.enum(['OrderedReady', 'Parallel']).optional(),
    updateStrategy: statefulSetStrategy.nullable().optional(),
    volumeClaimTemplates: z.array(z.object({ metadata, spec: claimSpec })).optional(),
    persistentVolumeClaimRetentionPolicy: z.object({ whenDeleted: z.enum(['Retain', 'Delete']).optional(), whenScaled: z.enum(['Retain', 'Delete']).optional() }).nullable().optional(),
  }),
}) satisfies z.ZodType<Omit<StatefulSetManifest, 'kind'>>;

export const daemonSetSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z.object({ selector: labelSelector, template: podTemplate, minReadySeconds: int.min(0).optional(), updateStrategy: daemonSetStrategy.nullable().optional() }),
}) satisfies z.ZodType<Omit<DaemonSetManifest, 'kind'>>;

const podFailurePolicyRule = z.object({
  action: z.enum(['FailJob', 'FailIndex', 'Ignore', 'Count']),
  onExitCodes: z.object({ containerName: str.nullish(), operator: z.enum(['In', 'NotIn']), values: z.array(int32).min(1) }).nullish(),
  onPodConditions: z.array(z.object({ type: str, status: z.enum(['True', 'False', 'Unknown']).optional() })).nullish(),
});

const jobSpec = z.object({
  parallelism: int32.min(0).optional(),
  completions: int32.min(0).nullish(),
  backoffLimit: int32.min(0).optional(),
  backoffLimitPerIndex: int32.min(0).nullish(),
  activeDeadlineSeconds: int.min(1).nullish(),
  completionMode: z.enum(['NonIndexed', 'Indexed']).optional(),
  suspend: bool.optional(),
  manualSelector: bool.optional(),
  selector: labelSelector.nullish(),
  podFailurePolicy: z.object({ rules: z.array(podFailurePolicyRule).max(20) }).nullish(),
  podReplacementPolicy: z.enum(['TerminatingOrFailed', 'Failed']).optional(),
  template: podTemplate,
});

export const jobSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: jobSpec,
  status: z.object({ conditions: z.array(z.object({ type: str, status: str })).nullish() }).nullish(),
}) satisfies z.ZodType<Omit<JobManifest, 'kind'>>;

export const cronJobSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z.object({
    schedule: str,
    timeZone: str.nullish(),
    startingDeadlineSeconds: int.min(0).nullish(),
    concurrencyPolicy: z.enum(['Allow', 'Forbid', 'Replace']).optional(),
    suspend: bool.optional(),
    successfulJobsHistoryLimit: int32.min(0).optional(),
    failedJobsHistoryLimit: int32.min(0).optional(),
    jobTemplate: z.object({ metadata: objectMeta.optional(), spec: jobSpec }),
  }),
}) satisfies z.ZodType<Omit<CronJobManifest, 'kind'>>;
