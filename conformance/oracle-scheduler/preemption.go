package main

import (
	"context"
	"math"
	"sync"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	"k8s.io/kubernetes/pkg/scheduler/util"
)

// preemptionSpy wraps the real DefaultPreemption as its Evaluator's
// preemption.Interface. Everything is delegated to upstream; the spy only
//   - fixes the start offset of DryRunPreemption (upstream: rand.Int31n),
//   - records the candidates handed to SelectCandidate and the victims found
//     per node, so the chosen node's victims can be reported.
//
// The Executor's PreemptPod is replaced by a no-op, so no victim is patched or
// deleted (dry run); the API calls it would make are the only thing skipped.
type preemptionSpy struct {
	*defaultpreemption.DefaultPreemption
	offset int32

	mu         sync.Mutex
	candidates []CandidateOut // from CandidatesToVictimsMap (>= 2 candidates)
	victimsMap map[string]*extenderv1.Victims
	perNode    map[string]*extenderv1.Victims // SelectVictimsOnNode successes
	nodeOrder  []string
}

var _ preemption.Interface = &preemptionSpy{}

func installPreemptionSpy(dp *defaultpreemption.DefaultPreemption, offset int32) *preemptionSpy {
	s := &preemptionSpy{DefaultPreemption: dp, offset: offset, perNode: map[string]*extenderv1.Victims{}}
	dp.Evaluator.Interface = s
	dp.Executor.PreemptPod = func(ctx context.Context, c preemption.Candidate, preemptor preemption.ExecutorPreemptor, victim *v1.Pod, pluginName string) (bool, error) {
		return false, nil
	}
	return s
}

func (s *preemptionSpy) GetOffsetAndNumCandidates(numNodes int32) (int32, int32) {
	_, n := s.DefaultPreemption.GetOffsetAndNumCandidates(numNodes)
	off := int32(0)
	if numNodes > 0 {
		off = ((s.offset % numNodes) + numNodes) % numNodes
	}
	return off, n
}

func (s *preemptionSpy) CandidatesToVictimsMap(candidates []preemption.Candidate) map[string]*extenderv1.Victims {
	m := s.DefaultPreemption.CandidatesToVictimsMap(candidates)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.victimsMap = m
	s.candidates = nil
	for _, c := range candidates {
		s.candidates = append(s.candidates, candidateOut(c.Name(), c.Victims()))
	}
	return m
}

func (s *preemptionSpy) SelectVictimsOnNode(ctx context.Context, cycleState fwk.CycleState, preemptor *v1.Pod, nodeInfo fwk.NodeInfo,
	allPossibleVictims []*preemption.DomainVictim, pdbs []*policy.PodDisruptionBudget) ([]*v1.Pod, int, *fwk.Status) {
	pods, n, st := s.DefaultPreemption.SelectVictimsOnNode(ctx, cycleState, preemptor, nodeInfo, allPossibleVictims, pdbs)
	if st.IsSuccess() && len(pods) > 0 {
		s.mu.Lock()
		name := nodeInfo.Node().Name
		if _, seen := s.perNode[name]; !seen {
			s.nodeOrder = append(s.nodeOrder, name)
		}
		s.perNode[name] = &extenderv1.Victims{Pods: pods, NumPDBViolations: int64(n)}
		s.mu.Unlock()
	}
	return pods, n, st
}

func candidateOut(node string, v *extenderv1.Victims) CandidateOut {
	out := CandidateOut{Node: node, Victims: []string{}, NumPDBViolations: v.NumPDBViolations}
	for _, p := range v.Pods {
		out.Victims = append(out.Victims, p.Namespace+"/"+p.Name)
	}
	return out
}

// report builds the preemption output for the nominated node.
func (s *preemptionSpy) report(node string) *PreemptionOut {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &PreemptionOut{Node: node, Victims: []string{}}
	if s.victimsMap != nil {
		out.Candidates = s.candidates
		if v := s.victimsMap[node]; v != nil {
			out.Victims = candidateOut(node, v).Victims
		}
		var order []string
		for _, c := range s.candidates {
			order = append(order, c.Node)
		}
		out.TiedNodes = tiedPreemptionNodes(order, s.victimsMap)
		return out
	}
	// A single candidate: SelectCandidate returned it without building the map.
	if v := s.perNode[node]; v != nil {
		c := candidateOut(node, v)
		out.Victims = c.Victims
		out.Candidates = []CandidateOut{c}
		out.TiedNodes = []string{node}
	}
	return out
}

// tiedPreemptionNodes replays the default criteria of upstream's
// pickOneNodeForPreemption (DefaultPreemption.OrderedScoreFuncs returns nil)
// and returns the nodes that are still tied after all of them. Upstream picks
// allCandidates[0], built from ranging over a map, i.e. any of these.
func tiedPreemptionNodes(nodes []string, m map[string]*extenderv1.Victims) []string {
	funcs := []func(string) int64{
		func(n string) int64 { return -m[n].NumPDBViolations },
		func(n string) int64 { return -int64(corev1helpers.PodPriority(m[n].Pods[0])) },
		func(n string) int64 {
			var sum int64
			for _, p := range m[n].Pods {
				sum += int64(corev1helpers.PodPriority(p)) + int64(math.MaxInt32+1)
			}
			return -sum
		},
		func(n string) int64 { return -int64(len(m[n].Pods)) },
		func(n string) int64 {
			t := util.GetEarliestPodStartTime(m[n])
			if t == nil {
				return math.MinInt64
			}
			return t.UnixNano()
		},
	}
	all := append([]string(nil), nodes...)
	for _, f := range funcs {
		var sel []string
		max := int64(math.MinInt64)
		for _, n := range all {
			sc := f(n)
			if sc > max {
				max = sc
				sel = nil
			}
			if sc == max {
				sel = append(sel, n)
			}
		}
		if len(sel) == 1 {
			return sel
		}
		all = sel
	}
	return all
}
