// Browser tests of the playground's flows: the built page (web/dist, run
// `npm run web:build` first) in Debian's Chromium, at desktop (1440×900) and phone
// (390×844) sizes. Screenshots go to web/.cache/screenshots.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { act, axeSerious, base, claimCards, horizontalOverflow, idle, link, open, pendingPods, placements, ROOT, screenshot, useBrowser, type Size } from './browser.test-support.js';
import { largeInput } from './large-input.test-support.js';

useBrowser();

const example = (name: string) => readFileSync(new URL(`examples/${name}`, ROOT), 'utf8');
const examples = readdirSync(new URL('examples/', ROOT)).filter((f) => f.endsWith('.yaml')).sort();
const SIZES: Size[] = ['desktop', 'phone'];

const expected: Record<string, { nodes: number; pending: number; message?: string }> = {
  'apiserver-spread-only.yaml': { nodes: 1, pending: 0 },
  'apiserver-min-domains.yaml': { nodes: 1, pending: 2, message: "didn't match pod topology spread constraints" },
  'apiserver-anti-affinity.yaml': { nodes: 3, pending: 0 },
  'kube-dns-required.yaml': { nodes: 1, pending: 1, message: "didn't match pod anti-affinity rules" },
  'kube-dns-preferred.yaml': { nodes: 1, pending: 0 },
  'rolling-update-deadlock.yaml': { nodes: 2, pending: 1, message: "didn't match pod anti-affinity rules" },
};

async function status(page: Page): Promise<string> {
  return (await page.textContent('#status')) ?? '';
}

describe('every example: schedule, explain, check (desktop)', () => {
  for (const name of examples) {
    test(name, async () => {
      const { page, context, errors } = await open();
      await page.selectOption('#examples', name);
      await act(page, 'schedule');
      const want = expected[name];
      const pending = await pendingPods(page);
      if (want) {
        assert.equal((await page.$$('.node')).length, want.nodes, 'node count');
        assert.equal(pending.length, want.pending, 'pending count');
        if (want.message) assert.match((await page.textContent('.pending-lane')) ?? '', new RegExp(want.message.replace(/[()]/g, '\\$&')));
      }
      const placed = await placements(page);
      if (name === 'apiserver-anti-affinity.yaml') for (const pods of Object.values(placed)) assert.equal(pods.length, 1, 'one replica per node');
      if (name === 'apiserver-spread-only.yaml') assert.equal(Object.values(placed)[0]?.length, 3, 'all three stacked');
      if (pending.length > 0) {
        await page.click('.pending-lane .pod');
        await page.waitForSelector('#explain .explain-table');
        await idle(page);
        assert.match((await page.textContent('#explain .verdict')) ?? '', /unschedulable: (0\/\d+ nodes are available|no nodes available to schedule pods)/);
      }
      await screenshot(page, `schedule-${name}`);
      await act(page, 'check');
      assert.match((await page.textContent('#claims h2')) ?? '', /^Findings: \d+/);
      assert.match((await page.textContent('#summary')) ?? '', /findings: \d+ error, \d+ warning, \d+ info/);
      const rules = await page.$$eval('.finding', (els) => els.map((e) => (e as HTMLElement).dataset['rule']));
      if (name === 'rolling-update-deadlock.yaml') {
        assert.ok(rules.includes('rollout-deadlock'), `rollout-deadlock among ${rules.join(', ')}`);
        assert.match((await page.textContent('.finding[data-rule="rollout-deadlock"] .fix')) ?? '', /maxUnavailable/);
      }
      await screenshot(page, `check-${name}`);
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
});

for (const size of SIZES) {
  describe(`flows at ${size} size`, () => {
    test('the answer first: summary line, pending by reason, nodes with requested-vs-allocatable bars; explain a placed and a pending pod; accessible, no sideways scroll', async () => {
      const { page, context, errors } = await open(size);
      await page.selectOption('#examples', 'kube-dns-required.yaml');
      await act(page, 'schedule');
      assert.deepEqual(await page.$$eval('.summary-item', (e) => e.map((x) => x.textContent)), ['1 placed', '1 pending', '0 new nodes']);
      assert.match((await page.textContent('.pending-group .message')) ?? '', /^1 pod: 0\/1 nodes are available: 1 node\(s\) didn't match pod anti-affinity rules/);
      assert.equal(await page.getAttribute('.zone', 'aria-label'), 'zone us-west-2a');
      // node-1: 4 cpu, 16 GiB; one kube-dns replica of 100m and 70Mi.
      assert.deepEqual(await page.$$eval('.node .bar-text', (e) => e.map((x) => x.textContent)), ['0.1 / 4', '0.1 / 16.0 GiB']);
      assert.deepEqual(await page.$$eval('.node [role=meter]', (e) => e.map((m) => Number(m.getAttribute('aria-valuenow')))), [3, 0]);

      await page.click('.node .pod');
      await page.waitForSelector('#explain .explain-row.chosen');
      await idle(page);
      assert.equal(await page.textContent('#explain .verdict'), 'selected: node-1');
      const headers = await page.$$eval('#explain [role=columnheader]', (e) => e.map((x) => x.textContent));
      assert.ok(headers.includes('NodeResourcesFit') && headers.includes('TaintToleration'), headers.join(', '));
      assert.match((await page.textContent('#explain .explain-row.chosen')) ?? '', /\d+ → \d+ × \d+ = \d+/);

      await page.click('.pending-lane .pod');
      await page.waitForSelector('#explain .explain-row.rejected');
      await idle(page);
      assert.match((await page.textContent('#explain .explain-row.rejected')) ?? '', /InterPodAffinity: node\(s\) didn't match pod anti-affinity rules/);
      // No node got a score (no score plugin column): a row's cells still sit side by side.
      assert.deepEqual(await page.$$eval('#explain .explain-row.rejected .cell', (cs) => cs.map((c) => c.getBoundingClientRect().top - cs[0]!.getBoundingClientRect().top)), [0, 0, 0]);
      assert.deepEqual(await axeSerious(page), []);
      assert.ok((await horizontalOverflow(page)) <= 0, 'no sideways scroll');
      await screenshot(page, `explain-${size}`);
      assert.deepEqual(errors, []);
      await context.close();
    });

    test('a shared link re-runs its action: provision plans a NodeClaim for the pending kube-dns replica, $/h in the summary', async () => {
      const text = `${example('kube-dns-required.yaml')}\n---\n${example('nodepools/default.yaml')}`;
      const { page, context, errors } = await open(size, link({ text, action: 'provision' }));
      await page.waitForSelector('.claim');
      await idle(page);
      assert.equal((await page.$$('.claim')).length, 1);
      assert.equal((await page.$$('.node.planned')).length, 1);
      assert.match((await page.textContent('.node.planned .node-size')) ?? '', /^pool default · /, 'a new node shows its NodePool');
      assert.equal((await pendingPods(page)).length, 0);
      assert.match((await page.textContent('.claim')) ?? '', /us-west-2[a-d]/);
      // A card per claim, short and whole at both sizes: $/h on screen, nothing to scroll sideways.
      for (const c of await claimCards(page)) {
        assert.match(c.price, /^\$\d+\.\d{4}\/h$/);
        assert.ok(c.priceShown, `$/h ${c.price} wholly on screen, inside its card`);
        assert.ok(c.height < 100 && !c.overflows, `claim card ${c.height} px high${c.overflows ? ', scrolls sideways' : ''}`);
      }
      assert.match((await page.textContent('#summary')) ?? '', /2 placed0 pending1 new node\$\d+\.\d{4}\/h/);
      assert.equal(await page.inputValue('#examples'), '', 'the text is the link\'s own');
      assert.ok((await horizontalOverflow(page)) <= 0, 'no sideways scroll');
      assert.deepEqual(await axeSerious(page), []);
      await screenshot(page, `provision-link-${size}`);
      assert.deepEqual(errors, []);
      await context.close();
    });

    test('Back and Forward return to each example and re-run its action; Copy link copies the address', async () => {
      const { page, context, errors } = await open(size);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      await page.selectOption('#examples', 'apiserver-anti-affinity.yaml');
      await act(page, 'schedule');
      assert.match(page.url(), /#e=apiserver-anti-affinity\.yaml&a=schedule$/);
      await page.selectOption('#examples', 'kube-dns-required.yaml');
      await act(page, 'provision');
      assert.match(page.url(), /#e=kube-dns-required\.yaml&a=provision$/);
      await page.goBack();
      await page.waitForFunction(() => location.hash === '#e=kube-dns-required.yaml');
      await idle(page);
      assert.equal(await page.inputValue('#examples'), 'kube-dns-required.yaml');
      assert.equal((await page.$$('.node')).length, 0, 'no action in that entry: no results');
      await page.goBack();
      await page.waitForSelector('.node');
      await idle(page);
      assert.equal(await page.inputValue('#examples'), 'apiserver-anti-affinity.yaml');
      assert.equal((await page.$$('.node')).length, 3, 'the schedule ran again');
      await page.goForward();
      await page.waitForFunction(() => location.hash === '#e=kube-dns-required.yaml');
      await idle(page);
      assert.equal((await page.$$('.node')).length, 0);

      await page.goBack();
      await page.waitForSelector('.node');
      await idle(page);
      await page.click('#copy-link');
      await page.waitForFunction(() => document.getElementById('status')?.textContent === 'link copied');
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      assert.equal(copied, page.url());
      const other = await context.newPage();
      await other.goto(copied);
      await other.waitForSelector('.node');
      await idle(other);
      assert.deepEqual(await placements(other), await placements(page));
      assert.deepEqual(errors, []);
      await context.close();
    });

    test('input errors: a misspelled field and a scenario error underlined at their line; a failed run clears the old results', async () => {
      const { page, context, errors } = await open(size);
      await page.selectOption('#examples', 'kube-dns-required.yaml');
      await act(page, 'schedule');
      assert.ok((await page.$$('.node')).length > 0);
      const typo = example('kube-dns-required.yaml').replace('containers:', 'containres:');
      await page.goto(base + link({ text: typo, action: 'schedule' }));
      await page.waitForSelector('.cm-lintRange-error');
      await idle(page);
      assert.match(await status(page), /schedule: \d+ error\(s\) in the input: Workloads line \d+: .*containres/);
      assert.equal(await page.$eval('.cm-lintRange-error', (e) => e.closest('.cm-line')?.textContent?.includes('containres')), true);
      assert.equal((await page.$$('.node')).length, 0, 'no stale results');
      await screenshot(page, `input-error-${size}`);

      const scenario = example('scenarios/kube-dns-required.yaml').replace('removeNode: {node: node-2}', 'removeNodes: {node: node-2}');
      assert.notEqual(scenario, example('scenarios/kube-dns-required.yaml'));
      await page.goto(base + link({ text: scenario, action: 'simulate' }));
      // The schedule run's underline is still on screen until the new link has run.
      await page.waitForFunction(() => document.querySelector('#status')?.textContent?.startsWith('simulate:'));
      await page.waitForSelector('.cm-lintRange-error');
      await idle(page);
      assert.match(await status(page), /simulate: 1 error\(s\) in the input: Scenario line 37: Scenario: spec\.steps\[0\]: Unrecognized key: "removeNodes"/);
      // At the step the CLI points at (berth simulate: file:37:5).
      assert.equal(await page.$eval('.cm-lintRange-error', (e) => e.closest('.cm-line')?.textContent), '  - at: 2m');
      assert.deepEqual(errors, []);
      await context.close();
    });

    test('simulate: expectations, a uPlot chart of ready replicas and $/h, a replay; accessible, no sideways scroll', async () => {
      const { page, context, errors } = await open(size);
      await page.selectOption('#examples', 'scenarios/apiserver-anti-affinity.yaml');
      await act(page, 'simulate');
      await page.waitForSelector('.ready-plot canvas');
      const legend = await page.$$eval('.ready-plot .u-legend th', (e) => e.map((x) => x.textContent?.trim()));
      assert.ok(legend.includes('apiserver') && legend.includes('$/h'), legend.join(', '));
      // cp-1 and the two nodes the provisioner launched (new, dashed).
      assert.match((await page.textContent('#summary')) ?? '', /3 placed0 pending2 new nodes\$0\.0427\/h/);
      assert.equal((await page.$$('.node.planned')).length, 2);
      assert.deepEqual(await axeSerious(page), []);
      assert.ok((await horizontalOverflow(page)) <= 0, 'no sideways scroll');
      await screenshot(page, `simulate-${size}`);
      assert.deepEqual(errors, []);
      await context.close();
    });
  });
}

test('axe-core runs on the page: a nameless button and grey-on-white text are reported; the editors have accessible names', async () => {
  const { page, context } = await open();
  assert.deepEqual(await axeSerious(page), []);
  assert.deepEqual(await page.$$eval('.pane .cm-content', (e) => e.map((x) => x.getAttribute('aria-label'))), ['Cluster manifests (YAML)', 'Workloads manifests (YAML)', 'NodePools manifests (YAML)', 'Scheduler manifests (YAML)', 'Scenario manifests (YAML)']);
  await page.evaluate(() => {
    const broken = document.createElement('div');
    broken.innerHTML = '<button class="nameless"></button><p style="color:#aaa;background:#fff">pale text</p>';
    document.getElementById('results')!.append(broken);
  });
  const found = (await axeSerious(page)).map((v) => v.split(' ')[0]);
  assert.deepEqual(found.sort(), ['button-name', 'color-contrast']);
  await context.close();
});

test('check streams: progress, then each check\'s findings while it runs, with the actions disabled and Cancel enabled; findings come before the map', { timeout: 300_000 }, async () => {
  // 40 nodes, 10 Deployments of 20: the checks take a few seconds.
  const { page, context, errors } = await open('desktop', link({ text: largeInput(40, 10, 20) }));
  await page.evaluate(() => {
    const w = window as unknown as { seen: { running: boolean; cancel: boolean; schedule: boolean; status: string; heading: string; findings: number; progress: number }[] };
    w.seen = [];
    // No named helpers in here: the test's transpiler would wrap them in a __name() the page lacks.
    new MutationObserver(() =>
      w.seen.push({
        running: (document.getElementById('check') as HTMLButtonElement).disabled,
        cancel: !(document.getElementById('cancel') as HTMLButtonElement).disabled,
        schedule: (document.getElementById('schedule') as HTMLButtonElement).disabled,
        status: document.getElementById('status')?.textContent ?? '',
        heading: document.querySelector('#claims h2')?.textContent ?? '',
        findings: document.querySelectorAll('#claims .finding').length,
        progress: (document.getElementById('progress') as HTMLProgressElement).value,
      }),
    ).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await act(page, 'check', 240_000);
  const seen = await page.evaluate(() => (window as unknown as { seen: { running: boolean; cancel: boolean; schedule: boolean; status: string; heading: string; findings: number; progress: number }[] }).seen);
  const streamed = seen.filter((s) => s.running && /^Findings so far: [1-9]/.test(s.heading));
  assert.ok(streamed.length > 0, 'findings shown before the checks ended');
  for (const s of streamed) {
    assert.equal(s.findings > 0 && s.cancel && s.schedule, true, JSON.stringify(s));
    assert.match(s.status, /^check: \d+\/\d+ checks$/);
    assert.ok(s.progress > 0, 'the progress bar moves');
  }
  assert.match((await page.textContent('#claims h2')) ?? '', /^Findings: [1-9]\d* \(\d+ error\(s\)\)$/);
  const top = (selector: string) => page.$eval(selector, (e) => e.getBoundingClientRect().top);
  assert.ok((await top('.finding')) < (await top('.node')), 'findings above the nodes');
  assert.deepEqual(errors, []);
  await context.close();
});

test('twelve workloads: twelve distinct chip colours, each passing axe\'s contrast check', async () => {
  // 12 nodes, 13 Deployments of 2 replicas; the tenth asks for 40 cpu and stays pending.
  const { page, context, errors } = await open('desktop', link({ text: largeInput(12, 13, 2), action: 'schedule' }));
  await page.waitForSelector('.node .pod');
  await idle(page);
  const chips = await page.$$eval('.node .pod', (e) => e.map((c) => [c.textContent!.replace(/-[a-z0-9]+-[a-z0-9]+$/, ''), getComputedStyle(c).backgroundColor]));
  const byWorkload = new Map(chips.map(([w, c]) => [w, c]));
  assert.equal(byWorkload.size, 12, [...byWorkload.keys()].join(', '));
  assert.equal(new Set(byWorkload.values()).size, 12, 'one colour per workload');
  assert.deepEqual(await axeSerious(page), []);
  await screenshot(page, 'twelve-workloads');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a KubeSchedulerConfiguration in the input is honoured: bin-packing stacks the pod on the fuller node', async () => {
  const nodes = ['a', 'b'].map((n) => `apiVersion: v1\nkind: Node\nmetadata: {name: ${n}, labels: {kubernetes.io/hostname: ${n}}}\nstatus: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}`);
  const pods = [
    'apiVersion: v1\nkind: Pod\nmetadata: {name: running}\nspec: {nodeName: a, containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]}',
    'apiVersion: v1\nkind: Pod\nmetadata: {name: new}\nspec: {containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]}',
  ];
  const text = [...nodes, ...pods].join('\n---\n');
  const { page, context, errors } = await open('desktop', link({ text, action: 'schedule' }));
  await page.waitForSelector('.node');
  await idle(page);
  assert.deepEqual((await placements(page))['b'], ['default/new'], 'the default profile spreads');
  await page.goto(base + link({ text: `${text}\n---\n${example('scheduler-config/bin-packing.yaml')}`, action: 'schedule' }));
  await page.waitForSelector('.node');
  await idle(page);
  assert.deepEqual((await placements(page))['a'], ['default/running', 'default/new']);
  assert.deepEqual(errors, []);
  await context.close();
});

describe('simulate every scenario (desktop)', () => {
  const scenarios = readdirSync(new URL('examples/scenarios/', ROOT)).filter((f) => f.endsWith('.yaml')).sort();
  for (const name of scenarios) {
    test(`scenarios/${name}: every expectation passes in the browser`, async () => {
      const { page, context, errors } = await open();
      await page.selectOption('#examples', `scenarios/${name}`);
      await act(page, 'simulate');
      const results = await page.$$eval('.expectation', (els) => els.map((e) => e.textContent ?? ''));
      assert.ok(results.length > 0, await status(page));
      for (const r of results) assert.match(r, /^PASS /);
      assert.ok(((await page.textContent('.timeline')) ?? '').includes('Step'), 'the timeline shows the steps');
      if (name === 'apiserver-anti-affinity.yaml') assert.equal((await page.$$('.node')).length, 3, 'cp-1 and the two launched nodes');
      await screenshot(page, `simulate-${name}`);
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
});

test('the replay scrubs the kube-dns scenario: a replica pending at 5m, spread again at the end, played to the end', async () => {
  const { page, context, errors } = await open();
  await page.selectOption('#examples', 'scenarios/kube-dns-required.yaml');
  await act(page, 'simulate');
  const scrubTo = (ms: number) => page.$eval('.scrub', (e, v) => {
    const input = e as HTMLInputElement;
    input.value = String(v);
    input.dispatchEvent(new Event('input'));
  }, ms);
  await scrubTo(5 * 60_000);
  assert.match((await page.textContent('.sim-time')) ?? '', /^5m00s \//);
  assert.equal((await pendingPods(page)).length, 1);
  assert.match((await page.textContent('.pending-lane')) ?? '', /didn't match pod anti-affinity rules/);
  assert.deepEqual(Object.keys(await placements(page)), ['node-1']);
  assert.ok((await page.$$('.timeline .event.future')).length > 0, 'events after 5m are greyed');
  await scrubTo(0);
  await page.click('.play');
  await page.waitForFunction(() => document.querySelector('.play')?.textContent === 'Play' && (document.querySelector('.scrub') as HTMLInputElement).value === (document.querySelector('.scrub') as HTMLInputElement).max, undefined, { timeout: 30_000 });
  assert.equal((await pendingPods(page)).length, 0);
  assert.deepEqual(Object.keys(await placements(page)).sort(), ['node-1', 'node-3']);
  await screenshot(page, 'replay-kube-dns');
  assert.deepEqual(errors, []);
  await context.close();
});

test('works offline from the first visit, simulate (a chunk loaded later) included', async () => {
  const { page, context } = await open();
  // Polled from here: waitForFunction takes an async predicate's promise as truthy at once,
  // so it never waited, and the test passed only when the copy happened to be made in time.
  // The page is cached only by the page's copy of the whole build (the first visit came
  // before the service worker), while the worker chunk may be cached earlier, as it loads.
  const copied = () =>
    page.evaluate(async () => {
      const urls = (await (await caches.open('berth-playground')).keys()).map((r) => r.url);
      return urls.includes(new URL('./', location.href).href) && urls.some((u) => u.includes('worker-'));
    });
  for (const deadline = Date.now() + 30_000; !(await copied()); await new Promise((r) => setTimeout(r, 100))) {
    assert.ok(Date.now() < deadline, 'the page never made its offline copy');
  }
  await context.setOffline(true);
  await page.reload();
  await page.waitForSelector('.pane:not([hidden]) .cm-content');
  await act(page, 'schedule');
  assert.ok((await page.$$('.node')).length > 0);
  // The chart's chunk, loaded only by a simulation, was cached too.
  await page.selectOption('#examples', 'scenarios/kube-dns-required.yaml');
  await act(page, 'simulate');
  await page.waitForSelector('.ready-plot canvas');
  await context.close();
});

test('berth serve: the page loads its scripts brotli-compressed, hashed assets cached for good, the page revalidated', async () => {
  const { page, context } = await open();
  const seen = new Map<string, Record<string, string>>();
  page.on('response', (r) => seen.set(new URL(r.url()).pathname, r.headers()));
  await page.reload();
  await page.waitForSelector('.pane:not([hidden]) .cm-content');
  await act(page, 'schedule');
  const scripts = [...seen].filter(([path]) => /^\/assets\/.*\.js$/.test(path));
  assert.ok(scripts.some(([path]) => path.includes('worker-')), [...seen.keys()].join(', '));
  for (const [path, h] of scripts) {
    assert.equal(h['content-encoding'], 'br', path);
    assert.equal(h['cache-control'], 'public, max-age=31536000, immutable', path);
  }
  assert.equal(seen.get('/')?.['cache-control'], 'no-cache');
  await context.close();
});

test('bundle: the first paint waits for neither the engine (a worker chunk), the chart library nor the examples (chunks of their own); sizes reported', () => {
  const dir = new URL('web/dist/assets/', ROOT);
  const files = readdirSync(dir).filter((f) => f.endsWith('.js') || f.endsWith('.css'));
  let total = 0;
  let totalGz = 0;
  for (const f of files) {
    const body = readFileSync(new URL(f, dir));
    const gz = gzipSync(body).length;
    total += statSync(new URL(f, dir)).size;
    totalGz += gz;
    process.stdout.write(`# ${f}: ${(body.length / 1024).toFixed(0)} KB, ${(gz / 1024).toFixed(0)} KB gzipped\n`);
  }
  process.stdout.write(`# total: ${(total / 1024).toFixed(0)} KB, ${(totalGz / 1024).toFixed(0)} KB gzipped\n`);
  const chunk = (prefix: string) => readFileSync(new URL(files.find((f) => f.startsWith(prefix) && f.endsWith('.js'))!, dir), 'utf8');
  const page = chunk('index-');
  // A string only each part has: the scheduler's message, uPlot's legend class, an example's text.
  for (const [part, marker] of [['worker-', 'No preemption victims found'], ['render-sim-', 'u-legend'], ['examples-', 'kind: NodePool']]) {
    assert.equal(page.includes(marker!), false, `${marker} in the page's chunk`);
    assert.equal(chunk(part!).includes(marker!), true, `${marker} in ${part}`);
  }
});
