import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatShard, isShardFileName, mergeShards, SHARD_FORMAT, shardFileName, type ShardHeader } from './sweep-shards.js';

const CELLS = 10;
const line = (cell: number) => JSON.stringify({ cell, scenario: 'node-loss', target: `n${cell}`, seed: 0, parameters: {}, verdict: 'ok', simulated: true });
const header = (shard: number, shards: number, over: Partial<ShardHeader> = {}): ShardHeader => ({ berthSweep: SHARD_FORMAT, name: 's', input: 'sha256:aa', cells: CELLS, shard, shards, ...over });
const shard = (i: number, n: number, over: Partial<ShardHeader> = {}) => ({
  name: shardFileName(i, n),
  text: formatShard(header(i, n, over), Array.from({ length: CELLS }, (_, c) => c).filter((c) => c % n === i).map(line)),
});

function error(files: { name: string; text: string }[]): string {
  const r = mergeShards(files);
  assert.ok(!r.ok, 'expected a refusal');
  return r.error;
}

describe('mergeShards', () => {
  const whole = mergeShards([shard(0, 1)]);
  assert.ok(whole.ok);

  it('gives the one-shard lines, in cell order, from any number of shards given in any order', () => {
    assert.deepEqual(whole.merged.lines, Array.from({ length: CELLS }, (_, c) => line(c)));
    for (const n of [2, 3, 4, 10]) {
      const files = Array.from({ length: n }, (_, i) => shard(i, n)).reverse();
      const r = mergeShards(files);
      assert.ok(r.ok, !r.ok ? r.error : '');
      assert.deepEqual(r.merged, whole.merged, `n=${n}`);
    }
  });

  it('refuses a missing shard, a shard twice, and shards of another sweep or input', () => {
    assert.equal(error([shard(0, 3), shard(2, 3)]), 'missing shard(s) 1 of 3 (have 2)');
    assert.equal(error([shard(0, 2), { ...shard(0, 2), name: 'copy.jsonl' }]), 'copy.jsonl:1: shard 0 of 2 twice (shard-00000-of-00002.jsonl too)');
    assert.match(error([shard(0, 2), shard(1, 2, { input: 'sha256:bb' })]), /^shard-00001-of-00002\.jsonl:1: shard of another sweep or input: s sha256:bb \(2 shards\), while shard-00000-of-00002\.jsonl is s sha256:aa \(2 shards\)$/);
    assert.match(error([shard(0, 2), shard(1, 3)]), /shard of another sweep or input/);
  });

  it('refuses a file that is not a shard, a cut-short shard, and lines out of place, naming file and line', () => {
    assert.equal(error([{ name: 'notes.jsonl', text: '{"cell":0}\n' }]), 'notes.jsonl:1: not a berth sweep shard (its first line is not a shard header)');
    const cut = shard(1, 2);
    assert.equal(error([shard(0, 2), { ...cut, text: cut.text.split('\n').slice(0, 3).join('\n') }]), 'missing cell(s) 5, 7, 9 of 10: shard 1 (shard-00001-of-00002.jsonl) ends early');
    assert.equal(error([shard(0, 2), { ...cut, text: `${cut.text}${line(4)}\n` }]), 'shard-00001-of-00002.jsonl:7: cell 4 does not belong to shard 1 of 2');
    assert.equal(error([shard(0, 2), { ...cut, text: `${cut.text}{"cell":1\n` }]), 'shard-00001-of-00002.jsonl:7: not a result line of this sweep (no "cell" from 0 to 9)');
    assert.equal(error([shard(0, 2), { ...cut, text: `${cut.text}${line(1)}\n` }]), 'shard-00001-of-00002.jsonl:7: cell 1 twice');
  });

  it('names shard files so that they sort in shard order', () => {
    assert.equal(shardFileName(3, 12), 'shard-00003-of-00012.jsonl');
    assert.ok(isShardFileName(shardFileName(3, 12)));
    assert.ok(!isShardFileName('results.jsonl'));
  });
});
