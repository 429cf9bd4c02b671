import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { featureEnabled, FeatureGateError, parseFeatureGates, SCHEDULER_FEATURE_GATES } from './feature-gates.js';

const refuses = (value: string, message: string) => assert.throws(() => parseFeatureGates(value), (e: unknown) => e instanceof FeatureGateError && e.message === message);

describe('--feature-gates (component-base featuregate.Set)', () => {
  it('keeps only gates set away from their default; empty items are skipped; spaces trimmed', () => {
    assert.deepEqual(parseFeatureGates('StorageCapacityScoring=false,,'), { StorageCapacityScoring: false });
    assert.deepEqual(parseFeatureGates(' StorageCapacityScoring = true , NodeDeclaredFeatures=true'), {});
  });
  it('reads booleans as strconv.ParseBool', () => {
    assert.deepEqual(parseFeatureGates('StorageCapacityScoring=F'), { StorageCapacityScoring: false });
    refuses('StorageCapacityScoring=no', 'invalid value of StorageCapacityScoring=no, err: strconv.ParseBool: parsing "no": invalid syntax');
    refuses('StorageCapacityScoring', 'missing bool value for StorageCapacityScoring');
  });
  it('refuses unknown and locked gates in kube-scheduler words', () => {
    refuses('Bogus=true', 'unrecognized feature gate: Bogus');
    refuses('NodeInclusionPolicyInPodTopologySpread=false', 'cannot set feature gate NodeInclusionPolicyInPodTopologySpread to false, feature is locked to true');
  });
  it('refuses a gate berth does not model when it would change it', () => {
    assert.throws(() => parseFeatureGates('GenericWorkload=true'), /berth does not model feature gate GenericWorkload set to true/);
    assert.deepEqual(parseFeatureGates('GenericWorkload=false'), {});
  });
  it('checks dependencies as SetFromMap does: the selector merge needs MatchLabelKeysInPodTopologySpread', () => {
    refuses('MatchLabelKeysInPodTopologySpread=false', 'MatchLabelKeysInPodTopologySpreadSelectorMerge is enabled, but depends on features that are disabled: [MatchLabelKeysInPodTopologySpread]');
    assert.deepEqual(parseFeatureGates('MatchLabelKeysInPodTopologySpreadSelectorMerge=false'), { MatchLabelKeysInPodTopologySpreadSelectorMerge: false });
  });
  it('PodLevelResources off needs the gates that depend on it off too', () => {
    const off = 'PodLevelResources=false,InPlacePodLevelResourcesVerticalScaling=false,PodLevelResourcesFixDefaulting=false';
    refuses(off, 'PodLevelResourcesFixKubeletQOSClass is enabled, but depends on features that are disabled: [PodLevelResources]');
    assert.deepEqual(parseFeatureGates(`${off},PodLevelResourcesFixKubeletQOSClass=false`), {
      PodLevelResources: false,
      InPlacePodLevelResourcesVerticalScaling: false,
      PodLevelResourcesFixDefaulting: false,
      PodLevelResourcesFixKubeletQOSClass: false,
    });
    // The API server's defaulting fix alone changes pod-level defaults, which berth does not model.
    assert.throws(() => parseFeatureGates('PodLevelResourcesFixDefaulting=false'), /berth does not model feature gate PodLevelResourcesFixDefaulting set to false/);
  });
  it('takes the gates that change scheduling decisions both ways', () => {
    assert.deepEqual(parseFeatureGates('TaintTolerationComparisonOperators=true,MatchLabelKeysInPodTopologySpread=false,MatchLabelKeysInPodTopologySpreadSelectorMerge=false,VolumeLimitScaling=false'), {
      TaintTolerationComparisonOperators: true,
      MatchLabelKeysInPodTopologySpread: false,
      MatchLabelKeysInPodTopologySpreadSelectorMerge: false,
      VolumeLimitScaling: false,
    });
  });
  it('an unset gate has its v1.37.2 default', () => {
    assert.equal(featureEnabled(undefined, 'StorageCapacityScoring'), true);
    assert.equal(featureEnabled({ StorageCapacityScoring: false }, 'StorageCapacityScoring'), false);
    assert.equal(SCHEDULER_FEATURE_GATES['InterPodAffinityHostnameFastPath']!.default, false);
  });
});
