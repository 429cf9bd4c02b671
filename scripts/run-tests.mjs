// Runs every *.test.ts under src/ and test/ with node:test through tsx.
// (Node 20's --test does not expand globs itself.) Extra arguments are passed to node --test;
// without a --test-reporter of their own, failures and one summary line are printed (test-reporter.mjs).
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const roots = ['src', 'test', 'conformance', 'bench', 'scripts'].filter((r) => existsSync(r));
const files = roots
  .flatMap((root) => readdirSync(root, { recursive: true }).map((f) => join(root, String(f))))
  .filter((f) => f.endsWith('.test.ts') && !f.includes('node_modules'))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const args = process.argv.slice(2);
const reporter = args.some((a) => a.startsWith('--test-reporter')) ? [] : ['--test-reporter', new URL('./test-reporter.mjs', import.meta.url).pathname];
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...reporter, ...args, ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
