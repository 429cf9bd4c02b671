// Machine-applicable fixes shared by the checks: each returns a Remedy that
// rewrites one pod group in a LoadedInput — its workload's template (written and
// compiled forms, so applying it rolls the workload out as `kubectl apply` would)
// and the group's pods of the input — so a check can be re-run on the result.

import type { LoadedInput } from '../io/load.js';
import type { WorkloadSummary } from '../io/load-workloads.js';
import type { PodAffinityTermManifest, PodSpecManifest, TopologySpreadConstraintManifest } from '../model/manifest.js';
import { LABEL_HOSTNAME, LABEL_ZONE, type Node } from '../model/node.js';
import { compilePod, type Pod } from '../model/pod.js';
import type { Remedy } from './finding.js';
import type { PodGroup } from './pod-groups.js';

interface GroupEdit {
  /** The written template spec, changed. */
  readonly spec: (spec: PodSpecManifest) => PodSpecManifest;
  /** A compiled pod of the group, changed the same way. */
  readonly pod: (pod: Pod) => Pod;
}

function editGroup(input: LoadedInput, group: PodGroup, edit: GroupEdit, replicas?: number): LoadedInput {
  const target = group.workload;
  const workloads = input.workloads.map((w): WorkloadSummary => {
    if (w !== target) return w;
    return {
      ...w,
      replicas: replicas ?? w.replicas,
      template: { ...w.template, spec: edit.spec(w.template.spec) },
      templatePod: edit.pod(w.templatePod),
    };
  });
  const pods = input.pods.map((p) => (group.has(p) ? edit.pod(p) : p));
  return { ...input, workloads, pods };
}

/** The pod fields a spec fragment compiles to, for the group's namespace and labels. */
function compiledFragment(group: PodGroup, fragment: PodSpecManifest): Pod {
  const { namespace, labels } = group.templatePod;
  return compilePod({ metadata: { name: 'remedy', namespace, labels }, spec: fragment }, { order: 0 });
}

const NO_CONTAINERS: PodSpecManifest = { containers: [] };

function groupTerm(group: PodGroup, topologyKey: string): PodAffinityTermManifest {
  return { topologyKey, labelSelector: { matchLabels: { ...group.matchLabels } } };
}

/** Required pod anti-affinity against the group's own pods on `topologyKey`: no two replicas share a domain. */
export function requireAntiAffinity(group: PodGroup, topologyKey: string): Remedy {
  const term = groupTerm(group, topologyKey);
  const compiled = compiledFragment(group, { ...NO_CONTAINERS, affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } }).requiredAntiAffinity;
  return {
    description: `add required pod anti-affinity on ${topologyKey} against the group's own pods`,
    apply: (input) =>
      editGroup(input, group, {
        spec: (s) => {
          const anti = s.affinity?.podAntiAffinity ?? {};
          const required = [...(anti.requiredDuringSchedulingIgnoredDuringExecution ?? []), term];
          return { ...s, affinity: { ...s.affinity, podAntiAffinity: { ...anti, requiredDuringSchedulingIgnoredDuringExecution: required } } };
        },
        pod: (p) => ({ ...p, requiredAntiAffinity: [...p.requiredAntiAffinity, ...compiled] }),
      }),
  };
}

/**
 * A DoNotSchedule topology spread constraint (maxSkew 1) over `topologyKey`, with
 * minDomains when given. `honorTaints` sets nodeTaintsPolicy Honor, so nodes the
 * pods do not tolerate — a lost zone's, tainted unreachable — stop counting as a
 * domain and the survivors may take the lost replicas.
 */
export function spreadAcross(group: PodGroup, topologyKey: string, opts: { minDomains?: number; honorTaints?: boolean } = {}): Remedy {
  const { minDomains, honorTaints } = opts;
  const written: TopologySpreadConstraintManifest = {
    maxSkew: 1,
    topologyKey,
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { ...group.matchLabels } },
    ...(minDomains !== undefined ? { minDomains } : {}),
    ...(honorTaints ? { nodeTaintsPolicy: 'Honor' as const } : {}),
  };
  const compiled = compiledFragment(group, { ...NO_CONTAINERS, topologySpreadConstraints: [written] }).topologySpreadConstraints;
  return {
    description: `add a DoNotSchedule topology spread constraint on ${topologyKey} (maxSkew 1${minDomains !== undefined ? `, minDomains ${minDomains}` : ''}${honorTaints ? ', nodeTaintsPolicy Honor' : ''})`,
    apply: (input) =>
      editGroup(input, group, {
        spec: (s) => ({ ...s, topologySpreadConstraints: [...(s.topologySpreadConstraints ?? []), written] }),
        pod: (p) => ({ ...p, topologySpreadConstraints: [...p.topologySpreadConstraints, ...compiled] }),
      }),
  };
}

/** minDomains on the group's DoNotSchedule spread constraints over `topologyKey`. */
export function setMinDomains(group: PodGroup, topologyKey: string, minDomains: number): Remedy {
  const applies = (c: { topologyKey: string; whenUnsatisfiable: string }) => c.topologyKey === topologyKey && c.whenUnsatisfiable === 'DoNotSchedule';
  return {
    description: `set minDomains ${minDomains} on the topology spread constraint over ${topologyKey}`,
    apply: (input) =>
      editGroup(input, group, {
        spec: (s) => ({ ...s, topologySpreadConstraints: (s.topologySpreadConstraints ?? []).map((c) => (applies(c) ? { ...c, minDomains } : c)) }),
        pod: (p) => ({ ...p, topologySpreadConstraints: p.topologySpreadConstraints.map((c) => (applies(c) ? { ...c, minDomains } : c)) }),
      }),
  };
}

/** spec.replicas of the group's workload set to `replicas`. */
export function scaleTo(group: PodGroup, replicas: number): Remedy {
  if (!group.workload) throw new Error(`${group.object} has no controller to scale`);
  return {
    description: `set replicas to ${replicas}`,
    apply: (input) => editGroup(input, group, { spec: (s) => s, pod: (p) => p }, replicas),
  };
}

/** Several remedies applied in order, as one fix. */
export function combine(...parts: readonly Remedy[]): Remedy {
  return { description: parts.map((r) => r.description).join(', and '), apply: (input) => parts.reduce((acc, r) => r.apply(acc), input) };
}

/** `count` more nodes like `model` (same labels, taints and size; their own hostname), optionally in another zone. */
export function addNodesLike(model: Node, count: number, zone?: string): Remedy {
  const where = zone !== undefined && zone !== model.labels[LABEL_ZONE] ? ` in zone ${zone}` : '';
  return {
    description: `add ${count} node(s) like ${model.name}${where}`,
    apply: (input) => {
      const taken = new Set(input.nodes.map((n) => n.name));
      const added: Node[] = [];
      for (let i = 1; added.length < count; i++) {
        const name = `${model.name}-spare-${i}`;
        if (taken.has(name)) continue;
        const labels = { ...model.labels, [LABEL_HOSTNAME]: name, ...(zone !== undefined ? { [LABEL_ZONE]: zone } : {}) };
        added.push({ ...model, name, uid: name, labels, unschedulable: false, creation: input.nodes.length + added.length });
      }
      return { ...input, nodes: [...input.nodes, ...added] };
    },
  };
}

/** The group's nodeSelector without `key`. */
export function dropNodeSelector(group: PodGroup, key: string): Remedy {
  const without = (m: Readonly<Record<string, string>> | undefined) => Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => k !== key));
  return {
    description: `remove ${key} from the nodeSelector`,
    apply: (input) =>
      editGroup(input, group, {
        spec: (s) => ({ ...s, nodeSelector: without(s.nodeSelector) }),
        pod: (p) => ({ ...p, nodeSelector: without(p.nodeSelector) }),
      }),
  };
}
