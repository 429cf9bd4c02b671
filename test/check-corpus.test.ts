// The check corpus (test/check-corpus/): real public manifests with the findings a
// senior SRE expects. Fails on any missing, extra or wrongly severe finding, and on a
// fix that does not clear its finding when applied and re-checked.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../src/analyze/analyze.js';
import { ALL_CHECKS } from '../src/analyze/checks/index.js';
import { compare, corpusCases, runCase } from './check-corpus/corpus.js';
import { catalogOrBundled } from '../src/provisioner/catalog/catalog.js';

describe('check corpus', () => {
  for (const c of corpusCases()) {
    it(c.name, () => {
      const { findings, input } = runCase(c);
      const { extra, missing } = compare(c.expect, findings);
      assert.deepEqual({ extra, missing }, { extra: [], missing: [] }, findings.map((f) => `${f.severity} ${f.rule} ${f.object}: ${f.message}`).join('\n'));
      // Every re-simulated fix, applied, clears its finding (the rule no longer reports that object).
      for (const f of findings) {
        const check = ALL_CHECKS.find((x) => x.rule === f.rule)!;
        for (const r of f.remedies ?? []) {
          const fixed = r.apply(input);
          const again = analyze({ input: fixed, instanceTypes: catalogOrBundled(fixed.catalogs), provisioner: fixed.nodePools.some((np) => np.replicas === null), seed: 0 }, [check]);
          assert.deepEqual(again.filter((x) => x.object === f.object && x.severity !== 'info').map((x) => x.message), [], `${f.rule} ${f.object}: "${r.description}" does not clear it`);
        }
      }
    });
  }
});
