// Every disagreement the Karpenter comparison found and berth has since fixed stays
// fixed: berth places exactly the pods Karpenter placed. Replays need no Go.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { KarpenterCase } from './karpenter-gen.js';
import { runBerth } from './karpenter-berth.js';

interface Regression {
  readonly case: KarpenterCase;
  readonly result: { readonly karpenterErrors: Record<string, string> };
  readonly diagnosis: string;
  readonly fixedBy: string;
}

const dir = join(import.meta.dirname, 'karpenter-regressions');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

describe('Karpenter regressions', () => {
  for (const f of files) {
    const r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Regression;
    // fixedBy names the berth change that fixed the case; a case still open says "open: why" and is skipped, not hidden.
    const open = r.fixedBy.startsWith('open');
    it(`${f}: ${r.diagnosis.slice(0, 90)}`, { skip: open ? `open: ${r.fixedBy}` : false }, () => {
      const plan = runBerth(r.case);
      assert.ok(!('error' in plan), 'error' in plan ? plan.error : '');
      const unplaced = new Set(plan.unschedulable.map((u) => u.pod));
      assert.deepEqual([...unplaced].sort(), Object.keys(r.result.karpenterErrors).sort());
    });
  }
});
