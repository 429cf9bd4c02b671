// What the playground's browser tests share: the built page (web/dist) served by
// berth serve's server, Debian's Chromium through playwright-core, pages at desktop
// and phone sizes, links made as the page makes them, and screenshots under
// web/.cache/screenshots (gitignored; CI keeps them as artifacts).

import { after, before } from 'node:test';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { deflateSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createStaticServer } from '../../src/cli/serve.js';

export const ROOT = new URL('../../', import.meta.url);
const SHOTS = new URL('../.cache/screenshots/', import.meta.url);

export const SIZES = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const;
export type Size = keyof typeof SIZES;

const server = createStaticServer(new URL('web/dist/', ROOT).pathname);
let browser: Browser;
export let base = '';

/** Starts the server and the browser for the file's tests (call once at the top of a test file). */
export function useBrowser(): void {
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
}

/** A link as the page writes it: example, action, and the text deflated (base64url). */
export function link(state: { example?: string; action?: string; text?: string }): string {
  const params = new URLSearchParams();
  if (state.example) params.set('e', state.example);
  if (state.action) params.set('a', state.action);
  if (state.text !== undefined) params.set('t', deflateSync(Buffer.from(state.text)).toString('base64url'));
  return `#${params.toString()}`;
}

export interface Opened {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Console errors and uncaught exceptions seen so far. */
  readonly errors: string[];
}

export async function open(size: Size = 'desktop', hash = ''): Promise<Opened> {
  const context = await browser.newContext({ viewport: SIZES[size] });
  // On a machine shared with other test runs a page load alone can take over 30 s.
  context.setDefaultTimeout(120_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(base + hash);
  await page.waitForSelector('.pane:not([hidden]) .cm-content');
  return { page, context, errors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage: true });
}

/** Waits until no run is in progress (the action buttons are enabled again). */
export async function idle(page: Page, timeout = 60_000): Promise<void> {
  await page.waitForFunction(() => !(document.getElementById('schedule') as HTMLButtonElement).disabled && document.getElementById('results')?.getAttribute('aria-busy') !== 'true', undefined, { timeout });
}

/** Clicks an action button and waits for its run to end. */
export async function act(page: Page, action: 'schedule' | 'provision' | 'simulate' | 'check', timeout?: number): Promise<void> {
  const runs = () => page.evaluate(() => Number(document.getElementById('results')?.dataset['runs'] ?? 0));
  const before = await runs();
  await page.click(`#${action}`);
  await page.waitForFunction((n) => Number(document.getElementById('results')?.dataset['runs'] ?? 0) > n, before, { timeout: timeout ?? 60_000 });
  await idle(page, timeout);
}

/** Drops files on the editor as a user dragging them from a file manager does. */
export async function drop(page: Page, files: { name: string; text: string }[]): Promise<void> {
  await page.evaluate((fs) => {
    const data = new DataTransfer();
    for (const f of fs) data.items.add(new File([f.text], f.name, { type: 'application/yaml' }));
    const target = document.querySelector('#editor .pane:not([hidden]) .cm-content')!;
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  }, files);
}

/** Pod chips per node, as rendered. */
export async function placements(page: Page): Promise<Record<string, string[]>> {
  return page.$$eval('.node', (nodes) => Object.fromEntries(nodes.map((n) => [(n as HTMLElement).dataset['node'] ?? '', [...n.querySelectorAll('.pod')].map((p) => p.textContent ?? '')])));
}

/** Pending pod chips. */
export async function pendingPods(page: Page): Promise<string[]> {
  return page.$$eval('.pending-lane .pod', (els) => els.map((e) => e.textContent ?? ''));
}

/** Serious and critical axe-core violations of the page as it is now. */
export async function axeSerious(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: new URL('node_modules/axe-core/axe.min.js', ROOT).pathname });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: { id: string; impact: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const r = await axe.run(document);
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => String(n.target)).join(' | ')}`);
  });
}

/** The page is no wider than its viewport (nothing to scroll sideways). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** Each NodeClaim card as laid out: its $/h, whether that is wholly on screen and inside the card, the card's height (px) and whether the card scrolls sideways. */
export async function claimCards(page: Page): Promise<{ price: string; priceShown: boolean; height: number; overflows: boolean }[]> {
  return page.$$eval('.claim', (cards) =>
    cards.map((c) => {
      const card = c.getBoundingClientRect();
      const price = c.querySelector('.claim-price');
      const p = price?.getBoundingClientRect();
      const priceShown = p !== undefined && p.width > 0 && p.left >= card.left && p.right <= card.right && p.left >= 0 && p.right <= window.innerWidth;
      return { price: price?.textContent ?? '', priceShown, height: card.height, overflows: c.scrollWidth > c.clientWidth };
    }),
  );
}
