// Findings of `berth check` (each with evidence and fix) and the provisioner's NodeClaims.

import type { FindingView as Finding, ProvisionPlan } from './engine.js';
import { el } from './dom.js';

function findingItem(f: Finding): HTMLElement {
  const item = el('section', `finding ${f.severity}`);
  item.dataset['rule'] = f.rule;
  item.append(el('h3', '', `${f.severity.toUpperCase()} ${f.rule} · ${f.object}`), el('p', 'finding-message', f.message));
  for (const [title, lines, cls] of [['Evidence', f.evidence, 'evidence'], ['Fix', f.fix, 'fix']] as const) {
    if (lines.length === 0) continue;
    const list = el('ol', cls);
    for (const line of lines) list.append(el('li', '', line));
    item.append(el('h4', '', title), list);
  }
  return item;
}

/** `done` false while the checks still run: the list then holds what the finished checks found so far. */
export function renderFindings(box: HTMLElement, findings: readonly Finding[], done: boolean): void {
  const errors = findings.filter((f) => f.severity === 'error').length;
  const head = el('h2', '', done ? `Findings: ${findings.length} (${errors} error(s))` : `Findings so far: ${findings.length}`);
  const items = findings.map(findingItem);
  if (done && findings.length === 0) items.push(el('p', 'finding-none', 'No findings: the checks found nothing to change.'));
  box.replaceChildren(head, ...items);
}

/**
 * One card per NodeClaim: its name and $/h on the first line, what it is on the
 * second, its pods behind a disclosure. A table of seven columns was too wide for a
 * phone: $/h fell off the right edge, and a claim's pod list made its row tall.
 */
export function renderClaims(box: HTMLElement, plan: ProvisionPlan): void {
  const list = el('ul', 'claims');
  list.setAttribute('aria-label', 'new NodeClaims');
  for (const c of plan.nodeClaims) {
    const card = el('li', 'claim');
    const head = el('div', 'claim-head');
    head.append(el('h3', 'claim-name', c.name), el('span', 'claim-price', `$${c.pricePerHour.toFixed(4)}/h`));
    const pods = el('details', 'claim-pods');
    pods.append(el('summary', '', `${c.pods.length} pod${c.pods.length === 1 ? '' : 's'}`), el('p', '', c.pods.join(' ')));
    card.append(head, el('p', 'claim-facts', `${c.instanceType} · ${c.capacityType} · ${c.zone} · NodePool ${c.nodePool}`), pods);
    list.append(card);
  }
  box.replaceChildren(el('h2', '', `New NodeClaims: ${plan.nodeClaims.length}, $${plan.costPerHour.toFixed(4)}/h`), list);
}
