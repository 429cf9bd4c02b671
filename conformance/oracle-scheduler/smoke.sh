#!/usr/bin/env bash
# Runs the oracle on testdata/smoke.jsonl and checks each result against
# testdata/smoke.expect.json (exact upstream strings). Builds the oracle first
# if it is missing. Exit 0 when every check passes.
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
const eq = (a, b) => JSON.stringify(a) === JSON.stringify(b);
let passed = 0, failed = 0;
const check = (id, what, got, want) => {
  if (eq(got, want)) { passed++; return; }
  failed++;
  console.log(`FAIL ${id}: ${what}\n  got:  ${JSON.stringify(got)}\n  want: ${JSON.stringify(want)}`);
};
const seen = new Set();
for (const r of results) {
  seen.add(r.id);
  const e = expect[r.id];
  if (!e) { failed++; console.log(`FAIL ${r.id}: no expectation`); continue; }
  check(r.id, 'error', r.error ?? '', '');
  for (const k of ['selected', 'feasible', 'topScore', 'message', 'postFilter', 'preemption']) {
    if (k in e) check(r.id, k, r[k], e[k]);
  }
  if ('preemptionNode' in e) check(r.id, 'preemption.node', r.preemption?.node ?? null, e.preemptionNode);
  if ('victims' in e) check(r.id, 'preemption.victims', r.preemption?.victims ?? null, e.victims);
  const byName = Object.fromEntries((r.nodes ?? []).map((n) => [n.name, n]));
  for (const [node, plugins] of Object.entries(e.nodeFilters ?? {})) {
    for (const [plugin, reasons] of Object.entries(plugins)) {
      const f = byName[node]?.filters?.find((x) => x.plugin === plugin);
      check(r.id, `${node} ${plugin} reasons`, f?.reasons ?? null, reasons);
    }
  }
  for (const [node, plugin] of Object.entries(e.firstFailure ?? {})) {
    check(r.id, `${node} firstFailure`, byName[node]?.firstFailure ?? null, plugin);
    // The one-by-one verdicts must agree with the framework's own.
    const st = byName[node]?.status;
    if (st) check(r.id, `${node} status.plugin`, st.plugin ?? '', plugin);
  }
}
for (const id of Object.keys(expect)) if (!seen.has(id)) { failed++; console.log(`FAIL ${id}: no result`); }
console.log(`smoke: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
JS
