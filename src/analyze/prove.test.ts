import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LoadedInput } from '../io/load.js';
import type { Remedy } from './finding.js';
import { proveFixes, reduce } from './prove.js';
import { combine } from './remedies.js';

// A toy input: the remedies add strings to `pods`' names via a tagged copy, and `clears` reads the tags.
type Tagged = LoadedInput & { tags?: string[] };
const tag = (t: string): Remedy => ({ description: t, apply: (i) => ({ ...i, tags: [...((i as Tagged).tags ?? []), t] }) as Tagged });
const nodes = (n: number): Remedy => ({ ...tag(`nodes:${n}`), shrink: () => (n > 1 ? nodes(n - 1) : undefined) });
const tags = (i: LoadedInput) => (i as Tagged).tags ?? [];
const input = {} as LoadedInput;

describe('prove and reduce fixes', () => {
  it('drops a part the fix does not need', () => {
    const clears = (i: LoadedInput) => tags(i).includes('anti');
    assert.equal(reduce(combine(tag('anti'), tag('node')), input, clears).description, 'anti');
  });

  it('keeps every part that is needed, and shrinks a count to the least that clears', () => {
    const clears = (i: LoadedInput) => tags(i).includes('anti') && tags(i).some((t) => t.startsWith('nodes:') && Number(t.slice(6)) >= 2);
    assert.equal(reduce(combine(tag('scale'), tag('anti'), nodes(4)), input, clears).description, 'anti, and nodes:2');
  });

  it('a candidate that does not clear the finding is never returned', () => {
    const clears = (i: LoadedInput) => tags(i).includes('anti');
    assert.deepEqual(
      proveFixes([tag('node'), combine(tag('anti'), tag('node')), tag('anti')], input, clears).map((r) => r.description),
      ['anti'],
    );
  });
});
