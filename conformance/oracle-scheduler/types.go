package main

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// Case is one input line. Every object is a standard Kubernetes JSON object.
type Case struct {
	ID string `json:"id"`

	Nodes []*v1.Node `json:"nodes"`
	// Pods already in the cluster. Pods with spec.nodeName set and a
	// non-terminal phase go into the scheduler cache (as the scheduler's own
	// informer does); the others only into the pod informer.
	Pods []*v1.Pod `json:"pods"`
	// Pod is the pending pod to schedule.
	Pod *v1.Pod `json:"pod"`

	Namespaces             []*v1.Namespace                 `json:"namespaces,omitempty"`
	PDBs                   []*policyv1.PodDisruptionBudget `json:"pdbs,omitempty"`
	Services               []*v1.Service                   `json:"services,omitempty"`
	ReplicationControllers []*v1.ReplicationController     `json:"replicationControllers,omitempty"`
	ReplicaSets            []*appsv1.ReplicaSet            `json:"replicaSets,omitempty"`
	StatefulSets           []*appsv1.StatefulSet           `json:"statefulSets,omitempty"`
	PVs                    []*v1.PersistentVolume          `json:"pvs,omitempty"`
	PVCs                   []*v1.PersistentVolumeClaim     `json:"pvcs,omitempty"`
	StorageClasses         []*storagev1.StorageClass       `json:"storageClasses,omitempty"`
	CSINodes               []*storagev1.CSINode            `json:"csiNodes,omitempty"`
	CSIDrivers             []*storagev1.CSIDriver          `json:"csiDrivers,omitempty"`
	CSIStorageCapacities   []*storagev1.CSIStorageCapacity `json:"csiStorageCapacities,omitempty"`
	VolumeAttachments      []*storagev1.VolumeAttachment   `json:"volumeAttachments,omitempty"`
	// PriorityClasses, when given, resolve spec.priorityClassName into
	// spec.priority/preemptionPolicy for pods that have no spec.priority yet
	// (what the Priority admission plugin does on create).
	PriorityClasses []*schedulingv1.PriorityClass `json:"priorityClasses,omitempty"`

	// Config is an optional KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1);
	// apiVersion/kind may be omitted. It is decoded and defaulted exactly as
	// kube-scheduler loads its --config file.
	Config json.RawMessage `json:"config,omitempty"`

	// PreemptionOffset replaces DefaultPreemption's random start offset into
	// the list of potential nodes (upstream: rand.Int31n(numNodes)); default 0.
	PreemptionOffset int32 `json:"preemptionOffset,omitempty"`
	// FeatureGates are kube-scheduler's --feature-gates for this case; a
	// modelled gate not listed has its v1.37.2 default (see gates.go).
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
	// NoDefaulting skips API-server defaulting of the input objects.
	NoDefaulting bool `json:"noDefaulting,omitempty"`
}

// StatusOut is a framework Status.
type StatusOut struct {
	Code    string   `json:"code"`
	Plugin  string   `json:"plugin,omitempty"`
	Reasons []string `json:"reasons"`
}

type FilterOut struct {
	Plugin  string   `json:"plugin"`
	Code    string   `json:"code"`
	Reasons []string `json:"reasons"`
}

type ScoreOut struct {
	Plugin     string `json:"plugin"`
	Raw        int64  `json:"raw"`
	Normalized int64  `json:"normalized"`
	Weight     int64  `json:"weight"`
	Weighted   int64  `json:"weighted"`
}

type NodeOut struct {
	Name string `json:"name"`
	// Evaluated: the scheduler ran the Filter plugins on this node in its
	// own pass (false when PreFilter failed, when PreFilterResult excluded it,
	// or when the search stopped after numFeasibleNodesToFind feasible nodes).
	Evaluated bool `json:"evaluated"`
	// Status: the verdict the scheduler records for the node
	// (RunFilterPluginsWithNominatedPods, or the absent-node status from PreFilter).
	// null for nodes never looked at.
	Status *StatusOut `json:"status"`
	// Filters: every enabled Filter plugin run alone on this node (plugins
	// that PreFilter marked Skip have code "Skip"). null when PreFilter rejected the pod.
	Filters      []FilterOut `json:"filters"`
	FirstFailure string      `json:"firstFailure"`
	// Scores: only when scoring ran (>= 2 feasible nodes) and the node is feasible.
	Scores []ScoreOut `json:"scores"`
	Total  *int64     `json:"total"`
}

type PreFilterOut struct {
	Status    string   `json:"status"`
	Plugin    string   `json:"plugin,omitempty"`
	Reasons   []string `json:"reasons"`
	NodeNames []string `json:"nodeNames"`
	// SkippedFilterPlugins: Filter plugins that PreFilter returned Skip for.
	SkippedFilterPlugins []string `json:"skippedFilterPlugins"`
}

type CandidateOut struct {
	Node             string   `json:"node"`
	Victims          []string `json:"victims"`
	NumPDBViolations int64    `json:"numPDBViolations"`
}

type PreemptionOut struct {
	Node    string   `json:"node"`
	Victims []string `json:"victims"`
	// Candidates: what SelectCandidate chose among (in the order DryRunPreemption produced them).
	Candidates []CandidateOut `json:"candidates"`
	// TiedNodes: candidates still tied after every pickOneNodeForPreemption
	// criterion; upstream picks among them in map order (i.e. at random).
	TiedNodes []string `json:"tiedNodes"`
}

type PostFilterOut struct {
	Code              string `json:"code"`
	Plugin            string `json:"plugin,omitempty"`
	Message           string `json:"message"`
	NominatedNodeName string `json:"nominatedNodeName"`
}

type Result struct {
	ID      string `json:"id"`
	Profile string `json:"profile,omitempty"`
	Error   string `json:"error,omitempty"`
	// Skipped: the scheduler would not run a cycle for this pod
	// ("pod is being deleted", or "preEnqueue" when a PreEnqueue plugin rejects it).
	Skipped    string     `json:"skipped,omitempty"`
	PreEnqueue *StatusOut `json:"preEnqueue"`

	// Nodes in the order of the scheduler's snapshot (cache node tree: zones interleaved).
	Nodes     []NodeOut     `json:"nodes"`
	PreFilter *PreFilterOut `json:"preFilter"`
	// NominatedNode: the pod's status.nominatedNodeName, tried first as upstream does.
	NominatedNode        string         `json:"nominatedNode,omitempty"`
	NumNodesToFind       int32          `json:"numNodesToFind"`
	SkippedScorePlugins  []string       `json:"skippedScorePlugins"`
	Feasible             []string       `json:"feasible"`
	TopScore             []string       `json:"topScore"`
	Selected             *string        `json:"selected"`
	Message              string         `json:"message"`
	PostFilter           string         `json:"postFilter"`
	PostFilterStatus     *PostFilterOut `json:"postFilterStatus"`
	Preemption           *PreemptionOut `json:"preemption"`
	UnschedulablePlugins []string       `json:"unschedulablePlugins"`
	PendingPlugins       []string       `json:"pendingPlugins"`
}
