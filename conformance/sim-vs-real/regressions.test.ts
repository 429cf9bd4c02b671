// Replays every stored sim-vs-real scenario without a cluster: the simulator,
// at the stored real phase times, against the stored real observation. A file
// with openDifferences records a disagreement not fixed yet: it must still
// disagree (when it stops, the fix lands with the file's openDifferences removed).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { judge } from './judge.js';
import type { RealObservation } from './real-side.js';
import { validateScenario, type SvrScenario } from './scenario.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'regressions');

describe('sim-vs-real regressions', () => {
  for (const f of readdirSync(DIR).filter((x) => x.endsWith('.json')).sort()) {
    it(f, () => {
      const stored = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as { scenario: SvrScenario; real: RealObservation; openDifferences?: number };
      validateScenario(stored.scenario, f);
      const v = judge(stored.scenario, stored.real);
      if (stored.openDifferences === undefined) assert.deepEqual(v.differences, [], `${f}: the simulator disagrees with the stored real run`);
      else assert.equal(v.agrees, false, `${f}: agrees now; drop its openDifferences`);
    });
  }
});
