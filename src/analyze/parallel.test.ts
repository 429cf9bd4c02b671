import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itemCheck, twoRoundCheck, type AnalysisContext, type Check } from './check.js';
import type { Finding } from './finding.js';
import { defaultWorkers, podsAndNodes, POOL_MIN_NODES, runChecks, runTask, TWO_CORE_POOL_MIN_OBJECTS, workersPay, type CheckTask, type RunTask } from './parallel.js';
import { inputOf, nodesYaml, webDeployment } from './test-input.js';

const finding = (rule: string, object: string): Finding => ({ severity: 'warning', rule, object, message: object, evidence: [], fix: [] });
const ctx = {} as AnalysisContext;

/** A parted check whose items 0..n-1 yield a finding each except every third, which yields none. */
const parted = (rule: string, n: number) =>
  itemCheck({ rule, description: '', items: () => Array.from({ length: n }, (_, i) => i), findings: (_, i) => (i % 3 === 2 ? [] : [finding(rule, `item-${i}`)]) });
const whole = (rule: string): Check => ({ rule, description: '', run: () => [finding(rule, 'a'), finding(rule, 'b')] });

/**
 * A two-round check over `n` simulations: simulation i records "g{i mod 3}" twice
 * when i is even, nothing when odd; round 2 has a finding per group, naming its
 * records. `simulated` counts each simulation run.
 */
function twoRounds(rule: string, n: number, simulated: number[]) {
  return twoRoundCheck<string, [string, number]>({
    rule,
    description: '',
    firstRound: (_, part) => {
      const out: string[][] = [];
      for (let i = part.index; i < n; i += part.count) {
        simulated[i] = (simulated[i] ?? 0) + 1;
        out.push(i % 2 === 0 ? [`g${i % 3}`, `g${i % 3}`] : []);
      }
      return out;
    },
    between: (records) => [...new Set(records)].map((g) => [g, records.filter((r) => r === g).length]),
    secondRound: (_, [group, count]) => [finding(rule, `${group}×${count}`)],
  });
}

/** Runs each task on a later turn of the event loop, in an order unlike the order they came in. */
function scrambled(checks: readonly Check[], started: CheckTask[]): RunTask {
  return (task) => {
    started.push(task);
    const delay = (started.length * 7) % 5;
    return new Promise((done) => setTimeout(() => done(runTask(checks, ctx, task)), delay));
  };
}

describe('check tasks on a pool', () => {
  const single: number[] = [];
  const checks = [whole('first'), parted('losses', 11), whole('last'), parted('rollouts', 2), twoRounds('zones', 9, single)];
  const oneThread = checks.flatMap((c) => c.run(ctx));

  it('a two-round check run whole gives round 2 on the records of every round-1 item, groups in the order first recorded', () => {
    assert.deepEqual(oneThread.filter((f) => f.rule === 'zones').map((f) => f.object), ['g0×4', 'g2×4', 'g1×2']);
  });

  for (const parts of [1, 2, 3, 4, 7, 16]) {
    it(`merged back from ${parts} part(s) per check, the findings are run()'s, in the same order, each simulation run once`, async () => {
      const simulated: number[] = [];
      const mine = [...checks.slice(0, 4), twoRounds('zones', 9, simulated)];
      assert.deepEqual(await runChecks(mine, parts, scrambled(mine, [])), oneThread);
      assert.deepEqual(simulated, Array(9).fill(1));
    });
  }

  it('parted checks and round 1 first, part by part, whole checks after, each round-2 item a task once round 1 is in', async () => {
    const started: CheckTask[] = [];
    await runChecks(checks, 2, scrambled(checks, started));
    const name = (t: CheckTask) => ('round' in t ? (t.round === 1 ? `${t.check}:r1:${t.part.index}` : `${t.check}:r2:${JSON.stringify(t.items)}`) : t.part ? `${t.check}:${t.part.index}` : `${t.check}`);
    assert.deepEqual(started.map(name), ['1:0', '3:0', '4:r1:0', '1:1', '3:1', '4:r1:1', '0', '2', '4:r2:[["g0",4]]', '4:r2:[["g2",4]]', '4:r2:[["g1",2]]']);
  });

  it('refuses a part count that is not a positive integer', async () => {
    await assert.rejects(runChecks(checks, 0, scrambled(checks, [])), /positive integer/);
  });
});

describe('the default number of workers', () => {
  /** `nodes` nodes and `workloads` Deployments (they need no pods: a group is a workload). */
  const input = (nodes: number, workloads: number) => inputOf(nodesYaml(nodes), ...Array.from({ length: workloads }, (_, i) => webDeployment({ replicas: 2 }).replaceAll('web', `web${i}`)));

  it('one core, or a small input: one thread (workers would cost more than they save)', () => {
    assert.equal(defaultWorkers(input(POOL_MIN_NODES, 3), 1), 1);
    assert.equal(defaultWorkers(input(POOL_MIN_NODES - 1, 3), 4), 1);
  });

  it('one simulation to share out (one pod group): one thread', () => {
    assert.equal(defaultWorkers(input(POOL_MIN_NODES, 1), 4), 1);
  });

  it('a large input with several pod groups: every core', () => {
    assert.equal(defaultWorkers(input(POOL_MIN_NODES, 2), 4), 4);
  });

  it('on two cores, workers only for TWO_CORE_POOL_MIN_OBJECTS pods and nodes or more: below, their own compiles and copies of the input cost more than the second core gives', () => {
    const small = input(POOL_MIN_NODES, 2);
    assert.equal(podsAndNodes(small), POOL_MIN_NODES + 4);
    assert.equal(defaultWorkers(small, 2), 1);
    assert.equal(defaultWorkers(small, 3), 3);
    assert.equal(workersPay(2, TWO_CORE_POOL_MIN_OBJECTS - 1), false);
    assert.equal(workersPay(2, TWO_CORE_POOL_MIN_OBJECTS), true);
    assert.equal(workersPay(1, 10 * TWO_CORE_POOL_MIN_OBJECTS), false);
  });
});
