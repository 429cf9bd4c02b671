// The engine's thread: every action of the page runs here, so the page stays
// responsive whatever the input's size. The page talks to it through comlink;
// it cancels a run by ending this worker (the engine's loops are synchronous).

import * as Comlink from 'comlink';
import * as engine from './engine.js';
import { splitByKind, TABS, type Tabs } from './input-tabs.js';
import { splitList } from './split-list.js';

/** The last panes loaded: lint, then Schedule, then clicks on pods reuse them instead of parsing again. */
let cached: { tabs: Tabs; loaded: engine.Loaded } | undefined;

function load(tabs: Tabs): engine.Loaded {
  if (!cached || TABS.some((t) => t !== 'scenario' && cached!.tabs[t] !== tabs[t])) cached = { tabs, loaded: engine.load(tabs) };
  return cached.loaded;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; errors: engine.Diagnostic[] };

function withLoaded<T>(text: Tabs, f: (loaded: engine.Loaded & { ok: true }) => T): Outcome<T> {
  const loaded = load(text);
  return loaded.ok ? { ok: true, value: f(loaded) } : { ok: false, errors: loaded.errors };
}

/** Progress reports at most this often: each one is a message to the page. */
const PROGRESS_EVERY_MS = 100;

function throttled(report: (done: number, total: number) => void): engine.Progress {
  let last = 0;
  return (done, total) => {
    const now = Date.now();
    if (now - last < PROGRESS_EVERY_MS && done < total) return;
    last = now;
    void report(done, total);
  };
}

const api = {
  /** Errors and warnings of the panes as the action buttons would load them (the Scenario pane as `berth simulate` does). */
  lint(tabs: Tabs): engine.Diagnostic[] {
    const loaded = load(tabs);
    return [...(loaded.ok ? loaded.warnings : loaded.errors), ...engine.lintScenario(tabs.scenario)];
  },
  /** A dropped or opened file sorted into the panes by kind, a kubectl List item by item. */
  split(text: string): Tabs {
    return splitByKind(text, splitList);
  },
  schedule(text: Tabs, progress?: (done: number, total: number) => void): Outcome<engine.RunView> {
    return withLoaded(text, (loaded) => {
      const { report: _report, ...view } = engine.schedule(loaded, 0, progress && throttled(progress));
      return view;
    });
  },
  provision(text: Tabs): Outcome<engine.RunView> {
    return withLoaded(text, (loaded) => engine.provision(loaded));
  },
  /** The schedule of the input, then `berth check`'s findings, each check's told to `found` as it ends. */
  check(text: Tabs, found?: (rule: string, findings: readonly engine.FindingView[], done: number, total: number) => void): Outcome<{ view: engine.RunView; findings: engine.FindingView[] }> {
    return withLoaded(text, (loaded) => {
      const view = engine.schedule(loaded);
      let done = 0;
      const findings = engine.check(loaded.input, 0, found && ((rule, f) => void found(rule, f, ++done, engine.CHECK_COUNT)));
      const { report: _report, ...rest } = view;
      return { view: rest, findings };
    });
  },
  explain(text: Tabs, pod: string): Outcome<engine.PodExplanation | undefined> {
    return withLoaded(text, (loaded) => engine.explain(loaded, pod));
  },
  /** `examples`: the bundled files a scenario may name, by path under examples/. */
  simulate(text: string, path: string, examples: Record<string, string>): Outcome<engine.SimulationView> {
    const r = engine.simulate(text, path, (p) => examples[p]);
    return r.ok ? { ok: true, value: r.view } : r;
  },
};

export type EngineApi = typeof api;

Comlink.expose(api);
