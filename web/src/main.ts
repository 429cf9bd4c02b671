// Playground page: editor, example picker, buttons, and the three result views.

import { EditorView, basicSetup } from 'codemirror';
import { yaml } from '@codemirror/lang-yaml';
import { linter, forceLinting, type Diagnostic as CmDiagnostic } from '@codemirror/lint';
import * as engine from './engine.js';
import { decodeState, encodeState } from './url-state.js';
import './style.css';

const examples = import.meta.glob<string>('../../examples/**/*.yaml', { query: '?raw', import: 'default', eager: true });
const exampleNames = Object.keys(examples).map((k) => k.replace('../../examples/', '')).sort();

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const status = $('status');

function toCm(view: EditorView, ds: readonly engine.Diagnostic[]): CmDiagnostic[] {
  const doc = view.state.doc;
  return ds.map((d) => {
    const line = doc.line(Math.min(Math.max(d.line, 1), doc.lines));
    const from = Math.min(line.from + Math.max(d.column - 1, 0), line.to);
    return { from, to: line.to > from ? line.to : from, severity: d.severity, message: engine.describeDiagnostic(d) };
  });
}

const editor = new EditorView({
  parent: $('editor'),
  extensions: [
    basicSetup,
    yaml(),
    linter((view) => {
      const r = engine.load(view.state.doc.toString());
      return toCm(view, r.ok ? r.warnings : r.errors);
    }),
  ],
});

function setText(text: string): void {
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
}

const picker = $<HTMLSelectElement>('examples');
for (const name of exampleNames) picker.append(new Option(name, name));
picker.addEventListener('change', () => setText(examples[`../../examples/${picker.value}`] ?? ''));

function colour(workload: string): string {
  let h = 0;
  for (const c of workload) h = (h * 31 + c.charCodeAt(0)) % 360;
  return `hsl(${h} 60% 55%)`;
}

function el(tag: string, cls: string, text?: string): HTMLElement {
  const e = document.createElement(tag);
  e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** `input` makes pending pods clickable for the explain panel (not for a simulation's end state). */
function renderMap(run: engine.RunView, input?: engine.Loaded & { ok: true }): void {
  const map = $('map');
  map.replaceChildren();
  const maxCpu = Math.max(1, ...run.nodes.map((n) => n.cpuMilli));
  for (const zone of [...new Set(run.nodes.map((n) => n.zone))].sort()) {
    const z = el('div', 'zone');
    z.append(el('h2', 'zone-name', zone));
    for (const n of run.nodes.filter((x) => x.zone === zone)) {
      const box = el('div', n.planned ? 'node planned' : 'node');
      box.dataset['node'] = n.name;
      box.style.flexBasis = `${Math.round(120 + 200 * (n.cpuMilli / maxCpu))}px`;
      box.append(el('div', 'node-name', n.name), el('div', 'node-size', `${n.cpuMilli / 1000} cpu · ${(n.memoryBytes / 2 ** 30).toFixed(1)} GiB${n.detail ? ` · ${n.detail}` : ''}`));
      for (const p of run.pods.filter((x) => x.node === n.name)) {
        const chip = el('span', 'pod', p.key);
        chip.style.background = colour(p.workload);
        chip.dataset['pod'] = p.key;
        box.append(chip);
      }
      z.append(box);
    }
    map.append(z);
  }
  const lane = el('div', 'pending-lane');
  lane.append(el('h2', 'zone-name', `Pending (${run.pending.length})`));
  for (const u of run.pending) {
    const row = el('div', 'pending');
    const chip = el('button', 'pod', u.pod);
    chip.dataset['pod'] = u.pod;
    if (input) chip.addEventListener('click', () => renderExplain(input, u.pod));
    row.append(chip, el('div', 'message', u.message));
    lane.append(row);
  }
  map.append(lane);
}

function renderExplain(input: engine.Loaded & { ok: true }, pod: string): void {
  const box = $('explain');
  box.replaceChildren();
  const e = engine.explain(input.input, pod);
  if (!e) return;
  box.append(el('h2', '', `explain ${e.pod}`));
  const plugins = [...new Set(e.nodes.flatMap((n) => n.scores.map((s) => s.plugin)))];
  const table = document.createElement('table');
  const head = table.insertRow();
  for (const h of ['node', 'filter', ...plugins, 'total']) head.append(el('th', '', h));
  for (const n of e.nodes) {
    const r = table.insertRow();
    const rejected = n.filters.find((f) => f.plugin === n.rejectedBy);
    r.insertCell().textContent = n.node + (n.node === e.selected ? ' *' : '');
    r.insertCell().textContent = n.feasible ? 'ok' : `${n.rejectedBy}: ${rejected?.reasons.join(', ') ?? ''}`;
    for (const p of plugins) {
      const s = n.scores.find((x) => x.plugin === p);
      r.insertCell().textContent = s ? `${s.raw}→${s.normalized}×${s.weight}` : '';
    }
    r.insertCell().textContent = n.total === null ? '' : String(n.total);
  }
  box.append(table, el('p', 'verdict', e.selected ? `selected: ${e.selected}` : `unschedulable: ${e.message}`));
}

function renderClaims(plan: engine.ProvisionPlan | undefined): void {
  const box = $('claims');
  box.replaceChildren();
  if (!plan) return;
  box.append(el('h2', '', `New NodeClaims: ${plan.nodeClaims.length}, $${plan.costPerHour.toFixed(4)}/h`));
  const table = document.createElement('table');
  const head = table.insertRow();
  for (const h of ['nodeclaim', 'nodepool', 'instance type', 'zone', 'capacity', '$/h', 'pods']) head.append(el('th', '', h));
  for (const c of plan.nodeClaims) {
    const r = table.insertRow();
    r.className = 'claim';
    for (const v of [c.name, c.nodePool, c.instanceType, c.zone, c.capacityType, c.pricePerHour.toFixed(4), c.pods.join(' ')]) r.insertCell().textContent = v;
  }
  box.append(table);
}

/** What every button does first: stop a replay, keep the text in the URL, load it; undefined (errors shown) when it does not load. */
async function startRun(): Promise<{ loaded: engine.Loaded & { ok: true }; started: number } | undefined> {
  stopPlayer?.();
  const text = editor.state.doc.toString();
  location.hash = await encodeState(text);
  const started = performance.now();
  const loaded = engine.load(text);
  forceLinting(editor);
  $('explain').replaceChildren();
  if (loaded.ok) return { loaded, started };
  status.textContent = `${loaded.errors.length} error(s) in the input`;
  $('map').replaceChildren();
  $('claims').replaceChildren();
  return undefined;
}

async function run(kind: 'schedule' | 'provision'): Promise<void> {
  const start = await startRun();
  if (!start) return;
  const { loaded, started } = start;
  try {
    const view = kind === 'schedule' ? engine.schedule(loaded.input, loaded.warnings) : engine.provision(loaded.input, loaded.warnings);
    renderMap(view, loaded);
    renderClaims(view.provision);
    status.textContent = `${kind}: ${view.nodes.length} node(s), ${view.pods.length} placed, ${view.pending.length} pending (${Math.round(performance.now() - started)} ms)`;
  } catch (e) {
    status.textContent = `error: ${e instanceof Error ? e.message : String(e)}`;
  }
}

const SVG = 'http://www.w3.org/2000/svg';

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** Ready replicas per workload over the run, one step line each, with a cursor at the scrubbed time. */
function readyPlot(view: engine.SimulationView): { root: HTMLElement; moveCursor: (t: number) => void } {
  const W = 560;
  const H = 140;
  const PAD = 24;
  const end = Math.max(1, view.endMs);
  const max = Math.max(1, ...[...view.ready.values()].flatMap((s) => s.map((p) => p.ready)));
  const x = (t: number) => PAD + ((W - 2 * PAD) * t) / end;
  const y = (n: number) => H - PAD - ((H - 2 * PAD) * n) / max;
  const root = el('figure', 'ready-plot');
  const plot = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'ready replicas per workload over time' });
  plot.append(svg('line', { x1: PAD, y1: y(0), x2: W - PAD, y2: y(0), class: 'axis' }), svg('line', { x1: PAD, y1: y(0), x2: PAD, y2: y(max), class: 'axis' }));
  const label = (text: string, at: Record<string, number>) => {
    const t = svg('text', at);
    t.textContent = text;
    plot.append(t);
  };
  label(String(max), { x: 2, y: y(max) + 4 });
  label('0', { x: 2, y: y(0) + 4 });
  label(engine.formatTime(end), { x: W - PAD - 30, y: H - 6 });
  const legend = el('figcaption', 'legend');
  for (const [workload, series] of view.ready) {
    const points: string[] = [];
    series.forEach((p, i) => {
      if (i > 0) points.push(`${x(p.t)},${y(series[i - 1]!.ready)}`);
      points.push(`${x(p.t)},${y(p.ready)}`);
    });
    points.push(`${x(end)},${y(series.at(-1)?.ready ?? 0)}`);
    const line = svg('polyline', { points: points.join(' '), class: 'series', stroke: colour(workload) });
    line.dataset['workload'] = workload;
    plot.append(line);
    const key = el('span', 'legend-key', workload);
    key.style.borderColor = colour(workload);
    legend.append(key);
  }
  const cursor = svg('line', { y1: y(max), y2: y(0), class: 'cursor' });
  plot.append(cursor);
  root.append(plot, legend);
  const moveCursor = (t: number) => {
    cursor.setAttribute('x1', String(x(t)));
    cursor.setAttribute('x2', String(x(t)));
  };
  return { root, moveCursor };
}

let stopPlayer: (() => void) | undefined;

/** Play/pause and a scrubber over the run: the map, the events list and the plot's cursor follow the time. */
function renderSimulation(view: engine.SimulationView): void {
  stopPlayer?.();
  const box = $('claims');
  box.replaceChildren();
  const passed = view.expectations.filter((e) => e.passed).length;
  box.append(el('h2', '', `Expectations: ${passed}/${view.expectations.length} passed`));
  const list = el('ul', 'expectations');
  for (const e of view.expectations) list.append(el('li', e.passed ? 'expectation pass' : 'expectation fail', `${e.passed ? 'PASS' : 'FAIL'} ${e.name}: ${e.detail}`));
  box.append(list);

  const player = el('div', 'player');
  const play = el('button', 'play', 'Play') as HTMLButtonElement;
  const scrub = document.createElement('input');
  Object.assign(scrub, { type: 'range', min: '0', max: String(view.endMs), step: '1000', value: String(view.endMs), className: 'scrub' });
  scrub.setAttribute('aria-label', 'simulated time');
  const clock = el('span', 'sim-time');
  player.append(play, scrub, clock);
  const plot = readyPlot(view);
  const pre = el('pre', 'timeline');
  const lines = view.timeline.map((e) => {
    const line = el('span', 'event', `${e.line}\n`);
    line.dataset['t'] = String(e.t);
    pre.append(line);
    return line;
  });
  box.append(el('h2', '', 'Replay'), player, el('h2', '', 'Ready replicas'), plot.root, el('h2', '', `Timeline (${view.timeline.length} events)`), pre);
  if (view.history.truncated) box.append(el('p', 'message', 'The run changed too often to record every instant; the replay stops early.'));

  const show = (t: number) => {
    clock.textContent = `${engine.formatTime(t)} / ${engine.formatTime(view.endMs)}`;
    renderMap(engine.viewAt(view, t));
    plot.moveCursor(t);
    view.timeline.forEach((e, i) => lines[i]!.classList.toggle('future', e.t > t));
  };
  scrub.addEventListener('input', () => show(Number(scrub.value)));
  // Play sweeps the run in about 10 s of wall time, whatever its simulated length.
  let timer: ReturnType<typeof setInterval> | undefined;
  const pause = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    play.textContent = 'Play';
  };
  play.addEventListener('click', () => {
    if (timer !== undefined) return pause();
    if (Number(scrub.value) >= view.endMs) scrub.value = '0';
    play.textContent = 'Pause';
    const stride = Math.max(1000, Math.ceil(view.endMs / 100 / 1000) * 1000);
    timer = setInterval(() => {
      const t = Math.min(view.endMs, Number(scrub.value) + stride);
      scrub.value = String(t);
      show(t);
      if (t >= view.endMs) pause();
    }, 100);
  });
  stopPlayer = pause;
  show(view.endMs);
}

function renderFindings(findings: readonly engine.Finding[]): void {
  const box = $('claims');
  box.replaceChildren();
  const errors = findings.filter((f) => f.severity === 'error').length;
  box.append(el('h2', '', `Findings: ${findings.length} (${errors} error(s))`));
  if (findings.length === 0) box.append(el('p', 'finding-none', 'No findings: the checks found nothing to change.'));
  for (const f of findings) {
    const item = el('section', `finding ${f.severity}`);
    item.dataset['rule'] = f.rule;
    item.append(el('h3', '', `${f.severity.toUpperCase()} ${f.rule} · ${f.object}`), el('p', 'finding-message', f.message));
    if (f.evidence.length > 0) {
      const ev = el('ol', 'evidence');
      for (const e of f.evidence) ev.append(el('li', '', e));
      item.append(el('h4', '', 'Evidence'), ev);
    }
    if (f.fix.length > 0) {
      const fix = el('ol', 'fix');
      for (const x of f.fix) fix.append(el('li', '', x));
      item.append(el('h4', '', 'Fix'), fix);
    }
    box.append(item);
  }
}

async function runCheck(): Promise<void> {
  const start = await startRun();
  if (!start) return;
  const { loaded, started } = start;
  try {
    renderMap(engine.schedule(loaded.input, loaded.warnings), loaded);
    const findings = engine.check(loaded.input);
    renderFindings(findings);
    status.textContent = `check: ${findings.length} finding(s) (${Math.round(performance.now() - started)} ms)`;
  } catch (e) {
    status.textContent = `error: ${e instanceof Error ? e.message : String(e)}`;
  }
}

async function simulate(): Promise<void> {
  const text = editor.state.doc.toString();
  location.hash = await encodeState(text);
  const started = performance.now();
  $('explain').replaceChildren();
  try {
    const r = engine.simulate(text, picker.value, (path) => examples[`../../examples/${path}`]);
    if (!r.ok) {
      status.textContent = `${r.errors.length} error(s) in the scenario: ${r.errors[0] ? engine.describeDiagnostic(r.errors[0]) : ''}`;
      return;
    }
    renderSimulation(r.view);
    status.textContent = `simulate: ${r.view.nodes.length} node(s) at the end, ${r.view.expectations.filter((e) => !e.passed).length} expectation(s) failed (${Math.round(performance.now() - started)} ms)`;
  } catch (e) {
    status.textContent = `error: ${e instanceof Error ? e.message : String(e)}`;
  }
}

$('schedule').addEventListener('click', () => void run('schedule'));
$('provision').addEventListener('click', () => void run('provision'));
$('simulate').addEventListener('click', () => void simulate());
$('check').addEventListener('click', () => void runCheck());

const fromHash = location.hash.length > 1 ? await decodeState(location.hash.slice(1)) : undefined;
if (fromHash !== undefined) {
  picker.prepend(new Option('(from link)', ''));
  picker.value = '';
  setText(fromHash);
}
else {
  picker.value = exampleNames[0] ?? '';
  setText(examples[`../../examples/${picker.value}`] ?? '');
}

// The service worker caches the page and its assets as they load, so a reload works offline.
if ('serviceWorker' in navigator && import.meta.env.PROD && location.protocol.startsWith('http')) {
  navigator.serviceWorker.register('./sw.js').catch((e: unknown) => console.warn('service worker not registered', e));
}
