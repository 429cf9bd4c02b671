// `berth explain` as a table (ARIA table roles on grid rows): every node × plugin for one pod, the chosen node first,
// then feasible nodes by total score, then the nodes a filter rejected.

import type { PodExplanation } from './engine.js';
import { el, inSlices } from './dom.js';

/**
 * Rows added per frame. The first rows are on screen (and the browser renders a margin
 * beyond it too: content-visibility: auto), so they are laid out and painted in the
 * frame after they are made: about 60 rows (8 ms to make) were a frame of up to 22 ms
 * of layout and paint at load 27.
 */
const ROWS_PER_FRAME = 20;

export async function renderExplain(box: HTMLElement, pod: string, result: PodExplanation | undefined): Promise<void> {
  const title = el('h2', '', `Explain ${pod}`);
  // On screen before the table's rows come: brought there after them, every row in
  // view and in content-visibility's margin (about 60, 1,200 layout objects) was laid
  // out and painted in one frame, the longest of an explain on a phone.
  const show = (...parts: HTMLElement[]) => {
    box.replaceChildren(...parts);
    box.scrollIntoView({ block: 'nearest' });
  };
  if (!result) {
    show(title, el('p', 'message', 'The scheduler never tries this pod (no profile has its schedulerName, or it is not in the input).'));
    return;
  }
  const e = result.explanation;
  const plugins = [...new Set(e.nodes.flatMap((n) => n.scores.map((s) => s.plugin)))];
  const rank = (n: (typeof e.nodes)[number]) => (n.node === e.selected ? 0 : n.feasible ? 1 : 2);
  const rows = [...e.nodes].sort((a, b) => rank(a) - rank(b) || (b.total ?? 0) - (a.total ?? 0) || (a.node < b.node ? -1 : 1));
  // Rows are grids of fixed columns, each skipped by layout while off screen
  // (content-visibility): a <table> lays out every cell of its 200 rows at once.
  const table = el('div', 'explain-table');
  table.setAttribute('role', 'table');
  table.setAttribute('aria-label', `explanation of ${e.pod}`);
  table.style.setProperty('--plugins', String(plugins.length));
  if (plugins.length > 0) table.style.setProperty('--plugin-columns', `repeat(${plugins.length}, 11em)`);
  const caption = el('p', 'caption', `${e.nodes.length} node(s) × ${plugins.length} score plugin(s): raw → normalized × weight = weighted`);
  const row = (cls: string) => {
    const r = el('div', `explain-row ${cls}`.trim());
    r.setAttribute('role', 'row');
    return r;
  };
  const cell = (role: string, text: string) => {
    const c = el('div', role === 'cell' ? 'cell' : 'cell head', text);
    c.setAttribute('role', role);
    return c;
  };
  const head = row('');
  for (const h of ['node', 'filter', ...plugins, 'total']) head.append(cell('columnheader', h));
  const headGroup = el('div', 'explain-head');
  const body = el('div', 'explain-body');
  for (const g of [headGroup, body]) g.setAttribute('role', 'rowgroup');
  headGroup.append(head);
  table.append(headGroup, body);
  const pre = e.preFilter.filter((p) => p.code !== 'Success' || p.nodeNames !== null);
  const preList = el('ul', 'prefilter');
  for (const p of pre) preList.append(el('li', '', `PreFilter ${p.plugin}: ${p.code}${p.reasons.length ? ` (${p.reasons.join(', ')})` : ''}${p.nodeNames ? `, nodes ${p.nodeNames.join(' ')}` : ''}`));
  const scroll = el('div', 'table-scroll');
  scroll.tabIndex = 0;
  scroll.setAttribute('role', 'region');
  scroll.setAttribute('aria-label', `explanation of ${e.pod}, scrolls sideways`);
  scroll.append(table);
  const verdict = el('p', 'verdict', e.selected ? `selected: ${e.selected}` : `unschedulable: ${e.message}`);
  show(title, ...(result.note ? [el('p', 'note', result.note)] : []), verdict, ...(pre.length ? [preList] : []), caption, scroll);
  await inSlices(rows, (n) => {
    const r = row(n.node === e.selected ? 'chosen' : n.feasible ? 'feasible' : 'rejected');
    r.dataset['node'] = n.node;
    const rejected = n.filters.find((f) => f.plugin === n.rejectedBy);
    r.append(cell('rowheader', n.node + (n.node === e.selected ? ' (chosen)' : '')), cell('cell', n.feasible ? 'passes' : `${n.rejectedBy}: ${rejected?.reasons.join(', ') ?? ''}`));
    for (const p of plugins) {
      const s = n.scores.find((x) => x.plugin === p);
      r.append(cell('cell', s ? `${s.raw} → ${s.normalized} × ${s.weight} = ${s.weighted}` : ''));
    }
    r.append(cell('cell', n.total === null ? '' : String(n.total)));
    body.append(r);
  }, ROWS_PER_FRAME);
}
