package main

// Bench mode (-bench): the upstream side of berth's `npm run bench`. Each
// stdin line is a compact workload description (node and pod templates with
// counts, bench/workloads.ts); the oracle stamps the objects out itself and
// schedules every pod sequentially through the real framework with the
// default profile, the way scheduleOne does: UpdateSnapshot, PreFilter, Filter
// from the round-robin start index (parallelism 1), PreScore/Score, selectHost,
// then assume + Reserve + Permit, so the next pod sees the previous one.

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"
)

const labelHostname = "kubernetes.io/hostname"
const labelZone = "topology.kubernetes.io/zone"

// BenchNodeGroup and BenchPodGroup mirror bench/workloads.ts (NodeGroup, PodGroup).
type BenchNodeGroup struct {
	Prefix    string   `json:"prefix"`
	Count     int      `json:"count"`
	ExactName bool     `json:"exactName"`
	Template  v1.Node  `json:"template"`
	Zones     []string `json:"zones"`
}

type BenchPodGroup struct {
	Prefix    string `json:"prefix"`
	Count     int    `json:"count"`
	Namespace string `json:"namespace"`
	Template  v1.Pod `json:"template"`
	Measured  bool   `json:"measured"`
}

type BenchSpec struct {
	Name  string           `json:"name"`
	Nodes []BenchNodeGroup `json:"nodes"`
	Pods  []BenchPodGroup  `json:"pods"`
	// TimeLimitSeconds stops the measured phase early (0 = no limit).
	TimeLimitSeconds float64 `json:"timeLimitSeconds"`
	// InitPlacements, when given, is the node of each init pod in order ("" =
	// left pending): the init pods are added to the cache bound there instead
	// of being scheduled (the init phase is not measured).
	InitPlacements []string `json:"initPlacements"`
}

type BenchResult struct {
	Name          string  `json:"name"`
	Error         string  `json:"error,omitempty"`
	Nodes         int     `json:"nodes"`
	InitPods      int     `json:"initPods"`
	MeasuredPods  int     `json:"measuredPods"`
	Scheduled     int     `json:"scheduled"`
	Unschedulable int     `json:"unschedulable"`
	Seconds       float64 `json:"seconds"`
	// CPUSeconds is the process's user+system time over the measured phase (all threads, GC included).
	CPUSeconds float64 `json:"cpuSeconds"`
	// DoneAtMs is when each measured pod finished, in ms since the measured phase started.
	DoneAtMs   []float64 `json:"doneAtMs"`
	PeakRSSMiB float64   `json:"peakRssMiB"`
	HeapMiB    float64   `json:"heapMiB"`
}

func stampNodes(groups []BenchNodeGroup) []*v1.Node {
	var out []*v1.Node
	for _, g := range groups {
		for i := 0; i < g.Count; i++ {
			n := g.Template.DeepCopy()
			n.Name = g.Prefix
			if !g.ExactName {
				n.Name = fmt.Sprintf("%s-%d", g.Prefix, i)
			}
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			n.Labels[labelHostname] = n.Name
			if len(g.Zones) > 0 {
				n.Labels[labelZone] = g.Zones[i%len(g.Zones)]
			}
			out = append(out, n)
		}
	}
	return out
}

func stampPods(groups []BenchPodGroup, measured bool) []*v1.Pod {
	var out []*v1.Pod
	for _, g := range groups {
		if g.Measured != measured {
			continue
		}
		for i := 0; i < g.Count; i++ {
			p := g.Template.DeepCopy()
			p.Name = fmt.Sprintf("%s-%d", g.Prefix, i)
			p.Namespace = g.Namespace
			out = append(out, p)
		}
	}
	return out
}

// benchScheduler is the part of kube-scheduler's Scheduler that one
// sequential scheduling loop needs.
type benchScheduler struct {
	fw                 framework.Framework
	cache              internalcache.Cache
	snapshot           *internalcache.Snapshot
	percentage         int32
	nextStartNodeIndex int
}

// scheduleOne mirrors schedulingCycle for a pod that fits: it returns the
// chosen node ("" when nothing fits) after assuming the pod there.
func (s *benchScheduler) scheduleOne(ctx context.Context, pod *v1.Pod) (string, error) {
	logger := klog.FromContext(ctx)
	if err := s.cache.UpdateSnapshot(logger, s.snapshot); err != nil {
		return "", err
	}
	state := framework.NewCycleState()
	state.SetRecordPluginMetrics(false)
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
	allNodes, err := s.snapshot.ListNodesInPlacement()
	if err != nil {
		return "", err
	}
	preRes, st, _ := s.fw.RunPreFilterPlugins(ctx, state, pod)
	if !st.IsSuccess() {
		if !st.IsRejected() {
			return "", st.AsError()
		}
		return "", nil
	}
	nodes := allNodes
	if !preRes.AllNodes() {
		nodes = make([]fwk.NodeInfo, 0, len(preRes.NodeNames))
		// Upstream ranges over the set; sorted here so that runs are reproducible.
		for _, name := range sets.List(preRes.NodeNames) {
			if ni, err := s.snapshot.GetNodeInPlacement(name); err == nil {
				nodes = append(nodes, ni)
			}
		}
	}
	feasible, rejected, err := s.passFilters(ctx, state, pod, nodes)
	s.nextStartNodeIndex = (s.nextStartNodeIndex + len(feasible) + rejected) % len(allNodes)
	if err != nil || len(feasible) == 0 {
		return "", err
	}
	host := feasible[0].Node().Name
	if len(feasible) > 1 {
		if st := s.fw.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			return "", st.AsError()
		}
		scores, st := s.fw.RunScorePlugins(ctx, state, pod, feasible)
		if !st.IsSuccess() {
			return "", st.AsError()
		}
		host = framework.NewSortedScoredNodes(scores).Pop().Name
	}
	// assume + Reserve + Permit (the binding cycle's API call is not modelled).
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = host
	if err := s.cache.AssumePod(logger, assumed); err != nil {
		return "", err
	}
	if st := s.fw.RunReservePluginsReserve(ctx, state, assumed, host); !st.IsSuccess() {
		return "", st.AsError()
	}
	if _, st := s.fw.RunPermitPlugins(ctx, state, assumed, host); !st.IsSuccess() && !st.IsWait() {
		return "", st.AsError()
	}
	return host, nil
}

// passFilters mirrors findNodesThatPassFilters with parallelism 1.
func (s *benchScheduler) passFilters(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodeInfo, int, error) {
	numToFind := int(numFeasibleNodesToFind(s.fw.PercentageOfNodesToScore(), s.percentage, int32(len(nodes))))
	if !s.fw.HasScorePlugins() {
		numToFind = 1
	}
	var feasible []fwk.NodeInfo
	rejected := 0
	for i := range nodes {
		ni := nodes[(s.nextStartNodeIndex+i)%len(nodes)]
		st := s.fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni)
		if st.Code() == fwk.Error {
			return nil, rejected, st.AsError()
		}
		if st.IsSuccess() {
			if len(feasible) >= numToFind {
				break
			}
			feasible = append(feasible, ni)
		} else {
			rejected++
		}
	}
	return feasible, rejected, nil
}

func (o *oracle) bench(spec *BenchSpec) (res BenchResult) {
	res.Name = spec.Name
	if err := o.runBench(spec, &res); err != nil {
		res.Error = err.Error()
	}
	return res
}

func (o *oracle) runBench(spec *BenchSpec, res *BenchResult) error {
	nodes := stampNodes(spec.Nodes)
	initPods := stampPods(spec.Pods, false)
	measured := stampPods(spec.Pods, true)
	res.Nodes, res.InitPods, res.MeasuredPods = len(nodes), len(initPods), len(measured)
	if len(measured) == 0 {
		return fmt.Errorf("workload %s has no measured pods", spec.Name)
	}
	all := append(append([]*v1.Pod{}, initPods...), measured...)
	// prepare defaults every object as the API server would and creates the namespaces.
	c := &Case{ID: spec.Name, Nodes: nodes, Pod: all[0], Pods: all[1:]}
	if err := prepare(c); err != nil {
		return err
	}
	cfg, err := o.config(nil)
	if err != nil {
		return err
	}
	profile, err := findProfile(cfg, v1.DefaultSchedulerName)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.FromContext(ctx)
	// The listers hold the nodes and namespaces; pods reach the scheduler through the cache only.
	client, informerFactory, err := populate(&Case{Nodes: nodes, Pod: all[0], Namespaces: c.Namespaces})
	if err != nil {
		return err
	}
	gates := feature.DefaultFeatureGate
	schedCache := internalcache.New(ctx, nil, gates.Enabled(features.GenericWorkload), gates.Enabled(features.CompositePodGroup))
	for _, n := range nodes {
		schedCache.AddNode(logger, n)
	}
	snapshot := internalcache.NewEmptySnapshot()
	if err := schedCache.UpdateSnapshot(logger, snapshot); err != nil {
		return err
	}
	fw, _, _, err := o.buildFramework(ctx, c, profile, client, informerFactory, schedCache, snapshot)
	if err != nil {
		return err
	}
	defer fw.Close()
	s := &benchScheduler{fw: fw, cache: schedCache, snapshot: snapshot, percentage: ptr.Deref(cfg.PercentageOfNodesToScore, 0)}

	place := func(p *v1.Pod) error {
		host, err := s.scheduleOne(ctx, p)
		if err != nil {
			return fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		if host == "" {
			res.Unschedulable++
		} else {
			res.Scheduled++
		}
		return nil
	}
	if spec.InitPlacements != nil && len(spec.InitPlacements) != len(initPods) {
		return fmt.Errorf("initPlacements has %d entries for %d init pods", len(spec.InitPlacements), len(initPods))
	}
	for i, p := range initPods {
		if spec.InitPlacements == nil {
			if err := place(p); err != nil {
				return err
			}
			continue
		}
		if node := spec.InitPlacements[i]; node != "" {
			bound := p.DeepCopy()
			bound.Spec.NodeName = node
			if err := schedCache.AddPod(logger, bound); err != nil {
				return fmt.Errorf("binding init pod %s/%s: %w", p.Namespace, p.Name, err)
			}
		}
	}
	res.Scheduled, res.Unschedulable = 0, 0
	runtime.GC()
	cpuStart := cpuSeconds()
	start := time.Now()
	res.DoneAtMs = make([]float64, 0, len(measured))
	for _, p := range measured {
		if err := place(p); err != nil {
			return err
		}
		elapsed := time.Since(start)
		res.DoneAtMs = append(res.DoneAtMs, float64(elapsed.Microseconds())/1000)
		if spec.TimeLimitSeconds > 0 && elapsed.Seconds() >= spec.TimeLimitSeconds {
			break
		}
	}
	res.Seconds = time.Since(start).Seconds()
	res.CPUSeconds = cpuSeconds() - cpuStart
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.HeapMiB = float64(ms.HeapAlloc) / (1 << 20)
	res.PeakRSSMiB = peakRSSMiB()
	return nil
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// peakRSSMiB reads VmHWM (the resident set's high-water mark) from /proc.
func peakRSSMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}
