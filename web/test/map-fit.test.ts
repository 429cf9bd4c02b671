// Fit's zoom from the map's geometry (no browser): the compact map's height at a
// zoom follows the grid's rules, and Fit takes the largest whole percent that fits.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactFit, compactHeight, type MapGeometry } from '../src/map-fit.js';

/** The 200-node input's three zones in a 700 px wide map. */
const map: MapGeometry = { width: 700, zoneSizes: [67, 67, 66], zoneChrome: 42, zoneSides: 14, cardMin: 200, gap: 6, compactCard: 56 };

test('compact height: columns from the zoomed width, rows per zone, each zone with its heading and padding', () => {
  // At 30%: 700 / 0.3 - 14 = 2319 px of grid, 11 columns of 200 + 6; rows 7, 7, 6 of 56 + 6.
  const zones = [42 + 7 * 62 - 6, 42 + 7 * 62 - 6, 42 + 6 * 62 - 6];
  assert.equal(compactHeight(map, 0.3), 0.3 * (zones[0]! + zones[1]! + zones[2]!));
  // At 100%: 3 columns (686 px of grid), 23 rows in each of the first two zones.
  assert.equal(compactHeight(map, 1), 3 * 42 + (23 + 23 + 22) * 62 - 3 * 6);
  // Narrower than one card: still one column.
  assert.equal(compactHeight({ ...map, width: 100, zoneSizes: [2] }, 1), 42 + 2 * 62 - 6);
  assert.equal(compactHeight({ ...map, zoneSizes: [0] }, 1), 42, 'an empty zone is its heading');
});

test('compact fit: the largest whole percent at which the map is no higher than the room', () => {
  const room = 600;
  const z = compactFit(map, room, 49, 10)!;
  assert.ok(compactHeight(map, z) <= room);
  assert.ok(compactHeight(map, z + 0.01) > room, `${z + 0.01} fits as well`);
  assert.equal(compactFit(map, 10_000, 49, 10), 0.49, 'never above the compact range');
  assert.equal(compactFit(map, 50, 49, 10), undefined, 'too little room at any zoom');
});
