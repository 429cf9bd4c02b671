// The answer views of a run: the summary line, pending pods grouped by reason, and
// the nodes by zone (then NodePool) with CPU and memory requested-vs-allocatable bars.

import type { FindingView as Finding, NodeView, RunView } from './engine.js';
import { el, inSlices } from './dom.js';

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

/** Pending pods, one group per FailedScheduling message, largest group first. */
export async function renderPending(box: HTMLElement, pending: RunView['pending'], clickable: boolean): Promise<void> {
  const groups = new Map<string, string[]>();
  for (const p of pending) groups.set(p.message, [...(groups.get(p.message) ?? []), p.pod]);
  const lane = el('section', 'pending-lane');
  lane.setAttribute('aria-label', 'pending pods');
  lane.append(el('h2', '', `Pending (${pending.length})`));
  box.replaceChildren(lane);
  const chipsOf = new Map<string, HTMLElement>();
  for (const [message, pods] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
    const group = el('div', 'pending-group');
    const chips = el('div', 'chips');
    group.append(el('p', 'message', `${pods.length} pod${pods.length === 1 ? '' : 's'}: ${message}`), chips);
    lane.append(group);
    chipsOf.set(message, chips);
  }
  await inSlices(pending, (p) => {
    const chip = el(clickable ? 'button' : 'span', 'pod pending', p.pod);
    chip.dataset['pod'] = p.pod;
    chipsOf.get(p.message)!.append(chip);
  });
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
const MIN_ZOOM = 0.1;
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

/**
 * Zoom and Fit over the zones: zooming out shrinks the cards, so more columns fit and
 * hundreds of nodes come into one screen; Fit finds the largest zoom at which they do.
 */
function mapTools(box: HTMLElement, content: HTMLElement): HTMLElement {
  const tools = el('div', 'map-tools');
  const range = el('input');
  Object.assign(range, { type: 'range', min: String(MIN_ZOOM * 100), max: '100', step: '1' });
  range.setAttribute('aria-label', 'map zoom (%)');
  const value = el('span', 'zoom-value');
  const apply = (z: number) => {
    zoom = Math.min(1, Math.max(MIN_ZOOM, z));
    content.style.zoom = String(zoom);
    const leaving = content.classList.contains('compact') && zoom >= COMPACT_BELOW;
    content.classList.toggle('compact', zoom < COMPACT_BELOW);
    // Compact, every card was on screen: in the next frame all would be laid out again,
    // now with their pods. For that frame they are skipped boxes of a card's estimated
    // size (content-visibility: hidden); after it only those on screen are rendered.
    if (leaving) {
      content.classList.add('settling');
      requestAnimationFrame(() => requestAnimationFrame(() => content.classList.remove('settling')));
    }
    range.value = String(Math.round(zoom * 100));
    value.textContent = `${Math.round(zoom * 100)}%`;
  };
  const fit = el('button', 'fit', 'Fit');
  fit.type = 'button';
  fit.addEventListener('click', () => {
    void (async () => {
      const room = screenRoom(box) - tools.offsetHeight - 16;
      // Cards off screen are laid out at a guessed height until a frame renders them
      // (content-visibility), so each guess is measured a frame after it is applied.
      const height = async () => {
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        return content.getBoundingClientRect().height;
      };
      fit.disabled = true;
      apply(1);
      // Rows shrink with the zoom and so does each row: the height goes as zoom², give or take the headings.
      for (let i = 0, h = await height(); i < 8 && h > room && zoom > MIN_ZOOM; i++, h = await height()) apply(zoom * Math.min(0.97, Math.sqrt(room / h)));
      fit.disabled = false;
      box.dataset['fit'] = String((await height()) <= room);
    })();
  });
  const full = el('button', '', '100%');
  full.type = 'button';
  full.addEventListener('click', () => apply(1));
  range.addEventListener('input', () => apply(Number(range.value) / 100));
  tools.append(el('span', '', 'Zoom'), range, value, fit, full);
  apply(zoom);
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
  for (const zone of [...new Set(run.nodes.map((n) => n.zone))].sort()) {
    const inZone = run.nodes.filter((x) => x.zone === zone);
    const z = el('section', 'zone');
    z.setAttribute('aria-label', `zone ${zone}`);
    const grid = el('div', 'nodes');
    z.append(el('h3', 'zone-name', `${zone} · ${inZone.length} node${inZone.length === 1 ? '' : 's'}`), grid);
    zones.push(z);
    const byPool = [...inZone].sort((a, b) => (a.nodePool < b.nodePool ? -1 : a.nodePool > b.nodePool ? 1 : 0));
    for (const node of byPool) cards.push({ grid, node });
  }
  delete box.dataset['fit'];
  const content = el('div', 'zones');
  content.append(...zones);
  box.replaceChildren(mapTools(box, content), content);
  await inSlices(cards, ({ grid, node }) => grid.append(nodeCard(node, podsOn.get(node.name) ?? [], colour, clickable)));
}
