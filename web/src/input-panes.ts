// The input panes: a tab per pane (Cluster, Workloads, NodePools, Scheduler,
// Scenario), each a CodeMirror editor whose diagnostics are underlined at their
// line with a gutter marker; a tab shows how many errors its pane holds.

import { EditorView, basicSetup } from 'codemirror';
import { Compartment } from '@codemirror/state';
import { lintGutter, setDiagnostics, type Diagnostic as CmDiagnostic } from '@codemirror/lint';
import { describeDiagnostic, type Diagnostic } from '../../src/io/diagnostics.js';
import { el } from './dom.js';
import { TAB_FILE, TAB_LABEL, TABS, type Tab, type Tabs } from './input-tabs.js';
import { yamlHighlighting } from './yaml-highlight.js';

function toCm(view: EditorView, ds: readonly Diagnostic[]): CmDiagnostic[] {
  const doc = view.state.doc;
  return ds.map((d) => {
    const line = doc.line(Math.min(Math.max(d.line, 1), doc.lines));
    const from = Math.min(line.from + Math.max(d.column - 1, 0), line.to);
    return { from, to: line.to > from ? line.to : from, severity: d.severity, message: describeDiagnostic(d) };
  });
}

/** After the next frame has run (or a tenth of a second, for a page in the background, where frames stop). */
function nextFrame(): Promise<void> {
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });
}

/**
 * The one-column (phone) layout, as style.css switches to it: there long lines wrap.
 * Unwrapped, a line of a flow mapping ran three screens past the right edge (1,303 px
 * of 390 for the first example), read only by scrolling the editor sideways.
 */
const NARROW = '(max-width: 800px)';

export class InputPanes {
  private readonly views = new Map<Tab, EditorView>();
  private readonly tabButtons = new Map<Tab, HTMLButtonElement>();
  private readonly badges = new Map<Tab, { count: HTMLElement; words: HTMLElement }>();
  private selected: Tab = 'cluster';
  private setting = Promise.resolve();

  /** `onEdit` hears every change of any pane's text, typed or set. */
  constructor(tablist: HTMLElement, panes: HTMLElement, onEdit: () => void) {
    const narrow = window.matchMedia(NARROW);
    const wrapping = new Compartment();
    const wrap = () => (narrow.matches ? EditorView.lineWrapping : []);
    narrow.addEventListener('change', () => {
      for (const view of this.views.values()) view.dispatch({ effects: wrapping.reconfigure(wrap()) });
    });
    for (const tab of TABS) {
      const button = el('button', 'tab');
      Object.assign(button, { id: `tab-${tab}`, type: 'button' });
      button.setAttribute('role', 'tab');
      button.setAttribute('aria-controls', `pane-${tab}`);
      // The count is seen; screen readers hear the words instead.
      const badge = { count: el('span', 'badge'), words: el('span', 'sr-only') };
      badge.count.setAttribute('aria-hidden', 'true');
      button.append(TAB_LABEL[tab], badge.count, badge.words);
      button.addEventListener('click', () => this.select(tab));
      button.addEventListener('keydown', (e) => this.arrowKeys(e, tab));
      tablist.append(button);
      this.tabButtons.set(tab, button);
      this.badges.set(tab, badge);
      const pane = el('div', 'pane');
      pane.id = `pane-${tab}`;
      pane.setAttribute('role', 'tabpanel');
      pane.setAttribute('aria-labelledby', `tab-${tab}`);
      panes.append(pane);
      const view = new EditorView({
        parent: pane,
        extensions: [
          basicSetup,
          yamlHighlighting(),
          lintGutter(),
          wrapping.of(wrap()),
          EditorView.contentAttributes.of({ 'aria-label': `${TAB_LABEL[tab]} manifests (YAML)` }),
          EditorView.updateListener.of((u) => u.docChanged && onEdit()),
        ],
      });
      // Keyboard users reach the editor's scroll area itself (axe: scrollable-region-focusable).
      view.scrollDOM.tabIndex = 0;
      this.views.set(tab, view);
    }
    this.select('cluster');
  }

  get tabs(): Tabs {
    return Object.fromEntries(TABS.map((t) => [t, this.views.get(t)!.state.doc.toString()])) as Tabs;
  }

  get current(): Tab {
    return this.selected;
  }

  /**
   * Sets the panes given (the others keep their text), one a frame: each editor
   * parses and measures its new text in a task of its own, so a large dump set into
   * three panes is never one long task.
   */
  set(tabs: Partial<Tabs>): Promise<void> {
    this.setting = this.setting.then(() => this.setNow(tabs));
    return this.setting;
  }

  /** Resolves when every set() called so far is done: what the panes hold is then what was set. */
  settled(): Promise<void> {
    return this.setting;
  }

  private async setNow(tabs: Partial<Tabs>): Promise<void> {
    let first = true;
    for (const [tab, text] of Object.entries(tabs) as [Tab, string][]) {
      const view = this.views.get(tab)!;
      if (view.state.doc.toString() === text) continue;
      if (!first) await nextFrame();
      first = false;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    }
  }

  append(tab: Tab, text: string): void {
    const view = this.views.get(tab)!;
    const doc = view.state.doc;
    const sep = doc.length === 0 ? '' : `${doc.toString().endsWith('\n') ? '' : '\n'}---\n`;
    view.dispatch({ changes: { from: doc.length, insert: sep + text } });
  }

  select(tab: Tab, focus = false): void {
    this.selected = tab;
    for (const t of TABS) {
      const on = t === tab;
      const button = this.tabButtons.get(t)!;
      button.setAttribute('aria-selected', String(on));
      button.tabIndex = on ? 0 : -1;
      this.views.get(t)!.dom.parentElement!.hidden = !on;
      if (on && focus) button.focus();
    }
    this.views.get(tab)!.requestMeasure();
  }

  /** Left/Right (and Home/End) move between tabs, as the ARIA tabs pattern has it. */
  private arrowKeys(e: KeyboardEvent, tab: Tab): void {
    const i = TABS.indexOf(tab);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1 + TABS.length, Home: 0, End: TABS.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.select(TABS[to % TABS.length]!, true);
  }

  /**
   * Shows `ds` in their panes (underline, gutter marker, a count on the tab); the
   * diagnostics of files that are no pane are returned.
   */
  showDiagnostics(ds: readonly Diagnostic[]): Diagnostic[] {
    for (const tab of TABS) {
      const view = this.views.get(tab)!;
      const mine = ds.filter((d) => d.file === TAB_FILE[tab]);
      view.dispatch(setDiagnostics(view.state, toCm(view, mine)));
      const errors = mine.filter((d) => d.severity === 'error').length;
      const warnings = mine.length - errors;
      const { count, words } = this.badges.get(tab)!;
      count.textContent = errors > 0 ? String(errors) : warnings > 0 ? String(warnings) : '';
      count.className = `badge${errors > 0 ? ' error' : warnings > 0 ? ' warning' : ''}`;
      words.textContent = `${errors > 0 ? `, ${errors} error(s)` : ''}${warnings > 0 ? `, ${warnings} warning(s)` : ''}`;
    }
    return ds.filter((d) => !TABS.some((t) => TAB_FILE[t] === d.file));
  }
}
