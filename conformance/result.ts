// The shape both sides report a scheduling attempt in: the oracle's result line
// (oracle-scheduler/types.go) and what berth.ts extracts from berth. Only the
// fields the comparison reads are typed; the oracle sends more.

export interface StatusOut {
  readonly code: string;
  readonly plugin?: string;
  readonly reasons: readonly string[];
}

export interface FilterOut {
  readonly plugin: string;
  readonly code: string;
  readonly reasons: readonly string[];
}

export interface ScoreOut {
  readonly plugin: string;
  readonly raw: number;
  readonly normalized: number;
  readonly weight: number;
  readonly weighted: number;
}

export interface NodeOut {
  readonly name: string;
  /** null when PreFilter rejected the pod. */
  readonly filters: readonly FilterOut[] | null;
  readonly firstFailure: string;
  /** null unless scoring ran (two or more feasible nodes) and the node is feasible. */
  readonly scores: readonly ScoreOut[] | null;
  readonly total: number | null;
}

export interface PreFilterOut {
  readonly status: string;
  readonly plugin?: string;
  readonly reasons: readonly string[];
  readonly nodeNames: readonly string[] | null;
  readonly skippedFilterPlugins: readonly string[];
}

export interface CandidateOut {
  readonly node: string;
  readonly victims: readonly string[];
  readonly numPDBViolations: number;
}

export interface PreemptionOut {
  readonly node: string;
  readonly victims: readonly string[];
  /** Oracle only: what SelectCandidate chose among, and the nodes still tied after every criterion. */
  readonly candidates?: readonly CandidateOut[] | null;
  readonly tiedNodes?: readonly string[] | null;
}

export interface AttemptResult {
  readonly id?: string;
  readonly error?: string;
  readonly skipped?: string;
  readonly nodes: readonly NodeOut[] | null;
  readonly preFilter: PreFilterOut | null;
  readonly feasible: readonly string[] | null;
  readonly topScore: readonly string[] | null;
  readonly selected: string | null;
  readonly message: string;
  readonly postFilter: string;
  readonly preemption: PreemptionOut | null;
  /** Plugins that rejected the pod somewhere (Diagnosis.UnschedulablePlugins, for requeueing), sorted; when unschedulable. */
  readonly unschedulablePlugins?: readonly string[];
}
