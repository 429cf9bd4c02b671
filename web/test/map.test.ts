// Browser tests of the map's zoom and Fit on the 200-node input and of the skew
// view per topology spread constraint. Run `npm run web:build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { act, axeSerious, drop, horizontalOverflow, link, open, screenshot, useBrowser, type Size } from './browser.test-support.js';
import { largeInput } from './large-input.test-support.js';

useBrowser();

for (const size of ['desktop', 'phone'] as Size[]) {
  test(`${size}: 200 nodes: Fit zooms the map out, in one step, until every node is on one screen; the slider and 100% zoom back in`, { timeout: 300_000 }, async () => {
    const { page, context, errors } = await open(size);
    await drop(page, [{ name: 'large.yaml', text: largeInput() }]);
    await page.waitForFunction(() => /loaded into Cluster, Workloads/.test(document.getElementById('status')?.textContent ?? ''), undefined, { timeout: 60_000 });
    await act(page, 'schedule', 240_000);
    assert.equal((await page.$$('.node')).length, 200);
    // 200 pods pending for one reason: the first 24 shown, the rest a click away, so the map stays near the top.
    assert.equal((await page.$$('.pending-lane .pod')).length, 24);
    await page.click('.pending-group .show-all:text("Show all 200")');
    await page.waitForFunction(() => document.querySelectorAll('.pending-lane .pod').length === 200);
    assert.equal(await page.$('.pending-group .show-all'), null);
    const mapHeight = () => page.$eval('#map .zones', (e) => e.getBoundingClientRect().height);
    const room = await page.evaluate(() => Math.min(document.getElementById('results')!.clientHeight, window.innerHeight));
    assert.ok((await mapHeight()) > 3 * room, 'at 100% the 200 cards take several screens');
    // Each zoom the map is set to, as Fit sets it: one, computed from the grid's geometry
    // (each trial zoom would lay out and paint every card, a long task on 200 nodes).
    await page.evaluate(() => {
      const zones = document.querySelector('#map .zones') as HTMLElement;
      const w = window as unknown as { zooms: string[]; unrevealed: number[] };
      w.zooms = [];
      new MutationObserver(() => w.zooms.push(zones.style.zoom)).observe(zones, { attributes: true, attributeFilter: ['style'] });
      // Cards still hidden after each change of the cards' classes (once per frame while they are shown).
      w.unrevealed = [];
      new MutationObserver(() => w.unrevealed.push(zones.querySelectorAll('.node.unrevealed').length)).observe(zones, { attributes: true, attributeFilter: ['class'], subtree: true });
    });
    await page.click('#map .fit');
    await page.waitForSelector('#map[data-fit="true"]');
    const zooms = await page.evaluate(() => (window as unknown as { zooms: string[] }).zooms);
    assert.equal(zooms.length, 1, `Fit set the zoom ${zooms.length} times: ${zooms.join(', ')}`);
    const fitted = await mapHeight();
    assert.ok(fitted <= room, `fitted map ${fitted} px high, room ${room} px`);
    const zoom = Number(await page.inputValue('#map input[type=range]'));
    assert.ok(zoom < 50 && zoom >= 10, `zoom ${zoom}%: compact`);
    assert.equal(zooms[0], String(zoom / 100));
    // Compact, all 200 cards are on screen: they are shown a slice per frame, not styled, laid out and painted in one task.
    const unrevealed = await page.evaluate(() => (window as unknown as { unrevealed: number[] }).unrevealed);
    assert.ok(unrevealed.length >= 3 && unrevealed[0]! > 0 && unrevealed.at(-1) === 0, `cards hidden frame by frame: ${unrevealed.join(', ')}`);
    assert.ok(unrevealed.every((n, i) => i === 0 || n < unrevealed[i - 1]!), `fewer hidden each frame: ${unrevealed.join(', ')}`);
    // The largest zoom that fits (under the sticky zoom bar, with a margin): one percent more and the compact map would not.
    const fitRoom = room - (await page.$eval('#map .map-tools', (e) => (e as HTMLElement).offsetHeight)) - 16;
    assert.ok(fitted <= fitRoom, `fitted map ${fitted} px high, room under the zoom bar ${fitRoom} px`);
    await page.fill('#map input[type=range]', String(zoom + 1));
    const above = await mapHeight();
    assert.ok(above > fitRoom, `at ${zoom + 1}% the map fits too (${above} px, room ${fitRoom} px)`);
    await page.click('#map .fit');
    await page.waitForSelector('#map[data-fit="true"]');
    assert.equal(Number(await page.inputValue('#map input[type=range]')), zoom, 'Fit again from another zoom: the same zoom');
    assert.equal(await page.textContent('#map .zoom-value'), `${zoom}%`);
    await page.locator('#map .zones').scrollIntoViewIfNeeded();
    await screenshot(page, `map-fit-200-nodes-${size}`);
    await page.fill('#map input[type=range]', '50');
    assert.ok((await mapHeight()) > fitted, 'zooming in makes the map taller');
    await page.evaluate(() => ((window as unknown as { unrevealed: number[] }).unrevealed = []));
    await page.click('#map button:text("100%")');
    assert.equal(await page.evaluate(() => (document.querySelector('#map .zones') as HTMLElement).style.zoom), '1');
    // Back at full size the cards are shown again a slice per frame too, from the top.
    await page.waitForFunction(() => document.querySelectorAll('#map .node.unrevealed').length === 0);
    const shownAgain = await page.evaluate(() => (window as unknown as { unrevealed: number[] }).unrevealed);
    assert.ok(shownAgain.length >= 3 && shownAgain[0]! > 0 && shownAgain.at(-1) === 0, `cards hidden frame by frame: ${shownAgain.join(', ')}`);
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test('a map that fits at 100% stays at 100% on Fit, with names and pods', async () => {
  const { page, context, errors } = await open();
  await page.selectOption('#examples', 'apiserver-anti-affinity.yaml');
  await act(page, 'schedule');
  await page.fill('#map input[type=range]', '30');
  assert.equal(await page.$eval('#map .zones', (e) => e.classList.contains('compact')), true);
  await page.click('#map .fit');
  await page.waitForSelector('#map[data-fit="true"]');
  assert.equal(await page.inputValue('#map input[type=range]'), '100');
  assert.equal(await page.$eval('#map .zones', (e) => e.classList.contains('compact')), false);
  assert.equal((await page.$$('.node .pod')).length, 3);
  assert.deepEqual(errors, []);
  await context.close();
});

/** Three zones; web's four replicas bound in zone a (three) and b (one), spread ScheduleAnyway, so nothing stops the skew. */
const skewed = [
  ...['a', 'b', 'c'].map((z) => `apiVersion: v1\nkind: Node\nmetadata: {name: node-${z}, labels: {kubernetes.io/hostname: node-${z}, topology.kubernetes.io/zone: zone-${z}}}\nstatus: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}`),
  ...['a', 'a', 'a', 'b'].map(
    (z, i) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: web-${i}, labels: {app: web}}\nspec:\n  nodeName: node-${z}\n  topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}]\n  containers: [{name: c, image: i}]`,
  ),
].join('\n---\n');

for (const size of ['desktop', 'phone'] as Size[]) {
  test(`${size}: the skew view shows each spread constraint's pods per domain and marks a skew over maxSkew`, async () => {
    const { page, context, errors } = await open(size);
    await page.selectOption('#examples', 'apiserver-min-domains.yaml');
    await act(page, 'schedule');
    // Two pending replicas declare the same constraint: one panel names both.
    assert.deepEqual(await page.$$eval('.spread h3', (e) => e.map((x) => x.textContent)), ['kube-system/apiserver-1, kube-system/apiserver-2 · kubernetes.io/hostname']);
    assert.equal(await page.textContent('.spread .spread-verdict'), 'skew 1 ≤ maxSkew 1 · DoNotSchedule · minDomains 3 (1 domain)');
    assert.deepEqual(await page.$$eval('.spread-domain', (e) => e.map((x) => x.textContent)), ['cp-11']);

    await page.goto(`${page.url().split('#')[0]}${link({ text: skewed, action: 'schedule' })}`);
    await page.waitForSelector('.spread.over');
    assert.match((await page.textContent('.spreads h2')) ?? '', /^Topology spread \(1 constraint, 1 over maxSkew\)$/);
    assert.equal(await page.textContent('.spread.over .spread-verdict'), 'skew 3 > maxSkew 1 · ScheduleAnyway');
    assert.deepEqual(await page.$$eval('.spread-domain', (e) => e.map((x) => [(x as HTMLElement).dataset['domain'], x.querySelector('.spread-count')?.textContent])), [['zone-a', '3'], ['zone-b', '1'], ['zone-c', '0']]);
    assert.deepEqual(await axeSerious(page), []);
    assert.ok((await horizontalOverflow(page)) <= 0, 'no sideways scroll');
    await screenshot(page, `skew-${size}`);
    assert.deepEqual(errors, []);
    await context.close();
  });
}
