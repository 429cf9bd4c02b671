import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePod } from '../model/pod.js';
import { admittedInputPod, withDefaultTolerationSeconds } from './admission.js';

const pod = (name: string) => compilePod({ metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c' }] } }, { order: 0 });

describe('admittedInputPod', () => {
  it('admits an input pod as withDefaultTolerationSeconds does, the same object each time (clusters built from changed inputs share their pods)', () => {
    const p = pod('a');
    const once = admittedInputPod(p);
    assert.deepEqual(once, withDefaultTolerationSeconds(p));
    assert.notEqual(once, p);
    assert.equal(admittedInputPod(p), once);
  });

  it('other toleration seconds admit afresh', () => {
    const p = pod('b');
    const short = admittedInputPod(p, 30);
    assert.deepEqual(short.tolerations.map((t) => t.tolerationSeconds), [30, 30]);
    assert.notEqual(admittedInputPod(p), short);
    assert.deepEqual(admittedInputPod(p).tolerations.map((t) => t.tolerationSeconds), [300, 300]);
  });
});
