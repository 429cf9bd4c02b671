import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { doNotScheduleTaints, findUntoleratedTaint, toleratesTaint, tolerationsTolerateTaint, type Taint, type Toleration } from './taints.js';

const taint = (key: string, value: string, effect: Taint['effect']): Taint => ({ key, value, effect });
const tol = (t: Partial<Toleration>): Toleration => ({ key: '', operator: '', value: '', effect: '', ...t });

// Toleration.ToleratesTaint (k8s.io/api/core/v1), with comparison operators off (1.37 default).
describe('toleratesTaint', () => {
  const gpu = taint('gpu', 'true', 'NoSchedule');
  const cases: { name: string; toleration: Toleration; taint: Taint; want: boolean }[] = [
    { name: 'Equal with same key, value and effect', toleration: tol({ key: 'gpu', operator: 'Equal', value: 'true', effect: 'NoSchedule' }), taint: gpu, want: true },
    { name: 'empty operator means Equal', toleration: tol({ key: 'gpu', value: 'true', effect: 'NoSchedule' }), taint: gpu, want: true },
    { name: 'Equal with a different value', toleration: tol({ key: 'gpu', operator: 'Equal', value: 'false' }), taint: gpu, want: false },
    { name: 'Equal with empty value against a valued taint', toleration: tol({ key: 'gpu', operator: 'Equal' }), taint: gpu, want: false },
    { name: 'Equal with empty value against an empty-valued taint', toleration: tol({ key: 'gpu', operator: 'Equal' }), taint: taint('gpu', '', 'NoSchedule'), want: true },
    { name: 'Exists ignores the value', toleration: tol({ key: 'gpu', operator: 'Exists' }), taint: gpu, want: true },
    { name: 'Exists with another key', toleration: tol({ key: 'ssd', operator: 'Exists' }), taint: gpu, want: false },
    { name: 'empty key with Exists tolerates every taint', toleration: tol({ operator: 'Exists' }), taint: taint('anything', 'v', 'NoExecute'), want: true },
    { name: 'empty key with Exists still honours the effect', toleration: tol({ operator: 'Exists', effect: 'NoExecute' }), taint: gpu, want: false },
    { name: 'empty effect tolerates every effect', toleration: tol({ key: 'gpu', operator: 'Exists' }), taint: taint('gpu', 'x', 'PreferNoSchedule'), want: true },
    { name: 'effect mismatch', toleration: tol({ key: 'gpu', operator: 'Exists', effect: 'NoExecute' }), taint: gpu, want: false },
    { name: 'empty key with Equal matches a taint with empty key and value only', toleration: tol({ operator: 'Equal' }), taint: taint('gpu', '', 'NoSchedule'), want: true },
    { name: 'an unknown operator never tolerates', toleration: tol({ key: 'gpu', operator: 'Lt' as Toleration['operator'], value: '5' }), taint: taint('gpu', '1', 'NoSchedule'), want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(toleratesTaint(c.toleration, c.taint), c.want));
});

describe('tolerationsTolerateTaint and findUntoleratedTaint', () => {
  const taints = [taint('a', '1', 'PreferNoSchedule'), taint('b', '2', 'NoSchedule'), taint('c', '3', 'NoExecute')];

  it('any toleration suffices', () => {
    assert.equal(tolerationsTolerateTaint([tol({ key: 'x', operator: 'Exists' }), tol({ key: 'b', value: '2' })], taints[1]!), true);
    assert.equal(tolerationsTolerateTaint([], taints[1]!), false);
  });

  const cases: { name: string; tolerations: Toleration[]; want: string | undefined }[] = [
    { name: 'no tolerations: first NoSchedule/NoExecute taint', tolerations: [], want: 'b' },
    { name: 'PreferNoSchedule is out of scope', tolerations: [tol({ key: 'b', operator: 'Exists' })], want: 'c' },
    { name: 'all in-scope taints tolerated', tolerations: [tol({ key: 'b', operator: 'Exists' }), tol({ key: 'c', operator: 'Equal', value: '3' })], want: undefined },
    { name: 'wildcard toleration', tolerations: [tol({ operator: 'Exists' })], want: undefined },
  ];
  for (const c of cases) it(c.name, () => assert.equal(findUntoleratedTaint(taints, c.tolerations, doNotScheduleTaints)?.key, c.want));
});
