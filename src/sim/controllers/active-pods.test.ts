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
    // Ages 3 s and 4 s: both in [2^31, 2^32) ns.
    { name: 'same log2 bucket of ready time: uid decides', a: ranked({ name: 'b' }, { readySince: NOW - 3000 }), b: ranked({ name: 'a' }, { readySince: NOW - 4000 }), want: false },
    { name: 'same log2 bucket of ready time: reversed uids', a: ranked({ name: 'a' }, { readySince: NOW - 3000 }), b: ranked({ name: 'b' }, { readySince: NOW - 4000 }), want: true },
    // metav1.Time keeps whole seconds: ready 0.6 s apart in the same second is the same time, then creation decides.
    { name: 'ready in the same whole second: creation decides', a: ranked({ name: 'a', creation: 0 }, { readySince: NOW - 100_900 }), b: ranked({ name: 'b', creation: NOW - 200_000 }, { readySince: NOW - 100_300 }), want: false },
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
  it('a VictimGuide chooses among the pods upstream orders by UID, and only among them', () => {
    const mk = (name: string, nodeName: string, creation: number) => ({ ...pod(name), nodeName, phase: 'Running', creation, uid: name });
    // Ready 3 s and 4 s ago (one log2 bucket): a and b are ordered by UID; c, ready 60 s ago, goes last.
    const pods = [mk('a', 'n1', 0), mk('b', 'n2', 0), mk('c', 'n3', 0)];
    const ready: Record<string, number> = { 'default/a': NOW - 3000, 'default/b': NOW - 4000, 'default/c': NOW - 60_000 };
    const offered: string[][] = [];
    const victims = (guide?: Parameters<typeof podsToDelete>[5]) => podsToDelete(pods, pods, 1, (k) => ready[k], NOW, guide).map((p) => p.name);
    assert.deepEqual(victims(), ['a']);
    assert.deepEqual(victims((tied, n) => (offered.push(tied.map((p) => p.name)), tied.slice(tied.length - n))), ['b']);
    assert.deepEqual(offered, [['a', 'b']]);
    assert.deepEqual(victims(() => [pods[2]!]), ['a']);
  });
  it('for a VictimGuide, times whose age buckets meet within RANKING_LAG_MS count as tied (s1-84)', () => {
    // Ready 4 s ago (bucket 2^31 ns, until 4.29 s) and 6 s ago (bucket 2^32): apart now, one
    // bucket 295 ms later, when upstream's ReplicaSet controller may rank them. 3 s and 6 s
    // stay apart for 1.3 s: not tied.
    const mk = (name: string, nodeName: string) => ({ ...pod(name), nodeName, phase: 'Running', creation: 0, uid: name });
    const pods = [mk('a', 'n1'), mk('b', 'n2')];
    const run = (readyA: number) => {
      const ready: Record<string, number> = { 'default/a': NOW - readyA, 'default/b': NOW - 6000 };
      const offered: string[][] = [];
      const victims = podsToDelete(pods, pods, 1, (k) => ready[k], NOW, (tied, n) => (offered.push(tied.map((p) => p.name)), tied.slice(tied.length - n))).map((p) => p.name);
      return { victims, offered };
    };
    assert.deepEqual(run(4000), { victims: ['b'], offered: [['a', 'b']] });
    assert.deepEqual(run(3000), { victims: ['a'], offered: [] });
  });
  it('a RankingRaceGuide can rank with the unbound related pods counted where they were bound (s3-13)', () => {
    // Old a, b on n1 and c on n2; new x and y not bound yet. The simulator's own ranking deletes
    // a and b (n1 more crowded); with x counted on n2 (bound before the ReplicaSet's sync), n1
    // and n2 tie and age decides (c, much the newest, goes with one of n1's).
    const mk = (name: string, nodeName: string, creation: number) => ({ ...pod(name), nodeName, phase: 'Running', creation, uid: name });
    const old = [mk('a', 'n1', 0), mk('b', 'n1', 0), mk('c', 'n2', NOW - 1_000)];
    const related = [...old, mk('x', '', NOW), mk('y', '', NOW)];
    const offered: string[][] = [];
    const victims = (pick?: (withX: Pod[]) => Pod[] | undefined) =>
      podsToDelete(old, related, 2, () => 0, NOW, undefined, pick && ((unbound, own, victimsWith) => (offered.push([...unbound.map((p) => p.name), '|', ...own.map((p) => p.name)]), pick(victimsWith(['n2']))))).map((p) => p.name).sort();
    assert.deepEqual(victims(), ['a', 'b']);
    assert.deepEqual(victims((withX) => withX), ['a', 'c']);
    assert.deepEqual(offered, [['x', 'y', '|', 'a', 'b']]);
    assert.deepEqual(victims(() => undefined), ['a', 'b']);
  });
  it('returns every pod when asked for at least as many', () => {
    const pods = [pod('a'), pod('b')];
    assert.equal(podsToDelete(pods, pods, 5, () => undefined, NOW).length, 2);
  });
});
