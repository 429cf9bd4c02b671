// Playground page: editor, example picker, action buttons and the result views. The
// engine runs in a worker (engine-client.ts); this thread only renders what it sends.

import { EditorView, basicSetup } from 'codemirror';
import { yaml } from '@codemirror/lang-yaml';
import { linter, setDiagnostics, type Diagnostic as CmDiagnostic } from '@codemirror/lint';
import { describeDiagnostic, type Diagnostic } from '../../src/io/diagnostics.js';
import type { FindingView as Finding, PodExplanation, RunView, SimulationView } from './engine.js';
import { EngineClient, Comlink, type RunEnd } from './engine-client.js';
import type { EngineApi, Outcome } from './worker.js';
import { decodePage, encodePage, type Action } from './url-state.js';
import { $, abandonSlices } from './dom.js';
import { workloadColours } from './colours.js';
import { renderNodes, renderPending, renderSummary, summaryOf } from './render-map.js';
import { renderExplain } from './render-explain.js';
import { renderClaims, renderFindings } from './render-findings.js';
import { renderSimulation } from './render-sim.js';
import { viewAt } from './sim-view.js';
import { cacheForOffline } from './offline.js';
import './style.css';

/** The name the engine gives the editor's text in its diagnostics. */
const SOURCE_NAME = 'playground.yaml';

const examples = Object.fromEntries(
  Object.entries(import.meta.glob<string>('../../examples/**/*.yaml', { query: '?raw', import: 'default', eager: true })).map(([k, v]) => [k.replace('../../examples/', ''), v]),
);
const exampleNames = Object.keys(examples).sort();

const status = $('status');
const progress = $<HTMLProgressElement>('progress');
const picker = $<HTMLSelectElement>('examples');
const budget = $<HTMLSelectElement>('budget');
const cancel = $<HTMLButtonElement>('cancel');
const actionButtons = [...document.querySelectorAll<HTMLButtonElement>('button[data-action]')];
const results = $('results');
const client = new EngineClient();

function toCm(view: EditorView, ds: readonly Diagnostic[]): CmDiagnostic[] {
  const doc = view.state.doc;
  return ds
    .filter((d) => d.file === SOURCE_NAME)
    .map((d) => {
      const line = doc.line(Math.min(Math.max(d.line, 1), doc.lines));
      const from = Math.min(line.from + Math.max(d.column - 1, 0), line.to);
      return { from, to: line.to > from ? line.to : from, severity: d.severity, message: describeDiagnostic(d) };
    });
}

const editor = new EditorView({
  parent: $('editor'),
  extensions: [
    basicSetup,
    yaml(),
    EditorView.contentAttributes.of({ 'aria-label': 'input manifests (YAML)' }),
    linter(async (view) => toCm(view, await client.lint(view.state.doc.toString()))),
  ],
});

// Keyboard users reach the editor's scroll area itself (axe: scrollable-region-focusable).
editor.scrollDOM.tabIndex = 0;

const text = () => editor.state.doc.toString();

function setText(value: string): void {
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
}

for (const name of exampleNames) picker.append(new Option(name, name));

// ---- results ----

let stopPlayer: (() => void) | undefined;
/** The text whose pods the chips show: a click explains against it. */
let explainable: string | undefined;

function clearResults(): void {
  abandonSlices();
  stopPlayer?.();
  stopPlayer = undefined;
  explainable = undefined;
  for (const id of ['summary', 'explain', 'claims', 'pending', 'map']) $(id).replaceChildren();
}

function colourOf(view: RunView): (w: string) => string {
  const colours = workloadColours(view.pods.map((p) => p.workload));
  return (w) => colours.get(w) ?? '#455a64';
}

async function renderRun(view: RunView, clickable: boolean, extra: { costPerHour?: number; findings?: readonly Finding[] } = {}, colour = colourOf(view)): Promise<void> {
  renderSummary($('summary'), summaryOf(view, extra));
  await renderPending($('pending'), view.pending, clickable);
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
  editor.dispatch(setDiagnostics(editor.state, toCm(editor, errors)));
  const first = errors[0];
  const where = first && (first.file === SOURCE_NAME ? `line ${first.line}` : `${first.file}:${first.line}`);
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
  const source = text();
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

async function check(source: string): Promise<void> {
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

async function simulate(source: string): Promise<void> {
  const end = await runOnWorker<Outcome<SimulationView>>('simulate', (api) => api.simulate(source, picker.value, examples));
  const view: SimulationView | undefined = end && unwrap('simulate', end.value);
  if (!end || !view) return;
  const colour = colourOf({ ...view, pods: [...view.ready.keys()].map((w) => ({ key: w, workload: w, node: '', placement: 'scheduled' })) });
  const last = view.cost.at(-1)?.costPerHour;
  stopPlayer = renderSimulation($('claims'), view, colour, (t) => {
    abandonSlices();
    void renderRun(viewAt(view, t), false, last ? { costPerHour: view.cost.filter((c) => c.t <= t).at(-1)?.costPerHour ?? 0 } : {}, colour);
  });
  status.textContent = `simulate: ${view.nodes.length} node(s) at the end, ${view.expectations.filter((e) => !e.passed).length} expectation(s) failed (${end.ms} ms)`;
}

async function explain(pod: string, source: string): Promise<void> {
  const end = await runOnWorker<Outcome<PodExplanation | undefined>>(`explain ${pod}`, (api) => api.explain(source, pod));
  if (!end) return;
  if (!end.value.ok) return showErrors('explain', end.value.errors);
  const box = $('explain');
  await renderExplain(box, pod, end.value.value);
  box.scrollIntoView({ block: 'nearest' });
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

async function saveState(action: Action | undefined, push: boolean): Promise<void> {
  const example = picker.value;
  const current = text();
  const hash = await encodePage({ example, ...(action && { action }), ...(examples[example] === current ? {} : { text: current }) });
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
  setText(examples[picker.value] ?? '');
  clearResults();
  lastAction = undefined;
  void saveState(undefined, true);
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
  const state = location.hash.length > 1 ? await decodePage(location.hash.slice(1)) : undefined;
  const example = state && state.example in examples ? state.example : state ? '' : (exampleNames[0] ?? '');
  if (example === '' && !picker.querySelector('option[value=""]')) picker.prepend(new Option('(from link)', ''));
  picker.value = example;
  setText(state?.text ?? examples[example] ?? '');
  clearResults();
  lastAction = state?.action;
  if (state === undefined && location.hash.length > 1) status.textContent = 'the link is damaged: showing the first example';
  if (state?.action) await run(state.action);
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
