// The zoom at which Fit brings every node card on one screen, computed from the
// map's geometry (read once) instead of zooming, laying out and measuring in a loop:
// each such step lays out and paints every card, and on hundreds of nodes one step
// was a main-thread task of over 100 ms. Compact cards have a fixed height, so the
// map's height at any zoom follows from the grid's rules alone.

/** What one layout read gives; lengths in the map's own (unzoomed) CSS pixels. */
export interface MapGeometry {
  /** Width the zones get from the page, in page pixels (not zoomed). */
  readonly width: number;
  /** Nodes per zone, in order. */
  readonly zoneSizes: readonly number[];
  /** A zone's height besides its grid (heading, padding, border, margin). */
  readonly zoneChrome: number;
  /** A zone's width besides its grid (padding, border). */
  readonly zoneSides: number;
  /** The grid's smallest column and its gap (repeat(auto-fill, minmax(cardMin, 1fr))). */
  readonly cardMin: number;
  readonly gap: number;
  /** A compact card's fixed height. */
  readonly compactCard: number;
}

/** The map's height on screen, in page pixels, with compact cards at `zoom`. */
export function compactHeight(g: MapGeometry, zoom: number): number {
  const gridWidth = g.width / zoom - g.zoneSides;
  const columns = Math.max(1, Math.floor((gridWidth + g.gap) / (g.cardMin + g.gap)));
  let height = 0;
  for (const n of g.zoneSizes) {
    const rows = Math.ceil(n / columns);
    height += g.zoneChrome + (rows > 0 ? rows * (g.compactCard + g.gap) - g.gap : 0);
  }
  return height * zoom;
}

/**
 * The largest zoom, in whole percent from `maxPercent` down to `minPercent`, at which
 * the compact map is no higher than `room`; undefined when even the smallest is.
 */
export function compactFit(g: MapGeometry, room: number, maxPercent: number, minPercent: number): number | undefined {
  for (let p = maxPercent; p >= minPercent; p--) if (compactHeight(g, p / 100) <= room) return p / 100;
  return undefined;
}
