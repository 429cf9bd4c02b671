// Command oracle runs Karpenter's disruption controller (sigs.k8s.io/karpenter
// pkg/controllers/disruption) on berth's disruption cases, one JSON case per stdin
// line, one JSON result per stdout line: the first command Karpenter would start.
// See README.md.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/awslabs/operatorpkg/status"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/berth/conformance/oracle-karpenter/berthit"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/dynamicresources/deviceallocation"
	ncdisruption "sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/state/cost"
	"sigs.k8s.io/karpenter/pkg/state/virtualpods"
	testv1alpha1 "sigs.k8s.io/karpenter/pkg/test/v1alpha1"
)

type caseInput struct {
	ID            json.RawMessage                 `json:"id"`
	Now           metav1.Time                     `json:"now"`
	NodePools     []*v1.NodePool                  `json:"nodePools"`
	NodeClaims    []*v1.NodeClaim                 `json:"nodeClaims"`
	Nodes         []*corev1.Node                  `json:"nodes"`
	Pods          []*corev1.Pod                   `json:"pods"`
	PDBs          []*policyv1.PodDisruptionBudget `json:"pdbs,omitempty"`
	DaemonSets    []*appsv1.DaemonSet             `json:"daemonSets,omitempty"`
	InstanceTypes []berthit.InstanceType          `json:"instanceTypes"`
	SpotToSpot    bool                            `json:"spotToSpot,omitempty"`
}

type replacementOut struct {
	NodePool string `json:"nodePool"`
	// Instance types the launch may pick, cheapest compatible offering first (then by name).
	InstanceTypeOptions []string `json:"instanceTypeOptions"`
	Price               float64  `json:"price"`
	// The displaced pods Karpenter's simulation put on this replacement (namespace/name, sorted).
	Pods []string `json:"pods"`
}

type commandOut struct {
	// Karpenter's disruption reason: Empty, Drifted or Underutilized.
	Reason string `json:"reason"`
	// "empty", "multi", "single" for consolidation, "" for drift.
	ConsolidationType string           `json:"consolidationType"`
	Decision          string           `json:"decision"`
	Nodes             []string         `json:"nodes"`
	Replacements      []replacementOut `json:"replacements"`
}

type eventOut struct {
	Object  string `json:"object"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type resultOut struct {
	ID      json.RawMessage `json:"id"`
	Error   string          `json:"error,omitempty"`
	Command *commandOut     `json:"command"`
	// Conditions Karpenter's NodeClaim disruption controller set: node name → "Drifted:<reason>", "Consolidatable".
	Conditions map[string][]string `json:"conditions"`
	Events     []eventOut          `json:"events"`
}

// recorder keeps the events the disruption methods publish (DisruptionBlocked, Unconsolidatable, ...).
type recorder struct{ events []eventOut }

func (r *recorder) Publish(evts ...events.Event) {
	for _, e := range evts {
		name := ""
		if m, err := meta.Accessor(e.InvolvedObject); err == nil {
			name = fmt.Sprintf("%T/%s", e.InvolvedObject, m.GetName())
		}
		r.events = append(r.events, eventOut{Object: strings.TrimPrefix(name, "*"), Reason: e.Reason, Message: e.Message})
	}
}

// nopValidator accepts a command as computed: the oracle decides at one instant, so
// Karpenter's 15 s re-check would see the very same cluster.
type nopValidator struct{}

func (nopValidator) Validate(_ context.Context, cmd disruption.Command, _ time.Duration) (disruption.Command, error) {
	return cmd, nil
}

// testNodeClassRef is the NodeClass the fake cloud provider manages (berth's cases name EC2NodeClass).
var testNodeClassRef = &v1.NodeClassReference{Group: testv1alpha1.Group, Kind: "TestNodeClass", Name: "default"}

func readyConditions(now metav1.Time, types ...string) []status.Condition {
	out := []status.Condition{}
	for _, t := range types {
		out = append(out, status.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t, LastTransitionTime: now})
	}
	return out
}

func newClient(in *caseInput) client.Client {
	b := fakecr.NewClientBuilder().WithScheme(scheme.Scheme).
		WithStatusSubresource(&v1.NodeClaim{}, &v1.NodePool{}).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		WithIndex(&corev1.Node{}, "spec.providerID", func(o client.Object) []string { return []string{o.(*corev1.Node).Spec.ProviderID} }).
		WithIndex(&v1.NodeClaim{}, "status.providerID", func(o client.Object) []string { return []string{o.(*v1.NodeClaim).Status.ProviderID} })
	objs := []client.Object{}
	for _, o := range in.NodePools {
		objs = append(objs, o)
	}
	for _, o := range in.NodeClaims {
		objs = append(objs, o)
	}
	for _, o := range in.Nodes {
		objs = append(objs, o)
	}
	for _, o := range in.Pods {
		objs = append(objs, o)
	}
	for _, o := range in.PDBs {
		objs = append(objs, o)
	}
	for _, o := range in.DaemonSets {
		objs = append(objs, o)
	}
	return b.WithObjects(objs...).Build()
}

// prepare gives the case's objects what the API server and Karpenter's other
// controllers would have: UIDs, the NodePool hash annotations (from the NodePool as
// written, before its NodeClass reference becomes the fake provider's), Ready NodePools.
func prepare(in *caseInput) {
	for _, np := range in.NodePools {
		np.UID = types.UID("np-" + np.Name)
		if np.Annotations == nil {
			np.Annotations = map[string]string{}
		}
		np.Annotations[v1.NodePoolHashAnnotationKey] = np.Hash()
		np.Annotations[v1.NodePoolHashVersionAnnotationKey] = v1.NodePoolHashVersion
		np.Spec.Template.Spec.NodeClassRef = testNodeClassRef
		np.Status.Conditions = readyConditions(in.Now, status.ConditionReady, v1.ConditionTypeValidationSucceeded, v1.ConditionTypeNodeClassReady)
	}
	for _, nc := range in.NodeClaims {
		if nc.UID == "" {
			nc.UID = types.UID("nc-" + nc.Name)
		}
		nc.Spec.NodeClassRef = testNodeClassRef
	}
	for _, n := range in.Nodes {
		if n.UID == "" {
			n.UID = types.UID("node-" + n.Name)
		}
	}
	for i, p := range in.Pods {
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		if p.UID == "" {
			p.UID = types.UID(fmt.Sprintf("uid-%s-%s-%d", p.Namespace, p.Name, i))
		}
	}
}

func run(ctx context.Context, in *caseInput) (res resultOut) {
	res.ID = in.ID
	res.Conditions = map[string][]string{}
	res.Events = []eventOut{}
	defer func() {
		if r := recover(); r != nil {
			res.Error = fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	prepare(in)
	clk := clocktesting.NewFakeClock(in.Now.Time)
	kube := newClient(in)
	cp := fake.NewCloudProvider()
	for _, b := range in.InstanceTypes {
		cp.InstanceTypes = append(cp.InstanceTypes, berthit.ToKarpenter(b))
	}
	rec := &recorder{}

	// Karpenter's NodeClaim disruption controller sets Drifted and Consolidatable first.
	ncController := ncdisruption.NewController(clk, kube, cp)
	cluster := state.NewCluster(clk, kube, cp)
	for _, c := range in.NodeClaims {
		nc := &v1.NodeClaim{}
		if err := kube.Get(ctx, client.ObjectKeyFromObject(c), nc); err != nil {
			res.Error = "get nodeclaim: " + err.Error()
			return res
		}
		if _, err := ncController.Reconcile(ctx, nc); err != nil {
			res.Error = "nodeclaim disruption: " + err.Error()
			return res
		}
		if err := kube.Get(ctx, client.ObjectKeyFromObject(c), nc); err != nil {
			res.Error = "get nodeclaim: " + err.Error()
			return res
		}
		for _, t := range []string{v1.ConditionTypeDrifted, v1.ConditionTypeConsolidatable} {
			if cond := nc.StatusConditions().Get(t); cond.IsTrue() {
				res.Conditions[nc.Status.NodeName] = append(res.Conditions[nc.Status.NodeName], strings.TrimSuffix(t+":"+lo(t == v1.ConditionTypeDrifted, cond.Reason), ":"))
			}
		}
		cluster.UpdateNodeClaim(nc)
	}
	for _, n := range in.Nodes {
		if err := cluster.UpdateNode(ctx, n); err != nil {
			res.Error = "state node: " + err.Error()
			return res
		}
	}
	for _, p := range in.Pods {
		if err := cluster.UpdatePod(ctx, p); err != nil {
			res.Error = "state pod: " + err.Error()
			return res
		}
	}
	for _, ds := range in.DaemonSets {
		if err := cluster.UpdateDaemonSet(ctx, ds); err != nil {
			res.Error = "state daemonset: " + err.Error()
			return res
		}
	}
	cluster.MarkUnconsolidated()
	// The cost tracker the controller reads Balanced pools' total cost from: every NodeClaim at its offering's price.
	clusterCost := cost.NewClusterCost(ctx, cp, kube)
	for _, c := range in.NodeClaims {
		if err := clusterCost.UpdateNodeClaim(ctx, c); err != nil {
			res.Error = "cluster cost: " + err.Error()
			return res
		}
	}

	prov := provisioning.NewProvisioner(kube, rec, cp, cluster, clk, deviceallocation.NewController(kube), virtualpods.NewVirtualPodCache(kube))
	queue := disruption.NewQueue(kube, rec, cluster, clk, prov)
	c := disruption.MakeConsolidation(clk, cluster, kube, prov, cp, rec, queue)
	nop := disruption.WithValidator(nopValidator{})
	// Karpenter's order (disruption.NewMethods); only one method acts per pass.
	methods := []disruption.Method{
		disruption.NewEmptiness(c, nop),
		disruption.NewStaticDrift(cluster, prov, cp),
		disruption.NewDrift(kube, cluster, prov, rec, clk),
		disruption.NewMultiNodeConsolidation(c, nop),
		disruption.NewSingleNodeConsolidation(c, nop),
	}
	for _, m := range methods {
		cmd, err := firstCommand(ctx, m, cluster, kube, rec, clk, cp, queue, clusterCost)
		if err != nil {
			res.Error = fmt.Sprintf("%T: %s", m, err)
			return res
		}
		if cmd != nil {
			res.Command = cmd
			break
		}
	}
	res.Events = append(res.Events, rec.events...)
	return res
}

func lo(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// firstCommand is what the disruption controller's disrupt(m) would start, or nil.
func firstCommand(ctx context.Context, m disruption.Method, cluster *state.Cluster, kube client.Client, rec events.Recorder, clk *clocktesting.FakeClock, cp cloudprovider.CloudProvider, queue *disruption.Queue, clusterCost *cost.ClusterCost) (*commandOut, error) {
	candidates, totals, err := disruption.GetCandidatesWithTotals(ctx, cluster, kube, rec, clk, cp, m.ShouldDisrupt, m.Class(), queue, clusterCost)
	if err != nil {
		return nil, err
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	if setter, ok := m.(disruption.NodePoolTotalsSetter); ok {
		setter.SetNodePoolTotals(totals)
	}
	budgets, err := disruption.BuildDisruptionBudgetMapping(ctx, cluster, clk, kube, cp, rec, m.Reason())
	if err != nil {
		return nil, err
	}
	cmds, err := m.ComputeCommands(ctx, budgets, candidates...)
	if err != nil {
		return nil, err
	}
	for _, cmd := range cmds {
		if cmd.Decision() == disruption.NoOpDecision {
			continue
		}
		out := &commandOut{Reason: string(m.Reason()), ConsolidationType: m.ConsolidationType(), Decision: string(cmd.Decision()), Nodes: []string{}, Replacements: []replacementOut{}}
		for _, cand := range cmd.Candidates {
			out.Nodes = append(out.Nodes, cand.Node.Name)
		}
		for _, r := range cmd.Replacements {
			out.Replacements = append(out.Replacements, describeReplacement(r))
		}
		return out, nil
	}
	return nil, nil
}

func describeReplacement(r *disruption.Replacement) replacementOut {
	type priced struct {
		name  string
		price float64
	}
	options := []priced{}
	for _, it := range r.InstanceTypeOptions {
		best := -1.0
		for _, o := range it.Offerings {
			if o.Available && r.Requirements.IsCompatible(o.Requirements, kscheduling.AllowUndefinedWellKnownLabels) && (best < 0 || o.Price < best) {
				best = o.Price
			}
		}
		if best >= 0 {
			options = append(options, priced{it.Name, best})
		}
	}
	sort.SliceStable(options, func(i, j int) bool {
		if options[i].price != options[j].price {
			return options[i].price < options[j].price
		}
		return options[i].name < options[j].name
	})
	out := replacementOut{NodePool: r.NodePoolName, InstanceTypeOptions: []string{}, Pods: []string{}}
	for _, p := range r.Pods {
		out.Pods = append(out.Pods, p.Namespace+"/"+p.Name)
	}
	sort.Strings(out.Pods)
	for _, o := range options {
		out.InstanceTypeOptions = append(out.InstanceTypeOptions, o.name)
	}
	if len(options) > 0 {
		out.Price = options[0].price
	}
	return out
}

func main() {
	crlog.SetLogger(logrDiscard())
	ctx := injection.WithControllerName(context.Background(), "disruption")
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
			if derr != nil {
				_ = enc.Encode(resultOut{ID: in.ID, Error: "decode: " + derr.Error(), Conditions: map[string][]string{}, Events: []eventOut{}})
			} else {
				cctx := options.ToContext(ctx, &options.Options{
					PreferencePolicy:  options.PreferencePolicyRespect,
					MinValuesPolicy:   options.MinValuesPolicyStrict,
					IgnoreDRARequests: true,
					CPURequests:       1000,
					FeatureGates:      options.FeatureGates{ReservedCapacity: true, SpotToSpotConsolidation: in.SpotToSpot},
				})
				_ = enc.Encode(run(cctx, &in))
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
