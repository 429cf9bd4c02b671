package main

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apiserver/pkg/util/feature"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// modelledGates are the feature gates berth reproduces both ways
// (src/scheduler/feature-gates.ts), with their v1.37.2 defaults: every case
// sets each of them, to the case's value or back to the default.
var modelledGates = map[string]bool{
	"InPlacePodLevelResourcesVerticalScaling":        true,
	"MatchLabelKeysInPodTopologySpread":              true,
	"MatchLabelKeysInPodTopologySpreadSelectorMerge": true,
	"PodLevelResources":                              true,
	"PodLevelResourcesFixDefaulting":                 true,
	"PodLevelResourcesFixKubeletQOSClass":            true,
	"StorageCapacityScoring":                         true,
	"TaintTolerationComparisonOperators":             false,
	"VolumeLimitScaling":                             true,
}

// setFeatureGates applies a case's gates to the process-wide gate, as
// kube-scheduler's --feature-gates does at start-up. Cases run one at a time.
func (o *oracle) setFeatureGates(gates map[string]bool) error {
	m := map[string]bool{}
	for k, d := range modelledGates {
		m[k] = d
	}
	for k, v := range gates {
		if _, ok := modelledGates[k]; !ok {
			return fmt.Errorf("feature gate %s is not one the oracle varies", k)
		}
		m[k] = v
	}
	keys := make([]string, 0, len(m))
	for k, v := range m {
		keys = append(keys, fmt.Sprintf("%s=%t", k, v))
	}
	sort.Strings(keys)
	key := strings.Join(keys, ",")
	if key == o.gatesKey {
		return nil
	}
	if err := feature.DefaultMutableFeatureGate.SetFromMap(m); err != nil {
		return err
	}
	o.gatesKey = key
	return nil
}

// registry is the in-tree registry built under the gates in force.
func (o *oracle) registry() frameworkruntime.Registry {
	if o.registries == nil {
		o.registries = map[string]frameworkruntime.Registry{}
	}
	r, ok := o.registries[o.gatesKey]
	if !ok {
		r = frameworkplugins.NewInTreeRegistry()
		o.registries[o.gatesKey] = r
	}
	return r
}
