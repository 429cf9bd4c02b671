package main

// One step of Karpenter's provisioning loop over several batches (README.md, Batches;
// the runner drives the loop and lets kube-scheduler bind first): after a Solve, every
// claim it planned is launched as the cheapest offering of its options,
// registers and initializes at once (a Node with the offering's labels, the claim's
// labels and resolved custom labels, its NodePool's taints, its DaemonSet pods
// running); the claims and Nodes of the input register and initialize too; every pod
// the Solve placed is bound where it was placed; the pods left pending are the next
// batch.

import (
	"fmt"
	"sort"

	"github.com/samber/lo"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth/conformance/oracle-karpenter/berthit"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/utils/daemonset"
)

const (
	labelRegistered  = "karpenter.sh/registered"
	labelInitialized = "karpenter.sh/initialized"
)

// launch rewrites in into the cluster the next batch plans against.
func launch(in *caseInput, results scheduling.Results, batch int) error {
	berthTypes := lo.SliceToMap(in.InstanceTypes, func(b berthit.InstanceType) (string, berthit.InstanceType) { return b.Name, b })
	nodes := lo.SliceToMap(in.Nodes, func(n *corev1.Node) (string, *corev1.Node) { return n.Name, n })
	bindTo := map[string]string{}
	// The input's launched claims register and initialize (those whose Node is marked for deletion stay as they are).
	for _, nc := range in.NodeClaims {
		if n, ok := nodes[nc.Status.NodeName]; ok {
			if lo.ContainsBy(n.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&v1.DisruptedNoScheduleTaint) }) {
				continue
			}
			n.Labels = lo.Assign(n.Labels, map[string]string{labelInitialized: "true"})
			n.Spec.Taints = lo.Reject(n.Spec.Taints, func(t corev1.Taint, _ int) bool {
				return kscheduling.IsKnownEphemeralTaint(&t) || lo.ContainsBy(nc.Spec.StartupTaints, func(s corev1.Taint) bool { return s.MatchTaint(&t) })
			})
			continue
		}
		nc.Status.NodeName = nc.Name
		in.Nodes = append(in.Nodes, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: nc.Name, Labels: lo.Assign(nc.Labels, map[string]string{labelRegistered: "true", labelInitialized: "true"})},
			Spec:       corev1.NodeSpec{ProviderID: nc.Status.ProviderID, Taints: nc.Spec.Taints},
			Status:     corev1.NodeStatus{Capacity: nc.Status.Capacity, Allocatable: nc.Status.Allocatable},
		})
	}
	for i, nc := range results.NewNodeClaims {
		name := fmt.Sprintf("batch%d-%d", batch, i)
		node, claim, err := launched(name, nc, berthTypes)
		if err != nil {
			return err
		}
		in.Nodes = append(in.Nodes, node)
		in.NodeClaims = append(in.NodeClaims, claim)
		for _, p := range nc.Pods {
			bindTo[podKey(p)] = name
		}
	}
	for _, en := range results.ExistingNodes {
		for _, p := range en.Pods {
			bindTo[podKey(p)] = en.Name()
		}
	}
	// Pods of deleting nodes the Solve placed move; the others stay where they are.
	for _, p := range in.BoundPods {
		if to, ok := bindTo[podKey(p)]; ok {
			p.Spec.NodeName = to
			delete(bindTo, podKey(p))
		}
	}
	pending := []*corev1.Pod{}
	for _, p := range in.Pods {
		to, ok := bindTo[podKey(p)]
		if !ok {
			pending = append(pending, p)
			continue
		}
		bound := p.DeepCopy()
		bound.Spec.NodeName = to
		bound.Status.Phase = corev1.PodRunning
		in.BoundPods = append(in.BoundPods, bound)
	}
	in.Pods = pending
	in.BoundPods = append(in.BoundPods, daemonSetPodsToRun(in)...)
	withTypeMeta(in)
	return nil
}

// withTypeMeta sets apiVersion and kind on the objects launch made, as a dump has them.
func withTypeMeta(in *caseInput) {
	for _, n := range in.Nodes {
		n.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
	}
	for _, nc := range in.NodeClaims {
		nc.TypeMeta = metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim"}
	}
	for _, p := range in.BoundPods {
		p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	}
}

// launched is the Node and NodeClaim the claim becomes: its cheapest offering, registered and initialized.
func launched(name string, nc *scheduling.NodeClaim, berthTypes map[string]berthit.InstanceType) (*corev1.Node, *v1.NodeClaim, error) {
	var best *priced
	for _, it := range nc.InstanceTypeOptions {
		if o, ok := cheapest(it, nc.Requirements); ok && (best == nil || o.Price < best.price || (o.Price == best.price && it.Name < best.name)) {
			best = &priced{it.Name, o.Price, o}
		}
	}
	if best == nil {
		return nil, nil, fmt.Errorf("claim %s of %s has no offering to launch", name, nc.NodePoolName)
	}
	it, _ := lo.Find(nc.InstanceTypeOptions, func(t *cloudprovider.InstanceType) bool { return t.Name == best.name })
	zone := best.o.Requirements.Get(corev1.LabelTopologyZone).Any()
	capacityType := best.o.Requirements.Get(v1.CapacityTypeLabelKey).Any()
	providerID := fmt.Sprintf("aws:///%s/i-%s", zone, name)
	labels := lo.Assign(berthTypes[best.name].Labels, nc.Labels, customLabels(nc.Requirements), map[string]string{
		corev1.LabelTopologyZone: zone,
		v1.CapacityTypeLabelKey:  capacityType,
		v1.NodePoolLabelKey:      nc.NodePoolName,
		corev1.LabelHostname:     name,
	})
	// A pool's single-valued well-known requirements (arch In [arm64]) are labels too.
	for _, r := range nc.Requirements {
		if _, set := labels[r.Key]; !set && r.Operator() == corev1.NodeSelectorOpIn && r.Len() == 1 {
			labels[r.Key] = r.Values()[0]
		}
	}
	taints := nc.Spec.Taints
	claim := &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, UID: types.UID("nc-" + name)},
		Spec:       v1.NodeClaimSpec{Taints: taints, NodeClassRef: &v1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}},
		Status:     v1.NodeClaimStatus{ProviderID: providerID, NodeName: name, Capacity: it.Capacity, Allocatable: it.Allocatable()},
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lo.Assign(labels, map[string]string{labelRegistered: "true", labelInitialized: "true"})},
		Spec:       corev1.NodeSpec{ProviderID: providerID, Taints: taints},
		Status:     corev1.NodeStatus{Capacity: it.Capacity, Allocatable: it.Allocatable()},
	}
	return node, claim, nil
}

// customLabels resolves the claim's custom (not well-known) requirements as
// NodeClaimTemplate.ToNodeClaim does. Karpenter takes any allowed value (Go map
// order); the oracle takes the smallest, so that a run repeats.
func customLabels(reqs kscheduling.Requirements) map[string]string {
	out := map[string]string{}
	for key, r := range reqs {
		if v1.WellKnownLabels.Has(key) || v1.RestrictedLabels.Has(key) || r.Operator() != corev1.NodeSelectorOpIn || r.Len() == 0 {
			continue
		}
		vs := r.Values()
		sort.Strings(vs)
		out[key] = vs[0]
	}
	return out
}

// daemonSetPodsToRun are the DaemonSet pods the DaemonSet controller starts on
// initialized Nodes that lack them: the pod tolerates the Node's NoSchedule and
// NoExecute taints and its node affinity allows the Node's labels.
func daemonSetPodsToRun(in *caseInput) []*corev1.Pod {
	out := []*corev1.Pod{}
	for i, ds := range in.DaemonSets {
		for _, n := range in.Nodes {
			if n.Labels[labelInitialized] != "true" {
				continue
			}
			if lo.ContainsBy(in.BoundPods, func(p *corev1.Pod) bool { return p.Spec.NodeName == n.Name && isPodOf(p, ds.Name) }) {
				continue
			}
			pod := daemonset.PodForDaemonSet(ds)
			// The DaemonSet controller filters as kube-scheduler does: a PreferNoSchedule taint does not keep a daemon off.
			binding := lo.Filter(n.Spec.Taints, func(t corev1.Taint, _ int) bool { return t.Effect != corev1.TaintEffectPreferNoSchedule })
			if kscheduling.Taints(binding).ToleratesPod(pod) != nil || !daemonSetAllows(ds, n.Labels) {
				continue
			}
			pod.Name = fmt.Sprintf("ds%d-%s", i, n.Name)
			pod.Namespace = "kube-system"
			pod.UID = types.UID("uid-" + pod.Name)
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: lo.ToPtr(true)}}
			pod.Spec.NodeName = n.Name
			pod.Status.Phase = corev1.PodRunning
			out = append(out, pod)
		}
	}
	return out
}

func isPodOf(p *corev1.Pod, daemonSet string) bool {
	return lo.ContainsBy(p.OwnerReferences, func(o metav1.OwnerReference) bool { return o.Kind == "DaemonSet" && o.Name == daemonSet })
}

func daemonSetAllows(ds *appsv1.DaemonSet, labels map[string]string) bool {
	aff := ds.Spec.Template.Spec.Affinity
	if aff == nil || aff.NodeAffinity == nil || aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	return lo.SomeBy(aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, func(t corev1.NodeSelectorTerm) bool {
		return kscheduling.NewLabelRequirements(labels).Compatible(kscheduling.NewNodeSelectorRequirements(t.MatchExpressions...)) == nil
	})
}
