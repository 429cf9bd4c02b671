package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"
	"k8s.io/utils/ptr"
)

// Mirrors of unexported kube-scheduler constants (pkg/scheduler/schedule_one.go).
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// errNoNodesAvailable is pkg/scheduler.ErrNoNodesAvailable's message.
const errNoNodesAvailable = "no nodes available to schedule pods"

type oracle struct {
	metricsRecorder *metrics.MetricAsyncRecorder

	// gatesKey names the feature gates in force; registries holds an in-tree
	// registry per setting (its factories read the gates when it is built).
	gatesKey   string
	registries map[string]frameworkruntime.Registry

	cfgMu    sync.Mutex
	cfgCache map[string]*config.KubeSchedulerConfiguration
}

func newOracle() *oracle {
	metrics.Register()
	return &oracle{
		metricsRecorder: metrics.NewMetricsAsyncRecorder(1000, time.Second, make(chan struct{})),
		cfgCache:        map[string]*config.KubeSchedulerConfiguration{},
	}
}

func (o *oracle) config(raw []byte) (*config.KubeSchedulerConfiguration, error) {
	// v1 defaulting reads feature gates (e.g. VolumeBindingArgs.shape).
	key := o.gatesKey + "|" + string(raw)
	o.cfgMu.Lock()
	defer o.cfgMu.Unlock()
	if cfg, ok := o.cfgCache[key]; ok {
		return cfg.DeepCopy(), nil
	}
	cfg, err := loadConfig(raw)
	if err != nil {
		return nil, err
	}
	if len(o.cfgCache) < 64 {
		o.cfgCache[key] = cfg
	}
	return cfg.DeepCopy(), nil
}

// capturing wraps every in-tree factory so that the plugin instances the
// framework builds are visible to the oracle (to run Filter plugins one by one
// and to hook DefaultPreemption). The instances are returned unchanged.
func capturing(r frameworkruntime.Registry, captured map[string]fwk.Plugin) frameworkruntime.Registry {
	out := frameworkruntime.Registry{}
	for name, factory := range r {
		out[name] = func(ctx context.Context, args k8sruntime.Object, h fwk.Handle) (fwk.Plugin, error) {
			p, err := factory(ctx, args, h)
			if err == nil {
				captured[name] = p
			}
			return p, err
		}
	}
	return out
}

type noopNominator struct{}

func (noopNominator) AddNominatedPod(klog.Logger, fwk.PodInfo, *fwk.NominatingInfo) {}
func (noopNominator) DeleteNominatedPodIfExists(*v1.Pod)                            {}
func (noopNominator) UpdateNominatedPod(klog.Logger, *v1.Pod, fwk.PodInfo)          {}
func (noopNominator) NominatedPodsForNode(string) []fwk.PodInfo                     { return nil }
func (noopNominator) Activate(klog.Logger, map[string]*v1.Pod)                      {}

func statusOut(s *fwk.Status) *StatusOut {
	out := &StatusOut{Code: s.Code().String(), Plugin: pluginOf(s), Reasons: reasonsOf(s)}
	if out.Reasons == nil {
		out.Reasons = []string{}
	}
	return out
}

func sortedList(s sets.Set[string]) []string {
	l := sets.List(s)
	if l == nil {
		l = []string{}
	}
	return l
}

func (o *oracle) run(c *Case) (res Result) {
	res.ID = c.ID
	defer func() {
		if r := recover(); r != nil {
			res = Result{ID: c.ID, Error: fmt.Sprintf("panic: %v\n%s", r, debug.Stack())}
		}
	}()
	if err := o.runCase(c, &res); err != nil {
		res = Result{ID: c.ID, Profile: res.Profile, Error: err.Error()}
	}
	return res
}

func (o *oracle) runCase(c *Case, res *Result) error {
	if err := prepare(c); err != nil {
		return err
	}
	if err := o.setFeatureGates(c.FeatureGates); err != nil {
		return err
	}
	pod := c.Pod
	if pod.Spec.NodeName != "" {
		return fmt.Errorf("pod %s/%s is already bound to %q", pod.Namespace, pod.Name, pod.Spec.NodeName)
	}
	cfg, err := o.config(c.Config)
	if err != nil {
		return err
	}
	profile, err := findProfile(cfg, pod.Spec.SchedulerName)
	if err != nil {
		return err
	}
	res.Profile = profile.SchedulerName

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.FromContext(ctx)

	client, informerFactory, err := populate(c)
	if err != nil {
		return err
	}

	// The scheduler cache, fed as the scheduler's event handlers feed it
	// (assigned, non-terminal pods), and a snapshot taken from it: the node
	// order is the cache's node tree order (zones interleaved).
	gates := feature.DefaultFeatureGate
	schedCache := internalcache.New(ctx, nil, gates.Enabled(features.GenericWorkload), gates.Enabled(features.CompositePodGroup))
	for _, n := range c.Nodes {
		schedCache.AddNode(logger, n)
	}
	for _, p := range c.Pods {
		if p.Spec.NodeName != "" && !isTerminal(p) {
			if err := schedCache.AddPod(logger, p); err != nil {
				return fmt.Errorf("adding pod %s/%s to cache: %w", p.Namespace, p.Name, err)
			}
		}
	}
	snapshot := internalcache.NewEmptySnapshot()
	if err := schedCache.UpdateSnapshot(logger, snapshot); err != nil {
		return err
	}

	fw, captured, spy, err := o.buildFramework(ctx, c, profile, client, informerFactory, schedCache, snapshot)
	if err != nil {
		return err
	}
	defer fw.Close()

	o.schedule(ctx, c, cfg, fw, captured, spy, snapshot, res)
	return nil
}

func (o *oracle) buildFramework(ctx context.Context, c *Case, profile *config.KubeSchedulerProfile, client *fake.Clientset,
	informerFactory informers.SharedInformerFactory, schedCache internalcache.Cache, snapshot *internalcache.Snapshot,
) (framework.Framework, map[string]fwk.Plugin, *preemptionSpy, error) {
	logger := klog.FromContext(ctx)
	var draManager fwk.SharedDRAManager
	if feature.DefaultFeatureGate.Enabled(features.DynamicResourceAllocation) {
		claimCache := assumecache.NewAssumeCache(logger, informerFactory.Resource().V1().ResourceClaims().Informer(), "ResourceClaim", "", nil)
		tracker, err := resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{
			// DeviceTaintRules need a running tracker; the oracle has no DRA objects.
			EnableDeviceTaintRules:   false,
			EnableConsumableCapacity: feature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
			SliceInformer:            informerFactory.Resource().V1().ResourceSlices(),
			KubeClient:               client,
		})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("resource slice tracker: %w", err)
		}
		draManager = dynamicresources.NewDRAManager(ctx, claimCache, tracker, informerFactory)
	}
	csiManager := nodevolumelimits.NewCSIManager(informerFactory.Storage().V1().CSINodes().Lister())

	captured := map[string]fwk.Plugin{}
	fw, err := frameworkruntime.NewFramework(ctx, capturing(o.registry(), captured), profile,
		frameworkruntime.WithComponentConfigVersion("kubescheduler.config.k8s.io/v1"),
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(informerFactory),
		frameworkruntime.WithSharedDRAManager(draManager),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithMutableSnapshotLister(snapshot),
		frameworkruntime.WithParallelism(1),
		frameworkruntime.WithMetricsRecorder(o.metricsRecorder),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithSharedCSIManager(csiManager),
		frameworkruntime.WithPodGroupManager(schedCache),
		frameworkruntime.WithPodNominator(noopNominator{}),
		frameworkruntime.WithPodActivator(noopNominator{}),
		frameworkruntime.WithEventRecorder(&events.FakeRecorder{}),
	)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("building framework: %w", err)
	}
	var spy *preemptionSpy
	if dp, ok := captured[defaultpreemption.Name].(*defaultpreemption.DefaultPreemption); ok {
		spy = installPreemptionSpy(dp, c.PreemptionOffset)
	}
	return fw, captured, spy, nil
}

// numFeasibleNodesToFind mirrors (*Scheduler).numFeasibleNodesToFind.
func numFeasibleNodesToFind(profilePercentage *int32, globalPercentage int32, numAllNodes int32) int32 {
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	var percentage int32
	if profilePercentage != nil {
		percentage = *profilePercentage
	} else {
		percentage = globalPercentage
	}
	if percentage == 0 {
		percentage = int32(50) - numAllNodes/125
		if percentage < minFeasibleNodesPercentageToFind {
			percentage = minFeasibleNodesPercentageToFind
		}
	}
	numNodes := numAllNodes * percentage / 100
	if numNodes < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return numNodes
}

// schedule mirrors scheduleOnePod → schedulingCycle → schedulingAlgorithm →
// schedulePod (findNodesThatFitPod, prioritizeNodes, selectHost) → PostFilter,
// for one pod in a fresh scheduler (nextStartNodeIndex 0, no nominated pods,
// no extenders), with the framework's parallelism 1.
func (o *oracle) schedule(ctx context.Context, c *Case, cfg *config.KubeSchedulerConfiguration, fw framework.Framework,
	captured map[string]fwk.Plugin, spy *preemptionSpy, snapshot *internalcache.Snapshot, res *Result) {
	pod := c.Pod
	res.Feasible = []string{}
	res.TopScore = []string{}
	res.UnschedulablePlugins = []string{}
	res.PendingPlugins = []string{}
	res.SkippedScorePlugins = []string{}

	allNodes, err := snapshot.ListNodesInPlacement()
	if err != nil {
		res.Error = err.Error()
		return
	}
	res.Nodes = make([]NodeOut, len(allNodes))
	index := map[string]int{}
	for i, ni := range allNodes {
		res.Nodes[i] = NodeOut{Name: ni.Node().Name}
		index[ni.Node().Name] = i
	}

	// The scheduling queue: PreEnqueue plugins gate the pod (e.g. SchedulingGates).
	for _, pl := range fw.PreEnqueuePlugins() {
		if s := pl.PreEnqueue(ctx, pod); !s.IsSuccess() {
			st := statusOut(s)
			st.Plugin = pl.Name()
			res.PreEnqueue = st
			res.Skipped = "preEnqueue"
			return
		}
	}
	// skipPodSchedule.
	if pod.DeletionTimestamp != nil {
		res.Skipped = "pod is being deleted"
		return
	}

	state := framework.NewCycleState()
	state.SetRecordPluginMetrics(false)
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())

	if snapshot.NumNodesInPlacement() == 0 {
		res.Message = errNoNodesAvailable
		return
	}

	diagnosis := framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}
	fitError := func() {
		fe := &framework.FitError{Pod: pod, NumAllNodes: snapshot.NumNodesInPlacement(), Diagnosis: diagnosis}
		res.UnschedulablePlugins = sortedList(diagnosis.UnschedulablePlugins)
		res.PendingPlugins = sortedList(diagnosis.PendingPlugins)
		// schedulingAlgorithm: run PostFilter plugins when there are any.
		if fw.HasPostFilterPlugins() {
			result, status := fw.RunPostFilterPlugins(ctx, state, pod, orderedNodeToStatus{fe.Diagnosis.NodeToStatus, index})
			msg := status.Message()
			fe.Diagnosis.PostFilterMsg = msg
			res.PostFilter = msg
			pf := &PostFilterOut{Code: status.Code().String(), Plugin: pluginOf(status), Message: msg}
			if result != nil && result.NominatingInfo != nil {
				pf.NominatedNodeName = result.NominatedNodeName
				if result.NominatedNodeName != "" && spy != nil && status.IsSuccess() {
					res.Preemption = spy.report(result.NominatedNodeName)
				}
			}
			res.PostFilterStatus = pf
		}
		res.Message = fe.Error()
	}

	// findNodesThatFitPod: PreFilter.
	preRes, s, unschedulablePlugins := fw.RunPreFilterPlugins(ctx, state, pod)
	diagnosis.UnschedulablePlugins = unschedulablePlugins
	pf := &PreFilterOut{Status: s.Code().String(), Plugin: pluginOf(s), Reasons: reasonsOf(s)}
	if pf.Reasons == nil {
		pf.Reasons = []string{}
	}
	if preRes != nil && !preRes.AllNodes() {
		pf.NodeNames = sortedList(preRes.NodeNames)
	}
	pf.SkippedFilterPlugins = sortedList(state.GetSkipFilterPlugins())
	res.PreFilter = pf
	if !s.IsSuccess() {
		if !s.IsRejected() {
			res.Error = s.AsError().Error()
			return
		}
		diagnosis.NodeToStatus.SetAbsentNodesStatus(s)
		diagnosis.PreFilterMsg = s.Message()
		diagnosis.AddPluginStatus(s)
		for i := range res.Nodes {
			res.Nodes[i].Status = statusOut(s)
		}
		fitError()
		return
	}

	// Every Filter plugin alone on every node, for visibility.
	filterPlugins := fw.ListPlugins().Filter.Enabled
	skip := state.GetSkipFilterPlugins()
	for i, ni := range allNodes {
		node := &res.Nodes[i]
		node.Filters = []FilterOut{}
		for _, p := range filterPlugins {
			fo := FilterOut{Plugin: p.Name, Reasons: []string{}}
			if skip.Has(p.Name) {
				fo.Code = fwk.Skip.String()
			} else if pl, ok := captured[p.Name].(fwk.FilterPlugin); ok {
				st := pl.Filter(ctx, state, pod, ni)
				fo.Code = st.Code().String()
				if r := reasonsOf(st); len(r) > 0 {
					fo.Reasons = r
				}
				if !st.IsSuccess() && node.FirstFailure == "" {
					node.FirstFailure = p.Name
				}
			} else {
				fo.Code = "Error"
				fo.Reasons = []string{"plugin instance not found"}
			}
			node.Filters = append(node.Filters, fo)
		}
	}

	hasScoring := fw.HasScorePlugins()

	// findNodesThatPassFilters over the given nodes, sequentially from index 0.
	passFilters := func(nodes []fwk.NodeInfo) ([]fwk.NodeInfo, error) {
		numToFind := numFeasibleNodesToFind(fw.PercentageOfNodesToScore(), ptr.Deref(cfg.PercentageOfNodesToScore, 0), int32(len(nodes)))
		if !hasScoring {
			numToFind = 1
		}
		res.NumNodesToFind = numToFind
		var feasible []fwk.NodeInfo
		if !fw.HasFilterPlugins() {
			for i := int32(0); i < numToFind && int(i) < len(nodes); i++ {
				feasible = append(feasible, nodes[i])
				j := index[nodes[i].Node().Name]
				res.Nodes[j].Evaluated = true
				res.Nodes[j].Status = &StatusOut{Code: fwk.Success.String(), Reasons: []string{}}
			}
			return feasible, nil
		}
		var failed []struct {
			name string
			st   *fwk.Status
		}
		// Upstream (parallelism 1) checks nodes in order until it finds one
		// feasible node more than it needs; that one is dropped and the
		// search cancelled. Infeasible nodes seen on the way are all recorded.
		for _, ni := range nodes {
			j := index[ni.Node().Name]
			st := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni)
			if st.Code() == fwk.Error {
				return nil, st.AsError()
			}
			res.Nodes[j].Evaluated = true
			res.Nodes[j].Status = statusOut(st)
			if st.IsSuccess() {
				if int32(len(feasible)) >= numToFind {
					break
				}
				feasible = append(feasible, ni)
			} else {
				failed = append(failed, struct {
					name string
					st   *fwk.Status
				}{ni.Node().Name, st})
			}
		}
		for _, f := range failed {
			diagnosis.NodeToStatus.Set(f.name, f.st)
			diagnosis.AddPluginStatus(f.st)
		}
		return feasible, nil
	}

	var feasible []fwk.NodeInfo
	// A nominated node (from an earlier preemption) is tried first.
	if nnn := pod.Status.NominatedNodeName; nnn != "" {
		res.NominatedNode = nnn
		if ni, err := snapshot.GetNodeInPlacement(nnn); err == nil {
			f, err := passFilters([]fwk.NodeInfo{ni})
			if err != nil {
				res.Error = err.Error()
				return
			}
			feasible = f
		}
	}
	if len(feasible) == 0 {
		nodes := allNodes
		if !preRes.AllNodes() {
			// Upstream ranges over the PreFilterResult's set (map order); the
			// oracle keeps snapshot order so that results are reproducible.
			nodes = nil
			for _, ni := range allNodes {
				if preRes.NodeNames.Has(ni.Node().Name) {
					nodes = append(nodes, ni)
				}
			}
			absent := fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(unschedulablePlugins)))
			diagnosis.NodeToStatus.SetAbsentNodesStatus(absent)
			for i := range res.Nodes {
				if !preRes.NodeNames.Has(res.Nodes[i].Name) {
					res.Nodes[i].Status = statusOut(absent)
				}
			}
		}
		f, err := passFilters(nodes)
		if err != nil {
			res.Error = err.Error()
			return
		}
		feasible = f
	}

	for _, ni := range feasible {
		res.Feasible = append(res.Feasible, ni.Node().Name)
	}
	if len(feasible) == 0 {
		fitError()
		return
	}
	if len(feasible) == 1 {
		name := feasible[0].Node().Name
		res.Selected = &name
		res.TopScore = []string{name}
		return
	}

	// prioritizeNodes.
	var scores []fwk.NodePluginScores
	if !hasScoring {
		for _, ni := range feasible {
			scores = append(scores, fwk.NodePluginScores{Name: ni.Node().Name, TotalScore: 1})
		}
	} else {
		if st := fw.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			res.Error = st.AsError().Error()
			return
		}
		res.SkippedScorePlugins = sortedList(state.GetSkipScorePlugins())
		var st *fwk.Status
		scores, st = fw.RunScorePlugins(ctx, state, pod, feasible)
		if !st.IsSuccess() {
			res.Error = st.AsError().Error()
			return
		}
	}
	weights := map[string]int64{}
	for _, p := range fw.ListPlugins().Score.Enabled {
		weights[p.Name] = int64(p.Weight)
	}
	var max int64
	for i, ns := range scores {
		node := &res.Nodes[index[ns.Name]]
		total := ns.TotalScore
		node.Total = &total
		node.Scores = []ScoreOut{}
		raw := map[string]int64{}
		for _, r := range ns.RawScores {
			raw[r.Name] = r.Score
		}
		for _, w := range ns.Scores {
			so := ScoreOut{Plugin: w.Name, Raw: raw[w.Name], Weight: weights[w.Name], Weighted: w.Score}
			if so.Weight != 0 {
				so.Normalized = w.Score / so.Weight
			}
			node.Scores = append(node.Scores, so)
		}
		if i == 0 || total > max {
			max = total
		}
	}
	for _, ns := range scores {
		if ns.TotalScore == max {
			res.TopScore = append(res.TopScore, ns.Name)
		}
	}
	sort.SliceStable(res.TopScore, func(a, b int) bool { return index[res.TopScore[a]] < index[res.TopScore[b]] })
	// selectHost: upstream pops the max from a heap built over the list in feasible order.
	sorted := framework.NewSortedScoredNodes(append([]fwk.NodePluginScores(nil), scores...))
	name := sorted.Pop().Name
	res.Selected = &name
}

// pluginOf is Status.Plugin() for a possibly nil (= Success) status.
func pluginOf(s *fwk.Status) string {
	if s == nil {
		return ""
	}
	return s.Plugin()
}

// reasonsOf is Status.Reasons() for a possibly nil (= Success) status, never nil.
func reasonsOf(s *fwk.Status) []string {
	if s == nil || s.Reasons() == nil {
		return []string{}
	}
	return s.Reasons()
}

// orderedNodeToStatus is the Diagnosis' NodeToStatus with NodesForStatusCode
// returning nodes in snapshot order. Upstream builds that list by ranging over
// a map when some nodes have explicit statuses, so the order in which
// DryRunPreemption visits potential nodes (and which ones it visits when it
// stops after enough candidates) would otherwise be random.
type orderedNodeToStatus struct {
	*framework.NodeToStatus
	index map[string]int
}

func (o orderedNodeToStatus) NodesForStatusCode(lister fwk.NodeInfoLister, code fwk.Code) ([]fwk.NodeInfo, error) {
	nodes, err := o.NodeToStatus.NodesForStatusCode(lister, code)
	sort.SliceStable(nodes, func(a, b int) bool { return o.index[nodes[a].Node().Name] < o.index[nodes[b].Node().Name] })
	return nodes, err
}
