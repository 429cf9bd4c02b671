// `berth check --headroom`: how much spare capacity per zone keeps every
// workload's recovery from a node loss and from a zone loss within a target time,
// found by simulation. The losses are the node-loss and zone-loss checks' own
// (lossRecoveries). The headroom is what users deploy:
//
// - with the provisioner on, placeholder pods: a Deployment of pause pods per
//   zone at a negative-priority PriorityClass. The provisioner launches nodes for
//   them; a real pod that finds no room preempts them (kube-scheduler's
//   preemption) and starts at once, and the evicted placeholders wait for new
//   nodes instead of the workload. A CapacityBuffer (autoscaling.x-k8s.io/v1beta1:
//   Cluster Autoscaler, Karpenter v1.14 behind an alpha gate) keeps the same room
//   for virtual pods of a PodTemplate: that form is emitted beside it, and
//   simulated as the placeholders it stands for.
// - with it off (or no NodePool), spare nodes like the zone's own.
//
// The search: every loss simulated without headroom; for those over the target,
// a placeholder the size of the largest lost pod, so any one lost pod fits where
// one is preempted; the same count in every zone, doubled from an estimate until
// every slow loss is within the target, bisected down, then each zone's count
// bisected on its own. Every probe simulates every loss again (the check's
// batches), the one that failed the last probe first and alone; the answer is
// verified once more with the manifests added to the input as the user's files.

import { stringify } from 'yaml';
import { loadSources, type LoadedInput } from '../io/load.js';
import { LABEL_ZONE, type Node } from '../model/node.js';
import type { TolerationManifest } from '../model/manifest.js';
import { formatResource } from '../model/quantity.js';
import type { AnalysisContext } from './check.js';
import { lossRecoveries, simulateLoss, type LossRecovery, type LossVerdict } from './checks/loss.js';
import { nodeManifest, withNode } from './remedies.js';

/** The label every object berth emits for headroom carries, so its own placeholders are told apart from the workloads. */
export const HEADROOM_LABEL = 'berth.dev/headroom';
export const HEADROOM_NAMESPACE = 'berth-headroom';
export const HEADROOM_PRIORITY_CLASS = 'berth-headroom';
/** Below every pod that names no class (0), so any of them preempts a placeholder. */
export const HEADROOM_PRIORITY = -10;
const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';

export type HeadroomMode = 'placeholders' | 'nodes';

/** One loss whose recovery was over the target without headroom: what it takes, and how long, with and without. */
export interface HeadroomEvidence {
  readonly scope: 'node' | 'zone';
  readonly target: string;
  readonly workload: string;
  /** Ready replicas the loss took. */
  readonly lost: number;
  /** Seconds until whole again without headroom; null when not within the loss's horizon; undefined when that loss did not take a replica of it without headroom. */
  readonly withoutS?: number | null;
  /** The same with the headroom; null when not within the horizon; undefined when the loss no longer takes a replica of it. */
  readonly withS?: number | null;
}

export interface ZoneHeadroom {
  /** '' when the nodes carry no zone label. */
  readonly zone: string;
  /** Placeholder pods, or spare nodes. */
  readonly count: number;
  /** Spare millicores and bytes the count holds. */
  readonly cpu: number;
  readonly memory: number;
}

export interface HeadroomResult {
  readonly recoveryS: number;
  readonly mode: HeadroomMode;
  /** Requests of one placeholder (millicores, bytes), or the allocatable of one spare node. */
  readonly unit: { readonly cpu: number; readonly memory: number };
  /** The node spare nodes copy (mode "nodes"). */
  readonly likeNode?: string;
  readonly zones: readonly ZoneHeadroom[];
  /** Every loss simulated on the input with the headroom is within the target. */
  readonly met: boolean;
  /** Losses over the target without headroom, with their times with it. */
  readonly evidence: readonly HeadroomEvidence[];
  /** Losses still over the target with the headroom (empty when met). */
  readonly stillSlow: readonly HeadroomEvidence[];
  /** Losses simulated in the final verification. */
  readonly verified: { readonly node: number; readonly zone: number };
  /** Headroom sizes the search tried (each a simulation of the losses on the input with it). */
  readonly probes: number;
  /** What to deploy (mode "placeholders"), or the nodes to add, as objects. */
  readonly manifests: readonly Record<string, unknown>[];
  /** Cluster Autoscaler's form of the placeholders: a PodTemplate and a CapacityBuffer per zone. */
  readonly capacityBuffers: readonly Record<string, unknown>[];
}

export interface HeadroomOptions {
  /** The target: seconds from the loss until every workload is whole again. */
  readonly recoveryS: number;
  /**
   * The input with the emitted manifests added, for the final verification (the
   * CLI loads them with the user's files through strict validation); absent: the
   * manifests loaded alone and merged into the input.
   */
  readonly verifyInput?: (manifests: readonly Record<string, unknown>[]) => LoadedInput;
}

type Counts = ReadonlyMap<string, number>;

const isPlaceholder = (v: LossVerdict) => v.workload.startsWith(`Deployment/${HEADROOM_NAMESPACE}/`);
const lostOf = (v: LossVerdict) => v.readyBefore - v.readyMin;
const slowFor = (recoveryS: number) => (v: LossVerdict) => !isPlaceholder(v) && lostOf(v) > 0 && (v.recoveredAfterS === null || v.recoveredAfterS > recoveryS);

function slowLosses(recoveries: readonly LossRecovery[], recoveryS: number): HeadroomEvidence[] {
  const slow = slowFor(recoveryS);
  return recoveries.flatMap((r) => r.verdicts.filter(slow).map((v) => ({ scope: r.scope, target: r.target, workload: v.workload, lost: lostOf(v), withoutS: v.recoveredAfterS })));
}

/** Every node's and zone's loss, as the checks simulate them. */
const allRecoveries = (ctx: AnalysisContext, recoveryS: number) => [...lossRecoveries(ctx, 'node', recoveryS), ...lossRecoveries(ctx, 'zone', recoveryS)];

const zonesOf = (input: LoadedInput) => [...new Set(input.nodes.map((n) => n.labels[LABEL_ZONE] ?? ''))].sort();

const name = (zone: string) => `headroom${zone ? `-${zone}` : ''}`;

/** The placeholder pod template for one zone: pause, the slot's requests, the class, gone at once when preempted. */
function placeholderTemplate(zone: string, unit: HeadroomResult['unit'], where: Placement): Record<string, unknown> {
  const selector = { ...where.nodeSelector, ...(zone ? { [LABEL_ZONE]: zone } : {}) };
  return {
    metadata: { labels: { [HEADROOM_LABEL]: name(zone) } },
    spec: {
      priorityClassName: HEADROOM_PRIORITY_CLASS,
      terminationGracePeriodSeconds: 0,
      ...(Object.keys(selector).length > 0 ? { nodeSelector: selector } : {}),
      ...(where.tolerations.length > 0 ? { tolerations: where.tolerations } : {}),
      containers: [{ name: 'pause', image: PAUSE_IMAGE, resources: { requests: { cpu: formatResource('cpu', unit.cpu), memory: formatResource('memory', unit.memory) } } }],
    },
  };
}

const meta = (objName: string, namespaced = true) => ({ name: objName, ...(namespaced ? { namespace: HEADROOM_NAMESPACE } : {}), labels: { [HEADROOM_LABEL]: objName } });

/** The Namespace and PriorityClass the placeholders (of either form) need. */
const placeholderBase = (): Record<string, unknown>[] => [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: HEADROOM_NAMESPACE } },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: meta(HEADROOM_PRIORITY_CLASS, false),
    value: HEADROOM_PRIORITY,
    preemptionPolicy: 'Never',
    description: 'Placeholder pods that hold spare capacity; any workload pod preempts them (berth check --headroom).',
  },
];

/** Namespace, PriorityClass and a Deployment per zone with placeholders. */
export function placeholderManifests(unit: HeadroomResult['unit'], counts: Counts, where: Placement = NOWHERE_IN_PARTICULAR): Record<string, unknown>[] {
  const zones = [...counts].filter(([, n]) => n > 0);
  if (zones.length === 0) return [];
  return [
    ...placeholderBase(),
    ...zones.map(([zone, replicas]) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(name(zone)),
      spec: { replicas, selector: { matchLabels: { [HEADROOM_LABEL]: name(zone) } }, template: placeholderTemplate(zone, unit, where) },
    })),
  ];
}

/** Cluster Autoscaler's CapacityBuffer (autoscaling.x-k8s.io/v1beta1) for the same placeholders: the Namespace and PriorityClass, then a PodTemplate and a buffer of `replicas` chunks per zone. */
export function capacityBufferManifests(unit: HeadroomResult['unit'], counts: Counts, where: Placement = NOWHERE_IN_PARTICULAR): Record<string, unknown>[] {
  const zones = [...counts].filter(([, n]) => n > 0);
  if (zones.length === 0) return [];
  return [
    ...placeholderBase(),
    ...zones.flatMap(([zone, replicas]) => [
      { apiVersion: 'v1', kind: 'PodTemplate', metadata: meta(name(zone)), template: placeholderTemplate(zone, unit, where) },
      { apiVersion: 'autoscaling.x-k8s.io/v1beta1', kind: 'CapacityBuffer', metadata: meta(name(zone)), spec: { podTemplateRef: { name: name(zone) }, replicas } },
    ]),
  ];
}

/** Objects (of kinds berth reads) loaded alone and added to the input. */
export function withObjects(input: LoadedInput, objects: readonly Record<string, unknown>[]): LoadedInput {
  if (objects.length === 0) return input;
  const r = loadSources([{ name: 'headroom.yaml', text: objects.map((o) => stringify(o)).join('---\n') }]);
  if (!r.ok) throw new Error(`headroom: the emitted objects do not load: ${r.errors.map((e) => e.message).join('; ')}`);
  const add = r.input;
  const known = new Set(input.namespaces.map((n) => n.name));
  return {
    ...input,
    nodes: [...input.nodes, ...add.nodes],
    pods: [...input.pods, ...add.pods],
    namespaces: [...input.namespaces, ...add.namespaces.filter((n) => !known.has(n.name))],
    priorityClasses: [...input.priorityClasses, ...add.priorityClasses],
    replicaSets: [...input.replicaSets, ...add.replicaSets],
    workloads: [...input.workloads, ...add.workloads],
    locations: { get: (ref) => input.locations.get(ref) ?? add.locations.get(ref) },
  };
}

/** The zone's node the spare nodes copy: its most common shape (allocatable cpu and memory), first by name. */
function nodeLike(input: LoadedInput, zone: string): Node | undefined {
  const nodes = input.nodes.filter((n) => (n.labels[LABEL_ZONE] ?? '') === zone && !n.unschedulable).sort((a, b) => (a.name < b.name ? -1 : 1));
  const shape = (n: Node) => `${n.allocatable['cpu'] ?? 0}/${n.allocatable['memory'] ?? 0}`;
  const counts = new Map<string, number>();
  for (const n of nodes) counts.set(shape(n), (counts.get(shape(n)) ?? 0) + 1);
  return nodes.reduce<Node | undefined>((best, n) => (!best || counts.get(shape(n))! > counts.get(shape(best))! ? n : best), undefined);
}

/** The spare nodes per zone, as Node objects like the zone's own. */
function spareNodes(input: LoadedInput, counts: Counts): Node[] {
  let out = { ...input, nodes: [] as Node[] };
  for (const [zone, n] of counts) {
    const like = nodeLike(input, zone);
    for (let i = 1; like && i <= n; i++) out = withNode(out, like, `${name(zone)}-${i}`, zone);
  }
  return out.nodes.map((node) => (node.labels[LABEL_ZONE] === '' ? { ...node, labels: Object.fromEntries(Object.entries(node.labels).filter(([k]) => k !== LABEL_ZONE)) } : node));
}

/** Where the placeholders may go: the nodeSelector entries (zone aside) and tolerations every slow workload's pods share, so they sit where those pods may. */
export interface Placement {
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly TolerationManifest[];
}

const NOWHERE_IN_PARTICULAR: Placement = { nodeSelector: {}, tolerations: [] };

export function sharedPlacement(input: LoadedInput, workloads: readonly string[]): Placement {
  const specs = input.workloads.filter((w) => workloads.includes(`${w.kind}/${w.key}`)).map((w) => w.template.spec);
  const [first, ...rest] = specs;
  if (!first) return NOWHERE_IN_PARTICULAR;
  const selectors = specs.map((s) => s.nodeSelector ?? {});
  const tolerates = (s: (typeof specs)[number], t: TolerationManifest) => (s.tolerations ?? []).some((x) => JSON.stringify(x) === JSON.stringify(t));
  return {
    nodeSelector: Object.fromEntries(Object.entries(selectors[0]!).filter(([k, v]) => k !== LABEL_ZONE && selectors.every((sel) => sel[k] === v))),
    tolerations: (first.tolerations ?? []).filter((t) => rest.every((s) => tolerates(s, t))),
  };
}

/** The requests of the largest slow pod: one placeholder of this size makes room for any one of them. */
function slotFor(input: LoadedInput, workloads: readonly string[]): HeadroomResult['unit'] {
  const pods = input.workloads.filter((w) => workloads.includes(`${w.kind}/${w.key}`)).map((w) => w.templatePod.resources.requests);
  return { cpu: Math.max(1, ...pods.map((r) => r['cpu'] ?? 0)), memory: Math.max(0, ...pods.map((r) => r['memory'] ?? 0)) };
}

const key = (c: Counts) => JSON.stringify([...c]);
const uniform = (zones: readonly string[], n: number): Counts => new Map(zones.map((z) => [z, n]));

/** The input without placeholders of an earlier run (a cluster dump read after they were deployed): sizing starts from none. */
export function withoutPlaceholders(input: LoadedInput): LoadedInput {
  const ours = (x: { readonly namespace: string }) => x.namespace === HEADROOM_NAMESPACE;
  if (!input.workloads.some(ours)) return input;
  return { ...input, workloads: input.workloads.filter((w) => !ours(w)), pods: input.pods.filter((p) => !ours(p)), replicaSets: input.replicaSets.filter((r) => !ours(r)) };
}

export function sizeHeadroom(given: AnalysisContext, opts: HeadroomOptions): HeadroomResult {
  const { recoveryS } = opts;
  const ctx = { ...given, input: withoutPlaceholders(given.input) };
  const mode: HeadroomMode = ctx.provisioner && ctx.input.nodePools.length > 0 ? 'placeholders' : 'nodes';
  const zones = zonesOf(ctx.input);
  const initial = allRecoveries(ctx, recoveryS);
  const before = slowLosses(initial, recoveryS);
  const slowWorkloads = [...new Set(before.map((e) => e.workload))].sort();
  const slot = slotFor(ctx.input, slowWorkloads);
  const where = sharedPlacement(ctx.input, slowWorkloads);
  const like = mode === 'nodes' ? nodeLike(ctx.input, zones[0]!) : undefined;
  const unit = like ? { cpu: like.allocatable['cpu'] ?? 0, memory: like.allocatable['memory'] ?? 0 } : slot;
  const objectsFor = (counts: Counts) => (mode === 'placeholders' ? placeholderManifests(slot, counts, where) : spareNodes(ctx.input, counts).map(nodeManifest));

  // A probe: every loss on the input with `counts`. The loss that failed the last probe goes
  // first, alone, since a count too small usually fails there again. Losses in `ignored`
  // (still over the target at the largest size tried: capacity does not fix them) do not count.
  const ignored = new Set<string>();
  // Node losses by workload only: which node holds a replica changes with the headroom.
  const lossKey = (e: Pick<HeadroomEvidence, 'scope' | 'target' | 'workload'>) => `${e.scope}\u0000${e.scope === 'zone' ? e.target : ''}\u0000${e.workload}`;
  const slowHere = (recoveries: readonly LossRecovery[]) => slowLosses(recoveries, recoveryS).filter((e) => !ignored.has(lossKey(e)));
  const slow = slowFor(recoveryS);
  let probes = 0;
  let lastSlow: HeadroomEvidence | undefined;
  let probed = new Map<string, LossRecovery[] | undefined>();
  const probe = (counts: Counts): boolean => {
    const k = key(counts);
    if (!probed.has(k)) probed.set(k, probeOnce(counts));
    return probed.get(k) !== undefined;
  };
  const probeOnce = (counts: Counts): LossRecovery[] | undefined => {
    probes++;
    const probeCtx = { ...ctx, input: withObjects(ctx.input, objectsFor(counts)) };
    if (lastSlow) {
      const v = simulateLoss(probeCtx, lastSlow.scope, lastSlow.target)?.verdicts.find((x) => x.workload === lastSlow!.workload);
      if (v && slow(v)) return undefined;
    }
    const recoveries = allRecoveries(probeCtx, recoveryS);
    lastSlow = slowHere(recoveries)[0];
    return lastSlow ? undefined : recoveries;
  };

  // The fewest placeholders (or nodes) per zone, or undefined when `cap` in every zone is not enough.
  const search = (need: number, cap: number): Counts | undefined => {
    let lo = 0;
    let hi = Math.max(1, need);
    while (!probe(uniform(zones, hi)) && hi < cap) [lo, hi] = [hi, Math.min(cap, hi * 2)];
    if (!probe(uniform(zones, hi))) return undefined;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (probe(uniform(zones, mid))) hi = mid;
      else lo = mid;
    }
    // Each zone on its own: the fewest it needs with the others as they are.
    let best = new Map(uniform(zones, hi));
    for (const zone of zones) {
      let zlo = -1;
      let zhi = best.get(zone)!;
      while (zhi - zlo > 1) {
        const mid = Math.floor((zlo + zhi) / 2);
        if (probe(new Map([...best, [zone, mid]]))) zhi = mid;
        else zlo = mid;
      }
      best = new Map([...best, [zone, zhi]]);
    }
    return best;
  };

  let counts: Counts = uniform(zones, 0);
  if (before.length > 0) {
    // Enough for the worst loss's replicas spread over the zones that may take them (the lost zone cannot).
    const perSlot = mode === 'nodes' ? Math.max(1, Math.min(Math.floor(unit.cpu / slot.cpu), slot.memory > 0 ? Math.floor(unit.memory / slot.memory) : Infinity)) : 1;
    const need = Math.max(...before.map((e) => Math.ceil(before.filter((x) => x.scope === e.scope && x.target === e.target).reduce((s, x) => s + x.lost, 0) / perSlot / Math.max(1, zones.length - (e.scope === 'zone' ? 1 : 0)))));
    const cap = Math.max(8, 4 * need);
    // Losses still over the target at `cap` are set aside and the others sized, until none is left over.
    for (let found = search(need, cap); ; found = search(need, cap)) {
      if (found) {
        counts = found;
        break;
      }
      const most = uniform(zones, cap);
      const over = slowHere(allRecoveries({ ...ctx, input: withObjects(ctx.input, objectsFor(most)) }, recoveryS));
      if (over.length === 0) {
        counts = most;
        break;
      }
      for (const e of over) ignored.add(lossKey(e));
      probed = new Map();
      lastSlow = undefined;
    }
  }

  const manifests = objectsFor(counts);
  const after = before.length === 0 ? initial : opts.verifyInput ? allRecoveries({ ...ctx, input: opts.verifyInput(manifests) }, recoveryS) : (probed.get(key(counts)) ?? allRecoveries({ ...ctx, input: withObjects(ctx.input, manifests) }, recoveryS));
  // Still over the target: the time with the headroom, beside the one without where that loss took the workload too.
  const stillSlow = slowLosses(after, recoveryS).map(({ withoutS, ...e }) => {
    const v = initial.find((r) => r.scope === e.scope && r.target === e.target)?.verdicts.find((x) => x.workload === e.workload);
    return { ...e, withS: withoutS, ...(v && lostOf(v) > 0 ? { withoutS: v.recoveredAfterS } : {}) };
  });
  const withS = (e: HeadroomEvidence) => {
    const v = after.find((r) => r.scope === e.scope && r.target === e.target)?.verdicts.find((x) => x.workload === e.workload);
    return v && lostOf(v) > 0 ? { withS: v.recoveredAfterS } : {};
  };
  const unitOf = (zone: string) => {
    const n = mode === 'nodes' ? nodeLike(ctx.input, zone) : undefined;
    return n ? { cpu: n.allocatable['cpu'] ?? 0, memory: n.allocatable['memory'] ?? 0 } : unit;
  };
  return {
    recoveryS,
    mode,
    unit,
    ...(like ? { likeNode: like.name } : {}),
    zones: zones.map((zone) => {
      const count = counts.get(zone) ?? 0;
      return { zone, count, cpu: count * unitOf(zone).cpu, memory: count * unitOf(zone).memory };
    }),
    met: stillSlow.length === 0,
    evidence: before.map((e) => ({ ...e, ...withS(e) })),
    stillSlow,
    verified: { node: after.filter((r) => r.scope === 'node').length, zone: after.filter((r) => r.scope === 'zone').length },
    probes,
    manifests,
    capacityBuffers: mode === 'placeholders' ? capacityBufferManifests(slot, counts, where) : [],
  };
}
