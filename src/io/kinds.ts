// The kinds berth reads, the apiVersion each is read at, and its schema.
// Everything else (ConfigMaps, Events, CRDs...) is skipped with a warning.

import type { z } from 'zod';
import type { RawObject } from './objects.js';
import type { Reporter } from './reporter.js';
import {
  cronJobSchema,
  daemonSetSchema,
  deploymentSchema,
  hpaSchema,
  issueMessage,
  jobSchema,
  namespaceSchema,
  nodeSchema,
  pdbSchema,
  podSchema,
  priorityClassSchema,
  replicaSetSchema,
  replicationControllerSchema,
  serviceSchema,
  statefulSetSchema,
} from './schemas.js';
import { instanceTypeCatalogSchema, nodeClaimSchema, nodePoolSchema } from './nodepool-schema.js';
import { unknownFieldMessage, unknownFields, type ValidationMode } from './strict-fields.js';
import {
  csiDriverSchema,
  csiNodeSchema,
  csiStorageCapacitySchema,
  persistentVolumeClaimSchema,
  persistentVolumeSchema,
  storageClassSchema,
  volumeAttachmentSchema,
} from './volume-schemas.js';

const KINDS = {
  Namespace: { apiVersion: 'v1', schema: namespaceSchema },
  Node: { apiVersion: 'v1', schema: nodeSchema },
  Pod: { apiVersion: 'v1', schema: podSchema },
  Service: { apiVersion: 'v1', schema: serviceSchema },
  ReplicationController: { apiVersion: 'v1', schema: replicationControllerSchema },
  PriorityClass: { apiVersion: 'scheduling.k8s.io/v1', schema: priorityClassSchema },
  PodDisruptionBudget: { apiVersion: 'policy/v1', schema: pdbSchema },
  Deployment: { apiVersion: 'apps/v1', schema: deploymentSchema },
  ReplicaSet: { apiVersion: 'apps/v1', schema: replicaSetSchema },
  StatefulSet: { apiVersion: 'apps/v1', schema: statefulSetSchema },
  DaemonSet: { apiVersion: 'apps/v1', schema: daemonSetSchema },
  Job: { apiVersion: 'batch/v1', schema: jobSchema },
  CronJob: { apiVersion: 'batch/v1', schema: cronJobSchema },
  HorizontalPodAutoscaler: { apiVersion: 'autoscaling/v2', schema: hpaSchema },
  PersistentVolume: { apiVersion: 'v1', schema: persistentVolumeSchema },
  PersistentVolumeClaim: { apiVersion: 'v1', schema: persistentVolumeClaimSchema },
  StorageClass: { apiVersion: 'storage.k8s.io/v1', schema: storageClassSchema },
  CSINode: { apiVersion: 'storage.k8s.io/v1', schema: csiNodeSchema },
  CSIDriver: { apiVersion: 'storage.k8s.io/v1', schema: csiDriverSchema },
  CSIStorageCapacity: { apiVersion: 'storage.k8s.io/v1', schema: csiStorageCapacitySchema },
  VolumeAttachment: { apiVersion: 'storage.k8s.io/v1', schema: volumeAttachmentSchema },
  NodePool: { apiVersion: 'karpenter.sh/v1', schema: nodePoolSchema },
  NodeClaim: { apiVersion: 'karpenter.sh/v1', schema: nodeClaimSchema },
  InstanceTypeCatalog: { apiVersion: 'berth.dev/v1alpha1', schema: instanceTypeCatalogSchema },
} as const;

export type KnownKind = keyof typeof KINDS;

/** The schema `kind` is read with. */
export const schemaOf = (kind: KnownKind): z.ZodType => KINDS[kind].schema;

export type ManifestOf<K extends KnownKind> = z.output<(typeof KINDS)[K]['schema']>;

/** A validated object: its kind, where it came from, and its manifest as the model types it. */
export type ParsedObject = { [K in KnownKind]: { readonly kind: K; readonly raw: RawObject; readonly manifest: ManifestOf<K> } }[KnownKind];

/**
 * Kinds berth does not read that make pods (Argo Rollouts,
 * KubeVirt VMs...): skipping one leaves pods out of the analysis, so each is named
 * rather than counted in a summary.
 */
const POD_CREATING_KINDS = new Set(['Rollout', 'VirtualMachine', 'VirtualMachineInstance', 'PodTemplate', 'SparkApplication', 'Workflow', 'TFJob', 'PyTorchJob', 'MPIJob', 'RayCluster', 'RayJob', 'JobSet']);

export function isKnownKind(kind: string): kind is KnownKind {
  return Object.hasOwn(KINDS, kind);
}

/**
 * A Karpenter provider's NodeClass (EC2NodeClass at karpenter.k8s.aws, AKSNodeClass at
 * karpenter.azure.com, KWOKNodeClass at karpenter.kwok.sh...): a `*NodeClass` kind in
 * an API group with a `karpenter` label.
 */
export function isProviderNodeClass(raw: RawObject): boolean {
  const group = raw.apiVersion.includes('/') ? raw.apiVersion.slice(0, raw.apiVersion.indexOf('/')) : '';
  return raw.kind.endsWith('NodeClass') && group.split('.').includes('karpenter');
}

/**
 * Reports the fields of `raw` that the schema of its kind at `apiVersion` does not
 * declare: errors under 'strict' (then false: the object is refused, as by the API
 * server), warnings under 'warn'. For any loader of a kind in the Kubernetes v1.37
 * or karpenter.sh schemas (strict-fields.ts).
 */
export function checkFields(raw: RawObject, apiVersion: string, reporter: Reporter, validate: ValidationMode): boolean {
  if (validate === 'ignore') return true;
  const unknown = unknownFields(apiVersion, raw.kind, raw.value);
  for (const f of unknown) reporter.fieldName(validate === 'strict' ? 'error' : 'warning', raw, f.path, unknownFieldMessage(f));
  return validate !== 'strict' || unknown.length === 0;
}

/**
 * Validates one object against its kind's schema. Unknown kinds and known kinds at
 * another apiVersion are skipped with a warning; schema violations are errors,
 * all of them reported, and so are undeclared fields unless `validate` says
 * otherwise. A missing apiVersion is accepted (hand-written input).
 */
export function parseObject(raw: RawObject, reporter: Reporter, validate: ValidationMode = 'strict'): ParsedObject | 'skipped' | 'invalid' {
  const shown = raw.apiVersion || '<none>';
  if (isProviderNodeClass(raw)) {
    reporter.warn(raw, [], 'accepted and ignored: berth plans with its instance-type catalog');
    return 'skipped';
  }
  if (!isKnownKind(raw.kind)) {
    const createsPods = POD_CREATING_KINDS.has(raw.kind);
    reporter.skip(raw, `skipping kind ${raw.kind} (apiVersion ${shown}): not used by berth${createsPods ? ': the pods it would create are not in the analysis' : ''}`, createsPods);
    return 'skipped';
  }
  const spec = KINDS[raw.kind];
  if (raw.apiVersion !== '' && raw.apiVersion !== spec.apiVersion) {
    reporter.skip(raw, `skipping kind ${raw.kind} (apiVersion ${shown}): berth reads ${raw.kind} at ${spec.apiVersion}`, true);
    return 'skipped';
  }
  const declared = checkFields(raw, spec.apiVersion, reporter, validate);
  const result = spec.schema.safeParse(raw.value, { error: issueMessage });
  if (!declared) return 'invalid';
  if (!result.success) {
    for (const issue of result.error.issues) reporter.error(raw, issue.path as (string | number)[], issue.message);
    return 'invalid';
  }
  return { kind: raw.kind, raw, manifest: result.data } as ParsedObject;
}
