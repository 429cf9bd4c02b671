// The 200-node / 2,000-pod input: every action keeps the page responsive. The Long
// Tasks API (PerformanceObserver 'longtask') sees every main-thread task over 50 ms;
// none may last over 100 ms, from the drop of the input to the end of each action.
// The Long Tasks API measures wall time, which on an oversubscribed machine (load
// above its core count, as when many test runs share it) mostly measures the other
// processes. A Chromium trace of the same run gives each task's CPU time and the
// part of it in traced work (script, style, layout, paint, GC; see
// main-thread-trace.test-support.ts). The bound holds on traced work always, and on
// the Long Tasks API's wall time and the task's CPU time when the machine is not
// oversubscribed; then those are reported. The test's own calls into the page
// (Playwright's DevTools protocol commands: evaluate, selector queries, scrolling a
// click's target into view) run as tasks on the page's main thread too, of up to 13 ms
// CPU and 121 ms wall at load 17: the Long Tasks API does not report them, and the
// trace's wall and CPU figures leave them out; their traced work (a layout they force)
// is counted.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import type { Page } from 'playwright-core';
import { act, claimCards, drop, horizontalOverflow, idle, open, ROOT, screenshot, useBrowser, type Size } from './browser.test-support.js';
import { largeInput } from './large-input.test-support.js';
import { markStep, startTrace, stopTrace } from './main-thread-trace.test-support.js';

useBrowser();

const LONG_TASK_LIMIT_MS = 100;
const nodepools = readFileSync(new URL('examples/nodepools/default.yaml', ROOT), 'utf8');

/** Starts recording long tasks in the page from now on. */
async function watchLongTasks(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { longTasks: { start: number; duration: number }[] };
    w.longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.longTasks.push({ start: Math.round(e.startTime), duration: Math.round(e.duration) });
    }).observe({ type: 'longtask' });
  });
}

/**
 * Waits until the page has drawn two more frames: an action is over for the test (its
 * buttons enabled again) before the browser has rendered its last change, and a
 * content-visibility: auto box that this brings on screen is drawn one frame later
 * still. Without this wait those frames' tasks were counted in the next step.
 */
async function framesDrawn(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((drawn) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(drawn, 0)))));
}

async function longTasks(page: Page): Promise<{ start: number; duration: number }[]> {
  return page.evaluate(() => (window as unknown as { longTasks: { start: number; duration: number }[] }).longTasks);
}

describe('the 200-node / 2,000-pod input', () => {
  for (const size of ['desktop', 'phone'] as Size[]) {
    test(`${size}: drop the input, schedule, explain a placed and a pending pod, provision, check within a time budget, cancel: no main-thread task over ${LONG_TASK_LIMIT_MS} ms`, { timeout: 600_000 }, async () => {
      const { page, context, errors } = await open(size);
      const browser = context.browser()!;
      await watchLongTasks(page);
      await startTrace(browser, page);
      const measured: Record<string, { longTasks: number; longestMs: number; wallMs: number }> = {};
      const step = async (name: string, f: () => Promise<void>) => {
        const before = (await longTasks(page)).length;
        await markStep(page, name);
        const t0 = Date.now();
        await f();
        await framesDrawn(page);
        const tasks = (await longTasks(page)).slice(before);
        measured[name] = { longTasks: tasks.length, longestMs: Math.max(0, ...tasks.map((t) => t.duration)), wallMs: Date.now() - t0 };
      };

      await step('drop the dump', async () => {
        await drop(page, [{ name: 'cluster.yaml', text: `${largeInput()}---\n${nodepools}` }]);
        await page.waitForFunction(() => /loaded into Cluster, Workloads, NodePools/.test(document.getElementById('status')?.textContent ?? ''), undefined, { timeout: 60_000 });
        await page.waitForTimeout(2000);
      });
      // A large pane is coloured line by line (no full YAML parse), and a hidden pane
      // keeps its size, so its editor rendered only the lines of one screen.
      assert.ok((await page.$$('#pane-cluster .cm-yaml-key')).length > 0, 'the Cluster pane is highlighted');
      assert.ok((await page.$$('#pane-workloads .cm-line')).length < 100, 'the hidden Workloads pane holds one screen of lines');
      await step('schedule', async () => {
        await act(page, 'schedule', 300_000);
        assert.match((await page.textContent('#status')) ?? '', /^schedule: 200 node\(s\), 1800 placed, 200 pending/);
        assert.equal((await page.$$('.node')).length, 200);
        assert.equal(await page.$$eval('.node .pod', (e) => e.length), 1800);
      });
      await screenshot(page, `large-schedule-${size}`);
      await step('fit the map, then back to 100%', async () => {
        await page.click('#map .fit');
        await page.waitForSelector('#map[data-fit="true"]', { timeout: 60_000 });
        await page.click('#map button:text("100%")');
        await page.waitForTimeout(500);
      });
      await step('explain a placed pod', async () => {
        // Rows added to the explain table between two yields to the page (each batch is rendered in one frame),
        // and whether the table was on screen then: rows that come off screen are all laid out in the frame that
        // brings them on screen.
        await page.evaluate(() => {
          const w = window as unknown as { rowBatches: number[]; offScreenBatches: number };
          w.rowBatches = [];
          w.offScreenBatches = 0;
          new MutationObserver((ms) => {
            const rows = ms.filter((m) => (m.target as HTMLElement).classList.contains('explain-body')).reduce((n, m) => n + m.addedNodes.length, 0);
            if (rows === 0) return;
            w.rowBatches.push(rows);
            const table = document.querySelector('#explain .table-scroll')!.getBoundingClientRect();
            const pane = document.getElementById('results')!.getBoundingClientRect();
            const top = Math.max(0, pane.top);
            const bottom = Math.min(window.innerHeight, pane.bottom);
            if (table.bottom <= top || table.top >= bottom) w.offScreenBatches++;
          }).observe(document.getElementById('explain')!, { childList: true, subtree: true });
        });
        await page.click('.node .pod');
        await page.waitForSelector('#explain .explain-table');
        await idle(page, 120_000);
        assert.match((await page.textContent('#explain .verdict')) ?? '', /^selected: node-\d{3}$/);
        assert.equal(await page.$$eval('#explain .explain-body [role=row]', (r) => r.length), 200);
        const batches = await page.evaluate(() => (window as unknown as { rowBatches: number[] }).rowBatches);
        assert.ok(Math.max(...batches) <= 20, `explain rows added at most 20 per frame: ${batches.join(', ')}`);
        assert.equal(await page.evaluate(() => (window as unknown as { offScreenBatches: number }).offScreenBatches), 0, 'explain rows added while the table is on screen');
      });
      await step('explain a pending pod', async () => {
        await page.click('.pending-lane .pod');
        await page.waitForSelector('#explain .verdict:text-matches("^unschedulable")', { timeout: 120_000 });
        await idle(page, 120_000);
      });
      await step('provision', async () => {
        await act(page, 'provision', 300_000);
        assert.match((await page.textContent('#status')) ?? '', /^provision: /);
        assert.ok((await page.$$('.node.planned')).length > 0, 'NodeClaims planned for the 40-cpu pods');
        // Claims of dozens of pods each stay short cards with their $/h in view.
        const claims = await claimCards(page);
        assert.ok(claims.length > 0 && claims.every((c) => c.priceShown && c.height < 100 && !c.overflows), `NodeClaim cards: ${JSON.stringify(claims)}`);
        assert.ok((await horizontalOverflow(page)) <= 0, 'no sideways scroll');
      });
      await screenshot(page, `large-provision-${size}`);
      await step('check within a 10 s budget', async () => {
        await page.selectOption('#budget', '10');
        await page.click('#check');
        await page.waitForFunction(() => (document.getElementById('check') as HTMLButtonElement).disabled);
        await idle(page, 120_000);
        const status = (await page.textContent('#status')) ?? '';
        // On a fast machine the checks may end within the budget; otherwise the run is stopped and its results cleared.
        if (/stopped after the time budget of 10 s/.test(status)) assert.equal((await page.$$('.node')).length, 0, 'no stale results');
        else assert.match(status, /^check: \d+ finding/);
      });
      await step('cancel', async () => {
        await page.click('#schedule');
        await page.waitForFunction(() => (document.getElementById('schedule') as HTMLButtonElement).disabled);
        assert.equal(await page.isEnabled('#cancel'), true);
        await page.click('#cancel');
        await idle(page, 10_000);
        assert.match((await page.textContent('#status')) ?? '', /^schedule: cancelled/);
        assert.equal((await page.$$('.node')).length, 0, 'no stale results');
      });
      await markStep(page, 'end');
      const cpu = await stopTrace(browser);
      const oversubscribed = loadavg()[0]! > availableParallelism();
      for (const [name, m] of Object.entries(measured)) {
        const t = cpu.get(name);
        assert.ok(t, `${name}: in the trace`);
        const split = Object.entries(t.split).map(([k, v]) => `${k} ${v}`).join(', ');
        process.stdout.write(
          `# ${size} ${name}: ${m.wallMs} ms; Long Tasks API: ${m.longTasks} task(s) over 50 ms, longest ${m.longestMs} ms; trace: longest task ${t.maxWallMs} ms wall, most CPU ${t.maxCpuMs} ms; most traced work ${t.maxWorkMs} ms (${split}; by own time: ${t.top})\n`,
        );
        assert.ok(t.maxWorkMs <= LONG_TASK_LIMIT_MS, `${name}: a main-thread task of ${t.maxWorkMs} ms of work (${split}; by own time: ${t.top})`);
        if (!oversubscribed) {
          assert.ok(t.maxCpuMs <= LONG_TASK_LIMIT_MS, `${name}: a main-thread task of ${t.maxCpuMs} ms CPU`);
          assert.ok(m.longestMs <= LONG_TASK_LIMIT_MS, `${name}: a ${m.longestMs} ms main-thread task (Long Tasks API)`);
        }
      }
      if (oversubscribed) process.stdout.write(`# load ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores: Long Tasks wall times and task CPU reported, the bound checked on each task's traced work\n`);
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
});
