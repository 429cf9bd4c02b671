#!/usr/bin/env bash
# Runs the oracle on testdata/smoke.jsonl and checks each result against
# testdata/smoke.expect.json (claims: pool, pods, cheapest type, price; the pods that
# get an error). Builds the oracle first if it is missing. Exit 0 when all pass.
set -euo pipefail
cd "$(dirname "$0")"
[[ -x ./oracle ]] || ./build.sh
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
./oracle < testdata/smoke.jsonl > "$out"
if [[ "${SMOKE_VERBOSE:-}" == 1 ]]; then cat "$out"; fi
node - "$out" testdata/smoke.expect.json <<'JS'
const fs = require('node:fs');
const [outFile, expectFile] = process.argv.slice(2);
const results = fs.readFileSync(outFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const expect = JSON.parse(fs.readFileSync(expectFile, 'utf8'));
let failed = 0;
for (const r of results) {
  const e = expect[r.id];
  const got = {
    claims: r.nodeClaims.map((c) => ({ nodePool: c.nodePool, pods: c.pods, instanceType: c.instanceType, price: c.price })),
    podErrors: Object.keys(r.podErrors).sort(),
  };
  if (r.error || !e || JSON.stringify(got) !== JSON.stringify(e)) {
    failed++;
    console.log(`FAIL ${r.id}${r.error ? `: ${r.error}` : ''}\n  got:  ${JSON.stringify(got)}\n  want: ${JSON.stringify(e)}`);
  }
}
if (results.length !== Object.keys(expect).length) { failed++; console.log(`FAIL: ${results.length} results for ${Object.keys(expect).length} cases`); }
console.log(`${results.length - failed}/${results.length} smoke cases pass`);
process.exit(failed ? 1 : 0);
JS
