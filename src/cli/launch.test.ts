import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { childNodeArgs, FatalReportFilter, SEMI_SPACE_MB } from './launch.js';
import { OUT_OF_MEMORY_EXIT } from './memory.js';

const BIN = fileURLToPath(new URL('../../bin/berth.js', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../examples/kube-dns-required.yaml', import.meta.url));

function berth(nodeOptions: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, NODE_OPTIONS: nodeOptions } }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }));
  });
}

const V8_REPORT = '\n<--- Last few GCs --->\n\n[1:0x1]  147 ms: Mark-Compact 13.7 (22.0) -> 13.2 (30.0) MB\n\n<--- JS stacktrace --->\n\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n----- Native stack trace -----\n\n 1: 0xb78db3 node::OOMErrorHandler(char const*, v8::OOMDetails const&) [node]\n';

test("the filter passes stderr through and stops at V8's report, wherever the chunks split", () => {
  const text = `checking \u001b[K50%\nberth: a warning\n${V8_REPORT}`;
  for (let cut = 0; cut <= text.length; cut++) {
    const filter = new FatalReportFilter();
    const passed = filter.push(text.slice(0, cut)) + filter.push(text.slice(cut)) + filter.end();
    assert.equal(passed, 'checking \u001b[K50%\nberth: a warning\n', `cut at ${cut}`);
    assert.equal(filter.outOfMemory, true);
  }
});

test('the filter holds back a possible start of the report only until the stream ends', () => {
  const filter = new FatalReportFilter();
  assert.equal(filter.push('done\n<--- Last'), 'done');
  assert.equal(filter.end(), '\n<--- Last');
  assert.equal(filter.report, undefined);
});

test('a fatal stop that is not the heap is named by its FATAL ERROR line', () => {
  const filter = new FatalReportFilter();
  filter.push('FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal\n 1: 0x1 node::Abort() [node]\n');
  assert.equal(filter.outOfMemory, false);
  assert.equal(filter.fatalLine, 'FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal');
});

test("the child gets the launcher's heap limit and young generation, except those the user set", () => {
  assert.deepEqual(childNodeArgs(['--import', 'tsx'], '', 1000), ['--import', 'tsx', '--max-old-space-size=1000', `--max-semi-space-size=${SEMI_SPACE_MB}`]);
  assert.deepEqual(childNodeArgs([], '--max-semi-space-size=16', 1000), ['--max-old-space-size=1000']);
  assert.deepEqual(childNodeArgs(['--max_old_space_size=300'], '', 300), ['--max_old_space_size=300', `--max-semi-space-size=${SEMI_SPACE_MB}`]);
  assert.deepEqual(childNodeArgs([], '--max-old-space-size=500 --max-semi-space-size=8', 500), []);
});

test("berth out of heap: one line naming the limit and the input, exit 3, none of V8's report", async () => {
  const r = await berth('--max-old-space-size=24', 'check', '--cluster', EXAMPLE);
  assert.equal(r.code, OUT_OF_MEMORY_EXIT);
  assert.match(r.stderr, /^berth: out of memory: the JavaScript heap reached its limit of 24 MB on \d+ KB of input \(.*kube-dns-required\.yaml\); try a larger limit \(NODE_OPTIONS=--max-old-space-size=MB; this machine has [\d,]+ MB\), or a smaller input\n$/);
});

test("berth without a limit of the user's own runs with the launcher's, and exits as berth does", async () => {
  const r = await berth('', 'check', '--cluster', EXAMPLE, '-o', 'json');
  assert.equal(r.stderr, '');
  assert.ok(Array.isArray(JSON.parse(r.stdout).findings));
  const v = await berth('', 'check', '--cluster', '/nonexistent.yaml');
  assert.equal(v.code, 2);
  assert.match(v.stderr, /^berth: cannot read \/nonexistent\.yaml/);
});
