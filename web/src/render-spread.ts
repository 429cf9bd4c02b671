// The skew view: one panel per topology spread constraint, its domains as bars of
// matching pods, the skew against maxSkew (marked when over it).

import type { SpreadView } from './engine.js';
import { el } from './dom.js';

/** Names shown before the rest are counted. */
const NAMES_SHOWN = 3;

function names(workloads: readonly string[]): string {
  const shown = workloads.slice(0, NAMES_SHOWN).join(', ');
  return workloads.length > NAMES_SHOWN ? `${shown} and ${workloads.length - NAMES_SHOWN} more` : shown;
}

function panel(s: SpreadView): HTMLElement {
  const over = s.skew > s.maxSkew;
  const box = el('div', `spread${over ? ' over' : ''}`);
  const title = names(s.workloads);
  box.append(
    el('h3', '', `${title} · ${s.topologyKey}`),
    el('p', 'spread-verdict', `skew ${s.skew} ${over ? '>' : '≤'} maxSkew ${s.maxSkew} · ${s.whenUnsatisfiable}${s.minDomains > 1 ? ` · minDomains ${s.minDomains} (${s.domains.length} domain${s.domains.length === 1 ? '' : 's'})` : ''}`),
  );
  const most = Math.max(1, ...s.domains.map((d) => d.pods));
  const list = el('ul', 'spread-domains');
  list.setAttribute('aria-label', `pods per ${s.topologyKey} for ${title}`);
  for (const d of s.domains) {
    const row = el('li', 'spread-domain');
    row.dataset['domain'] = d.domain;
    const bar = el('span', 'spread-bar');
    bar.style.width = `${(100 * d.pods) / most}%`;
    const track = el('span', 'spread-track');
    track.append(bar);
    row.append(el('span', 'spread-name', d.domain), track, el('span', 'spread-count', String(d.pods)));
    list.append(row);
  }
  box.append(list);
  return box;
}

export function renderSpreads(box: HTMLElement, spreads: readonly SpreadView[] | undefined): void {
  if (!spreads || spreads.length === 0) {
    box.replaceChildren();
    return;
  }
  const section = el('section', 'spreads');
  section.setAttribute('aria-label', 'topology spread');
  const over = spreads.filter((s) => s.skew > s.maxSkew).length;
  section.append(el('h2', '', `Topology spread (${spreads.length} constraint${spreads.length === 1 ? '' : 's'}${over > 0 ? `, ${over} over maxSkew` : ''})`));
  // Constraints over their maxSkew first.
  for (const s of [...spreads].sort((a, b) => Number(b.skew > b.maxSkew) - Number(a.skew > a.maxSkew))) section.append(panel(s));
  box.replaceChildren(section);
}
