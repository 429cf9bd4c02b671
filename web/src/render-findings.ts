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

export function renderClaims(box: HTMLElement, plan: ProvisionPlan): void {
  const table = el('table', 'claims');
  const head = table.createTHead().insertRow();
  for (const h of ['nodeclaim', 'nodepool', 'instance type', 'zone', 'capacity', '$/h', 'pods']) {
    const th = el('th', '', h);
    th.scope = 'col';
    head.append(th);
  }
  const body = table.createTBody();
  for (const c of plan.nodeClaims) {
    const r = body.insertRow();
    r.className = 'claim';
    for (const v of [c.name, c.nodePool, c.instanceType, c.zone, c.capacityType, c.pricePerHour.toFixed(4), c.pods.join(' ')]) r.insertCell().textContent = v;
  }
  const scroll = el('div', 'table-scroll');
  scroll.tabIndex = 0;
  scroll.setAttribute('role', 'region');
  scroll.setAttribute('aria-label', 'new NodeClaims');
  scroll.append(table);
  box.replaceChildren(el('h2', '', `New NodeClaims: ${plan.nodeClaims.length}, $${plan.costPerHour.toFixed(4)}/h`), scroll);
}
