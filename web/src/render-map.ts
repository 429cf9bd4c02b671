// The answer views of a run: the summary line, pending pods grouped by reason, and
// the nodes by zone (then NodePool) with CPU and memory requested-vs-allocatable bars.

import type { FindingView as Finding, NodeView, RunView } from './engine.js';
import { el, inSlices } from './dom.js';
import { compactFit, compactHeight, type MapGeometry } from './map-fit.js';

export interface Summary {
  readonly placed: number;
  readonly pending: number;
  readonly newNodes: number;
  /** $/h of what the run added (new NodeClaims, a simulation's cloud); undefined when the run adds nothing billable. */
  readonly costPerHour?: number;
  readonly findings?: readonly Finding[];
}

export function summaryOf(run: RunView, extra: { costPerHour?: number; findings?: readonly Finding[] } = {}): Summary {
  return { placed: run.pods.length, pending: run.pending.length, newNodes: run.nodes.filter((n) => n.planned).length, ...extra };
}

export function renderSummary(box: HTMLElement, s: Summary): void {
  const parts = [`${s.placed} placed`, `${s.pending} pending`, `${s.newNodes} new node${s.newNodes === 1 ? '' : 's'}`];
  if (s.costPerHour !== undefined) parts.push(`$${s.costPerHour.toFixed(4)}/h`);
  if (s.findings) {
    const by = (sev: string) => s.findings!.filter((f) => f.severity === sev).length;
    parts.push(`findings: ${by('error')} error, ${by('warning')} warning, ${by('info')} info`);
  }
  const line = el('p', 'summary-line');
  parts.forEach((p, i) => {
    const item = el('span', `summary-item${i === 1 && s.pending > 0 ? ' bad' : ''}`, p);
    line.append(item);
  });
  box.replaceChildren(line);
}

/**
 * A group's first pods shown at once: a reason shared by hundreds of pods (one
 * Deployment too big for every node) would otherwise push the map off the screen.
 */
const PENDING_SHOWN = 24;

/** Pending pods, one group per FailedScheduling message, largest group first; a long group shows its first pods and a button for the rest. */
export async function renderPending(box: HTMLElement, pending: RunView['pending'], clickable: boolean): Promise<void> {
  const groups = new Map<string, string[]>();
  for (const p of pending) groups.set(p.message, [...(groups.get(p.message) ?? []), p.pod]);
  const lane = el('section', 'pending-lane');
  lane.setAttribute('aria-label', 'pending pods');
  lane.append(el('h2', '', `Pending (${pending.length})`));
  box.replaceChildren(lane);
  const shown: { chips: HTMLElement; pod: string }[] = [];
  const chip = (pod: string) => {
    const c = el(clickable ? 'button' : 'span', 'pod pending', pod);
    c.dataset['pod'] = pod;
    return c;
  };
  for (const [message, pods] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
    const group = el('div', 'pending-group');
    const chips = el('div', 'chips');
    group.append(el('p', 'message', `${pods.length} pod${pods.length === 1 ? '' : 's'}: ${message}`), chips);
    lane.append(group);
    for (const pod of pods.slice(0, PENDING_SHOWN)) shown.push({ chips, pod });
    if (pods.length <= PENDING_SHOWN) continue;
    const more = el('button', 'show-all', `Show all ${pods.length}`);
    more.type = 'button';
    more.addEventListener('click', () => {
      more.remove();
      void inSlices(pods.slice(PENDING_SHOWN), (pod) => chips.append(chip(pod)));
    });
    group.append(more);
  }
  await inSlices(shown, ({ chips, pod }) => chips.append(chip(pod)));
}

const GiB = 2 ** 30;

/** Above these shares the bar turns amber, then red (as a <meter> with low 80 and high 95). */
const HIGH = 80;
const FULL = 95;

/**
 * A requested-vs-allocatable bar: plain divs with ARIA meter semantics. A <meter>
 * brings a shadow tree of its own, and a gradient fill is an image to paint per bar;
 * with two bars per node they were a large part of the map's style, layout and paint.
 */
function bar(label: string, used: number, total: number, text: string): HTMLElement {
  const wrap = el('div', 'bar');
  const pct = total > 0 ? Math.min(100, Math.round((100 * used) / total)) : 0;
  const meter = el('div', `meter${pct > FULL ? ' full' : pct > HIGH ? ' high' : ''}`);
  meter.setAttribute('role', 'meter');
  meter.setAttribute('aria-label', `${label} requested`);
  meter.setAttribute('aria-valuemin', '0');
  meter.setAttribute('aria-valuemax', '100');
  meter.setAttribute('aria-valuenow', String(pct));
  meter.setAttribute('aria-valuetext', `${pct}%`);
  const fill = el('div', 'fill');
  fill.style.width = `${pct}%`;
  meter.append(fill);
  wrap.append(el('span', 'bar-label', label), meter, el('span', 'bar-text', text));
  return wrap;
}

function nodeCard(n: NodeView, pods: readonly { key: string; workload: string }[], colour: (w: string) => string, clickable: boolean): HTMLElement {
  const card = el('div', n.planned ? 'node planned' : 'node');
  card.dataset['node'] = n.name;
  card.title = n.name;
  card.dataset['pods'] = `${pods.length} pod${pods.length === 1 ? '' : 's'}`;
  card.append(el('h4', 'node-name', n.name), el('div', 'node-size', [n.nodePool && `pool ${n.nodePool}`, n.detail].filter(Boolean).join(' · ')));
  card.append(
    bar('CPU', n.cpuRequested, n.cpuMilli, `${n.cpuRequested / 1000} / ${n.cpuMilli / 1000}`),
    bar('Mem', n.memoryRequested, n.memoryBytes, `${(n.memoryRequested / GiB).toFixed(1)} / ${(n.memoryBytes / GiB).toFixed(1)} GiB`),
  );
  const chips = el('div', 'chips');
  for (const p of pods) {
    const chip = el(clickable ? 'button' : 'span', 'pod', p.key);
    chip.style.background = colour(p.workload);
    chip.dataset['pod'] = p.key;
    chips.append(chip);
  }
  card.append(chips);
  return card;
}

/** The map's zoom, kept from one run to the next. */
let zoom = 1;
const MIN_PERCENT = 10;
const MIN_ZOOM = MIN_PERCENT / 100;
/**
 * Below this zoom names are too small to read: a card keeps its bars and a count of
 * its pods (zoom in to click one), which also spares styling thousands of chips when
 * Fit brings every card on screen at once.
 */
const COMPACT_BELOW = 0.5;

/** The height the map may take on screen: the results pane's when it scrolls on its own, else the window's. */
function screenRoom(box: HTMLElement): number {
  const pane = box.closest<HTMLElement>('#results');
  return Math.min(pane?.clientHeight ?? Infinity, window.innerHeight);
}

/** The map's geometry for Fit, from one layout read (offset sizes and computed styles are in the map's own pixels). */
function geometry(box: HTMLElement, content: HTMLElement, zoneSizes: readonly number[]): MapGeometry | undefined {
  const zone = content.firstElementChild as HTMLElement | null;
  const grid = zone?.querySelector<HTMLElement>('.nodes');
  if (!zone || !grid) return undefined;
  const px = (style: CSSStyleDeclaration, name: string) => parseFloat(style.getPropertyValue(name));
  const own = getComputedStyle(content);
  return {
    width: box.clientWidth,
    zoneSizes,
    zoneChrome: zone.offsetHeight - grid.offsetHeight + px(getComputedStyle(zone), 'margin-bottom'),
    zoneSides: zone.offsetWidth - grid.offsetWidth,
    cardMin: px(own, '--card-min'),
    gap: px(getComputedStyle(grid), 'row-gap'),
    compactCard: px(own, '--compact-card'),
  };
}

const nextFrame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

/**
 * Cards added per frame, and shown again per frame after the map turns compact or
 * back. Compact, every card is on screen, and styling, laying out and painting all 200
 * in one frame was a task of up to 129 ms on a loaded machine; at full size only the
 * cards on screen cost anything once shown (content-visibility: auto), but each costs
 * several compact ones.
 */
const REVEAL_PER_FRAME = { compact: 40, full: 12 };

/**
 * Zoom and Fit over the zones: zooming out shrinks the cards, so more columns fit and
 * hundreds of nodes come into one screen. Fit shows the map at 100% when it fits,
 * else compact at the largest zoom at which it does (map-fit.ts).
 */
function mapTools(box: HTMLElement, content: HTMLElement, zoneSizes: readonly number[]): HTMLElement {
  const tools = el('div', 'map-tools');
  const range = el('input');
  Object.assign(range, { type: 'range', min: String(MIN_PERCENT), max: '100', step: '1' });
  range.setAttribute('aria-label', 'map zoom (%)');
  const value = el('span', 'zoom-value');
  /** Bumped by each zoom: a reveal still running for an earlier one stops. */
  let zooms = 0;
  /** Shows the hidden cards in map order, a slice per frame; resolves when all are shown or a later zoom took over. */
  const reveal = (mine: number, perFrame: number) => {
    const hidden = [...content.querySelectorAll<HTMLElement>('.node.unrevealed')];
    const untilNextZoom = function* () {
      for (const card of hidden) {
        if (mine !== zooms) return;
        yield card;
      }
    };
    return inSlices(untilNextZoom(), (card) => card.classList.remove('unrevealed'), perFrame);
  };
  const apply = async (z: number) => {
    const mine = ++zooms;
    zoom = Math.min(1, Math.max(MIN_ZOOM, z));
    const compact = zoom < COMPACT_BELOW;
    const switching = content.classList.contains('compact') !== compact;
    content.style.zoom = String(zoom);
    content.classList.toggle('compact', compact);
    range.value = String(Math.round(zoom * 100));
    value.textContent = `${Math.round(zoom * 100)}%`;
    // Turning compact or back, every card would be laid out again in the next frame:
    // instead all become skipped boxes of their fixed or estimated size
    // (content-visibility: hidden), shown a slice per frame from the top.
    if (switching) for (const card of content.querySelectorAll('.node')) card.classList.add('unrevealed');
    await reveal(mine, compact ? REVEAL_PER_FRAME.compact : REVEAL_PER_FRAME.full);
  };
  const fit = el('button', 'fit', 'Fit');
  fit.type = 'button';
  fit.addEventListener('click', () => {
    void (async () => {
      const room = screenRoom(box) - tools.offsetHeight - 16;
      const g = geometry(box, content, zoneSizes);
      if (!g) return;
      fit.disabled = true;
      // Full cards are taller than compact ones: if the compact map at 100% is too high, so is the full one.
      let fits = false;
      if (compactHeight(g, 1) <= room) {
        await apply(1);
        await nextFrame();
        fits = content.getBoundingClientRect().height <= room;
      }
      if (!fits) {
        const z = compactFit(g, room, Math.round(COMPACT_BELOW * 100) - 1, MIN_PERCENT);
        await apply(z ?? MIN_ZOOM);
        await nextFrame();
        fits = z !== undefined && content.getBoundingClientRect().height <= room;
      }
      fit.disabled = false;
      box.dataset['fit'] = String(fits);
    })();
  });
  const full = el('button', '', '100%');
  full.type = 'button';
  full.addEventListener('click', () => void apply(1));
  range.addEventListener('input', () => void apply(Number(range.value) / 100));
  tools.append(el('span', '', 'Zoom'), range, value, fit, full);
  void apply(zoom);
  return tools;
}

/**
 * Nodes grouped by zone, then NodePool; `clickable` makes pod chips buttons (the page
 * explains the one clicked). Cards are added a slice at a time; resolves when all are in.
 */
export async function renderNodes(box: HTMLElement, run: RunView, colour: (w: string) => string, clickable: boolean): Promise<void> {
  const podsOn = new Map<string, { key: string; workload: string }[]>();
  for (const p of run.pods) {
    const list = podsOn.get(p.node);
    if (list) list.push(p);
    else podsOn.set(p.node, [p]);
  }
  const cards: { grid: HTMLElement; node: NodeView }[] = [];
  const zones: HTMLElement[] = [];
  const zoneSizes: number[] = [];
  for (const zone of [...new Set(run.nodes.map((n) => n.zone))].sort()) {
    const inZone = run.nodes.filter((x) => x.zone === zone);
    const z = el('section', 'zone');
    z.setAttribute('aria-label', `zone ${zone}`);
    const grid = el('div', 'nodes');
    z.append(el('h3', 'zone-name', `${zone} · ${inZone.length} node${inZone.length === 1 ? '' : 's'}`), grid);
    zones.push(z);
    zoneSizes.push(inZone.length);
    const byPool = [...inZone].sort((a, b) => (a.nodePool < b.nodePool ? -1 : a.nodePool > b.nodePool ? 1 : 0));
    for (const node of byPool) cards.push({ grid, node });
  }
  delete box.dataset['fit'];
  const content = el('div', 'zones');
  content.append(...zones);
  box.replaceChildren(mapTools(box, content, zoneSizes), content);
  await inSlices(cards, ({ grid, node }) => grid.append(nodeCard(node, podsOn.get(node.name) ?? [], colour, clickable)), REVEAL_PER_FRAME.full);
}
