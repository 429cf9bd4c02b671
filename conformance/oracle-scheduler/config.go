package main

import (
	"encoding/json"
	"fmt"

	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
)

// loadConfig decodes a v1 KubeSchedulerConfiguration the way kube-scheduler
// loads --config (cmd/kube-scheduler/app/options/configfile.go): the
// UniversalDecoder of the scheduler's config scheme runs v1 defaulting and
// converts to the internal type. The result is validated like the
// kube-scheduler command does. An empty input gives the default configuration.
func loadConfig(raw json.RawMessage) (*config.KubeSchedulerConfiguration, error) {
	obj := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
	}
	if _, ok := obj["apiVersion"]; !ok {
		obj["apiVersion"] = configv1.SchemeGroupVersion.String()
	}
	if _, ok := obj["kind"]; !ok {
		obj["kind"] = "KubeSchedulerConfiguration"
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	decoded, gvk, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, ok := decoded.(*config.KubeSchedulerConfiguration)
	if !ok {
		return nil, fmt.Errorf("config: couldn't decode as KubeSchedulerConfiguration, got %s", gvk)
	}
	cfg.TypeMeta.APIVersion = gvk.GroupVersion().String()
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

func findProfile(cfg *config.KubeSchedulerConfiguration, schedulerName string) (*config.KubeSchedulerProfile, error) {
	for i := range cfg.Profiles {
		if cfg.Profiles[i].SchedulerName == schedulerName {
			return &cfg.Profiles[i], nil
		}
	}
	return nil, fmt.Errorf("profile not found for scheduler name %q", schedulerName)
}
