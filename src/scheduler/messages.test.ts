import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NodeToStatus } from './framework.js';
import { addPluginStatus, compareGoStrings, fitErrorMessage, type Diagnosis } from './messages.js';
import { Code, Status } from './status.js';

function diagnosis(explicit: [string, Status][], opts: { absent?: Status; preFilterMsg?: string; postFilterMsg?: string } = {}): Diagnosis {
  const nodeToStatus = new NodeToStatus();
  for (const [n, s] of explicit) nodeToStatus.set(n, s);
  if (opts.absent) nodeToStatus.absentNodesStatus = opts.absent;
  return { nodeToStatus, unschedulablePlugins: new Set(), pendingPlugins: new Set(), preFilterMsg: opts.preFilterMsg ?? '', postFilterMsg: opts.postFilterMsg ?? '' };
}
const nodes = (n: number, s: Status): [string, Status][] => Array.from({ length: n }, (_, i) => [`n${i}`, s] as [string, Status]);

// framework.FitError.Error().
describe('fitErrorMessage', () => {
  const cpu = Status.unschedulable('Insufficient cpu');
  const taint = Status.unresolvable("node(s) had untolerated taint {dedicated: gpu}");
  const cases: { name: string; all: number; d: Diagnosis; want: string }[] = [
    {
      name: 'histogram sorted as strings',
      all: 5,
      d: diagnosis([...nodes(2, cpu), ['t0', taint], ['t1', taint], ['t2', taint]]),
      want: '0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint {dedicated: gpu}.',
    },
    {
      // "10 ..." sorts before "2 ..." byte-wise
      name: 'counts sort as text, not numbers',
      all: 12,
      d: diagnosis([...nodes(2, cpu), ...Array.from({ length: 10 }, (_, i) => [`t${i}`, taint] as [string, Status])]),
      want: "0/12 nodes are available: 10 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu.",
    },
    {
      name: 'every reason of a status counts',
      all: 2,
      d: diagnosis([['a', Status.unschedulable('Insufficient cpu', 'Insufficient memory')], ['b', Status.unschedulable('Insufficient memory')]]),
      want: '0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory.',
    },
    {
      name: 'absent nodes count with the absent status',
      all: 5,
      d: diagnosis([['a', cpu]], { absent: Status.unresolvable("node(s) didn't satisfy plugin(s) [NodeAffinity]") }),
      want: "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't satisfy plugin(s) [NodeAffinity].",
    },
    { name: 'the default absent status has no reasons', all: 3, d: diagnosis([['a', cpu]]), want: '0/3 nodes are available: 1 Insufficient cpu.' },
    {
      name: 'a PreFilter message replaces the histogram',
      all: 3,
      d: diagnosis([['a', cpu]], { preFilterMsg: "node(s) didn't match pod topology spread constraints (missing required label)", absent: taint }),
      want: "0/3 nodes are available: node(s) didn't match pod topology spread constraints (missing required label).",
    },
    {
      name: 'the PostFilter message is appended',
      all: 2,
      d: diagnosis(nodes(2, cpu), { postFilterMsg: 'preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.' }),
      want: '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
    },
    {
      name: 'PostFilter message after a PreFilter message',
      all: 1,
      d: diagnosis([], { preFilterMsg: 'pod has unbound immediate PersistentVolumeClaims', postFilterMsg: 'preemption: not eligible due to preemptionPolicy=Never.' }),
      want: '0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: not eligible due to preemptionPolicy=Never.',
    },
    { name: 'nothing to say', all: 3, d: diagnosis([]), want: '0/3 nodes are available:' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(fitErrorMessage(c.all, c.d), c.want));
});

describe('compareGoStrings (sort.Strings order)', () => {
  it('byte order: upper case before lower case, digits before letters', () => {
    assert.deepEqual(['b', 'B', 'a', '1', '10', '2'].sort(compareGoStrings), ['1', '10', '2', 'B', 'a', 'b']);
  });
  it('code point order, not UTF-16 order, beyond the BMP', () => {
    const halfwidth = '\uff61';
    const emoji = '\u{1F600}';
    assert.equal(compareGoStrings(halfwidth, emoji), -1);
    assert.equal([emoji, halfwidth].sort()[0], emoji); // JS's own order differs
  });
  it('a prefix sorts first; equal strings compare 0', () => {
    assert.equal(compareGoStrings('ab', 'abc'), -1);
    assert.equal(compareGoStrings('abc', 'ab'), 1);
    assert.equal(compareGoStrings('x', 'x'), 0);
  });
});

describe('addPluginStatus', () => {
  it('records rejecting and pending plugins only', () => {
    const d = diagnosis([]);
    addPluginStatus(d, Status.unschedulable('x').withPlugin('A'));
    addPluginStatus(d, Status.unresolvable('y').withPlugin('B'));
    addPluginStatus(d, new Status(Code.Pending, ['z'], 'C'));
    addPluginStatus(d, Status.unschedulable('no plugin'));
    assert.deepEqual([[...d.unschedulablePlugins], [...d.pendingPlugins]], [['A', 'B', 'C'], ['C']]);
  });
});
