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

// toleration_test.go TestTolerationToleratesTaint, the comparison-operator cases (gate on).
describe('toleratesTaint with Lt/Gt (TaintTolerationComparisonOperators)', () => {
  const sla = (value: string) => taint('node.kubernetes.io/sla', value, 'NoSchedule');
  const cmp = (operator: 'Lt' | 'Gt', value: string, key = 'node.kubernetes.io/sla') => tol({ key, operator, value, effect: 'NoSchedule' });
  const cases: { name: string; toleration: Toleration; taint: Taint; want: boolean }[] = [
    { name: 'toleration with Gt operator - taint value less than toleration value, expect not tolerated', toleration: cmp('Gt', '950'), taint: sla('800'), want: false },
    { name: 'toleration with Gt operator - taint value greater than toleration value, expect tolerated', toleration: cmp('Gt', '750'), taint: sla('950'), want: true },
    { name: 'toleration with Lt operator - taint value greater than toleration value, expect not tolerated', toleration: cmp('Lt', '800'), taint: sla('950'), want: false },
    { name: 'toleration with Lt operator - taint value less than toleration value, expect tolerated', toleration: cmp('Lt', '950'), taint: sla('800'), want: true },
    { name: 'toleration with Gt operator and taint with equal numeric value, expect not tolerated', toleration: cmp('Gt', '950'), taint: sla('950'), want: false },
    { name: 'toleration with Gt operator and taint with non-numeric value, expect not tolerated', toleration: cmp('Gt', '950'), taint: sla('high'), want: false },
    { name: 'toleration with Gt operator and negative numeric values - taint value less than threshold, expect not tolerated', toleration: cmp('Gt', '-100', 'test-key'), taint: taint('test-key', '-200', 'NoSchedule'), want: false },
    { name: 'toleration with Gt operator and large int64 values - taint value less than threshold, expect not tolerated', toleration: cmp('Gt', '9223372036854775806', 'test-key'), taint: taint('test-key', '100', 'NoSchedule'), want: false },
  ];
  for (const c of cases) it(`upstream: ${JSON.stringify(c.name)}`, () => assert.equal(toleratesTaint(c.toleration, c.taint, true), c.want));
  it('with the gate off Lt/Gt tolerate nothing', () => {
    assert.equal(toleratesTaint(cmp('Gt', '750'), sla('950')), false);
    assert.equal(tolerationsTolerateTaint([cmp('Lt', '950')], sla('800')), false);
  });
  it('values are int64 in canonical form: a leading zero, a plus sign or a value past int64 tolerates nothing', () => {
    assert.equal(toleratesTaint(cmp('Gt', '5'), sla('07'), true), false);
    assert.equal(toleratesTaint(cmp('Gt', '5'), sla('+7'), true), false);
    assert.equal(toleratesTaint(cmp('Lt', '5'), sla('-9223372036854775808'), true), true);
    assert.equal(toleratesTaint(cmp('Lt', '5'), sla('-9223372036854775809'), true), false);
    assert.equal(toleratesTaint(cmp('Gt', '9223372036854775806'), sla('9223372036854775807'), true), true);
  });
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
