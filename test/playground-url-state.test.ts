import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodePage, encodePage, encodeState } from '../web/src/url-state.js';

describe('playground links', () => {
  it('carry the example, the action and the text, and give them back', async () => {
    const state = { example: 'kube-dns-required.yaml', action: 'provision' as const, text: 'kind: Node\n# ü & = #\n' };
    assert.deepEqual(await decodePage(await encodePage(state)), state);
    assert.deepEqual(await decodePage(await encodePage({ example: 'a.yaml', action: 'check' })), { example: 'a.yaml', action: 'check' });
  });
  it('read an older link (the deflated text alone) and refuse a damaged one', async () => {
    assert.deepEqual(await decodePage(await encodeState('kind: Pod\n')), { example: '', text: 'kind: Pod\n' });
    assert.equal(await decodePage('e=x.yaml&t=AAAA'), undefined);
  });
  it('ignore an unknown action', async () => {
    assert.deepEqual(await decodePage('e=x.yaml&a=rm'), { example: 'x.yaml' });
  });
});
