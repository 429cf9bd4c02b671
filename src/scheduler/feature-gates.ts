// kube-scheduler's --feature-gates for the gates its plugins read in v1.37.2
// (pkg/scheduler/framework/plugins/feature.Features), with their v1.37.2 default,
// stage and lock (pkg/features/kube_features.go). Parsing and refusals are worded
// as component-base's featuregate words them. berth models the gates in MODELLED;
// setting another one away from its default is refused rather than ignored.

type Stage = 'Alpha' | 'Beta' | 'GA';

interface GateSpec {
  readonly default: boolean;
  readonly locked: boolean;
  readonly stage: Stage;
}

const gate = (d: boolean, stage: Stage, locked = false): GateSpec => ({ default: d, locked, stage });

export const SCHEDULER_FEATURE_GATES: Readonly<Record<string, GateSpec>> = {
  CompositePodGroup: gate(false, 'Alpha'),
  DRAAdminAccess: gate(true, 'GA', true),
  DRAConsumableCapacity: gate(true, 'Beta'),
  DRADerivedAttributes: gate(false, 'Alpha'),
  DRADeviceBindingConditions: gate(true, 'Beta'),
  DRADeviceCompatibilityGroups: gate(false, 'Alpha'),
  DRADeviceTaints: gate(true, 'GA', true),
  DRAExtendedResource: gate(true, 'GA', true),
  DRAFractionalCapacityRange: gate(true, 'Beta'),
  DRAListTypeAttributes: gate(false, 'Alpha'),
  DRANodeAllocatableResources: gate(false, 'Alpha'),
  DRAOptionalNodeOperations: gate(false, 'Alpha'),
  DRAPartitionableDevices: gate(true, 'Beta'),
  DRAPrioritizedList: gate(true, 'GA', true),
  DRAResourceClaimDeviceStatus: gate(true, 'GA', true),
  DRASchedulerFilterTimeout: gate(true, 'Beta'),
  DRAWorkloadResourceClaims: gate(false, 'Beta'),
  DynamicResourceAllocation: gate(true, 'GA', true),
  GenericWorkload: gate(false, 'Beta'),
  InPlacePodLevelResourcesVerticalScaling: gate(true, 'Beta'),
  InPlacePodVerticalScaling: gate(true, 'GA', true),
  InPlacePodVerticalScalingSchedulerPreemption: gate(false, 'Alpha'),
  InterPodAffinityHostnameFastPath: gate(false, 'Alpha'),
  MatchLabelKeysInPodTopologySpread: gate(true, 'Beta'),
  // Not read by the plugins, but it depends on MatchLabelKeysInPodTopologySpread, so turning that off needs it off too.
  MatchLabelKeysInPodTopologySpreadSelectorMerge: gate(true, 'Beta'),
  NodeDeclaredFeatures: gate(true, 'GA', true),
  NodeInclusionPolicyInPodTopologySpread: gate(true, 'GA', true),
  PodGroupPreemptionPolicy: gate(false, 'Alpha'),
  PodLevelResources: gate(true, 'Beta'),
  // Not read by the plugins, but they depend on PodLevelResources, so turning that off needs them off too.
  PodLevelResourcesFixDefaulting: gate(true, 'Beta'),
  PodLevelResourcesFixKubeletQOSClass: gate(true, 'Beta'),
  SchedulerAsyncPreemption: gate(true, 'Beta'),
  StorageCapacityScoring: gate(true, 'Beta'),
  TaintTolerationComparisonOperators: gate(false, 'Alpha'),
  TopologyAwareWorkloadScheduling: gate(false, 'Alpha'),
  VolumeAttributesClass: gate(true, 'GA', true),
  VolumeLimitScaling: gate(true, 'Beta'),
};

/** defaultKubernetesFeatureGateDependencies (v1.37.2) among the gates above: a gate on needs these on. */
const DEPENDENCIES: Readonly<Record<string, readonly string[]>> = {
  InPlacePodLevelResourcesVerticalScaling: ['InPlacePodVerticalScaling', 'PodLevelResources', 'NodeDeclaredFeatures'],
  MatchLabelKeysInPodTopologySpreadSelectorMerge: ['MatchLabelKeysInPodTopologySpread'],
  PodLevelResourcesFixDefaulting: ['PodLevelResources'],
  PodLevelResourcesFixKubeletQOSClass: ['PodLevelResources'],
};

/** Gates berth reproduces only while the gate named is off (their effect then cannot show): the API server's pod-level defaulting. */
const MODELLED_WHILE_OFF: Readonly<Record<string, string>> = { PodLevelResourcesFixDefaulting: 'PodLevelResources' };

/** Gates whose both settings berth reproduces. */
export const MODELLED_FEATURE_GATES: ReadonlySet<string> = new Set([
  'InPlacePodLevelResourcesVerticalScaling',
  'MatchLabelKeysInPodTopologySpread',
  'MatchLabelKeysInPodTopologySpreadSelectorMerge',
  'PodLevelResources',
  'PodLevelResourcesFixKubeletQOSClass',
  'StorageCapacityScoring',
  'TaintTolerationComparisonOperators',
  'VolumeLimitScaling',
]);

/** The gates that differ from their v1.37.2 default; a gate not listed has its default. */
export type FeatureGates = Readonly<Record<string, boolean>>;

export class FeatureGateError extends Error {}

export function featureEnabled(gates: FeatureGates | undefined, name: string): boolean {
  return gates?.[name] ?? SCHEDULER_FEATURE_GATES[name]!.default;
}

/** strconv.ParseBool. */
function parseGoBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** featureGate.Set then SetFromMap: "A=true,B=false" into the gates it changes. */
export function parseFeatureGates(value: string): FeatureGates {
  const m = new Map<string, boolean>();
  for (const s of value.split(',')) {
    if (s.length === 0) continue;
    const eq = s.indexOf('=');
    const k = (eq < 0 ? s : s.slice(0, eq)).trim();
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${k}`);
    const v = s.slice(eq + 1).trim();
    const b = parseGoBool(v);
    if (b === undefined) throw new FeatureGateError(`invalid value of ${k}=${v}, err: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
    m.set(k, b);
  }
  const out: Record<string, boolean> = {};
  for (const [k, v] of m) {
    const spec = SCHEDULER_FEATURE_GATES[k];
    if (!spec) throw new FeatureGateError(`unrecognized feature gate: ${k}`);
    if (spec.locked && v !== spec.default) throw new FeatureGateError(`cannot set feature gate ${k} to ${v}, feature is locked to ${spec.default}`);
    if (v !== spec.default) out[k] = v;
  }
  // Then, as featureGate.SetFromMap does, every gate on must have its dependencies on.
  for (const [k, deps] of Object.entries(DEPENDENCIES)) {
    if (!featureEnabled(out, k)) continue;
    const off = deps.filter((d) => !featureEnabled(out, d));
    if (off.length > 0) throw new FeatureGateError(`${k} is enabled, but depends on features that are disabled: [${off.join(' ')}]`);
  }
  for (const [k, v] of Object.entries(out)) {
    const unless = MODELLED_WHILE_OFF[k];
    if (unless !== undefined && !featureEnabled(out, unless)) continue;
    if (!MODELLED_FEATURE_GATES.has(k)) throw new FeatureGateError(`berth does not model feature gate ${k} set to ${v}; it runs with ${k}=${!v} (modelled: ${[...MODELLED_FEATURE_GATES].join(', ')})`);
  }
  return out;
}
