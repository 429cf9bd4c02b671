package main

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	appsdefaults "k8s.io/kubernetes/pkg/apis/apps/v1"
	coredefaults "k8s.io/kubernetes/pkg/apis/core/v1"
	schedulingdefaults "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	storagedefaults "k8s.io/kubernetes/pkg/apis/storage/v1"
)

// prepare applies what the API server would have done to the input objects
// before the scheduler saw them: namespace and uid on pods, v1 defaulting
// (requests default to limits, allocatable to capacity, hostPort protocol to
// TCP, schedulerName to default-scheduler, ...), priority resolution from
// PriorityClasses, and a Namespace object for every namespace in use.
func prepare(c *Case) error {
	if c.Pod == nil {
		return fmt.Errorf("case has no pod")
	}
	all := append([]*v1.Pod{c.Pod}, c.Pods...)
	for i, p := range all {
		if p == nil {
			return fmt.Errorf("pods[%d] is null", i-1)
		}
		if p.Namespace == "" {
			p.Namespace = v1.NamespaceDefault
		}
		if p.UID == "" {
			p.UID = types.UID("uid-" + p.Namespace + "-" + p.Name)
		}
	}
	for i, n := range c.Nodes {
		if n == nil {
			return fmt.Errorf("nodes[%d] is null", i)
		}
		if n.UID == "" {
			n.UID = types.UID("uid-node-" + n.Name)
		}
	}
	if !c.NoDefaulting {
		for _, p := range all {
			coredefaults.SetObjectDefaults_Pod(p)
		}
		for _, n := range c.Nodes {
			coredefaults.SetObjectDefaults_Node(n)
		}
		for _, o := range c.Namespaces {
			coredefaults.SetObjectDefaults_Namespace(o)
		}
		for _, o := range c.Services {
			coredefaults.SetObjectDefaults_Service(o)
		}
		for _, o := range c.ReplicationControllers {
			coredefaults.SetObjectDefaults_ReplicationController(o)
		}
		for _, o := range c.ReplicaSets {
			appsdefaults.SetObjectDefaults_ReplicaSet(o)
		}
		for _, o := range c.StatefulSets {
			appsdefaults.SetObjectDefaults_StatefulSet(o)
		}
		for _, o := range c.PVs {
			coredefaults.SetObjectDefaults_PersistentVolume(o)
		}
		for _, o := range c.PVCs {
			coredefaults.SetObjectDefaults_PersistentVolumeClaim(o)
		}
		for _, o := range c.StorageClasses {
			storagedefaults.SetObjectDefaults_StorageClass(o)
		}
		for _, o := range c.CSIDrivers {
			storagedefaults.SetObjectDefaults_CSIDriver(o)
		}
		for _, o := range c.PriorityClasses {
			schedulingdefaults.SetObjectDefaults_PriorityClass(o)
		}
	}
	resolvePriorities(c, all)

	// Every pod's namespace exists in a real cluster.
	have := map[string]bool{}
	for _, ns := range c.Namespaces {
		have[ns.Name] = true
	}
	for _, p := range all {
		if !have[p.Namespace] {
			have[p.Namespace] = true
			ns := &v1.Namespace{}
			ns.Name = p.Namespace
			ns.UID = types.UID("uid-ns-" + p.Namespace)
			if !c.NoDefaulting {
				coredefaults.SetObjectDefaults_Namespace(ns) // adds kubernetes.io/metadata.name
			}
			c.Namespaces = append(c.Namespaces, ns)
		}
	}
	return nil
}

// resolvePriorities mimics the Priority admission plugin for pods without spec.priority.
func resolvePriorities(c *Case, pods []*v1.Pod) {
	if len(c.PriorityClasses) == 0 {
		return
	}
	byName := map[string]int{}
	global := -1
	for i, pc := range c.PriorityClasses {
		byName[pc.Name] = i
		if pc.GlobalDefault && (global < 0 || pc.Value < c.PriorityClasses[global].Value) {
			global = i
		}
	}
	for _, p := range pods {
		if p.Spec.Priority != nil {
			continue
		}
		idx := -1
		if p.Spec.PriorityClassName != "" {
			if i, ok := byName[p.Spec.PriorityClassName]; ok {
				idx = i
			}
		} else if global >= 0 {
			idx = global
			p.Spec.PriorityClassName = c.PriorityClasses[global].Name
		}
		if idx < 0 {
			continue
		}
		pc := c.PriorityClasses[idx]
		v := pc.Value
		p.Spec.Priority = &v
		if p.Spec.PreemptionPolicy == nil && pc.PreemptionPolicy != nil {
			pp := *pc.PreemptionPolicy
			p.Spec.PreemptionPolicy = &pp
		}
	}
}

func isTerminal(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

// populate puts the input objects into a fake clientset (for whatever the
// plugins ask the API) and straight into the indexers of a shared informer
// factory built on it, which is never started: the listers the plugins hold
// then see exactly the input, without watch goroutines or sync waits.
func populate(c *Case) (*fake.Clientset, informers.SharedInformerFactory, error) {
	var objs []runtime.Object
	for _, o := range c.Nodes {
		objs = append(objs, o)
	}
	// The scheduler's pod informer excludes terminal pods (field selector).
	var pods []*v1.Pod
	for _, p := range append([]*v1.Pod{c.Pod}, c.Pods...) {
		if !isTerminal(p) {
			pods = append(pods, p)
		}
	}
	for _, o := range pods {
		objs = append(objs, o)
	}
	for _, o := range c.Namespaces {
		objs = append(objs, o)
	}
	for _, o := range c.PDBs {
		objs = append(objs, o)
	}
	for _, o := range c.Services {
		objs = append(objs, o)
	}
	for _, o := range c.ReplicationControllers {
		objs = append(objs, o)
	}
	for _, o := range c.ReplicaSets {
		objs = append(objs, o)
	}
	for _, o := range c.StatefulSets {
		objs = append(objs, o)
	}
	for _, o := range c.PVs {
		objs = append(objs, o)
	}
	for _, o := range c.PVCs {
		objs = append(objs, o)
	}
	for _, o := range c.StorageClasses {
		objs = append(objs, o)
	}
	for _, o := range c.CSINodes {
		objs = append(objs, o)
	}
	for _, o := range c.CSIDrivers {
		objs = append(objs, o)
	}
	for _, o := range c.CSIStorageCapacities {
		objs = append(objs, o)
	}
	for _, o := range c.VolumeAttachments {
		objs = append(objs, o)
	}
	for _, o := range c.PriorityClasses {
		objs = append(objs, o)
	}
	client := fake.NewSimpleClientset(objs...) //nolint:staticcheck // the tracker without managed fields is enough here

	f := informers.NewSharedInformerFactory(client, 0)
	add := func(store interface{ Add(any) error }, o any) error { return store.Add(o) }
	var err error
	must := func(e error) {
		if e != nil && err == nil {
			err = e
		}
	}
	core := f.Core().V1()
	for _, o := range c.Nodes {
		must(add(core.Nodes().Informer().GetIndexer(), o))
	}
	for _, o := range pods {
		must(add(core.Pods().Informer().GetIndexer(), o))
	}
	for _, o := range c.Namespaces {
		must(add(core.Namespaces().Informer().GetIndexer(), o))
	}
	for _, o := range c.Services {
		must(add(core.Services().Informer().GetIndexer(), o))
	}
	for _, o := range c.ReplicationControllers {
		must(add(core.ReplicationControllers().Informer().GetIndexer(), o))
	}
	for _, o := range c.PVs {
		must(add(core.PersistentVolumes().Informer().GetIndexer(), o))
	}
	for _, o := range c.PVCs {
		must(add(core.PersistentVolumeClaims().Informer().GetIndexer(), o))
	}
	for _, o := range c.PDBs {
		must(add(f.Policy().V1().PodDisruptionBudgets().Informer().GetIndexer(), o))
	}
	for _, o := range c.ReplicaSets {
		must(add(f.Apps().V1().ReplicaSets().Informer().GetIndexer(), o))
	}
	for _, o := range c.StatefulSets {
		must(add(f.Apps().V1().StatefulSets().Informer().GetIndexer(), o))
	}
	for _, o := range c.StorageClasses {
		must(add(f.Storage().V1().StorageClasses().Informer().GetIndexer(), o))
	}
	for _, o := range c.CSINodes {
		must(add(f.Storage().V1().CSINodes().Informer().GetIndexer(), o))
	}
	for _, o := range c.CSIDrivers {
		must(add(f.Storage().V1().CSIDrivers().Informer().GetIndexer(), o))
	}
	for _, o := range c.CSIStorageCapacities {
		must(add(f.Storage().V1().CSIStorageCapacities().Informer().GetIndexer(), o))
	}
	for _, o := range c.VolumeAttachments {
		must(add(f.Storage().V1().VolumeAttachments().Informer().GetIndexer(), o))
	}
	for _, o := range c.PriorityClasses {
		must(add(f.Scheduling().V1().PriorityClasses().Informer().GetIndexer(), o))
	}
	return client, f, err
}
