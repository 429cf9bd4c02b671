// `berth explain` as a table: every node × plugin for one pod, the chosen node first,
// then feasible nodes by total score, then the nodes a filter rejected.

import type { PodExplanation } from './engine.js';
import { el, inSlices } from './dom.js';

export async function renderExplain(box: HTMLElement, pod: string, result: PodExplanation | undefined): Promise<void> {
  const title = el('h2', '', `Explain ${pod}`);
  if (!result) {
    box.replaceChildren(title, el('p', 'message', 'The scheduler never tries this pod (no profile has its schedulerName, or it is not in the input).'));
    return;
  }
  const e = result.explanation;
  const plugins = [...new Set(e.nodes.flatMap((n) => n.scores.map((s) => s.plugin)))];
  const rank = (n: (typeof e.nodes)[number]) => (n.node === e.selected ? 0 : n.feasible ? 1 : 2);
  const rows = [...e.nodes].sort((a, b) => rank(a) - rank(b) || (b.total ?? 0) - (a.total ?? 0) || (a.node < b.node ? -1 : 1));
  const table = el('table', 'explain-table');
  table.append(el('caption', '', `${e.nodes.length} node(s) × ${plugins.length} score plugin(s): raw → normalized × weight = weighted`));
  const head = table.createTHead().insertRow();
  for (const h of ['node', 'filter', ...plugins, 'total']) {
    const th = el('th', '', h);
    th.scope = 'col';
    head.append(th);
  }
  const body = table.createTBody();
  const pre = e.preFilter.filter((p) => p.code !== 'Success' || p.nodeNames !== null);
  const preList = el('ul', 'prefilter');
  for (const p of pre) preList.append(el('li', '', `PreFilter ${p.plugin}: ${p.code}${p.reasons.length ? ` (${p.reasons.join(', ')})` : ''}${p.nodeNames ? `, nodes ${p.nodeNames.join(' ')}` : ''}`));
  const scroll = el('div', 'table-scroll');
  scroll.tabIndex = 0;
  scroll.setAttribute('role', 'region');
  scroll.setAttribute('aria-label', `explanation of ${e.pod}`);
  scroll.append(table);
  const verdict = el('p', 'verdict', e.selected ? `selected: ${e.selected}` : `unschedulable: ${e.message}`);
  box.replaceChildren(title, ...(result.note ? [el('p', 'note', result.note)] : []), verdict, ...(pre.length ? [preList] : []), scroll);
  await inSlices(rows, (n) => {
    const r = body.insertRow();
    r.className = n.node === e.selected ? 'chosen' : n.feasible ? 'feasible' : 'rejected';
    r.dataset['node'] = n.node;
    const name = el('th', '', n.node + (n.node === e.selected ? ' (chosen)' : ''));
    name.scope = 'row';
    r.append(name);
    const rejected = n.filters.find((f) => f.plugin === n.rejectedBy);
    r.insertCell().textContent = n.feasible ? 'passes' : `${n.rejectedBy}: ${rejected?.reasons.join(', ') ?? ''}`;
    for (const p of plugins) {
      const s = n.scores.find((x) => x.plugin === p);
      r.insertCell().textContent = s ? `${s.raw} → ${s.normalized} × ${s.weight} = ${s.weighted}` : '';
    }
    r.insertCell().textContent = n.total === null ? '' : String(n.total);
  });
}
