// Browser tests: the built playground (web/dist) served by berth serve's server,
// driven by playwright-core in Debian's Chromium. Run `npm run web:build` first.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { deflateSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createStaticServer } from '../../src/cli/serve.js';

const ROOT = new URL('../../', import.meta.url);
const SHOTS = new URL('../.cache/screenshots/', import.meta.url);
const examples = readdirSync(new URL('examples/', ROOT)).filter((f) => f.endsWith('.yaml')).sort();
const nodepools = readFileSync(new URL('examples/nodepools/default.yaml', ROOT), 'utf8');

const server = createStaticServer(new URL('web/dist/', ROOT).pathname);
let browser: Browser;
let base = '';

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
});
after(async () => {
  await browser.close();
  server.close();
});

async function open(hashText?: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  const hash = hashText === undefined ? '' : `#${deflateSync(Buffer.from(hashText)).toString('base64url')}`;
  await page.goto(base + hash);
  await page.waitForSelector('.cm-content');
  return { page, errors };
}

/** Pod chips per node, as rendered. */
async function placements(page: Page): Promise<Record<string, string[]>> {
  return page.$$eval('.node', (nodes) =>
    Object.fromEntries(nodes.map((n) => [(n as HTMLElement).dataset['node'] ?? '', [...n.querySelectorAll('.pod')].map((p) => p.textContent ?? '')])),
  );
}

const expected: Record<string, { nodes: number; pending: number; message?: string }> = {
  'apiserver-spread-only.yaml': { nodes: 1, pending: 0 },
  'apiserver-min-domains.yaml': { nodes: 1, pending: 2, message: "didn't match pod topology spread constraints" },
  'apiserver-anti-affinity.yaml': { nodes: 3, pending: 0 },
  'kube-dns-required.yaml': { nodes: 1, pending: 1, message: "didn't match pod anti-affinity rules" },
  'kube-dns-preferred.yaml': { nodes: 1, pending: 0 },
  'rolling-update-deadlock.yaml': { nodes: 2, pending: 1, message: "didn't match pod anti-affinity rules" },
};

describe('playground', () => {
  for (const name of examples) {
    test(`${name}: schedule, explain, provision`, async () => {
      const { page, errors } = await open();
      await page.selectOption('#examples', name);
      const t0 = Date.now();
      await page.click('#schedule');
      await page.waitForSelector('.pending-lane');
      const firstResultMs = Date.now() - t0;
      const want = expected[name];
      const nodes = await page.$$('.node');
      const pending = await page.$$('.pending');
      if (want) {
        assert.equal(nodes.length, want.nodes, 'node count');
        assert.equal(pending.length, want.pending, 'pending count');
        if (want.message) assert.match((await page.textContent('.pending-lane')) ?? '', new RegExp(want.message.replace(/[()]/g, '\\$&')));
      }
      const placed = await placements(page);
      if (name === 'apiserver-anti-affinity.yaml') for (const pods of Object.values(placed)) assert.equal(pods.length, 1, 'one replica per node');
      if (name === 'apiserver-spread-only.yaml') assert.equal(Object.values(placed)[0]?.length, 3, 'all three stacked');
      if (pending.length > 0) {
        await page.click('.pending .pod');
        await page.waitForSelector('#explain table');
        assert.match((await page.textContent('#explain .verdict')) ?? '', /unschedulable: 0\/\d+ nodes are available/);
      }
      await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage: true });
      await page.click('#check');
      await page.waitForSelector('#claims h2:text-matches("^Findings")');
      const rules = await page.$$eval('.finding', (els) => els.map((e) => (e as HTMLElement).dataset['rule']));
      if (name === 'rolling-update-deadlock.yaml') {
        assert.ok(rules.includes('rollout-deadlock'), `rollout-deadlock among ${rules.join(', ')}`);
        assert.match((await page.textContent('.finding[data-rule="rollout-deadlock"] .fix')) ?? '', /maxUnavailable/);
      }
      await page.screenshot({ path: new URL(`check-${name}.png`, SHOTS).pathname, fullPage: true });
      assert.deepEqual(errors, []);
      process.stdout.write(`# ${name}: first result ${firstResultMs} ms\n`);
      await page.close();
    });
  }

  test('provision from a shared link: the pending kube-dns replica gets a new NodeClaim', async () => {
    const text = `${readFileSync(new URL('examples/kube-dns-required.yaml', ROOT), 'utf8')}\n---\n${nodepools}`;
    const { page, errors } = await open(text);
    await page.click('#provision');
    await page.waitForSelector('.claim');
    assert.equal((await page.$$('.claim')).length, 1);
    assert.equal((await page.$$('.node')).length, 2, 'node-1 and the one planned claim');
    assert.equal((await page.$$('.node.planned')).length, 1);
    assert.equal((await page.$$('.pending')).length, 0);
    assert.match((await page.textContent('.claim')) ?? '', /us-west-2[a-d]/);
    await page.screenshot({ path: new URL('provision-kube-dns.png', SHOTS).pathname, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('an input error shows inline at its line, and the URL keeps the text', async () => {
    const { page, errors } = await open('apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: "four"}}\n');
    await page.click('#schedule');
    await page.waitForSelector('.cm-lintRange-error');
    assert.match((await page.textContent('#status')) ?? '', /1 error\(s\)/);
    assert.equal(await page.$eval('.cm-lintRange-error', (e) => e.closest('.cm-line')?.textContent?.startsWith('status:')), true);
    const hash = await page.evaluate(() => location.hash);
    assert.equal(Buffer.from(hash.slice(1), 'base64url').length > 0, true);
    await page.setViewportSize({ width: 400, height: 800 });
    await page.screenshot({ path: new URL('narrow-error.png', SHOTS).pathname, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('simulate', () => {
  const scenarios = readdirSync(new URL('examples/scenarios/', ROOT)).filter((f) => f.endsWith('.yaml')).sort();
  for (const name of scenarios) {
    test(`scenarios/${name}: every expectation passes in the browser`, async () => {
      const { page, errors } = await open();
      await page.selectOption('#examples', `scenarios/${name}`);
      await page.click('#simulate');
      await page.waitForSelector('.expectation');
      const results = await page.$$eval('.expectation', (els) => els.map((e) => e.textContent ?? ''));
      assert.ok(results.length > 0);
      for (const r of results) assert.match(r, /^PASS /);
      assert.ok(((await page.textContent('.timeline')) ?? '').includes('Step'), 'the timeline shows the steps');
      if (name === 'apiserver-anti-affinity.yaml') assert.equal((await page.$$('.node')).length, 3, 'cp-1 and the two launched nodes');
      await page.screenshot({ path: new URL(`simulate-${name}.png`, SHOTS).pathname, fullPage: true });
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});

test('the replay scrubs the kube-dns scenario: a replica pending at 5m, spread again at the end, played to the end', async () => {
  const { page, errors } = await open();
  await page.selectOption('#examples', 'scenarios/kube-dns-required.yaml');
  await page.click('#simulate');
  await page.waitForSelector('.scrub');
  const scrubTo = (ms: number) => page.$eval('.scrub', (e, v) => {
    const input = e as HTMLInputElement;
    input.value = String(v);
    input.dispatchEvent(new Event('input'));
  }, ms);
  await scrubTo(5 * 60_000);
  assert.match((await page.textContent('.sim-time')) ?? '', /^5m00s \//);
  assert.equal((await page.$$('.pending')).length, 1);
  assert.match((await page.textContent('.pending-lane')) ?? '', /didn't match pod anti-affinity rules/);
  assert.deepEqual(Object.keys(await placements(page)), ['node-1']);
  assert.ok((await page.$$('.timeline .event.future')).length > 0, 'events after 5m are greyed');
  await scrubTo(0);
  await page.click('.play');
  await page.waitForFunction(() => document.querySelector('.play')?.textContent === 'Play' && (document.querySelector('.scrub') as HTMLInputElement).value === (document.querySelector('.scrub') as HTMLInputElement).max, undefined, { timeout: 20_000 });
  assert.equal((await page.$$('.pending')).length, 0);
  assert.deepEqual(Object.keys(await placements(page)).sort(), ['node-1', 'node-3']);
  assert.equal((await page.$$('.ready-plot polyline[data-workload="kube-dns"]')).length, 1);
  await page.screenshot({ path: new URL('replay-kube-dns.png', SHOTS).pathname, fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('works offline once loaded', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(base);
  await page.waitForSelector('.cm-content');
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await page.reload();
  await page.waitForSelector('.cm-content');
  await context.setOffline(true);
  await page.reload();
  await page.waitForSelector('.cm-content');
  await page.click('#schedule');
  await page.waitForSelector('.node');
  await context.close();
});
