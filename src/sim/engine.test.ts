import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine } from './engine.js';
import { EventQueue } from './events.js';

describe('EventQueue', () => {
  it('pops by time, then by insertion order', () => {
    const q = new EventQueue();
    const order: string[] = [];
    for (const [t, name] of [[5, 'a'], [1, 'b'], [5, 'c'], [0, 'd'], [1, 'e'], [5, 'f']] as const) q.push(t, name, () => order.push(name));
    while (q.size > 0) q.pop()!.run();
    assert.deepEqual(order, ['d', 'b', 'e', 'a', 'c', 'f']);
  });
});

describe('Engine', () => {
  const cases: { name: string; until: number; want: { ran: string[]; stoppedBy: string; now: number } }[] = [
    { name: 'stops at the limit and leaves the clock there', until: 1500, want: { ran: ['a@0', 'b@1000', 'c@1000'], stoppedBy: 'limit', now: 1500 } },
    { name: 'runs an event exactly at the limit', until: 2000, want: { ran: ['a@0', 'b@1000', 'c@1000', 'd@2000'], stoppedBy: 'empty', now: 2000 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const e = new Engine();
      const ran: string[] = [];
      const mark = (n: string) => () => ran.push(`${n}@${e.now}`);
      e.at(0, 'a', () => {
        mark('a')();
        e.after(1000, 'c', mark('c'));
        e.after(2000, 'd', mark('d'));
      });
      e.at(1000, 'b', mark('b'));
      const r = e.run(c.until);
      assert.deepEqual({ ran, stoppedBy: r.stoppedBy, now: e.now }, c.want);
    });
  }

  it('stop() ends the run after the current event and leaves the rest queued', () => {
    const e = new Engine();
    const ran: string[] = [];
    e.at(10, 'a', () => ran.push('a'));
    e.at(20, 'b', () => {
      ran.push('b');
      e.stop();
    });
    e.at(30, 'c', () => ran.push('c'));
    assert.deepEqual(e.run(100), { eventsProcessed: 2, stoppedBy: 'stopped' });
    assert.deepEqual({ ran, now: e.now, pending: e.pendingEvents }, { ran: ['a', 'b'], now: 20, pending: 1 });
  });

  it('rejects events in the past and non-integer times', () => {
    const e = new Engine();
    e.at(10, 'x', () => {});
    e.run(10);
    assert.throws(() => e.at(5, 'y', () => {}), /in the past/);
    assert.throws(() => e.at(10.5, 'y', () => {}), /integer/);
  });

  it('records log lines with the current time', () => {
    const e = new Engine();
    e.at(250, 'x', () => e.record('Thing', { pod: 'a' }));
    e.run(1000);
    assert.deepEqual(e.log, [{ t: 250, type: 'Thing', pod: 'a' }]);
  });
});
