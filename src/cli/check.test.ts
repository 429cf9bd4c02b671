import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TWO_CORE_POOL_MIN_OBJECTS } from '../analyze/parallel.js';
import { DENSEST_BYTES_PER_OBJECT, earlyPoolServes, likelyWorkers } from './check.js';

describe('the workers check opens before it reads the input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-check-'));
  const small = join(dir, 'small.yaml');
  const large = join(dir, 'large.yaml');
  writeFileSync(small, 'kind: Node\n');
  writeFileSync(large, '#'.repeat(256 * 1024));
  const huge = join(dir, 'huge.yaml');
  writeFileSync(huge, '#'.repeat(TWO_CORE_POOL_MIN_OBJECTS * DENSEST_BYTES_PER_OBJECT));
  const flags = (over: { jobs?: number; headroom?: boolean; filename?: string[]; cluster?: string[] }) => ({ filename: [], cluster: [], ...over });

  it('--jobs N: N, whatever the input', async () => {
    assert.equal((await likelyWorkers(flags({ jobs: 3, cluster: [small] }), 2)).workers, 3);
    assert.equal((await likelyWorkers(flags({ jobs: 1, cluster: [large] }), 2)).workers, 1);
  });

  it('without --jobs: every core once the input files reach 256 KB, together or alone; on two cores, once they could hold TWO_CORE_POOL_MIN_OBJECTS pods and nodes', async () => {
    assert.equal((await likelyWorkers(flags({ cluster: [large] }), 4)).workers, 4);
    assert.equal((await likelyWorkers(flags({ filename: [small], cluster: [large] }), 3)).workers, 3);
    assert.equal((await likelyWorkers(flags({ cluster: [small] }), 4)).workers, 1);
    assert.equal((await likelyWorkers(flags({ filename: [small], cluster: [large] }), 2)).workers, 1);
    assert.equal((await likelyWorkers(flags({ cluster: [huge] }), 2)).workers, 2);
  });

  it('the pods and nodes the files could hold, written as densely as a dump is: their workers\' heaps until the input is loaded', async () => {
    assert.equal((await likelyWorkers(flags({ filename: [small], cluster: [large] }), 2)).objects, Math.ceil((11 + 256 * 1024) / DENSEST_BYTES_PER_OBJECT));
    assert.equal((await likelyWorkers(flags({ cluster: [huge] }), 2)).objects, TWO_CORE_POOL_MIN_OBJECTS);
  });

  it('none on one core, for --headroom (one thread), or for what is not a file (stdin, a folder, a missing path)', async () => {
    assert.equal((await likelyWorkers(flags({ cluster: [large] }), 1)).workers, 1);
    assert.equal((await likelyWorkers(flags({ headroom: true, cluster: [large] }), 4)).workers, 1);
    assert.equal((await likelyWorkers(flags({ filename: ['-', dir, join(dir, 'missing.yaml')] }), 4)).workers, 1);
  });
});

describe('the workers opened early, once the input is loaded', () => {
  it('serve when they are as many as it wants, with heaps from what it needs to twice that', () => {
    assert.equal(earlyPoolServes({ jobs: 2, heapMb: 2779 }, 2, 2672), true, 'the compact 5,000-node dump: its bytes guess a little more');
    assert.equal(earlyPoolServes({ jobs: 2, heapMb: 1676 }, 2, 1024), true, 'the 1,000-node kubectl dump: more, but not twice');
    assert.equal(earlyPoolServes({ jobs: 2, heapMb: 9000 }, 2, 2672), false, 'the 5,000-node kubectl dump: its bytes asked for the whole share');
    assert.equal(earlyPoolServes({ jobs: 2, heapMb: 2000 }, 2, 2672), false, 'too small: they would run out');
    assert.equal(earlyPoolServes({ jobs: 2, heapMb: 2672 }, 1, 2672), false, 'one thread wanted');
  });
});
