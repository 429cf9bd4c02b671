// The subset of Kubernetes object shapes berth reads, as users write them
// (core/v1, apps/v1, policy/v1, scheduling/v1). io/ validates raw documents
// into these shapes; model/ compiles them into scheduler-ready objects.

import type { Requirement } from './selector.js';
import type { PersistentVolumeClaimManifest, PodVolumeManifest } from './volumes.js';

export type Quantity = string | number;
export type QuantityMap = Readonly<Record<string, Quantity>>;
export type IntOrString = number | string;

export interface OwnerReferenceManifest {
  apiVersion?: string;
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
}

export interface ObjectMetaManifest {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  ownerReferences?: OwnerReferenceManifest[];
}

export interface LabelSelectorManifest {
  matchLabels?: Record<string, string>;
  matchExpressions?: Requirement[];
}

export interface NodeSelectorTermManifest {
  matchExpressions?: Requirement[];
  matchFields?: Requirement[];
}

export interface PodAffinityTermManifest {
  labelSelector?: LabelSelectorManifest | null;
  namespaces?: string[];
  namespaceSelector?: LabelSelectorManifest | null;
  topologyKey: string;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

export interface WeightedPodAffinityTermManifest {
  weight: number;
  podAffinityTerm: PodAffinityTermManifest;
}

export interface PodAffinityManifest {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTermManifest[];
  preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTermManifest[];
}

export interface AffinityManifest {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: NodeSelectorTermManifest[] } | null;
    preferredDuringSchedulingIgnoredDuringExecution?: { weight: number; preference: NodeSelectorTermManifest }[];
  } | null;
  podAffinity?: PodAffinityManifest | null;
  podAntiAffinity?: PodAffinityManifest | null;
}

export interface TolerationManifest {
  key?: string;
  operator?: 'Equal' | 'Exists' | 'Lt' | 'Gt';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' | '';
  tolerationSeconds?: number | null;
}

export interface TopologySpreadConstraintManifest {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  labelSelector?: LabelSelectorManifest | null;
  minDomains?: number | null;
  nodeAffinityPolicy?: 'Honor' | 'Ignore' | null;
  nodeTaintsPolicy?: 'Honor' | 'Ignore' | null;
  matchLabelKeys?: string[];
}

export interface ContainerPortManifest {
  name?: string;
  containerPort: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
}

export interface ContainerManifest {
  name: string;
  image?: string;
  ports?: ContainerPortManifest[];
  resources?: { requests?: QuantityMap; limits?: QuantityMap } | null;
  restartPolicy?: 'Always' | string;
}

export interface PodSpecManifest {
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: AffinityManifest | null;
  tolerations?: TolerationManifest[];
  topologySpreadConstraints?: TopologySpreadConstraintManifest[];
  containers: ContainerManifest[];
  initContainers?: ContainerManifest[];
  overhead?: QuantityMap;
  resources?: { requests?: QuantityMap; limits?: QuantityMap } | null;
  priority?: number;
  priorityClassName?: string;
  preemptionPolicy?: 'PreemptLowerPriority' | 'Never';
  schedulerName?: string;
  schedulingGates?: { name: string }[];
  terminationGracePeriodSeconds?: number;
  hostNetwork?: boolean;
  /** Always for workloads; a Job's pods say Never or OnFailure. */
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  /** Image volumes (ImageLocality counts their images); local and claimed storage (the descheduler's evictor reads them). */
  volumes?: PodVolumeManifest[];
}

export interface PodManifest {
  apiVersion?: string;
  kind?: 'Pod';
  metadata: ObjectMetaManifest;
  spec: PodSpecManifest;
  status?: {
    phase?: string;
    nominatedNodeName?: string;
    conditions?: { type: string; status: string; reason?: string }[];
    reason?: string;
    startTime?: string;
    containerStatuses?: ContainerStatusManifest[];
    initContainerStatuses?: ContainerStatusManifest[];
  } | null;
}

export interface ContainerStatusManifest {
  name?: string;
  restartCount?: number;
  state?: { waiting?: { reason?: string } | null; terminated?: { reason?: string; exitCode?: number } | null } | null;
}

export interface PodTemplateManifest {
  metadata?: ObjectMetaManifest;
  spec: PodSpecManifest;
}

export interface TaintManifest {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface NodeManifest {
  apiVersion?: string;
  kind?: 'Node';
  metadata: ObjectMetaManifest;
  spec?: { unschedulable?: boolean; taints?: TaintManifest[]; providerID?: string } | null;
  status?: {
    capacity?: QuantityMap;
    allocatable?: QuantityMap;
    images?: { names?: string[]; sizeBytes?: number }[];
    conditions?: { type: string; status: string }[];
  } | null;
}

// Workloads and the other objects io/ reads (apps/v1, core/v1). Only the fields
// berth uses are listed; everything else in a manifest is accepted and ignored.

export interface NamespaceManifest {
  apiVersion?: string;
  kind?: 'Namespace';
  metadata: ObjectMetaManifest;
}

export interface ServiceManifest {
  apiVersion?: string;
  kind?: 'Service';
  metadata: ObjectMetaManifest;
  /** An absent selector selects no pods; an empty one selects every pod of the namespace. */
  spec?: { selector?: Record<string, string> } | null;
}

export interface ReplicationControllerManifest {
  apiVersion?: string;
  kind?: 'ReplicationController';
  metadata: ObjectMetaManifest;
  /** The API server defaults an absent selector to the template's labels. */
  spec?: { replicas?: number; selector?: Record<string, string>; template?: PodTemplateManifest } | null;
}

export interface WorkloadSpecManifest {
  replicas?: number;
  minReadySeconds?: number;
  selector: LabelSelectorManifest;
  template: PodTemplateManifest;
}

/** The fields that drive a controller's rollouts (what a simulation needs beyond the pods). */
export interface RolloutFieldsManifest {
  minReadySeconds?: number;
  /** Deployment */
  strategy?: { type?: 'RollingUpdate' | 'Recreate'; rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString } | null } | null;
  progressDeadlineSeconds?: number;
  /** StatefulSet */
  podManagementPolicy?: 'OrderedReady' | 'Parallel';
  /** StatefulSet (partition, maxUnavailable) and DaemonSet (maxSurge, maxUnavailable) */
  updateStrategy?: { type?: 'RollingUpdate' | 'OnDelete'; rollingUpdate?: { partition?: number; maxSurge?: IntOrString; maxUnavailable?: IntOrString } | null } | null;
}

export interface DeploymentManifest {
  apiVersion?: string;
  kind?: 'Deployment';
  metadata: ObjectMetaManifest;
  spec: WorkloadSpecManifest & Pick<RolloutFieldsManifest, 'minReadySeconds' | 'strategy' | 'progressDeadlineSeconds'>;
  status?: { collisionCount?: number } | null;
}

export interface ReplicaSetManifest {
  apiVersion?: string;
  kind?: 'ReplicaSet';
  metadata: ObjectMetaManifest;
  spec: WorkloadSpecManifest;
}

export interface StatefulSetManifest {
  apiVersion?: string;
  kind?: 'StatefulSet';
  metadata: ObjectMetaManifest;
  spec: WorkloadSpecManifest & {
    serviceName?: string;
    ordinals?: { start?: number } | null;
    /** One claim per template and ordinal, `<template>-<sts>-<ordinal>`, mounted as the volume of the template's name. */
    volumeClaimTemplates?: Pick<PersistentVolumeClaimManifest, 'metadata' | 'spec'>[];
    /** What happens to those claims when the StatefulSet is deleted or scaled down (both Retain by default). */
    persistentVolumeClaimRetentionPolicy?: { whenDeleted?: 'Retain' | 'Delete'; whenScaled?: 'Retain' | 'Delete' } | null;
  } & Pick<RolloutFieldsManifest, 'minReadySeconds' | 'podManagementPolicy' | 'updateStrategy'>;
}

export interface DaemonSetManifest {
  apiVersion?: string;
  kind?: 'DaemonSet';
  metadata: ObjectMetaManifest;
  /** DaemonSets have no replicas: one pod per eligible node. */
  spec: Omit<WorkloadSpecManifest, 'replicas'> & Pick<RolloutFieldsManifest, 'minReadySeconds' | 'updateStrategy'>;
}

/** batch/v1 PodFailurePolicy: rules matched in order against a failed pod. */
export interface PodFailurePolicyRuleManifest {
  action: 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';
  onExitCodes?: { containerName?: string | null; operator: 'In' | 'NotIn'; values: number[] } | null;
  onPodConditions?: { type: string; status?: string }[] | null;
}

/** The JobSpec fields berth simulates (batch/v1). */
export interface JobSpecManifest {
  parallelism?: number;
  completions?: number | null;
  backoffLimit?: number;
  /** Read only to refuse it: berth does not simulate per-index limits. */
  backoffLimitPerIndex?: number | null;
  activeDeadlineSeconds?: number | null;
  completionMode?: 'NonIndexed' | 'Indexed';
  suspend?: boolean;
  manualSelector?: boolean;
  selector?: LabelSelectorManifest | null;
  podFailurePolicy?: { rules: PodFailurePolicyRuleManifest[] } | null;
  podReplacementPolicy?: 'TerminatingOrFailed' | 'Failed';
  template: PodTemplateManifest;
}

export interface JobManifest {
  apiVersion?: string;
  kind?: 'Job';
  metadata: ObjectMetaManifest;
  spec: JobSpecManifest;
  /** A Job of a dump that has finished (a Complete or Failed condition) is not run again. */
  status?: { conditions?: { type: string; status: string }[] | null } | null;
}

export interface CronJobManifest {
  apiVersion?: string;
  kind?: 'CronJob';
  metadata: ObjectMetaManifest;
  spec: {
    schedule: string;
    timeZone?: string | null;
    startingDeadlineSeconds?: number | null;
    concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
    suspend?: boolean;
    successfulJobsHistoryLimit?: number;
    failedJobsHistoryLimit?: number;
    jobTemplate: { metadata?: ObjectMetaManifest; spec: JobSpecManifest };
  };
}
