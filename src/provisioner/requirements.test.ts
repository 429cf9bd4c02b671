import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ALLOW_UNDEFINED_WELL_KNOWN, Requirement, Requirements, type RequirementOperator } from './requirements.js';
import { LABEL_ZONE } from './catalog/types.js';
import { LABEL_HOSTNAME, LABEL_NODE_REGISTERED, LABEL_NODEPOOL } from './labels.js';

const req = (op: RequirementOperator, values: string[] = [], minValues?: number, key = 'key') => Requirement.of(key, op, values, minValues);

// The fixtures of Karpenter's requirement tests, on one key.
const fixtures = {
  exists: req('Exists'),
  doesNotExist: req('DoesNotExist'),
  inA: req('In', ['A']),
  inB: req('In', ['B']),
  inAB: req('In', ['A', 'B']),
  notInA: req('NotIn', ['A']),
  in1: req('In', ['1']),
  in9: req('In', ['9']),
  in19: req('In', ['1', '9']),
  notIn12: req('NotIn', ['1', '2']),
  gt1: req('Gt', ['1']),
  gt9: req('Gt', ['9']),
  lt1: req('Lt', ['1']),
  lt9: req('Lt', ['9']),
};
type Name = keyof typeof fixtures;
const names = Object.keys(fixtures) as Name[];

// Expected intersections, row ∩ column, one cell per column in `names` order. A cell is a
// fixture name, or the expected toString() of a requirement none of the fixtures is.
const D = 'doesNotExist';
const intersections: Record<Name, readonly string[]> = {
  exists: names,
  doesNotExist: names.map(() => D),
  inA: ['inA', D, 'inA', D, 'inA', D, D, D, D, 'inA', D, D, D, D],
  inB: ['inB', D, D, 'inB', 'inB', 'inB', D, D, D, 'inB', D, D, D, D],
  inAB: ['inAB', D, 'inA', 'inB', 'inAB', 'inB', D, D, D, 'inAB', D, D, D, D],
  notInA: ['notInA', D, D, 'inB', 'inB', 'notInA', 'in1', 'in9', 'in19', 'key NotIn [1 2 A]', 'gt1', 'gt9', 'lt1', 'lt9'],
  in1: ['in1', D, D, D, D, 'in1', 'in1', D, 'in1', D, D, D, D, 'in1'],
  in9: ['in9', D, D, D, D, 'in9', D, 'in9', 'in9', 'in9', 'in9', D, D, D],
  in19: ['in19', D, D, D, D, 'in19', 'in1', 'in9', 'in19', 'in9', 'in9', D, D, 'in1'],
  notIn12: ['notIn12', D, 'inA', 'inB', 'inAB', 'key NotIn [1 2 A]', D, 'in9', 'in9', 'notIn12', 'key NotIn [2] >=2', 'gt9', 'lt1', 'key NotIn [1 2] <=8'],
  gt1: ['gt1', D, D, D, D, 'gt1', D, 'in9', 'in9', 'key NotIn [2] >=2', 'gt1', 'gt9', D, 'key Exists >=2 <=8'],
  gt9: ['gt9', D, D, D, D, 'gt9', D, D, D, 'gt9', 'gt9', 'gt9', D, D],
  lt1: ['lt1', D, D, D, D, 'lt1', D, D, D, 'lt1', D, D, 'lt1', 'lt1'],
  lt9: ['lt9', D, D, D, D, 'lt9', 'in1', D, 'in1', 'key NotIn [1 2] <=8', 'key Exists >=2 <=8', D, 'lt1', 'lt9'],
};

const expectedString = (cell: string) => (cell in fixtures ? fixtures[cell as Name].toString() : cell);

describe('Requirement.intersection', () => {
  for (const a of names) {
    names.forEach((b, col) => {
      const cell = intersections[a][col] as string;
      it(`${a} ∩ ${b} = ${cell}`, () => {
        const got = fixtures[a].intersection(fixtures[b]);
        if (cell in fixtures) assert.ok(got.equals(fixtures[cell as Name]), `got ${got}`);
        else assert.equal(got.toString(), cell);
        // hasIntersection agrees with the intersection being non-empty.
        assert.equal(fixtures[a].hasIntersection(fixtures[b]), !got.isEmpty(), `hasIntersection ${a} ${b}`);
        assert.equal(got.toString(), expectedString(cell));
      });
    });
  }

  const withMin: { name: string; a: Requirement; b: Requirement; want: string }[] = [
    { name: 'exists/1 ∩ inAB keeps minValues 1', a: req('Exists', [], 1), b: fixtures.inAB, want: 'key In [A B] minValues 1' },
    { name: 'inAB/2 ∩ doesNotExist keeps minValues 2', a: req('In', ['A', 'B'], 2), b: fixtures.doesNotExist, want: 'key DoesNotExist minValues 2' },
    { name: 'inAB/2 ∩ notInA', a: req('In', ['A', 'B'], 2), b: fixtures.notInA, want: 'key In [B] minValues 2' },
    { name: 'larger minValues wins', a: req('In', ['1', '9'], 2), b: req('Lt', ['9'], 1), want: 'key In [1] minValues 2' },
    { name: 'bounded complement keeps minValues', a: req('Gt', ['1'], 1), b: req('Lt', ['9'], 1), want: 'key Exists >=2 <=8 minValues 1' },
    { name: 'notIn12/2 ∩ gt9/1', a: req('Gt', ['9'], 1), b: req('NotIn', ['1', '2'], 2), want: 'key Exists >=10 minValues 2' },
    { name: 'crossing bounds keep minValues', a: req('Gt', ['9'], 1), b: req('Lt', ['1'], 1), want: 'key DoesNotExist minValues 1' },
    { name: 'minValues on one side only', a: fixtures.in19, b: req('Exists', [], 3), want: 'key In [1 9] minValues 3' },
  ];
  for (const c of withMin) {
    it(c.name, () => {
      assert.equal(c.a.intersection(c.b).toString(), c.want);
      assert.equal(c.b.intersection(c.a).toString(), c.want);
    });
  }
});

describe('Requirement.has', () => {
  // Which of A, B, 1, 2, 9 each fixture allows.
  const table: Record<Name, string> = {
    exists: 'A B 1 2 9',
    doesNotExist: '',
    inA: 'A',
    inB: 'B',
    inAB: 'A B',
    notInA: 'B 1 2 9',
    in1: '1',
    in9: '9',
    in19: '1 9',
    notIn12: 'A B 9',
    gt1: '2 9',
    gt9: '',
    lt1: '',
    lt9: '1 2',
  };
  for (const n of names) {
    it(`${n} allows [${table[n]}]`, () => {
      const allowed = ['A', 'B', '1', '2', '9'].filter((v) => fixtures[n].has(v));
      assert.deepEqual(allowed, table[n] === '' ? [] : table[n].split(' '));
    });
  }

  const bounds: { name: string; r: Requirement; yes: string[]; no: string[] }[] = [
    { name: 'Gte is inclusive', r: req('Gte', ['2']), yes: ['2', '3', '100'], no: ['1', '0'] },
    { name: 'Lte is inclusive', r: req('Lte', ['8']), yes: ['8', '7', '0'], no: ['9', '10'] },
    { name: 'Gte 0', r: req('Gte', ['0']), yes: ['0'], no: ['-1'] },
    { name: 'Lte 0', r: req('Lte', ['0']), yes: ['0', '-5'], no: ['1'] },
    { name: 'Gte ∩ Lte', r: req('Gte', ['2']).intersection(req('Lte', ['8'])), yes: ['2', '5', '8'], no: ['1', '9'] },
    { name: 'bounds accept Go integer spellings', r: req('Gt', ['1']), yes: ['+5', '007'], no: ['5.0', ' 5', '1e3', '', 'x'] },
    { name: 'bounds reject values beyond int64', r: req('Gt', ['1']), yes: ['9223372036854775807'], no: ['9223372036854775808'] },
  ];
  for (const c of bounds) {
    it(c.name, () => {
      for (const v of c.yes) assert.equal(c.r.has(v), true, `has(${v})`);
      for (const v of c.no) assert.equal(c.r.has(v), false, `has(${v})`);
    });
  }
});

describe('Requirement construction', () => {
  const cases: { name: string; r: Requirement; want: string }[] = [
    { name: 'Gt N is stored as >= N+1', r: req('Gt', ['1']), want: 'key Exists >=2' },
    { name: 'Lt N is stored as <= N-1', r: req('Lt', ['9']), want: 'key Exists <=8' },
    { name: 'Gte and Lte are stored as given', r: req('Gte', ['5']).intersection(req('Lte', ['7'])), want: 'key Exists >=5 <=7' },
    { name: 'Gt of the largest int64 matches nothing, dropping minValues', r: req('Gt', ['9223372036854775807'], 2), want: 'key DoesNotExist' },
    { name: 'Gt beyond int64 clamps and matches nothing', r: req('Gt', ['99999999999999999999']), want: 'key DoesNotExist' },
    { name: 'Lt of the smallest int64 wraps around like Go', r: req('Lt', ['-9223372036854775808']), want: 'key Exists <=9223372036854775807' },
    { name: 'a non-integer bound reads as 0', r: req('Gt', ['x']), want: 'key Exists >=1' },
    { name: 'In with duplicate values', r: req('In', ['b', 'a', 'b']), want: 'key In [a b]' },
    { name: 'NotIn keeps the values as excluded', r: req('NotIn', ['z']), want: 'key NotIn [z]' },
    { name: 'aliased keys are normalized', r: Requirement.of('failure-domain.beta.kubernetes.io/zone', 'In', ['a']), want: 'topology.kubernetes.io/zone In [a]' },
    { name: 'beta arch is normalized', r: Requirement.of('beta.kubernetes.io/arch', 'In', ['arm64']), want: 'kubernetes.io/arch In [arm64]' },
    { name: 'EBS CSI zone is normalized', r: Requirement.of('topology.ebs.csi.aws.com/zone', 'In', ['a']), want: 'topology.kubernetes.io/zone In [a]' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(c.r.toString(), c.want));

  it('equivalent Gt and Gte bounds are the same requirement', () => {
    assert.ok(req('Gt', ['4']).intersection(req('Gte', ['5'])).equals(req('Gte', ['5'])));
    assert.ok(req('Gt', ['5']).intersection(req('Gte', ['5'])).equals(req('Gte', ['6'])));
    assert.ok(req('Lt', ['5']).intersection(req('Lte', ['5'])).equals(req('Lte', ['4'])));
  });
});

describe('Requirement.operator, len, values', () => {
  const cases: { r: Name; op: string; len: number; values: string[] }[] = [
    { r: 'exists', op: 'Exists', len: Infinity, values: [] },
    { r: 'doesNotExist', op: 'DoesNotExist', len: 0, values: [] },
    { r: 'inA', op: 'In', len: 1, values: ['A'] },
    { r: 'inAB', op: 'In', len: 2, values: ['A', 'B'] },
    { r: 'notInA', op: 'NotIn', len: Infinity, values: ['A'] },
    { r: 'in19', op: 'In', len: 2, values: ['1', '9'] },
    { r: 'notIn12', op: 'NotIn', len: Infinity, values: ['1', '2'] },
    { r: 'gt1', op: 'Exists', len: Infinity, values: [] },
    { r: 'gt9', op: 'Exists', len: Infinity, values: [] },
    { r: 'lt1', op: 'Exists', len: Infinity, values: [] },
    { r: 'lt9', op: 'Exists', len: Infinity, values: [] },
  ];
  for (const c of cases) {
    it(`${c.r} is ${c.op}`, () => {
      const r = fixtures[c.r];
      assert.equal(r.operator(), c.op);
      assert.equal(r.len(), c.len);
      assert.deepEqual(r.values(), c.values);
      assert.equal(r.isEmpty(), c.op === 'DoesNotExist');
    });
  }
  it('a bounded complement that also excludes values is NotIn', () => {
    assert.equal(fixtures.notIn12.intersection(fixtures.gt1).operator(), 'NotIn');
  });
});

describe('Requirement.any', () => {
  const cases: { name: string; r: Requirement; want: string }[] = [
    { name: 'Exists picks 0', r: fixtures.exists, want: '0' },
    { name: 'DoesNotExist has none', r: fixtures.doesNotExist, want: '' },
    { name: 'In picks its value', r: fixtures.inA, want: 'A' },
    { name: 'In picks the smallest value', r: req('In', ['m', 'c', 'x']), want: 'c' },
    { name: 'NotIn picks a value it allows', r: fixtures.notInA, want: '0' },
    { name: 'NotIn skips excluded integers', r: req('NotIn', ['0', '1', '3']), want: '2' },
    { name: 'Gt picks its lower bound', r: fixtures.gt9, want: '10' },
    { name: 'Lt 1 picks 0', r: fixtures.lt1, want: '0' },
    { name: 'Lt 9 picks 0', r: fixtures.lt9, want: '0' },
    { name: 'a negative upper bound picks downwards', r: req('Lt', ['-3']), want: '-4' },
    { name: 'Gte 5 picks 5', r: req('Gte', ['5']), want: '5' },
    { name: 'excluded values next to a bound are skipped', r: fixtures.notIn12.intersection(fixtures.gt1), want: '3' },
    { name: 'a range fully excluded has none', r: req('Gte', ['5']).intersection(req('Lte', ['5'])).intersection(req('NotIn', ['5'])), want: '' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(c.r.any(), c.want);
      if (c.want !== '') assert.ok(c.r.has(c.want));
    });
  }
});

describe('Requirement.toString', () => {
  const cases: { r: Requirement; want: string }[] = [
    { r: fixtures.exists, want: 'key Exists' },
    { r: fixtures.doesNotExist, want: 'key DoesNotExist' },
    { r: fixtures.inAB, want: 'key In [A B]' },
    { r: fixtures.notIn12, want: 'key NotIn [1 2]' },
    { r: fixtures.gt1, want: 'key Exists >=2' },
    { r: fixtures.lt1, want: 'key Exists <=0' },
    { r: fixtures.gt1.intersection(fixtures.lt9), want: 'key Exists >=2 <=8' },
    { r: fixtures.gt9.intersection(fixtures.lt1), want: 'key DoesNotExist' },
    { r: req('In', ['a', 'b', 'c', 'd', 'e', 'f', 'g']), want: 'key In [a b c d e and 2 others]' },
    { r: req('In', ['a', 'b', 'c', 'd', 'e']), want: 'key In [a b c d e]' },
    { r: req('NotIn', ['x'], 2), want: 'key NotIn [x] minValues 2' },
  ];
  for (const c of cases) it(c.want, () => assert.equal(c.r.toString(), c.want));
});

describe('Requirement.nodeSelectorRequirement', () => {
  const cases: { name: string; r: Requirement; want: object }[] = [
    { name: 'exists', r: fixtures.exists, want: { key: 'key', operator: 'Exists', values: [] } },
    { name: 'doesNotExist', r: fixtures.doesNotExist, want: { key: 'key', operator: 'DoesNotExist', values: [] } },
    { name: 'inAB', r: fixtures.inAB, want: { key: 'key', operator: 'In', values: ['A', 'B'] } },
    { name: 'notIn12', r: fixtures.notIn12, want: { key: 'key', operator: 'NotIn', values: ['1', '2'] } },
    { name: 'gt1 as Gte 2', r: fixtures.gt1, want: { key: 'key', operator: 'Gte', values: ['2'] } },
    { name: 'gt9 as Gte 10', r: fixtures.gt9, want: { key: 'key', operator: 'Gte', values: ['10'] } },
    { name: 'lt1 as Lte 0', r: fixtures.lt1, want: { key: 'key', operator: 'Lte', values: ['0'] } },
    { name: 'lt9 as Lte 8', r: fixtures.lt9, want: { key: 'key', operator: 'Lte', values: ['8'] } },
    { name: 'minValues carried', r: req('In', ['1', '9'], 2), want: { key: 'key', operator: 'In', values: ['1', '9'], minValues: 2 } },
    { name: 'minValues on a bound', r: req('Gt', ['1'], 1), want: { key: 'key', operator: 'Gte', values: ['2'], minValues: 1 } },
    { name: 'the single form keeps only the lower of two bounds', r: fixtures.gt1.intersection(fixtures.lt9), want: { key: 'key', operator: 'Gte', values: ['2'] } },
    { name: 'the single form drops excluded values next to a bound', r: fixtures.notIn12.intersection(fixtures.gt1), want: { key: 'key', operator: 'Gte', values: ['2'] } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(c.r.nodeSelectorRequirement(), c.want));

  it('round-trips through the node selector form', () => {
    for (const n of names) {
      const back = Requirement.fromNodeSelectorRequirement(fixtures[n].nodeSelectorRequirement());
      assert.ok(back.equals(fixtures[n]), n);
    }
  });
});

// --- Requirements ---------------------------------------------------------------------

const zone = (op: RequirementOperator, values: string[] = []) => new Requirements([Requirement.of(LABEL_ZONE, op, values)]);
// Karpenter's compatibility fixtures use the zone key, a well-known label.
const sets = {
  unconstrained: new Requirements(),
  exists: zone('Exists'),
  doesNotExist: zone('DoesNotExist'),
  inA: zone('In', ['A']),
  inB: zone('In', ['B']),
  inAB: zone('In', ['A', 'B']),
  notInA: zone('NotIn', ['A']),
  in1: zone('In', ['1']),
  in9: zone('In', ['9']),
  in19: zone('In', ['1', '9']),
  notIn12: zone('NotIn', ['1', '2']),
  gt1: zone('Gt', ['1']),
  gt9: zone('Gt', ['9']),
  lt1: zone('Lt', ['1']),
  lt9: zone('Lt', ['9']),
};
type SetName = keyof typeof sets;
const setNames = Object.keys(sets) as SetName[];

// row.compatible(column, allow undefined well-known labels): Y or N per column in setNames order.
const compatibleTable: Record<SetName, string> = {
  unconstrained: 'YYYYYYYYYYYYYYY',
  exists: 'YYNYYYYYYYYYYYY',
  doesNotExist: 'YNYNNNYNNNYNNNN',
  inA: 'YYNYNYNNNNYNNNN',
  inB: 'YYNNYYYNNNYNNNN',
  inAB: 'YYNYYYYNNNYNNNN',
  notInA: 'YYYNYYYYYYYYYYY',
  in1: 'YYNNNNYYNYNNNNY',
  in9: 'YYNNNNYNYYYYNNN',
  in19: 'YYNNNNYYYYYYNNY',
  notIn12: 'YYYYYYYNYYYYYYY',
  gt1: 'YYNNNNYNYYYYYNY',
  gt9: 'YYNNNNYNNNYYYNN',
  lt1: 'YYNNNNYNNNYNNYY',
  lt9: 'YYNNNNYYNYYYNYY',
};

describe('Requirements.compatible', () => {
  for (const a of setNames) {
    setNames.forEach((b, col) => {
      const want = compatibleTable[a][col] === 'Y';
      it(`${a} ${want ? 'accepts' : 'refuses'} ${b} (well-known may be undefined)`, () => {
        assert.equal(sets[a].compatible(sets[b], ALLOW_UNDEFINED_WELL_KNOWN) === undefined, want);
      });
    });
  }

  // Without the option, an undefined key is refused unless the other side only excludes values.
  const strictUnconstrained = 'YNYNNNYNNNYNNNN';
  setNames.forEach((b, col) => {
    const want = strictUnconstrained[col] === 'Y';
    it(`unconstrained ${want ? 'accepts' : 'refuses'} ${b} strictly`, () => {
      assert.equal(sets.unconstrained.isCompatible(sets[b]), want);
    });
  });
  it('strict checks agree with the loose ones where the key is defined', () => {
    for (const a of setNames.filter((n) => n !== 'unconstrained')) {
      for (const b of setNames) assert.equal(sets[a].isCompatible(sets[b]), sets[a].isCompatible(sets[b], ALLOW_UNDEFINED_WELL_KNOWN), `${a} ${b}`);
    }
  });

  const custom = (op: RequirementOperator, values: string[] = []) => new Requirements([Requirement.of('example.com/team', op, values)]);
  const undefinedKeys: { name: string; other: Requirements; want: string | undefined }[] = [
    { name: 'custom In on an undefined key is refused', other: custom('In', ['a']), want: 'label "example.com/team" does not have known values' },
    { name: 'custom Exists on an undefined key is refused', other: custom('Exists'), want: 'label "example.com/team" does not have known values' },
    { name: 'custom Gt on an undefined key is refused', other: custom('Gt', ['1']), want: 'label "example.com/team" does not have known values' },
    { name: 'custom NotIn on an undefined key is allowed', other: custom('NotIn', ['a']), want: undefined },
    { name: 'custom DoesNotExist on an undefined key is allowed', other: custom('DoesNotExist'), want: undefined },
  ];
  for (const c of undefinedKeys) {
    it(c.name, () => {
      assert.equal(sets.inA.compatible(c.other, ALLOW_UNDEFINED_WELL_KNOWN), c.want);
      assert.equal(sets.inA.compatible(c.other), c.want);
    });
  }

  const typos: { key: string; want: string }[] = [
    { key: 'zone', want: 'topology.kubernetes.io/zone' },
    { key: 'region', want: 'topology.kubernetes.io/region' },
    { key: 'nodepool', want: 'karpenter.sh/nodepool' },
    { key: 'instance-type', want: 'node.kubernetes.io/instance-type' },
    { key: 'arch', want: 'kubernetes.io/arch' },
    { key: 'capacity-type', want: 'karpenter.sh/capacity-type' },
    { key: 'topology.kubernetesio/zone', want: 'topology.kubernetes.io/zone' },
    { key: 'node.io/zone', want: 'topology.kubernetes.io/zone' },
    { key: 'topology.kubernetes.io/regio', want: 'topology.kubernetes.io/region' },
    { key: 'node.kubernetes.io/region', want: 'topology.kubernetes.io/region' },
    { key: 'karpenter/nodepool', want: 'karpenter.sh/nodepool' },
  ];
  for (const t of typos) {
    it(`suggests ${t.want} for ${t.key}`, () => {
      const other = new Requirements([Requirement.of(t.key, 'Exists')]);
      assert.equal(new Requirements().compatible(other, ALLOW_UNDEFINED_WELL_KNOWN), `label ${JSON.stringify(t.key)} does not have known values (typo of ${JSON.stringify(t.want)}?)`);
    });
  }
  it('has no hint for an unrelated key', () => {
    const other = new Requirements([Requirement.of('deployment', 'Exists')]);
    assert.equal(new Requirements().compatible(other), 'label "deployment" does not have known values');
  });
  it('suggests an existing key when no well-known one fits', () => {
    const mine = new Requirements([Requirement.of('example.com/team', 'In', ['a'])]);
    const other = new Requirements([Requirement.of('team', 'In', ['a'])]);
    assert.equal(mine.compatible(other), 'label "team" does not have known values (typo of "example.com/team"?)');
  });
  it('reports the first undefined key in key order', () => {
    const other = new Requirements([Requirement.of('z.io/b', 'In', ['1']), Requirement.of('a.io/a', 'In', ['1'])]);
    assert.equal(new Requirements().compatible(other), 'label "a.io/a" does not have known values');
  });
  it('still checks intersections after undefined keys pass', () => {
    const mine = new Requirements([Requirement.of(LABEL_ZONE, 'In', ['us-west-2a'])]);
    const other = new Requirements([Requirement.of(LABEL_ZONE, 'In', ['us-west-2b']), Requirement.of('example.com/x', 'NotIn', ['y'])]);
    assert.equal(
      mine.compatible(other, ALLOW_UNDEFINED_WELL_KNOWN),
      'key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-west-2b] not in topology.kubernetes.io/zone In [us-west-2a]',
    );
  });
});

describe('Requirements.intersects', () => {
  const cases: { name: string; a: Requirements; b: Requirements; want: string | undefined }[] = [
    { name: 'keys on one side only are ignored', a: zone('In', ['a']), b: new Requirements([Requirement.of('other', 'In', ['x'])]), want: undefined },
    { name: 'overlapping values', a: zone('In', ['a', 'b']), b: zone('In', ['b', 'c']), want: undefined },
    {
      name: 'disjoint values name the incoming side first',
      a: zone('In', ['us-west-2a']),
      b: zone('In', ['us-west-2b']),
      want: 'key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-west-2b] not in topology.kubernetes.io/zone In [us-west-2a]',
    },
    { name: 'DoesNotExist against DoesNotExist', a: zone('DoesNotExist'), b: zone('DoesNotExist'), want: undefined },
    { name: 'DoesNotExist against NotIn', a: zone('DoesNotExist'), b: zone('NotIn', ['a']), want: undefined },
    { name: 'NotIn against DoesNotExist', a: zone('NotIn', ['a']), b: zone('DoesNotExist'), want: undefined },
    {
      name: 'DoesNotExist against In',
      a: zone('DoesNotExist'),
      b: zone('In', ['a']),
      want: 'key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [a] not in topology.kubernetes.io/zone DoesNotExist',
    },
    {
      name: 'Exists against DoesNotExist',
      a: zone('Exists'),
      b: zone('DoesNotExist'),
      want: 'key topology.kubernetes.io/zone, topology.kubernetes.io/zone DoesNotExist not in topology.kubernetes.io/zone Exists',
    },
    {
      name: 'several conflicts join in key order',
      a: new Requirements([Requirement.of('b', 'In', ['1']), Requirement.of('a', 'In', ['1'])]),
      b: new Requirements([Requirement.of('a', 'In', ['2']), Requirement.of('b', 'Gt', ['5'])]),
      want: 'key a, a In [2] not in a In [1]; key b, b Exists >=6 not in b In [1]',
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(c.a.intersects(c.b), c.want));
});

describe('Requirements construction and access', () => {
  it('adds by intersecting', () => {
    const r = new Requirements([Requirement.of('k', 'In', ['a', 'b', 'c'])]);
    r.add(Requirement.of('k', 'NotIn', ['b']));
    assert.equal(r.get('k').toString(), 'k In [a c]');
    r.addAll(new Requirements([Requirement.of('k', 'In', ['c', 'd'])]));
    assert.equal(r.get('k').toString(), 'k In [c]');
  });
  it('get on an undefined key is Exists', () => {
    const r = new Requirements();
    assert.equal(r.has('k'), false);
    assert.equal(r.get('k').operator(), 'Exists');
    assert.equal(r.has('k'), false);
  });
  it('normalizes aliased keys', () => {
    const r = new Requirements([Requirement.of('failure-domain.beta.kubernetes.io/zone', 'In', ['test'])]);
    assert.equal(r.has('failure-domain.beta.kubernetes.io/zone'), false);
    assert.equal(r.get(LABEL_ZONE).has('test'), true);
  });
  it('builds from labels and from node selector requirements', () => {
    const fromLabels = Requirements.fromLabels({ 'beta.kubernetes.io/os': 'linux', team: 'a' });
    assert.deepEqual(fromLabels.keys(), ['kubernetes.io/os', 'team']);
    const fromSelector = Requirements.fromNodeSelectorRequirements([
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'm5.xlarge'], minValues: 2 },
      { key: 'node.kubernetes.io/instance-type', operator: 'NotIn', values: ['m5.xlarge'] },
    ]);
    assert.equal(fromSelector.toString(), 'node.kubernetes.io/instance-type In [m5.large] minValues 2');
    assert.equal(fromSelector.hasMinValues(), true);
    assert.equal(fromLabels.hasMinValues(), false);
  });
  it('set replaces, delete removes, clone is independent', () => {
    const r = new Requirements([Requirement.of('k', 'In', ['a'])]);
    const copy = r.clone();
    r.set(Requirement.of('k', 'In', ['z']));
    assert.equal(r.get('k').toString(), 'k In [z]');
    assert.equal(copy.get('k').toString(), 'k In [a]');
    assert.equal(r.delete('k'), true);
    assert.equal(r.size, 0);
    assert.equal(copy.size, 1);
  });
  it('narrow intersects like addAll and tells whether anything changed', () => {
    const r = new Requirements([Requirement.of('k', 'In', ['a', 'b']), Requirement.of('j', 'Exists')]);
    assert.deepEqual(r.narrow(new Requirements()), []);
    assert.deepEqual(r.narrow(new Requirements([Requirement.of('k', 'In', ['a', 'b', 'c'])])), []);
    assert.equal(r.get('k').toString(), 'k In [a b]');
    assert.deepEqual(r.narrow(new Requirements([Requirement.of('k', 'In', ['b', 'c'])])), ['k']);
    assert.equal(r.get('k').toString(), 'k In [b]');
    assert.deepEqual(r.narrow(new Requirements([Requirement.of('j', 'Exists', [], 2), Requirement.of('k', 'In', ['b'])])), ['j'], 'minValues added');
    assert.deepEqual(r.narrow(new Requirements([Requirement.of('new', 'Exists')])), ['new'], 'a key added');
    assert.equal(r.toString(), 'j Exists minValues 2, k In [b], new Exists');
  });
  it('conflictsOn finds exactly the conflicts intersects words, key by key', () => {
    const a = new Requirements([Requirement.of('x', 'In', ['1']), Requirement.of('y', 'NotIn', ['1']), Requirement.of('z', 'In', ['1'])]);
    const b = new Requirements([Requirement.of('x', 'In', ['2']), Requirement.of('y', 'DoesNotExist'), Requirement.of('z', 'In', ['1', '2']), Requirement.of('w', 'In', ['1'])]);
    assert.equal(a.intersects(b), 'key x, x In [2] not in x In [1]');
    assert.deepEqual(['x', 'y', 'z', 'w', 'missing'].map((k) => a.conflictsOn(b, [k])), [true, false, false, false, false]);
    assert.equal(a.conflictsOn(b, ['y', 'z', 'x']), true);
  });
  it('compatible names the first refused key in sorted order, however the keys were added', () => {
    const other = new Requirements([Requirement.of('zz', 'In', ['1']), Requirement.of('aa', 'In', ['1']), Requirement.of('mm', 'In', ['1'])]);
    assert.equal(new Requirements([Requirement.of('mm', 'In', ['1'])]).compatible(other), 'label "aa" does not have known values');
  });
  it('withMinValues and withValues copy', () => {
    const base = Requirement.of('k', 'In', ['a']);
    assert.equal(base.withMinValues(3).toString(), 'k In [a] minValues 3');
    assert.equal(base.withValues('b').toString(), 'k In [a b]');
    assert.equal(base.toString(), 'k In [a]');
  });
});

describe('Requirements.nodeSelectorRequirements', () => {
  it('converts every fixture, sorted by key', () => {
    const r = new Requirements(names.map((n) => Requirement.of(n, ...opAndValues(n))));
    assert.deepEqual(r.nodeSelectorRequirements(), [
      { key: 'doesNotExist', operator: 'DoesNotExist', values: [] },
      { key: 'exists', operator: 'Exists', values: [] },
      { key: 'gt1', operator: 'Gte', values: ['2'] },
      { key: 'gt9', operator: 'Gte', values: ['10'] },
      { key: 'in1', operator: 'In', values: ['1'] },
      { key: 'in19', operator: 'In', values: ['1', '9'] },
      { key: 'in9', operator: 'In', values: ['9'] },
      { key: 'inA', operator: 'In', values: ['A'] },
      { key: 'inAB', operator: 'In', values: ['A', 'B'] },
      { key: 'inB', operator: 'In', values: ['B'] },
      { key: 'lt1', operator: 'Lte', values: ['0'] },
      { key: 'lt9', operator: 'Lte', values: ['8'] },
      { key: 'notIn12', operator: 'NotIn', values: ['1', '2'] },
      { key: 'notInA', operator: 'NotIn', values: ['A'] },
    ]);
  });
  it('writes both bounds when a key has two', () => {
    const r = new Requirements([Requirement.of('cpu', 'Gte', ['8'], 1), Requirement.of('cpu', 'Lte', ['8'])]);
    assert.deepEqual(r.nodeSelectorRequirements(), [
      { key: 'cpu', operator: 'Gte', values: ['8'], minValues: 1 },
      { key: 'cpu', operator: 'Lte', values: ['8'], minValues: 1 },
    ]);
  });
});

function opAndValues(n: Name): [RequirementOperator, string[]] {
  const r = fixtures[n];
  const s = r.nodeSelectorRequirement();
  return [s.operator, [...s.values]];
}

describe('Requirements.toString', () => {
  it('sorts and joins, in Karpenter order', () => {
    const r = new Requirements(names.map((n) => Requirement.of(n, ...opAndValues(n))));
    assert.equal(
      r.toString(),
      'doesNotExist DoesNotExist, exists Exists, gt1 Exists >=2, gt9 Exists >=10, in1 In [1], in19 In [1 9], in9 In [9], inA In [A], inAB In [A B], inB In [B], lt1 Exists <=0, lt9 Exists <=8, notIn12 NotIn [1 2], notInA NotIn [A]',
    );
  });
  it('leaves out the hostname', () => {
    const r = new Requirements([Requirement.of(LABEL_HOSTNAME, 'In', ['hostname-placeholder-0001']), Requirement.of(LABEL_ZONE, 'In', ['a'])]);
    assert.equal(r.toString(), 'topology.kubernetes.io/zone In [a]');
  });
});

describe('Requirements.labels', () => {
  const reqs = new Requirements([
    Requirement.of(LABEL_ZONE, 'In', ['us-west-2a']),
    Requirement.of(LABEL_NODEPOOL, 'In', ['default']),
    Requirement.of(LABEL_HOSTNAME, 'In', ['hostname-placeholder-0001']),
    Requirement.of(LABEL_NODE_REGISTERED, 'In', ['true']),
    Requirement.of('example.com/team', 'In', ['b', 'a']),
    Requirement.of('example.com/tier', 'In', ['gold']),
    Requirement.of('example.com/any', 'Exists'),
    Requirement.of('example.com/none', 'DoesNotExist'),
    Requirement.of('example.com/not', 'NotIn', ['0']),
  ]);
  it('resolves custom keys only, as a new NodeClaim is labelled', () => {
    assert.deepEqual(reqs.labels(), { 'example.com/any': '0', 'example.com/not': '1', 'example.com/team': 'a', 'example.com/tier': 'gold' });
  });
  it('singleValueLabels keeps every single-valued In', () => {
    assert.deepEqual(reqs.singleValueLabels(), {
      [LABEL_HOSTNAME]: 'hostname-placeholder-0001',
      [LABEL_NODEPOOL]: 'default',
      [LABEL_NODE_REGISTERED]: 'true',
      'example.com/tier': 'gold',
      [LABEL_ZONE]: 'us-west-2a',
    });
  });
});

describe('intersection properties', () => {
  // Membership in an intersection is membership in both, over a spread of sample values.
  const samples = ['A', 'B', 'C', '-1', '0', '1', '2', '5', '8', '9', '10', '11', '+3', 'x1'];
  for (const a of names) {
    for (const b of names) {
      it(`${a} ∩ ${b} allows what both allow`, () => {
        const ab = fixtures[a].intersection(fixtures[b]);
        for (const v of samples) assert.equal(ab.has(v), fixtures[a].has(v) && fixtures[b].has(v), v);
        assert.ok(ab.equals(fixtures[b].intersection(fixtures[a])), 'commutes');
      });
    }
  }
});
