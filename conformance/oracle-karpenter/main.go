// Command oracle runs Karpenter's provisioning scheduler (sigs.k8s.io/karpenter
// pkg/controllers/provisioning/scheduling) on berth's provisioning cases, one JSON
// case per stdin line, one JSON result per stdout line. See README.md.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/samber/lo"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/berth/conformance/oracle-karpenter/berthit"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/utils/daemonset"
	nodepoolutils "sigs.k8s.io/karpenter/pkg/utils/nodepool"
)

func init() {
	// The AWS provider's operator (pkg/operator/operator.go) reads the EBS CSI driver's
	// zone key, which PVs and StorageClasses use, as topology.kubernetes.io/zone.
	v1.NormalizedLabels = lo.Assign(v1.NormalizedLabels, map[string]string{"topology.ebs.csi.aws.com/zone": corev1.LabelTopologyZone})
}

type caseInput struct {
	ID            json.RawMessage        `json:"id"`
	NodePools     []*v1.NodePool         `json:"nodePools"`
	Pods          []*corev1.Pod          `json:"pods"`
	InstanceTypes []berthit.InstanceType `json:"instanceTypes"`
	DaemonSets    []*appsv1.DaemonSet    `json:"daemonSets,omitempty"`
	// Storage the pods mount (see README.md, Volumes).
	PersistentVolumes      []*corev1.PersistentVolume      `json:"persistentVolumes,omitempty"`
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim `json:"persistentVolumeClaims,omitempty"`
	StorageClasses         []*storagev1.StorageClass       `json:"storageClasses,omitempty"`
	// Cluster state: Nodes, launched NodeClaims (in flight, uninitialized or deleting) and the
	// pods bound to the Nodes. A Node tainted karpenter.sh/disrupted:NoSchedule is marked for deletion.
	Nodes      []*corev1.Node  `json:"nodes,omitempty"`
	NodeClaims []*v1.NodeClaim `json:"nodeClaims,omitempty"`
	BoundPods  []*corev1.Pod   `json:"boundPods,omitempty"`
	// Launch: after the Solve, launch its claims and return the next batch's case (batches.go); Batch numbers the launched nodes.
	Launch bool `json:"launch,omitempty"`
	Batch  int  `json:"batch,omitempty"`
}

type nodeClaimOut struct {
	NodePool            string   `json:"nodePool"`
	InstanceTypeOptions []string `json:"instanceTypeOptions"`
	Zones               []string `json:"zones"`
	CapacityTypes       []string `json:"capacityTypes"`
	Pods                []string `json:"pods"`
	Price               float64  `json:"price"`
	InstanceType        string   `json:"instanceType"`
	Zone                string   `json:"zone"`
	CapacityType        string   `json:"capacityType"`
}

type existingOut struct {
	Name string   `json:"name"`
	Pods []string `json:"pods"`
}

type resultOut struct {
	ID         json.RawMessage `json:"id"`
	Error      string          `json:"error,omitempty"`
	NodeClaims []nodeClaimOut  `json:"nodeClaims"`
	// Pods placed on existing state nodes (in-flight and uninitialized claims, Nodes), by node name.
	ExistingNodes []existingOut     `json:"existingNodes,omitempty"`
	PodErrors     map[string]string `json:"podErrors"`
	// With Launch: the case after this batch's claims launched (nil when it planned none).
	Next *caseInput `json:"next,omitempty"`
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// cheapest returns the cheapest available offering of it compatible with reqs.
func cheapest(it *cloudprovider.InstanceType, reqs kscheduling.Requirements) (*cloudprovider.Offering, bool) {
	var best *cloudprovider.Offering
	for _, o := range it.Offerings {
		if !o.Available || !reqs.IsCompatible(o.Requirements, kscheduling.AllowUndefinedWellKnownLabels) {
			continue
		}
		if best == nil || o.Price < best.Price {
			best = o
		}
	}
	return best, best != nil
}

func run(ctx context.Context, in *caseInput) (res resultOut) {
	res.ID = in.ID
	res.NodeClaims = []nodeClaimOut{}
	res.PodErrors = map[string]string{}
	defer func() {
		if r := recover(); r != nil {
			res.Error = fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	s, pods, ignored, err := newScheduler(ctx, in)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	for k, why := range ignored {
		res.PodErrors[k] = why
	}
	results, err := s.Solve(ctx, pods)
	if err != nil {
		res.Error = "solve: " + err.Error()
		return res
	}
	describe(results, &res)
	if in.Launch && len(results.NewNodeClaims) > 0 {
		if err := launch(in, results, in.Batch); err != nil {
			res.Error = fmt.Sprintf("batch %d: %s", in.Batch, err)
			return res
		}
		in.InstanceTypes = nil
		in.Launch, in.Batch = false, 0
		res.Next = in
	}
	return res
}

// newScheduler builds the case's setup (see README.md): its pods get their namespace
// and UID defaults, and the returned scheduler is ready for Solve(pods). pods leaves
// out what the provisioner would not schedule for its volumes (ignored, with why).
func newScheduler(ctx context.Context, in *caseInput) (*scheduling.Scheduler, []*corev1.Pod, map[string]string, error) {
	its := make([]*cloudprovider.InstanceType, 0, len(in.InstanceTypes))
	for _, b := range in.InstanceTypes {
		its = append(its, berthit.ToKarpenter(b))
	}
	for i, p := range in.Pods {
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		if p.UID == "" {
			p.UID = types.UID(fmt.Sprintf("uid-%s-%s-%d", p.Namespace, p.Name, i))
		}
	}
	pools := []*v1.NodePool{}
	for _, np := range in.NodePools {
		if np.UID == "" {
			np.UID = types.UID("np-" + np.Name)
		}
		pools = append(pools, np)
	}
	nodepoolutils.OrderByWeight(pools)
	itMap := map[string][]*cloudprovider.InstanceType{}
	for _, np := range pools {
		itMap[np.Name] = its
	}
	dsPods := []*corev1.Pod{}
	for _, ds := range in.DaemonSets {
		pod := daemonset.PodForDaemonSet(ds)
		if ds.Spec.Template.Spec.Affinity != nil && ds.Spec.Template.Spec.Affinity.NodeAffinity != nil &&
			ds.Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			if pod.Spec.Affinity == nil {
				pod.Spec.Affinity = &corev1.Affinity{}
			}
			if pod.Spec.Affinity.NodeAffinity == nil {
				pod.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
			}
			pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = ds.Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
		dsPods = append(dsPods, pod)
	}

	cp := fake.NewCloudProvider()
	cp.InstanceTypes = its
	objs := storageObjects(in)
	for i, p := range in.BoundPods {
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		if p.UID == "" {
			p.UID = types.UID(fmt.Sprintf("uid-bound-%s-%s-%d", p.Namespace, p.Name, i))
		}
		objs = append(objs, p)
	}
	for _, n := range in.Nodes {
		objs = append(objs, n)
	}
	kube := clusterScopedGets{fakecr.NewClientBuilder().WithObjects(objs...).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).Build()}
	clk := clock.RealClock{}
	recorder := events.NewRecorder(&record.FakeRecorder{})
	cluster := state.NewCluster(clk, kube, cp)
	// Cluster state as the informers would fill it, then the provisioner's Schedule: active
	// state nodes are existing capacity, the pods of deleting ones are scheduled again.
	for _, nc := range in.NodeClaims {
		cluster.UpdateNodeClaim(nc)
	}
	for _, n := range in.Nodes {
		if err := cluster.UpdateNode(ctx, n); err != nil {
			return nil, nil, nil, fmt.Errorf("node %s: %w", n.Name, err)
		}
	}
	for _, p := range in.BoundPods {
		if err := cluster.UpdatePod(ctx, p); err != nil {
			return nil, nil, nil, fmt.Errorf("pod %s: %w", p.Name, err)
		}
	}
	for _, n := range in.Nodes {
		if lo.ContainsBy(n.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&v1.DisruptedNoScheduleTaint) }) {
			cluster.MarkForDeletion(n.Spec.ProviderID)
		}
	}
	stateNodes := cluster.DeepCopyNodes()
	deletingPods, err := stateNodes.Deleting().CurrentlyReschedulablePods(ctx, kube, clk, recorder)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("deleting nodes: %w", err)
	}
	pods, volumeReqs, ignored := volumeRequirements(ctx, kube, append(in.Pods, deletingPods...))
	active := stateNodes.Active()
	topology, err := scheduling.NewTopology(ctx, kube, cluster, active, pools, itMap, pods)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("topology: %w", err)
	}
	return scheduling.NewScheduler(ctx, kube, pools, cluster, active, topology, itMap, dsPods,
		recorder, clk, volumeReqs, nil), pods, ignored, nil
}

// clusterScopedGets drops the namespace from a Get of a cluster-scoped storage object,
// as the API server and controller-runtime's cache do. Karpenter looks a claim's
// PersistentVolume up under the pod's namespace; the fake client alone would not find it.
type clusterScopedGets struct{ client.Client }

func (c clusterScopedGets) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	switch obj.(type) {
	case *corev1.PersistentVolume, *storagev1.StorageClass:
		key.Namespace = ""
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func storageObjects(in *caseInput) []client.Object {
	objs := []client.Object{}
	for _, o := range in.StorageClasses {
		objs = append(objs, o)
	}
	for _, o := range in.PersistentVolumes {
		objs = append(objs, o)
	}
	for _, o := range in.PersistentVolumeClaims {
		objs = append(objs, o)
	}
	return objs
}

// volumeRequirements does what the provisioner does with pods' volumes before it
// schedules them: Validate drops a pod whose claims it cannot use (missing claim,
// unbound claim of an Immediate class, ...), and GetRequirements gives the volume
// topology alternatives of the rest (a pod whose lookup fails is dropped too).
func volumeRequirements(ctx context.Context, kube client.Client, in []*corev1.Pod) ([]*corev1.Pod, map[types.UID][]kscheduling.Requirements, map[string]string) {
	vt := scheduling.NewVolumeTopology(kube)
	pods := []*corev1.Pod{}
	reqs := map[types.UID][]kscheduling.Requirements{}
	ignored := map[string]string{}
	for _, p := range in {
		if err := vt.ValidatePersistentVolumeClaims(ctx, p); err != nil {
			ignored[podKey(p)] = "ignored by the provisioner: " + err.Error()
			continue
		}
		r, err := vt.GetRequirements(ctx, p)
		if err != nil {
			ignored[podKey(p)] = "ignored by the provisioner: " + err.Error()
			continue
		}
		if len(r) > 0 {
			reqs[p.UID] = r
		}
		pods = append(pods, p)
	}
	return pods, reqs, ignored
}

type priced struct {
	name  string
	price float64
	o     *cloudprovider.Offering
}

// describe writes Solve's pod errors and new NodeClaims, each priced at its cheapest compatible offering, into res.
func describe(results scheduling.Results, res *resultOut) {
	for p, e := range results.PodErrors {
		res.PodErrors[podKey(p)] = e.Error()
	}
	for _, en := range results.ExistingNodes {
		if len(en.Pods) == 0 {
			continue
		}
		out := existingOut{Name: en.Name()}
		for _, p := range en.Pods {
			out.Pods = append(out.Pods, podKey(p))
		}
		sort.Strings(out.Pods)
		res.ExistingNodes = append(res.ExistingNodes, out)
	}
	for _, nc := range results.NewNodeClaims {
		out := nodeClaimOut{NodePool: nc.NodePoolName}
		options := []priced{}
		zones, cts := map[string]bool{}, map[string]bool{}
		for _, it := range nc.InstanceTypeOptions {
			o, ok := cheapest(it, nc.Requirements)
			if !ok {
				continue
			}
			options = append(options, priced{it.Name, o.Price, o})
			for _, off := range it.Offerings {
				if off.Available && nc.Requirements.IsCompatible(off.Requirements, kscheduling.AllowUndefinedWellKnownLabels) {
					zones[off.Requirements.Get(corev1.LabelTopologyZone).Any()] = true
					cts[off.Requirements.Get(v1.CapacityTypeLabelKey).Any()] = true
				}
			}
		}
		sort.SliceStable(options, func(i, j int) bool {
			if options[i].price != options[j].price {
				return options[i].price < options[j].price
			}
			return options[i].name < options[j].name
		})
		for _, o := range options {
			out.InstanceTypeOptions = append(out.InstanceTypeOptions, o.name)
		}
		if len(options) > 0 {
			out.Price = options[0].price
			out.InstanceType = options[0].name
			out.Zone = options[0].o.Requirements.Get(corev1.LabelTopologyZone).Any()
			out.CapacityType = options[0].o.Requirements.Get(v1.CapacityTypeLabelKey).Any()
		}
		out.Zones = sortedKeys(zones)
		out.CapacityTypes = sortedKeys(cts)
		for _, p := range nc.Pods {
			out.Pods = append(out.Pods, podKey(p))
		}
		sort.Strings(out.Pods)
		res.NodeClaims = append(res.NodeClaims, out)
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func main() {
	benchMode := flag.Bool("bench", false, "time Solve on each case and report throughput, NodeClaims and $/h (bench.go) instead of the plan")
	flag.Parse()
	crlog.SetLogger(logrDiscard())
	ctx := injection.WithControllerName(context.Background(), "provisioner")
	ctx = options.ToContext(ctx, &options.Options{
		PreferencePolicy:  options.PreferencePolicyRespect,
		MinValuesPolicy:   options.MinValuesPolicyStrict,
		IgnoreDRARequests: true,
		CPURequests:       1000,
		FeatureGates:      options.FeatureGates{ReservedCapacity: true},
	})
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	for {
		line, err := r.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var in caseInput
			derr := json.Unmarshal(line, &in)
			if in.ID == nil {
				in.ID = json.RawMessage("null")
			}
			switch {
			case derr != nil && *benchMode:
				_ = enc.Encode(benchResult{ID: in.ID, Error: "decode: " + derr.Error()})
			case derr != nil:
				_ = enc.Encode(resultOut{ID: in.ID, Error: "decode: " + derr.Error(), NodeClaims: []nodeClaimOut{}, PodErrors: map[string]string{}})
			case *benchMode:
				_ = enc.Encode(bench(ctx, &in))
			default:
				_ = enc.Encode(run(ctx, &in))
			}
			_ = w.Flush()
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "read:", err)
			os.Exit(1)
		}
	}
}
