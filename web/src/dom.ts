// The one way the page makes elements: text goes in as text, never as markup.

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls = '', text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

/** Main-thread work per slice: well under the 50 ms at which a task counts as long. */
const SLICE_MS = 8;

let epoch = 0;

/** Abandons every inSlices() loop still running (the results they fill are being replaced). */
export function abandonSlices(): void {
  epoch++;
}

/**
 * Calls `f` on each item, yielding to the page every few milliseconds so that a
 * large result never blocks input or paint. With `perFrame`, each slice is at most
 * that many items and the next waits for the next frame: for items that cost more to
 * render than to make (those on screen are all laid out and painted in the frame
 * after their slice). The first slice waits for a frame too: made in the caller's
 * task, it was rendered in the next frame together with that frame's own slice (40
 * explain rows, 790 layout objects, where 20 were meant). Resolves false when
 * abandoned midway.
 */
export async function inSlices<T>(items: Iterable<T>, f: (item: T) => void, perFrame = Infinity): Promise<boolean> {
  const mine = epoch;
  const pause = perFrame === Infinity ? (go: () => void) => setTimeout(go, 0) : (go: () => void) => requestAnimationFrame(() => go());
  let deadline = performance.now() + SLICE_MS;
  let left = perFrame === Infinity ? Infinity : 0;
  for (const item of items) {
    if (left <= 0 || performance.now() > deadline) {
      await new Promise<void>(pause);
      if (epoch !== mine) return false;
      deadline = performance.now() + SLICE_MS;
      left = perFrame;
    }
    left--;
    f(item);
  }
  return epoch === mine;
}
