import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PALETTE, workloadColours } from '../web/src/colours.js';

/** WCAG 2 relative luminance and contrast ratio. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
};

describe('playground workload colours', () => {
  it('white chip text on every colour has a contrast of at least 4.5:1 (and every chip 3:1 against the white page)', () => {
    for (const c of PALETTE) assert.ok(contrast(c, '#ffffff') >= 4.5, `${c}: ${contrast(c, '#ffffff').toFixed(2)}`);
  });
  it('the twelve colours are distinct', () => {
    assert.equal(new Set(PALETTE).size, PALETTE.length);
  });
  it('workloads take colours in name order, the same whatever order they are met in', () => {
    const a = workloadColours(['web', 'api', 'db', 'api']);
    assert.deepEqual([...a], [['api', PALETTE[0]], ['db', PALETTE[1]], ['web', PALETTE[2]]]);
    assert.deepEqual([...workloadColours(['db', 'web', 'api'])], [...a]);
  });
});
