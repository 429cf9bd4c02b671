// Playground page: editor, example picker, action buttons and the result views. The
// engine runs in a worker (engine-client.ts); this thread only renders what it sends.

import { describeDiagnostic, type Diagnostic } from '../../src/io/diagnostics.js';
import type { FindingView as Finding, PodExplanation, RunView, SimulationView } from './engine.js';
import { EngineClient, Comlink, type RunEnd } from './engine-client.js';
import type { EngineApi, Outcome } from './worker.js';
import { decodePage, encodePage, type Action } from './url-state.js';
import { $, abandonSlices } from './dom.js';
import { workloadColours } from './colours.js';
import { renderNodes, renderPending, renderSummary, summaryOf } from './render-map.js';
import { renderExplain } from './render-explain.js';
import { renderSpreads } from './render-spread.js';
import { renderClaims, renderFindings } from './render-findings.js';
import { viewAt } from './sim-view.js';
import { cacheForOffline } from './offline.js';
import { InputPanes } from './input-panes.js';
import { documents, firstFilled, kindOf, splitByKind, TAB_LABEL, tabOfFile, TABS, type Tabs } from './input-tabs.js';
import './style.css';


const status = $('status');
const progress = $<HTMLProgressElement>('progress');
const picker = $<HTMLSelectElement>('examples');
const budget = $<HTMLSelectElement>('budget');
const cancel = $<HTMLButtonElement>('cancel');
const actionButtons = [...document.querySelectorAll<HTMLButtonElement>('button[data-action]')];
const results = $('results');
const client = new EngineClient();

// ---- input ----

/** How long typing pauses before the panes are checked again. */
const LINT_DELAY_MS = 300;
let lintTimer: ReturnType<typeof setTimeout> | undefined;
let lintsStarted = 0;

/** Checks every pane as the actions would load them; an answer older than the latest check is dropped. */
function lintSoon(): void {
  clearTimeout(lintTimer);
  lintTimer = setTimeout(() => {
    const mine = ++lintsStarted;
    void client.request((api) => api.lint(panes.tabs)).then((ds) => {
      if (mine === lintsStarted) panes.showDiagnostics(ds);
    });
  }, LINT_DELAY_MS);
}

const panes = new InputPanes($('tabs'), $('panes'), lintSoon);
const tabsOf = (text: string): Tabs => splitByKind(text);

/** Sets every pane and shows the first one with text. */
async function setInput(tabs: Tabs): Promise<void> {
  panes.select(firstFilled(tabs));
  await panes.set(tabs);
}

// The editors are up before the examples arrive (their own chunk).
const { examples, exampleNames } = await import('./examples.js');
for (const name of exampleNames) picker.append(new Option(name, name));

// ---- results ----

let stopPlayer: (() => void) | undefined;
/** The input whose pods the chips show: a click explains against it. */
let explainable: Tabs | undefined;

function clearResults(): void {
  abandonSlices();
  stopPlayer?.();
  stopPlayer = undefined;
  explainable = undefined;
  for (const id of ['summary', 'explain', 'claims', 'pending', 'spread', 'map']) $(id).replaceChildren();
}

function colourOf(view: RunView): (w: string) => string {
  const colours = workloadColours(view.pods.map((p) => p.workload));
  return (w) => colours.get(w) ?? '#455a64';
}

async function renderRun(view: RunView, clickable: boolean, extra: { costPerHour?: number; findings?: readonly Finding[] } = {}, colour = colourOf(view)): Promise<void> {
  renderSummary($('summary'), summaryOf(view, extra));
  await renderPending($('pending'), view.pending, clickable);
  renderSpreads($('spread'), view.spreads);
  await renderNodes($('map'), view, colour, clickable);
}

// ---- running ----

function setBusy(busy: boolean): void {
  for (const b of actionButtons) b.disabled = busy;
  picker.disabled = busy;
  cancel.disabled = !busy;
  progress.hidden = !busy;
  if (busy) progress.removeAttribute('value');
  results.setAttribute('aria-busy', String(busy));
}

function onProgress(label: string): (done: number, total: number) => void {
  return Comlink.proxy((done: number, total: number) => {
    // Progress comes on its own channel and may arrive after the run's answer.
    if (!client.busy) return;
    progress.max = total;
    progress.value = done;
    status.textContent = `${label}: ${done}/${total}`;
  });
}

/**
 * Runs one engine call (the page stays busy until the caller has rendered its answer);
 * undefined, and a status saying why, when it did not finish with a value.
 */
async function runOnWorker<T>(label: string, f: (api: Comlink.Remote<EngineApi>) => Promise<T>): Promise<(RunEnd<T> & { kind: 'done' }) | undefined> {
  setBusy(true);
  status.textContent = `${label}…`;
  const end = await client.run(f, Number(budget.value) * 1000);
  if (end.kind === 'done') return end;
  clearResults();
  status.textContent =
    end.kind === 'cancelled' ? `${label}: cancelled` : end.kind === 'over-budget' ? `${label}: stopped after the time budget of ${end.budgetMs / 1000} s` : `${label}: error: ${end.message}`;
  return undefined;
}

/** Input errors: underlined at their lines, counted in the status, old results gone. */
function showErrors(label: string, errors: readonly Diagnostic[]): void {
  clearResults();
  panes.showDiagnostics(errors);
  const first = errors[0];
  const tab = first && tabOfFile(first.file);
  if (tab) panes.select(tab);
  const where = first && (tab ? `${TAB_LABEL[tab]} line ${first.line}` : `${first.file}:${first.line}`);
  status.textContent = `${label}: ${errors.length} error(s) in the input${first ? `: ${where}: ${describeDiagnostic(first)}` : ''}`;
}

function unwrap<T>(label: string, outcome: Outcome<T>): T | undefined {
  if (outcome.ok) return outcome.value;
  showErrors(label, outcome.errors);
  return undefined;
}

/** Runs ended since the page opened, on #results (data-runs): how a test knows its click's run is over. */
let runsEnded = 0;

async function run(action: Action): Promise<void> {
  try {
    await runAction(action);
  } finally {
    setBusy(false);
    results.dataset['runs'] = String(++runsEnded);
  }
}

async function runAction(action: Action): Promise<void> {
  await panes.settled();
  const source = panes.tabs;
  clearResults();
  if (action === 'simulate') return simulate(source);
  if (action === 'check') return check(source);
  const end = await runOnWorker<Outcome<RunView>>(action, (api) => (action === 'schedule' ? api.schedule(source, onProgress('schedule')) : api.provision(source)));
  const view = end && unwrap(action, end.value);
  if (!end || !view) return;
  explainable = source;
  if (view.provision) renderClaims($('claims'), view.provision);
  await renderRun(view, true, view.provision ? { costPerHour: view.provision.costPerHour } : {});
  status.textContent = `${action}: ${view.nodes.length} node(s), ${view.pods.length} placed, ${view.pending.length} pending (${end.ms} ms)`;
}

async function check(source: Tabs): Promise<void> {
  const found: Finding[] = [];
  const streamed = Comlink.proxy((_rule: string, findings: readonly Finding[], done: number, total: number) => {
    if (!client.busy) return;
    found.push(...findings);
    renderFindings($('claims'), found, false);
    progress.max = total;
    progress.value = done;
    status.textContent = `check: ${done}/${total} checks`;
  });
  const end = await runOnWorker<Outcome<{ view: RunView; findings: Finding[] }>>('check', (api) => api.check(source, streamed));
  const value = end && unwrap('check', end.value);
  if (!end || !value) return;
  explainable = source;
  renderFindings($('claims'), value.findings, true);
  await renderRun(value.view, true, { findings: value.findings });
  status.textContent = `check: ${value.findings.length} finding(s) (${end.ms} ms)`;
}

async function simulate(source: Tabs): Promise<void> {
  if (source.scenario.trim() === '') {
    panes.select('scenario');
    status.textContent = 'simulate: the Scenario pane is empty (pick a scenario among the examples, or write one)';
    return;
  }
  const end = await runOnWorker<Outcome<SimulationView>>('simulate', (api) => api.simulate(source.scenario, picker.value, examples));
  const view: SimulationView | undefined = end && unwrap('simulate', end.value);
  if (!end || !view) return;
  const colour = colourOf({ ...view, pods: [...view.ready.keys()].map((w) => ({ key: w, workload: w, node: '', placement: 'scheduled' })) });
  const last = view.cost.at(-1)?.costPerHour;
  // The chart library comes with the first simulation (a chunk of its own).
  const { renderSimulation } = await import('./render-sim.js');
  stopPlayer = renderSimulation($('claims'), view, colour, (t) => {
    abandonSlices();
    void renderRun(viewAt(view, t), false, last ? { costPerHour: view.cost.filter((c) => c.t <= t).at(-1)?.costPerHour ?? 0 } : {}, colour);
  });
  status.textContent = `simulate: ${view.nodes.length} node(s) at the end, ${view.expectations.filter((e) => !e.passed).length} expectation(s) failed (${end.ms} ms)`;
}

async function explain(pod: string, source: Tabs): Promise<void> {
  const end = await runOnWorker<Outcome<PodExplanation | undefined>>(`explain ${pod}`, (api) => api.explain(source, pod));
  if (!end) return;
  if (!end.value.ok) return showErrors('explain', end.value.errors);
  await renderExplain($('explain'), pod, end.value.value);
  status.textContent = `explain ${pod} (${end.ms} ms)`;
}

results.addEventListener('click', (e) => {
  const chip = (e.target as HTMLElement).closest<HTMLElement>('button.pod');
  const pod = chip?.dataset['pod'];
  const source = explainable;
  if (pod === undefined || source === undefined || client.busy) return;
  void explain(pod, source).finally(() => setBusy(false));
});

// ---- links: the URL carries the example, the text (when edited) and the action ----

let lastAction: Action | undefined;

/** The panes of an example ('' for none: every pane empty). */
const exampleTabs = (name: string): Tabs => tabsOf(examples[name] ?? '');

async function saveState(action: Action | undefined, push: boolean): Promise<void> {
  const example = picker.value;
  await panes.settled();
  const current = panes.tabs;
  const base = exampleTabs(example);
  const tabs = Object.fromEntries(TABS.filter((t) => current[t] !== base[t]).map((t) => [t, current[t]]));
  const hash = await encodePage({ example, ...(action && { action }), ...(Object.keys(tabs).length > 0 && { tabs }) });
  if (location.hash.slice(1) === hash) return;
  if (push) history.pushState(null, '', `#${hash}`);
  else history.replaceState(null, '', `#${hash}`);
}

for (const b of actionButtons) {
  b.addEventListener('click', () => {
    const action = b.dataset['action'] as Action;
    lastAction = action;
    void saveState(action, true).then(() => run(action));
  });
}
cancel.addEventListener('click', () => client.cancel());
picker.addEventListener('change', () => {
  void setInput(exampleTabs(picker.value));
  clearResults();
  lastAction = undefined;
  void saveState(undefined, true);
});

// ---- files: dropped or opened, sorted into panes; the default NodePool in one click ----

/** Reads files into the panes, a kubectl dump item by item; each pane that gets objects is replaced, the others kept. */
async function loadFiles(files: readonly File[]): Promise<void> {
  if (files.length === 0) return;
  const names = files.map((f) => f.name).join(', ');
  if (client.busy) {
    status.textContent = `${names}: not loaded, a run is in progress (Cancel it first)`;
    return;
  }
  status.textContent = `reading ${names}…`;
  const parts = await Promise.all(files.map(async (f) => client.request(async (api) => api.split(await f.text()))));
  const filled = TABS.filter((t) => parts.some((p) => p[t] !== ''));
  if (filled[0]) panes.select(filled[0]);
  await panes.set(Object.fromEntries(filled.map((t) => [t, parts.map((p) => p[t]).filter((x) => x !== '').join('---\n')])));
  if (!picker.querySelector('option[value=""]')) picker.prepend(new Option('(your input)', ''));
  picker.value = '';
  clearResults();
  lastAction = undefined;
  status.textContent = filled.length > 0 ? `${names}: loaded into ${filled.map((t) => TAB_LABEL[t]).join(', ')}` : `${names}: no objects found`;
}

const editorBox = $('editor');
const fileInput = $<HTMLInputElement>('file-input');
const hasFiles = (e: DragEvent) => e.dataTransfer?.types.includes('Files') ?? false;
editorBox.addEventListener('dragover', (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  editorBox.classList.add('dropping');
});
editorBox.addEventListener('dragleave', () => editorBox.classList.remove('dropping'));
// Capture: the editor would otherwise insert the file's text where it was dropped.
editorBox.addEventListener(
  'drop',
  (e) => {
    editorBox.classList.remove('dropping');
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.stopPropagation();
    void loadFiles([...(e.dataTransfer?.files ?? [])]);
  },
  true,
);
$('open-files').addEventListener('click', () => fileInput.click());
fileInput.addEventListener('change', () => {
  void loadFiles([...(fileInput.files ?? [])]).then(() => (fileInput.value = ''));
});

const DEFAULT_NODEPOOL = 'nodepools/default.yaml';
$('add-nodepool').addEventListener('click', async () => {
  await panes.settled();
  panes.select('nodepools');
  if (documents(panes.tabs.nodepools).some((d) => kindOf(d) === 'NodePool' && /^ {2}name:\s*["']?default["']?\s*$/m.test(d))) {
    status.textContent = 'the NodePools pane already has a NodePool named default';
    return;
  }
  panes.append('nodepools', examples[DEFAULT_NODEPOOL] ?? '');
  status.textContent = `added the default NodePool (examples/${DEFAULT_NODEPOOL}): Provision plans new nodes from it`;
});

$('copy-link').addEventListener('click', () => {
  void saveState(lastAction, false).then(async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      status.textContent = 'link copied';
    } catch {
      status.textContent = `copy this link: ${location.href}`;
    }
  });
});

/** Shows the state a link or a history entry carries, and re-runs its action. */
async function applyHash(): Promise<void> {
  // Busy from the first moment (aria-busy, buttons off) until the entry's input is in and
  // its action, if any, has run (run ends it): the old results are not the entry's, and
  // decoding the link and filling the editors take a while.
  setBusy(true);
  let action: Action | undefined;
  try {
    const state = location.hash.length > 1 ? await decodePage(location.hash.slice(1)) : undefined;
    const example = state && state.example in examples ? state.example : state ? '' : (exampleNames[0] ?? '');
    if (example === '' && !picker.querySelector('option[value=""]')) picker.prepend(new Option('(from link)', ''));
    picker.value = example;
    await setInput({ ...exampleTabs(example), ...(state?.text !== undefined && tabsOf(state.text)), ...state?.tabs });
    clearResults();
    lastAction = action = state?.action;
    if (state === undefined && location.hash.length > 1) status.textContent = 'the link is damaged: showing the first example';
  } finally {
    if (action === undefined) setBusy(false);
  }
  if (action) await run(action);
}

window.addEventListener('popstate', () => {
  client.cancel();
  void applyHash();
});
await applyHash();

if ('serviceWorker' in navigator && import.meta.env.PROD && location.protocol.startsWith('http')) {
  navigator.serviceWorker
    .register('./sw.js')
    .then(() => cacheForOffline())
    .catch((e: unknown) => console.warn('offline copy not made', e));
}
