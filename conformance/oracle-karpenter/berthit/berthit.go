// Package berthit reads berth's InstanceType JSON into Karpenter's cloudprovider
// InstanceType; the provisioning and disruption oracles share it.
package berthit

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
)

// AWSWellKnownLabels are the instance-type labels the AWS provider registers as
// well-known, so that NodePool and pod requirements on them narrow instance types.
var AWSWellKnownLabels = []string{
	"karpenter.k8s.aws/instance-category",
	"karpenter.k8s.aws/instance-family",
	"karpenter.k8s.aws/instance-generation",
	"karpenter.k8s.aws/instance-size",
	"karpenter.k8s.aws/instance-cpu",
	"karpenter.k8s.aws/instance-memory",
	"karpenter.k8s.aws/instance-hypervisor",
}

func init() {
	v1.WellKnownLabels = v1.WellKnownLabels.Insert(AWSWellKnownLabels...)
}

type Offering struct {
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"price"`
	Available    bool    `json:"available"`
}

type Overhead struct {
	KubeReserved      map[string]int64 `json:"kubeReserved"`
	SystemReserved    map[string]int64 `json:"systemReserved"`
	EvictionThreshold map[string]int64 `json:"evictionThreshold"`
}

// InstanceType is berth's InstanceType as JSON.stringify writes it: cpu in
// millicores, memory and ephemeral-storage in bytes, pods as a count.
type InstanceType struct {
	Name         string              `json:"name"`
	Labels       map[string]string   `json:"labels"`
	Requirements map[string][]string `json:"requirements"`
	Capacity     map[string]int64    `json:"capacity"`
	Overhead     Overhead            `json:"overhead"`
	Offerings    []Offering          `json:"offerings"`
}

func quantity(name string, v int64) resource.Quantity {
	switch name {
	case string(corev1.ResourceCPU):
		return *resource.NewMilliQuantity(v, resource.DecimalSI)
	case string(corev1.ResourceMemory), string(corev1.ResourceEphemeralStorage):
		return *resource.NewQuantity(v, resource.BinarySI)
	default:
		return *resource.NewQuantity(v, resource.DecimalSI)
	}
}

// ResourceList turns berth's integer resources into Kubernetes quantities.
func ResourceList(m map[string]int64) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range m {
		out[corev1.ResourceName(k)] = quantity(k, v)
	}
	return out
}

// ToKarpenter is b as Karpenter's cloud provider would report it.
func ToKarpenter(b InstanceType) *cloudprovider.InstanceType {
	reqs := kscheduling.NewRequirements()
	keys := make([]string, 0, len(b.Requirements))
	for k := range b.Requirements {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		reqs.Add(kscheduling.NewRequirement(k, corev1.NodeSelectorOpIn, b.Requirements[k]...))
	}
	// The AWS labels berth's catalog does not set are absent from nodes of this type.
	for _, k := range AWSWellKnownLabels {
		if !reqs.Has(k) {
			reqs.Add(kscheduling.NewRequirement(k, corev1.NodeSelectorOpDoesNotExist))
		}
	}
	offerings := cloudprovider.Offerings{}
	for _, o := range b.Offerings {
		offerings = append(offerings, &cloudprovider.Offering{
			Requirements: kscheduling.NewLabelRequirements(map[string]string{
				v1.CapacityTypeLabelKey:  o.CapacityType,
				corev1.LabelTopologyZone: o.Zone,
			}),
			Price:     o.Price,
			Available: o.Available,
		})
	}
	return &cloudprovider.InstanceType{
		Name:         b.Name,
		Requirements: reqs,
		Offerings:    offerings,
		Capacity:     ResourceList(b.Capacity),
		Overhead: &cloudprovider.InstanceTypeOverhead{
			KubeReserved:      ResourceList(b.Overhead.KubeReserved),
			SystemReserved:    ResourceList(b.Overhead.SystemReserved),
			EvictionThreshold: ResourceList(b.Overhead.EvictionThreshold),
		},
	}
}
