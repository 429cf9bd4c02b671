// A simulation's answer: expectations, a replay (play/pause and a scrubber that move
// the node view, the timeline and the chart's cursor), and a uPlot chart of ready
// replicas per workload and the cloud's $/h over simulated time.

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatTime } from '../../src/sim/timeline.js';
import type { SimulationView } from './engine.js';
import { el } from './dom.js';

type StepSeries = readonly { t: number; value: number }[];

/** Step series sampled at every time any of them changes (null before a series starts). */
export function alignSteps(series: readonly StepSeries[], end: number): { xs: number[]; ys: (number | null)[][] } {
  const xs = [...new Set([0, ...series.flatMap((s) => s.map((p) => p.t)), end])].sort((a, b) => a - b);
  const ys = series.map((s) => {
    let i = -1;
    return xs.map((x) => {
      while (i + 1 < s.length && s[i + 1]!.t <= x) i++;
      return i < 0 ? null : s[i]!.value;
    });
  });
  return { xs, ys };
}

function chart(view: SimulationView, colour: (w: string) => string, width: number): { root: HTMLElement; moveCursor: (t: number) => void } {
  const workloads = [...view.ready.keys()];
  const series = [...workloads.map((w) => view.ready.get(w)!.map((p) => ({ t: p.t, value: p.ready }))), view.cost.map((c) => ({ t: c.t, value: c.costPerHour }))];
  const { xs, ys } = alignSteps(series, view.endMs);
  const stepped = uPlot.paths.stepped!({ align: 1 });
  let cursorT = view.endMs;
  const root = el('figure', 'ready-plot');
  root.setAttribute('aria-label', `ready replicas of ${workloads.join(', ')} and $/h over simulated time`);
  const opts: uPlot.Options = {
    width,
    height: 240,
    legend: { live: false },
    scales: { x: { time: false }, cost: { range: (_u, _min, max) => [0, Math.max(max, 0.0001) * 1.1] } },
    axes: [
      { values: (_u, vals) => vals.map((v) => formatTime(Math.round(v))), stroke: '#333' },
      { label: 'ready replicas', stroke: '#333' },
      { scale: 'cost', side: 1, label: '$/h', stroke: '#333', grid: { show: false } },
    ],
    series: [
      { label: 'time', value: (_u, v) => (v === null ? '' : formatTime(Math.round(v))) },
      ...workloads.map((w) => ({ label: w, stroke: colour(w), width: 2, paths: stepped })),
      { label: '$/h', scale: 'cost', stroke: '#111', dash: [6, 4], width: 2, paths: stepped, value: (_u: uPlot, v: number | null) => (v === null ? '' : `$${v.toFixed(4)}`) },
    ],
    hooks: {
      draw: [
        (u) => {
          const x = u.valToPos(cursorT, 'x', true);
          const { ctx, bbox } = u;
          ctx.save();
          ctx.strokeStyle = '#b00020';
          ctx.setLineDash([4, 3]);
          ctx.beginPath();
          ctx.moveTo(x, bbox.top);
          ctx.lineTo(x, bbox.top + bbox.height);
          ctx.stroke();
          ctx.restore();
        },
      ],
    },
  };
  const plot = new uPlot(opts, [xs, ...ys] as uPlot.AlignedData, root);
  return {
    root,
    moveCursor: (t) => {
      cursorT = t;
      plot.redraw(false);
    },
  };
}

/** Renders into `box`; `show(t)` is called with each scrubbed time. Returns a function that stops the player. */
export function renderSimulation(box: HTMLElement, view: SimulationView, colour: (w: string) => string, show: (t: number) => void): () => void {
  const passed = view.expectations.filter((e) => e.passed).length;
  const list = el('ul', 'expectations');
  for (const e of view.expectations) list.append(el('li', e.passed ? 'expectation pass' : 'expectation fail', `${e.passed ? 'PASS' : 'FAIL'} ${e.name}: ${e.detail}`));

  const player = el('div', 'player');
  const play = el('button', 'play', 'Play');
  const scrub = el('input', 'scrub');
  Object.assign(scrub, { type: 'range', min: '0', max: String(view.endMs), step: '1000', value: String(view.endMs) });
  scrub.setAttribute('aria-label', 'simulated time');
  const clock = el('span', 'sim-time');
  player.append(play, scrub, clock);
  const pre = el('pre', 'timeline');
  pre.tabIndex = 0;
  pre.setAttribute('aria-label', 'timeline of events');
  const lines = view.timeline.map((e) => {
    const line = el('span', 'event', `${e.line}\n`);
    line.dataset['t'] = String(e.t);
    pre.append(line);
    return line;
  });
  box.replaceChildren(el('h2', '', `Expectations: ${passed}/${view.expectations.length} passed`), list, el('h2', '', 'Ready replicas and $/h'));
  const plot = chart(view, colour, Math.max(280, Math.min(760, box.clientWidth - 8)));
  box.append(plot.root, el('h2', '', 'Replay'), player, el('h2', '', `Timeline (${view.timeline.length} events)`), pre);
  if (view.history.truncated) box.append(el('p', 'message', 'The run changed too often to record every instant; the replay stops early.'));

  const at = (t: number) => {
    clock.textContent = `${formatTime(t)} / ${formatTime(view.endMs)}`;
    show(t);
    plot.moveCursor(t);
    view.timeline.forEach((e, i) => lines[i]!.classList.toggle('future', e.t > t));
  };
  scrub.addEventListener('input', () => at(Number(scrub.value)));
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
      at(t);
      if (t >= view.endMs) pause();
    }, 100);
  });
  at(view.endMs);
  return pause;
}
