import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from '../../model/pod.js';
import { pod } from '../fixtures.test-support.js';
import { lessActivePod, podsToDelete, POD_DELETION_COST_ANNOTATION, type RankedPod } from './active-pods.js';

const NOW = 1_000_000;

function ranked(p: Partial<Pod> & { name: string }, extra: { rank?: number; readySince?: number } = {}): RankedPod {
  const base = pod(p.name);
  return { pod: { ...base, phase: 'Running', nodeName: 'n1', creation: 0, ...p, uid: p.uid ?? p.name }, rank: extra.rank ?? 0, readySince: extra.readySince };
}

describe('lessActivePod (deleted first = less)', () => {
  const cases: { name: string; a: RankedPod; b: RankedPod; want: boolean }[] = [
    { name: 'unassigned before assigned', a: ranked({ name: 'a', nodeName: '', phase: 'Pending' }), b: ranked({ name: 'b' }, { readySince: 0 }), want: true },
    { name: 'assigned not before unassigned', a: ranked({ name: 'a' }), b: ranked({ name: 'b', nodeName: '' }), want: false },
    { name: 'pending before running', a: ranked({ name: 'a', phase: 'Pending' }), b: ranked({ name: 'b' }), want: true },
    { name: 'unknown before running', a: ranked({ name: 'a', phase: 'Unknown' }), b: ranked({ name: 'b' }), want: true },
    { name: 'not ready before ready', a: ranked({ name: 'a' }), b: ranked({ name: 'b' }, { readySince: 0 }), want: true },
    {
      name: 'lower deletion cost first',
      a: ranked({ name: 'a', annotations: { [POD_DELETION_COST_ANNOTATION]: '-5' } }, { rank: 0 }),
      b: ranked({ name: 'b' }, { rank: 3 }),
      want: true,
    },
    { name: 'more co-located first', a: ranked({ name: 'a' }, { rank: 2 }), b: ranked({ name: 'b' }, { rank: 1 }), want: true },
    { name: 'more recently ready first (different log2 bucket)', a: ranked({ name: 'a' }, { readySince: NOW - 1000 }), b: ranked({ name: 'b' }, { readySince: NOW - 100_000 }), want: true },
    { name: 'same log2 bucket of ready time: uid decides', a: ranked({ name: 'b' }, { readySince: NOW - 1000 }), b: ranked({ name: 'a' }, { readySince: NOW - 1001 }), want: false },
    { name: 'newer creation first', a: ranked({ name: 'a', creation: NOW - 10 }), b: ranked({ name: 'b', creation: NOW - 500_000 }), want: true },
    { name: 'equal pods are not less', a: ranked({ name: 'a' }), b: ranked({ name: 'a' }), want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(lessActivePod(c.a, c.b, NOW), c.want));
});

describe('podsToDelete', () => {
  it('picks the pods on the most crowded node when all else is equal', () => {
    const mk = (name: string, nodeName: string) => ({ ...pod(name), nodeName, phase: 'Running', creation: 0, uid: name });
    const pods = [mk('a', 'n1'), mk('b', 'n2'), mk('c', 'n2'), mk('d', 'n3')];
    const victims = podsToDelete(pods, pods, 2, () => 0, NOW).map((p) => p.name);
    assert.deepEqual(victims.sort(), ['b', 'c']);
  });
  it('returns every pod when asked for at least as many', () => {
    const pods = [pod('a'), pod('b')];
    assert.equal(podsToDelete(pods, pods, 5, () => undefined, NOW).length, 2);
  });
});
