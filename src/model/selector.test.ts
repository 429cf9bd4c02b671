import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FieldError } from './errors.js';
import {
  aggregateErrors,
  compileLabelSelector,
  compileNodeSelector,
  compileNodeSelectorTerm,
  labelSelectorParseError,
  nodeSelectorTermErrors,
  SelectorError,
  SelectorValueError,
  sameLabels,
  type LabelSelectorSpec,
  type Labels,
  type NodeSelectorTermSpec,
  type Operator,
  type Requirement,
} from './selector.js';

const VALUE_REASON =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const req = (key: string, operator: Operator | string, values: string[] = []): Requirement => ({ key, operator: operator as Operator, values });

describe('compileLabelSelector: nil and empty (LabelSelectorAsSelector)', () => {
  it('undefined selects nothing', () => {
    const s = compileLabelSelector(undefined);
    assert.equal(s.nothing, true);
    assert.equal(s.matches({}), false);
    assert.equal(s.matches({ a: 'b' }), false);
  });
  it('null selects nothing', () => assert.equal(compileLabelSelector(null).matches({ a: 'b' }), false));
  it('{} selects everything', () => {
    const s = compileLabelSelector({});
    assert.equal(s.everything, true);
    assert.equal(s.matches({}), true);
  });
  it('empty matchLabels and matchExpressions select everything', () => {
    assert.equal(compileLabelSelector({ matchLabels: {}, matchExpressions: [] }).everything, true);
  });
});

describe('label selector requirement semantics', () => {
  const cases: { name: string; spec: LabelSelectorSpec; labels: Labels; want: boolean }[] = [
    { name: 'matchLabels equal', spec: { matchLabels: { app: 'web' } }, labels: { app: 'web' }, want: true },
    { name: 'matchLabels other value', spec: { matchLabels: { app: 'web' } }, labels: { app: 'db' }, want: false },
    { name: 'matchLabels absent key', spec: { matchLabels: { app: 'web' } }, labels: {}, want: false },
    { name: 'matchLabels empty value present', spec: { matchLabels: { app: '' } }, labels: { app: '' }, want: true },
    { name: 'In present', spec: { matchExpressions: [req('app', 'In', ['a', 'b'])] }, labels: { app: 'b' }, want: true },
    { name: 'In other value', spec: { matchExpressions: [req('app', 'In', ['a', 'b'])] }, labels: { app: 'c' }, want: false },
    { name: 'In absent key never matches', spec: { matchExpressions: [req('app', 'In', ['a'])] }, labels: {}, want: false },
    { name: 'NotIn present other value', spec: { matchExpressions: [req('app', 'NotIn', ['a'])] }, labels: { app: 'b' }, want: true },
    { name: 'NotIn present listed value', spec: { matchExpressions: [req('app', 'NotIn', ['a'])] }, labels: { app: 'a' }, want: false },
    { name: 'NotIn absent key matches', spec: { matchExpressions: [req('app', 'NotIn', ['a'])] }, labels: {}, want: true },
    { name: 'Exists present', spec: { matchExpressions: [req('app', 'Exists')] }, labels: { app: '' }, want: true },
    { name: 'Exists absent', spec: { matchExpressions: [req('app', 'Exists')] }, labels: { other: 'x' }, want: false },
    { name: 'DoesNotExist absent', spec: { matchExpressions: [req('app', 'DoesNotExist')] }, labels: {}, want: true },
    { name: 'DoesNotExist present', spec: { matchExpressions: [req('app', 'DoesNotExist')] }, labels: { app: 'x' }, want: false },
    {
      name: 'matchLabels and expressions are ANDed',
      spec: { matchLabels: { app: 'web' }, matchExpressions: [req('tier', 'In', ['fe'])] },
      labels: { app: 'web', tier: 'be' },
      want: false,
    },
    { name: 'inherited object keys are not labels', spec: { matchExpressions: [req('toString', 'Exists')] }, labels: {}, want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(compileLabelSelector(c.spec).matches(c.labels), c.want));
});

describe('label selector validation (ValidateLabelSelectorRequirement)', () => {
  const cases: { name: string; spec: LabelSelectorSpec; message: string; path: (string | number)[] }[] = [
    {
      name: 'In without values',
      spec: { matchExpressions: [req('a', 'In')] },
      message: "Required value: must be specified when `operator` is 'In' or 'NotIn'",
      path: ['matchExpressions', 0, 'values'],
    },
    {
      name: 'NotIn without values',
      spec: { matchExpressions: [req('a', 'Exists'), req('b', 'NotIn')] },
      message: "Required value: must be specified when `operator` is 'In' or 'NotIn'",
      path: ['matchExpressions', 1, 'values'],
    },
    {
      name: 'Exists with values',
      spec: { matchExpressions: [req('a', 'Exists', ['x'])] },
      message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      path: ['matchExpressions', 0, 'values'],
    },
    {
      name: 'DoesNotExist with values',
      spec: { matchExpressions: [req('a', 'DoesNotExist', ['x'])] },
      message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      path: ['matchExpressions', 0, 'values'],
    },
    {
      name: 'Gt is not a label selector operator',
      spec: { matchExpressions: [req('a', 'Gt', ['1'])] },
      message: 'Invalid value: "Gt": not a valid selector operator',
      path: ['matchExpressions', 0, 'operator'],
    },
    {
      name: 'unknown operator',
      spec: { matchExpressions: [req('a', 'Equals', ['1'])] },
      message: 'Invalid value: "Equals": not a valid selector operator',
      path: ['matchExpressions', 0, 'operator'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.throws(
        () => compileLabelSelector(c.spec),
        (e: unknown) => e instanceof SelectorError && e instanceof FieldError && e.message === c.message && assert.deepEqual(e.path, c.path) === undefined,
      );
    });
  }
});

const node = (name: string, labels: Labels = {}) => ({ name, labels });

describe('node selector terms (component-helpers nodeaffinity)', () => {
  const cases: { name: string; term: NodeSelectorTermSpec; node: { name: string; labels: Labels }; want: boolean }[] = [
    { name: 'empty term matches nothing', term: {}, node: node('n1'), want: false },
    { name: 'empty lists match nothing', term: { matchExpressions: [], matchFields: [] }, node: node('n1'), want: false },
    { name: 'Gt above', term: { matchExpressions: [req('cores', 'Gt', ['4'])] }, node: node('n', { cores: '8' }), want: true },
    { name: 'Gt equal is not greater', term: { matchExpressions: [req('cores', 'Gt', ['4'])] }, node: node('n', { cores: '4' }), want: false },
    { name: 'Lt below', term: { matchExpressions: [req('cores', 'Lt', ['4'])] }, node: node('n', { cores: '2' }), want: true },
    { name: 'Lt negative label', term: { matchExpressions: [req('t', 'Lt', ['0'])] }, node: node('n', { t: '-3' }), want: true },
    { name: 'Gt on absent label', term: { matchExpressions: [req('cores', 'Gt', ['4'])] }, node: node('n'), want: false },
    { name: 'Gt on non-integer label', term: { matchExpressions: [req('cores', 'Gt', ['4'])] }, node: node('n', { cores: '8.5' }), want: false },
    { name: 'Gt on label past int64', term: { matchExpressions: [req('v', 'Gt', ['4'])] }, node: node('n', { v: '99999999999999999999' }), want: false },
    { name: 'Lt on leading-zero label', term: { matchExpressions: [req('v', 'Lt', ['10'])] }, node: node('n', { v: '007' }), want: true },
    // labels.NewRequirement checks every value as a label value: '+1' and '-1' parse as integers but are no label values.
    { name: 'Gt with plus-signed bound cannot be parsed', term: { matchExpressions: [req('v', 'Gt', ['+1'])] }, node: node('n', { v: '2' }), want: false },
    { name: 'Lt with a negative bound cannot be parsed', term: { matchExpressions: [req('v', 'Lt', ['-1'])] }, node: node('n', { v: '-5' }), want: false },
    { name: 'In with a value refused today matches nothing', term: { matchExpressions: [req('zone', 'In', ['a', 'bad value!'])] }, node: node('n', { zone: 'a' }), want: false },
    { name: 'a key refused today matches nothing', term: { matchExpressions: [req('bad key!', 'DoesNotExist')] }, node: node('n'), want: false },
    { name: 'NotIn absent key matches', term: { matchExpressions: [req('zone', 'NotIn', ['a'])] }, node: node('n'), want: true },
    { name: 'matchFields name In', term: { matchFields: [req('metadata.name', 'In', ['n1'])] }, node: node('n1'), want: true },
    { name: 'matchFields name In other', term: { matchFields: [req('metadata.name', 'In', ['n1'])] }, node: node('n2'), want: false },
    { name: 'matchFields name NotIn', term: { matchFields: [req('metadata.name', 'NotIn', ['n1'])] }, node: node('n2'), want: true },
    {
      name: 'expressions and fields are ANDed',
      term: { matchExpressions: [req('zone', 'In', ['a'])], matchFields: [req('metadata.name', 'In', ['n1'])] },
      node: node('n1', { zone: 'b' }),
      want: false,
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(compileNodeSelectorTerm(c.term)(c.node), c.want));

  it('terms are ORed', () => {
    const s = compileNodeSelector({ nodeSelectorTerms: [{ matchExpressions: [req('zone', 'In', ['a'])] }, { matchFields: [req('metadata.name', 'In', ['n2'])] }] });
    assert.deepEqual([node('n1', { zone: 'a' }), node('n2', { zone: 'b' }), node('n3', { zone: 'b' })].map((n) => s.matches(n)), [true, true, false]);
  });
  it('an empty term among others matches nothing by itself', () => {
    const s = compileNodeSelector({ nodeSelectorTerms: [{}, { matchExpressions: [req('zone', 'In', ['a'])] }] });
    assert.equal(s.matches(node('n1', { zone: 'b' })), false);
    assert.equal(s.matches(node('n1', { zone: 'a' })), true);
  });
  it('no terms matches nothing', () => assert.equal(compileNodeSelector({ nodeSelectorTerms: [] }).matches(node('n')), false));
});

describe('node selector validation', () => {
  const term = (t: NodeSelectorTermSpec) => ({ nodeSelectorTerms: [{ matchExpressions: [req('ok', 'Exists')] }, t] });
  const cases: { name: string; term: NodeSelectorTermSpec; message: string; path: (string | number)[]; lazy?: boolean }[] = [
    {
      name: 'Gt needs exactly one value',
      term: { matchExpressions: [req('a', 'Gt', ['1', '2'])] },
      message: "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
      path: ['nodeSelectorTerms', 1, 'matchExpressions', 0, 'values'],
    },
    {
      name: 'Lt without values',
      term: { matchExpressions: [req('a', 'Lt')] },
      message: "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
      path: ['nodeSelectorTerms', 1, 'matchExpressions', 0, 'values'],
    },
    {
      name: 'Gt value must be an integer (labels.NewRequirement)',
      term: { matchExpressions: [req('a', 'Gt', ['1.5'])] },
      message: 'nodeSelectorTerms[1].matchExpressions[0].values[0]: Invalid value: "1.5": for \'Gt\', \'Lt\' operators, the value must be an integer',
      path: [],
      lazy: true,
    },
    {
      name: 'a value refused today (labels.NewRequirement)',
      term: { matchExpressions: [req('a', 'In', ['{{x}}'])] },
      message: `nodeSelectorTerms[1].matchExpressions[0].values[0][a]: Invalid value: "{{x}}": ${VALUE_REASON}`,
      path: [],
      lazy: true,
    },
    {
      name: 'unknown node selector operator (component-helpers wording)',
      term: { matchExpressions: [req('a', 'Bogus')] },
      message: 'Unsupported value: "Bogus": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"',
      path: ['nodeSelectorTerms', 1, 'matchExpressions', 0, 'operator'],
    },
    {
      name: 'matchFields key must be metadata.name',
      term: { matchFields: [req('metadata.uid', 'In', ['x'])] },
      message: 'Invalid value: "metadata.uid": not a valid field selector key',
      path: ['nodeSelectorTerms', 1, 'matchFields', 0, 'key'],
    },
    {
      name: 'matchFields operator',
      term: { matchFields: [req('metadata.name', 'Exists')] },
      message: 'Invalid value: "Exists": not a valid selector operator',
      path: ['nodeSelectorTerms', 1, 'matchFields', 0, 'operator'],
    },
    {
      name: 'matchFields needs one value',
      term: { matchFields: [req('metadata.name', 'In', ['a', 'b'])] },
      message: "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
      path: ['nodeSelectorTerms', 1, 'matchFields', 0, 'values'],
    },
    {
      name: 'an API-level error after a value error is the one reported',
      term: { matchExpressions: [req('a', 'Gt', ['x']), req('b', 'In')] },
      message: "Required value: must be specified when `operator` is 'In' or 'NotIn'",
      path: ['nodeSelectorTerms', 1, 'matchExpressions', 1, 'values'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.throws(
        () => compileNodeSelector(term(c.term)),
        (e: unknown) => e instanceof SelectorError && e.message === c.message && assert.deepEqual(e.path, c.path) === undefined,
      );
      // Read lazily (a pod's required affinity), only a bad Gt/Lt value is tolerated.
      if (c.lazy) assert.doesNotThrow(() => compileNodeSelector(term(c.term), [], { lazyValueErrors: true }));
      else assert.throws(() => compileNodeSelector(term(c.term), [], { lazyValueErrors: true }), SelectorError);
    });
  }

  it('lazily, a term with a bad Gt value matches nothing while other terms still match', () => {
    const s = compileNodeSelector({ nodeSelectorTerms: [{ matchExpressions: [req('cores', 'Gt', ['four'])] }, { matchExpressions: [req('zone', 'In', ['a'])] }] }, [], {
      lazyValueErrors: true,
    });
    assert.equal(s.matches(node('n', { cores: '8', zone: 'b' })), false);
    assert.equal(s.matches(node('n', { cores: '8', zone: 'a' })), true);
  });

  it('a Gt bound past int64 is a value error', () => {
    assert.throws(() => compileNodeSelector(term({ matchExpressions: [req('a', 'Gt', ['9223372036854775808'])] })), SelectorValueError);
    assert.equal(compileNodeSelectorTerm({ matchExpressions: [req('a', 'Gt', ['9223372036854775808'])] })(node('n', { a: '1' })), false);
  });

  it("preferred terms' errors carry their index as NewPreferredSchedulingTerms reports them", () => {
    assert.deepEqual(nodeSelectorTermErrors({ matchExpressions: [req('z', 'In', ['ok']), req('bad/key/x', 'Gt', ['x'])] }, '[2]'), [
      `[2].matchExpressions[1].key: Invalid value: "bad/key/x": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      `[2].matchExpressions[1].values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`,
    ]);
  });
});

describe('legacy label selectors (metav1.LabelSelectorAsSelector)', () => {
  // Translated from interpodaffinity's filtering_test "PodAffinity fails PreFilter with an invalid affinity label syntax".
  it('an invalid value is reported at values[0][key]', () => {
    assert.equal(labelSelectorParseError({ matchExpressions: [req('service', 'In', ['{{.bad-value.}}'])] }), `values[0][service]: Invalid value: "{{.bad-value.}}": ${VALUE_REASON}`);
  });
  it('matchLabels come first; a valid selector has no error', () => {
    assert.match(labelSelectorParseError({ matchLabels: { a: '-x' }, matchExpressions: [req('b', 'In', ['-y'])] }) ?? '', /^values\[0\]\[a\]/);
    assert.equal(labelSelectorParseError({ matchLabels: { a: 'x' } }), undefined);
    assert.equal(labelSelectorParseError(null), undefined);
  });
  it('a key and a value of one requirement aggregate in brackets', () => {
    assert.match(labelSelectorParseError({ matchLabels: { 'a b': '-x' } }) ?? '', /^\[key: Invalid value: "a b": .*, values\[0\]\[a b\]: Invalid value: "-x": .*\]$/);
  });
  it('aggregateErrors deduplicates', () => {
    assert.equal(aggregateErrors(['x', 'x']), 'x');
    assert.equal(aggregateErrors(['x', 'y']), '[x, y]');
  });
});

describe('properties', () => {
  const key = fc.constantFrom('a', 'b', 'c');
  const value = fc.constantFrom('x', 'y', 'z', '');
  const labels = fc.dictionary(key, value, { maxKeys: 3 });
  const values = fc.uniqueArray(value, { minLength: 1, maxLength: 3 });

  it('for a present key NotIn is the negation of In; for an absent key In fails and NotIn passes', () => {
    fc.assert(
      fc.property(key, values, labels, (k, vs, ls) => {
        const inSel = compileLabelSelector({ matchExpressions: [req(k, 'In', vs)] });
        const notInSel = compileLabelSelector({ matchExpressions: [req(k, 'NotIn', vs)] });
        if (k in ls) assert.equal(notInSel.matches(ls), !inSel.matches(ls));
        else assert.deepEqual([inSel.matches(ls), notInSel.matches(ls)], [false, true]);
      }),
    );
  });

  it('Exists is the negation of DoesNotExist', () => {
    fc.assert(
      fc.property(key, labels, (k, ls) => {
        assert.equal(compileLabelSelector({ matchExpressions: [req(k, 'Exists')] }).matches(ls), !compileLabelSelector({ matchExpressions: [req(k, 'DoesNotExist')] }).matches(ls));
      }),
    );
  });

  it('Gt and Lt agree with integer comparison', () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer(), (bound, label) => {
        const gt = compileNodeSelectorTerm({ matchExpressions: [req('n', 'Gt', [String(bound)])] });
        const lt = compileNodeSelectorTerm({ matchExpressions: [req('n', 'Lt', [String(bound)])] });
        const n = node('x', { n: String(label) });
        assert.deepEqual([gt(n), lt(n)], [label > bound, label < bound]);
      }),
    );
  });
});

describe('sameLabels', () => {
  it('holds for the same pairs in any order, and not for a changed value or a key more or less on either side', () => {
    const a = { zone: 'a', host: 'n1' };
    assert.equal(sameLabels(a, a), true);
    assert.equal(sameLabels(a, { host: 'n1', zone: 'a' }), true);
    assert.equal(sameLabels({}, {}), true);
    assert.equal(sameLabels(a, { zone: 'a', host: 'n2' }), false);
    assert.equal(sameLabels(a, { zone: 'a' }), false);
    assert.equal(sameLabels({ zone: 'a' }, a), false);
    assert.equal(sameLabels(a, { zone: 'a', other: 'n1' }), false);
    assert.equal(sameLabels({ zone: 'a', host: 'n1', x: '' }, { zone: 'a', host: 'n1', y: '' }), false);
  });
});
