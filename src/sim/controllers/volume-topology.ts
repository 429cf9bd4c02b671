// Where a CSI driver creates a dynamically provisioned volume, as the external
// provisioner (kubernetes-csi/external-provisioner, pkg/controller/topology.go)
// asks it to: the requisite topologies are the class's allowedTopologies
// (flattened into single-valued terms) or, without them, the topologies of every
// node where the driver runs; the preferred order starts at the selected node's
// topology (WaitForFirstConsumer) or, for Immediate binding, at an offset hashed
// from the claim's name so that a StatefulSet's ordinals round-robin over zones.
// Drivers such as the EBS CSI driver create the volume in the first preferred
// topology.

import type { Labels } from '../../model/selector.js';
import type { StorageClass } from '../../model/volumes.js';

/** One topology: sorted key=value segments. */
export type TopologyTerm = readonly { readonly key: string; readonly value: string }[];

/** A node where the driver runs: its labels and the topology keys its CSINode lists for the driver. */
export interface DriverNode {
  readonly name: string;
  readonly labels: Labels;
  readonly topologyKeys: readonly string[];
}

const byKeyThenValue = (a: { key: string; value: string }, b: { key: string; value: string }): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

/** topologyTerm.compare: shorter terms first, then segment by segment. */
function compareTerms(a: TopologyTerm, b: TopologyTerm): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const c = byKeyThenValue(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return 0;
}

/** flatten: distributes each term's multi-valued expressions into single-valued terms. */
export function flattenAllowedTopologies(sc: StorageClass): TopologyTerm[] {
  const out: TopologyTerm[] = [];
  for (const term of sc.allowedTopologies) {
    let terms: { key: string; value: string }[][] = [];
    for (const e of term) {
      const next: { key: string; value: string }[][] = [];
      for (const value of e.values) {
        if (terms.length === 0) next.push([{ key: e.key, value }]);
        else for (const old of terms) next.push([...old, { key: e.key, value }]);
      }
      terms = next;
    }
    out.push(...terms.map((t) => [...t].sort(byKeyThenValue)));
  }
  return out;
}

/** The node's topology for these keys; undefined when it lacks one of the labels. */
function nodeTopology(labels: Labels, keys: readonly string[]): TopologyTerm | undefined {
  const term: { key: string; value: string }[] = [];
  for (const key of keys) {
    const value = labels[key];
    if (value === undefined) return undefined;
    term.push({ key, value });
  }
  return term.sort(byKeyThenValue);
}

/** t.subset(other): every segment of t is in other. */
function isSubset(t: TopologyTerm, other: TopologyTerm): boolean {
  return t.every((s) => other.some((o) => o.key === s.key && o.value === s.value));
}

/** FNV-1 (not 1a), 32 bits: Go's hash/fnv New32. */
function fnv1(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h = (h ^ byte) >>> 0;
  }
  return h;
}

/**
 * getPVCNameHashAndIndexOffset: `<claim>-<statefulset>-<ordinal>` hashes only the
 * StatefulSet part and offsets by the ordinal, so that one member's claims share a
 * zone and consecutive members take consecutive zones.
 */
export function claimNameHashAndOffset(claimName: string): { hash: number; offset: number } {
  let hashed = claimName;
  let offset = 0;
  const dash = claimName.lastIndexOf('-');
  if (dash >= 0 && /^[0-9]+$/.test(claimName.slice(dash + 1))) {
    const id = Number(claimName.slice(dash + 1));
    if (id <= 0xffffffff) {
      offset = id;
      hashed = claimName.slice(0, dash);
      const inner = hashed.lastIndexOf('-');
      if (inner >= 0) hashed = hashed.slice(inner + 1);
    }
  }
  return { hash: fnv1(hashed), offset };
}

export type TopologyChoice = { readonly topology: TopologyTerm | null } | { readonly error: string };

/**
 * The topology the driver provisions in (the first preferred term), null when the
 * provisioner passes no requirement (the driver then picks), or why provisioning
 * fails (the scheduler then picks another node for a WaitForFirstConsumer claim).
 */
export function chooseTopology(sc: StorageClass, claimName: string, driverNodes: readonly DriverNode[], selectedNode: DriverNode | undefined): TopologyChoice {
  let selected: TopologyTerm | undefined;
  if (selectedNode) {
    if (selectedNode.topologyKeys.length === 0) return { error: `no topology key found for node ${selectedNode.name}` };
    selected = nodeTopology(selectedNode.labels, selectedNode.topologyKeys);
    if (!selected) return { error: `topology labels from selected node do not match topology keys ${JSON.stringify(selectedNode.topologyKeys)} from CSINode` };
  }
  let requisite = flattenAllowedTopologies(sc);
  if (requisite.length === 0) {
    // Immediate topology (the provisioner's default): every node where the driver runs.
    const keys = selectedNode?.topologyKeys ?? driverNodes.find((n) => n.topologyKeys.length > 0)?.topologyKeys ?? [];
    if (keys.length === 0) return { topology: null };
    for (const n of driverNodes) {
      const t = nodeTopology(n.labels, keys);
      if (t) requisite.push(t);
    }
    if (requisite.length === 0) return { error: 'no available topology found' };
  }
  requisite = [...requisite].sort(compareTerms).filter((t, i, all) => i === 0 || compareTerms(all[i - 1]!, t) !== 0);
  if (!selected) {
    const { hash, offset } = claimNameHashAndOffset(claimName);
    // uint32 arithmetic, as upstream: the sum wraps.
    return { topology: requisite[((hash + offset) >>> 0) % requisite.length]! };
  }
  const first = requisite.find((t) => isSubset(t, selected));
  if (!first) return { error: `topology of selected node ${JSON.stringify(selectedNode!.name)} is not in requisite` };
  return { topology: first };
}
