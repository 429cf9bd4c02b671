// node:test reporter for `npm test`: prints each failing test in full (file, name,
// error) as it happens and one summary line at the end, instead of ~16,000 lines of
// TAP. `npm test -- --test-reporter=spec` brings the usual reporters back.
import { inspect } from 'node:util';

export default async function* summary(source) {
  const counts = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  const started = Date.now();
  for await (const event of source) {
    if (event.type === 'test:stderr' || event.type === 'test:stdout') continue;
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    if (details.type === 'suite') continue;
    if (event.data.skip !== undefined) counts.skipped++;
    else if (event.data.todo !== undefined) counts.todo++;
    else if (event.type === 'test:pass') counts.passed++;
    else {
      counts.failed++;
      const error = details.error?.cause ?? details.error;
      yield `\n✖ ${file ?? ''}\n  ${name}\n${inspect(error, { depth: 4 }).replace(/^/gm, '    ')}\n`;
    }
  }
  const total = counts.passed + counts.failed + counts.skipped + counts.todo;
  yield `\n${counts.failed === 0 ? '✔' : '✖'} ${total} tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped, ${counts.todo} todo (${((Date.now() - started) / 1000).toFixed(0)} s)\n`;
}
