// Disagreements the Karpenter disruption comparison found and berth has since fixed
// stay fixed: berth's first disruption command is the one Karpenter v1.14.1's code
// gave for the case (stored with it, so the replay needs no Go).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DisruptionCase } from './disruption-gen.js';
import { normalize, runBerth, type Command } from './disruption-run.js';

interface Regression {
  readonly note: string;
  readonly karpenter: Command | null;
  readonly case: DisruptionCase;
}

const dir = join(import.meta.dirname, 'disruption-regressions');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

describe('Karpenter disruption regressions', () => {
  for (const f of files) {
    const r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Regression;
    it(`${f}: ${r.note.slice(0, 90)}`, () => {
      const got = runBerth(r.case);
      assert.ok(!('error' in got), 'error' in got ? got.error : '');
      assert.deepEqual(got.command, normalize(r.karpenter));
    });
  }
});
