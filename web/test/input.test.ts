// Browser tests of the input panes: examples and links sorted into Cluster,
// Workloads, NodePools, Scheduler and Scenario; a kubectl dump dropped on the
// editor; the default NodePool in one click; errors underlined with a gutter
// marker in their pane, the pane's tab counting them. Run `npm run web:build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { act, axeSerious, base, drop, horizontalOverflow, idle, link, open, pendingPods, placements, ROOT, screenshot, SIZES, useBrowser, type Size } from './browser.test-support.js';

useBrowser();

const example = (name: string) => readFileSync(new URL(`examples/${name}`, ROOT), 'utf8');

/** Each pane's text. */
async function paneTexts(page: Page): Promise<Record<string, string>> {
  return page.$$eval('.pane', (panes) => Object.fromEntries(panes.map((p) => [p.id.replace('pane-', ''), [...p.querySelectorAll('.cm-line')].map((l) => l.textContent).join('\n')])));
}

/** What `kubectl get nodes,pods -A -o yaml` writes: a v1 List, kind last. */
const dump = `apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: dumped-1
    labels: {kubernetes.io/hostname: dumped-1, topology.kubernetes.io/zone: zone-a}
  status:
    allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-1
    namespace: shop
  spec:
    containers:
    - name: web
      image: web:1
      resources: {requests: {cpu: 500m}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: big
    namespace: shop
  spec:
    containers:
    - name: big
      image: big:1
      resources: {requests: {cpu: "3"}}
kind: List
metadata:
  resourceVersion: ""
`;

for (const size of ['desktop', 'phone'] as Size[]) {
test(`${size}: an example is sorted into panes; a dropped kubectl dump replaces Cluster and Workloads and is what Schedule runs; NodePools kept`, async () => {
  const { page, context, errors } = await open(size);
  await page.selectOption('#examples', 'kube-dns-required.yaml');
  const before = await paneTexts(page);
  assert.match(before['cluster']!, /kind: Node/);
  assert.doesNotMatch(before['cluster']!, /kind: Deployment/);
  assert.match(before['workloads']!, /kind: Deployment/);
  assert.equal(await page.getAttribute('#tab-cluster', 'aria-selected'), 'true');

  await page.click('#tab-nodepools');
  await page.click('#add-nodepool');
  await drop(page, [{ name: 'dump.yaml', text: dump }]);
  await page.waitForFunction(() => /dump\.yaml: loaded into Cluster, Workloads/.test(document.getElementById('status')?.textContent ?? ''));
  const after = await paneTexts(page);
  assert.match(after['cluster']!, /^apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n {2}kind: Node\n {2}metadata:\n {4}name: dumped-1/);
  assert.doesNotMatch(after['cluster']!, /kind: Pod/);
  assert.match(after['workloads']!, /name: web-1[\s\S]*name: big/);
  assert.match(after['nodepools']!, /kind: NodePool/, 'a pane the dump has nothing for is kept');
  assert.equal(await page.getAttribute('#tab-cluster', 'aria-selected'), 'true');
  assert.equal(await page.inputValue('#examples'), '');

  await act(page, 'schedule');
  assert.deepEqual(await placements(page), { 'dumped-1': ['shop/web-1'] });
  assert.deepEqual(await pendingPods(page), ['shop/big']);
  await act(page, 'provision');
  assert.equal((await page.$$('.node.planned')).length, 1, 'the default NodePool added before the drop plans a node for the 3-cpu pod');
  assert.deepEqual(await axeSerious(page), []);
  assert.ok((await horizontalOverflow(page)) <= 0, 'no sideways scroll');
  await screenshot(page, `input-dropped-dump-${size}`);
  assert.deepEqual(errors, []);
  await context.close();
});
}

test('"Add the default NodePool" in one click: Provision then plans a NodeClaim for the pending kube-dns replica; a second click adds nothing', async () => {
  const { page, context, errors } = await open();
  await page.selectOption('#examples', 'kube-dns-required.yaml');
  await act(page, 'provision');
  assert.equal((await page.$$('.node.planned')).length, 0, 'no NodePool: nothing to plan');
  assert.equal((await pendingPods(page)).length, 1);
  await page.click('#add-nodepool');
  assert.equal(await page.getAttribute('#tab-nodepools', 'aria-selected'), 'true');
  assert.equal((await paneTexts(page))['nodepools'], example('nodepools/default.yaml'));
  await page.click('#add-nodepool');
  assert.match((await page.textContent('#status')) ?? '', /already has a NodePool named default/);
  await act(page, 'provision');
  assert.equal((await page.$$('.node.planned')).length, 1);
  assert.equal((await pendingPods(page)).length, 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a field error in Workloads: underlined at its line with a gutter marker, counted on the tab, which is shown; fixed, the marks go', async () => {
  const typo = example('kube-dns-required.yaml').replace('containers:', 'containres:');
  const { page, context, errors } = await open('desktop', link({ text: typo, action: 'schedule' }));
  await page.waitForSelector('#pane-workloads .cm-lintRange-error');
  await idle(page);
  assert.equal(await page.getAttribute('#tab-workloads', 'aria-selected'), 'true');
  assert.match((await page.textContent('#status')) ?? '', /^schedule: 1 error\(s\) in the input: Workloads line \d+: .*containres/);
  assert.equal(await page.textContent('#tab-workloads .badge'), '1');
  assert.equal(await page.textContent('#tab-workloads'), 'Workloads1, 1 error(s)', 'the count, and words for a screen reader');
  assert.equal(await page.textContent('#tab-cluster'), 'Cluster');
  // The gutter marker sits on the line of the underline (once the editor's next measure
  // cycle has placed the gutter: a frame after the marker element is made).
  const tops = () =>
    page.evaluate(() => ({
      marker: document.querySelector('#pane-workloads .cm-lint-marker-error')!.getBoundingClientRect().top,
      line: document.querySelector('#pane-workloads .cm-lintRange-error')!.closest('.cm-line')!.getBoundingClientRect().top,
    }));
  let t = await tops();
  for (const until = Date.now() + 5_000; Math.abs(t.marker - t.line) >= 4 && Date.now() < until; t = await tops()) await page.waitForTimeout(50);
  assert.ok(Math.abs(t.marker - t.line) < 4, `marker at ${t.marker}, line at ${t.line}`);
  assert.equal(await page.$eval('#pane-workloads .cm-lintRange-error', (e) => e.closest('.cm-line')?.textContent?.includes('containres')), true);
  assert.deepEqual(await axeSerious(page), []);
  assert.ok((await horizontalOverflow(page)) <= 0);
  await screenshot(page, 'input-error-gutter');

  // Typing the fix: the check after the pause clears the marks and the count.
  await page.click('#pane-workloads .cm-lintRange-error');
  const fixed = await page.$eval('#pane-workloads .cm-lintRange-error', (e) => e.closest('.cm-line')!.textContent!.replace('containres', 'containers'));
  await page.keyboard.press('Home');
  await page.keyboard.press('Shift+End');
  await page.keyboard.type(fixed.trimStart());
  await page.waitForFunction(() => document.querySelector('#pane-workloads .cm-lint-marker-error') === null && document.querySelector('#tab-workloads .badge')?.textContent === '');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a KubeSchedulerConfiguration goes to the Scheduler pane, its errors underlined there; Simulate with an empty Scenario pane says so', async () => {
  const { page, context, errors } = await open('desktop', link({ text: `${example('apiserver-spread-only.yaml')}\n---\n${example('scheduler-config/bin-packing.yaml')}` }));
  const texts = await paneTexts(page);
  assert.match(texts['scheduler']!, /^(#.*\n)*apiVersion: kubescheduler\.config\.k8s\.io\/v1\nkind: KubeSchedulerConfiguration/);
  assert.doesNotMatch(texts['workloads']!, /KubeSchedulerConfiguration/);
  await act(page, 'simulate');
  assert.equal(await page.getAttribute('#tab-scenario', 'aria-selected'), 'true');
  assert.match((await page.textContent('#status')) ?? '', /the Scenario pane is empty/);
  // The config's own error is underlined in the Scheduler pane.
  await page.goto(base + link({ text: `${example('apiserver-spread-only.yaml')}\n---\n${example('scheduler-config/bin-packing.yaml').replace('type: MostAllocated', 'type: MostAlocated')}`, action: 'schedule' }));
  await page.waitForSelector('#pane-scheduler .cm-lint-marker-error');
  await idle(page);
  assert.match((await page.textContent('#status')) ?? '', /Scheduler line \d+/);
  // A second configuration is an error at its line, not silently ignored; a flow-style
  // one-line Node goes to Cluster.
  const config = example('scheduler-config/bin-packing.yaml');
  await page.goto(base + link({ text: `{apiVersion: v1, kind: Node, metadata: {name: flow-1}, status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}}\n---\n${config}---\n${config}`, action: 'schedule' }));
  await page.waitForSelector('#pane-scheduler .cm-lint-marker-error');
  await idle(page);
  const second = config.split('\n').length + config.split('\n').findIndex((l) => l.startsWith('kind: KubeSchedulerConfiguration')) + 1;
  assert.match((await page.textContent('#status')) ?? '', new RegExp(`^schedule: 1 error\\(s\\) in the input: Scheduler line ${second}: .*KubeSchedulerConfiguration: a second one: the scheduler takes one configuration`));
  assert.match((await paneTexts(page))['cluster']!, /^\{apiVersion: v1, kind: Node, metadata: \{name: flow-1\}/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Open files… (the keyboard way to a dump): two files at once, each sorted into its panes', async () => {
  const { page, context, errors } = await open();
  await page.setInputFiles('#file-input', [
    { name: 'dump.yaml', mimeType: 'application/yaml', buffer: Buffer.from(dump) },
    { name: 'pools.yaml', mimeType: 'application/yaml', buffer: Buffer.from(example('nodepools/default.yaml')) },
  ]);
  await page.waitForFunction(() => /dump\.yaml, pools\.yaml: loaded into Cluster, Workloads, NodePools/.test(document.getElementById('status')?.textContent ?? ''));
  const texts = await paneTexts(page);
  assert.match(texts['cluster']!, /name: dumped-1/);
  assert.match(texts['nodepools']!, /kind: NodePool/);
  await act(page, 'provision');
  assert.equal((await page.$$('.node.planned')).length, 1);
  assert.deepEqual(errors, []);
  await context.close();
});

test('long lines wrap in the editor on a phone (nothing to scroll sideways there), not on a desktop; turning the page narrow wraps them, as does opening it on a phone', async () => {
  const { page, context, errors } = await open('desktop');
  /** The shown editor's sideways overflow (px) and the height of its longest line in lines of text. */
  const editor = () =>
    page.$eval('.pane:not([hidden]) .cm-editor', (e) => {
      const scroller = e.querySelector('.cm-scroller')!;
      const lines = [...e.querySelectorAll<HTMLElement>('.cm-line')];
      const longest = lines.reduce((a, l) => ((l.textContent ?? '').length > (a.textContent ?? '').length ? l : a));
      return { overflow: scroller.scrollWidth - scroller.clientWidth, rows: Math.round(longest.getBoundingClientRect().height / parseFloat(getComputedStyle(longest).lineHeight)) };
    });
  // The example's text can reach the editor a frame after the editor itself (open() waits only
  // for the editor): wait for its long lines to lay out before measuring.
  await page.waitForFunction(() => {
    const s = document.querySelector('.pane:not([hidden]) .cm-scroller')!;
    return s.scrollWidth > s.clientWidth;
  }, undefined, { timeout: 10_000 }).catch(() => undefined);
  const desktop = await editor();
  assert.ok(desktop.overflow > 0 && desktop.rows === 1, `desktop: one line each, scrolled sideways: ${JSON.stringify(desktop)}`);
  await page.setViewportSize(SIZES.phone);
  await page.waitForFunction(() => {
    const s = document.querySelector('.pane:not([hidden]) .cm-scroller')!;
    return s.scrollWidth <= s.clientWidth;
  }, undefined, { timeout: 10_000 }).catch(() => undefined);
  const phone = await editor();
  assert.ok(phone.overflow <= 0 && phone.rows > 1, `phone: wrapped: ${JSON.stringify(phone)}`);
  assert.deepEqual(errors, []);
  await context.close();
  const opened = await open('phone');
  const first = await opened.page.$eval('.pane:not([hidden]) .cm-scroller', (s) => s.scrollWidth - s.clientWidth);
  assert.ok(first <= 0, `a page opened on a phone: wrapped from the start (${first} px sideways)`);
  await opened.context.close();
});
