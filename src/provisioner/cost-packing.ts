// The packing behind `--optimize cost`: groups of identical pods onto new nodes chosen
// for what they cost per pod they hold. Nodes are opened one at a time: each offering
// is filled greedily from the groups it may take (a one-per-node group first, then the
// group whose requests best match the room left), and the offering whose fill costs least per unit of
// "value" opens. A pod's value is the cheapest share of a node it could have on its own
// (price × its largest fraction of the type's allocatable), so a node full in every
// resource of a cheap type scores best. Then a local search drops nodes whose pods fit
// in the room of the others and re-picks each node's cheapest offering that still fits.
// The arithmetic is on plain vectors; optimize-cost.ts decides what may be grouped.

/** A launchable node: `alloc` per resource dimension (the same order as each group's `req`). */
export interface PackOffer {
  readonly price: number;
  readonly alloc: readonly number[];
}

export interface PackGroup {
  readonly count: number;
  readonly req: readonly number[];
  /** Offer indexes the group's pods may run on (requirements, taints, zone). */
  readonly offers: ReadonlySet<number>;
  /** At most one pod of the group per node (required hostname anti-affinity selecting itself). */
  readonly selfConflict: boolean;
  /** Groups none of whose pods may share a node with this one's. */
  readonly conflicts: ReadonlySet<number>;
}

export interface PackedNode {
  offer: number;
  /** Group index → pods of the group on the node. */
  readonly groups: Map<number, number>;
}

interface Fill {
  readonly taken: Map<number, number>;
  readonly value: number;
}

const fitsIn = (room: readonly number[], req: readonly number[], times = 1): boolean => req.every((r, i) => r * times <= room[i]!);

export function packGroups(offers: readonly PackOffer[], groups: readonly PackGroup[]): PackedNode[] {
  const value = groups.map((g) => podValue(offers, g));
  const byOffer = offers.map(() => [] as number[]);
  groups.forEach((g, gi) => {
    for (const o of g.offers) byOffer[o]!.push(gi);
  });
  const counts = groups.map((g) => g.count);
  const fills = new Map<number, Fill>();
  const nodes: PackedNode[] = [];
  for (;;) {
    let best: { offer: number; fill: Fill; score: number } | undefined;
    for (let o = 0; o < offers.length; o++) {
      let fill = fills.get(o);
      // A fill stays what it was while every group it took from has as many pods left: counts only fall, and groups it did not take never change its choices.
      if (fill === undefined || [...fill.taken].some(([g, n]) => counts[g]! < n)) {
        fill = fillOffer(offers[o]!, byOffer[o]!, groups, counts, value);
        fills.set(o, fill);
      }
      if (fill.value <= 0) continue;
      const score = offers[o]!.price / fill.value;
      if (!best || score < best.score - 1e-12) best = { offer: o, fill, score };
    }
    if (!best) break;
    for (const [g, n] of best.fill.taken) counts[g]! -= n;
    nodes.push({ offer: best.offer, groups: new Map(best.fill.taken) });
  }
  if (counts.some((c) => c > 0)) throw new Error('cost packing: a group fits no offer');
  improve(nodes, offers, groups, value);
  return nodes;
}

/** The cheapest share of a node one pod of the group could take on its own. */
function podValue(offers: readonly PackOffer[], g: PackGroup): number {
  let best = Infinity;
  for (const o of g.offers) {
    const offer = offers[o]!;
    let share = 0;
    g.req.forEach((r, i) => {
      if (r > 0) share = Math.max(share, r / offer.alloc[i]!);
    });
    best = Math.min(best, offer.price * share);
  }
  return Number.isFinite(best) ? best : 0;
}

function fillOffer(offer: PackOffer, candidates: readonly number[], groups: readonly PackGroup[], counts: readonly number[], value: readonly number[]): Fill {
  const room = [...offer.alloc];
  const taken = new Map<number, number>();
  let total = 0;
  for (;;) {
    let pick = -1;
    let pickScore = -Infinity;
    for (const g of candidates) {
      const group = groups[g]!;
      const had = taken.get(g) ?? 0;
      if (counts[g]! - had <= 0 || (group.selfConflict && had > 0) || !fitsIn(room, group.req)) continue;
      if ([...taken.keys()].some((t) => group.conflicts.has(t))) continue;
      // A one-per-node group first (each node it skips costs a node later), then the group asking most of the resources with the most room left.
      let score = group.selfConflict ? 1e9 : 0;
      group.req.forEach((r, i) => {
        const a = offer.alloc[i]!;
        if (a > 0) score += (r / a) * (room[i]! / a);
      });
      if (score > pickScore) [pick, pickScore] = [g, score];
    }
    if (pick < 0) break;
    const group = groups[pick]!;
    const left = counts[pick]! - (taken.get(pick) ?? 0);
    let maxFit = Infinity;
    group.req.forEach((r, i) => {
      if (r > 0) maxFit = Math.min(maxFit, Math.floor(room[i]! / r));
    });
    // A quarter of what still fits at a time keeps the mix balanced without a step per pod.
    let n = group.selfConflict ? 1 : Math.max(1, Math.ceil(Math.min(maxFit, 1e9) / 4));
    n = Math.min(n, left);
    group.req.forEach((r, i) => (room[i]! -= r * n));
    taken.set(pick, (taken.get(pick) ?? 0) + n);
    total += value[pick]! * n;
  }
  return { taken, value: total };
}

function usage(node: PackedNode, groups: readonly PackGroup[], dims: number): number[] {
  const used = new Array<number>(dims).fill(0);
  for (const [g, n] of node.groups) groups[g]!.req.forEach((r, i) => (used[i]! += r * n));
  return used;
}

/** The cheapest offer every group on the node may use and whose allocatable holds them all. */
function cheapestFor(node: PackedNode, offers: readonly PackOffer[], groups: readonly PackGroup[]): number {
  const used = usage(node, groups, offers[node.offer]!.alloc.length);
  let best = node.offer;
  for (let o = 0; o < offers.length; o++) {
    if (offers[o]!.price >= offers[best]!.price || !fitsIn(offers[o]!.alloc, used)) continue;
    if ([...node.groups.keys()].every((g) => groups[g]!.offers.has(o))) best = o;
  }
  return best;
}

/** Local search: re-pick every node's offer, then empty the nodes whose pods fit in the others' room. */
function improve(nodes: PackedNode[], offers: readonly PackOffer[], groups: readonly PackGroup[], value: readonly number[]): void {
  for (const n of nodes) n.offer = cheapestFor(n, offers, groups);
  // Worst first: the most paid per unit of value held.
  const worth = (n: PackedNode) => [...n.groups].reduce((s, [g, k]) => s + value[g]! * k, 0);
  const order = [...nodes].sort((a, b) => offers[b.offer]!.price / worth(b) - offers[a.offer]!.price / worth(a));
  for (const victim of order) {
    const others = nodes.filter((n) => n !== victim);
    const rooms = others.map((n) => {
      const used = usage(n, groups, offers[n.offer]!.alloc.length);
      return offers[n.offer]!.alloc.map((a, i) => a - used[i]!);
    });
    const moves: { to: number; g: number; n: number }[] = [];
    let placedAll = true;
    for (const [g, count] of victim.groups) {
      let left = count;
      const group = groups[g]!;
      for (let t = 0; t < others.length && left > 0; t++) {
        const target = others[t]!;
        if (!group.offers.has(target.offer)) continue;
        const present = [...target.groups.keys(), ...moves.filter((m) => m.to === t).map((m) => m.g)];
        if (present.some((p) => group.conflicts.has(p) || groups[p]!.conflicts.has(g))) continue;
        if (group.selfConflict && present.includes(g)) continue;
        let n = 0;
        while (n < left && (!group.selfConflict || n < 1) && fitsIn(rooms[t]!, group.req, n + 1)) n++;
        if (n === 0) continue;
        group.req.forEach((r, i) => (rooms[t]![i]! -= r * n));
        moves.push({ to: t, g, n });
        left -= n;
      }
      if (left > 0) {
        placedAll = false;
        break;
      }
    }
    if (!placedAll) continue;
    for (const m of moves) others[m.to]!.groups.set(m.g, (others[m.to]!.groups.get(m.g) ?? 0) + m.n);
    nodes.splice(nodes.indexOf(victim), 1);
  }
  for (const n of nodes) n.offer = cheapestFor(n, offers, groups);
}
