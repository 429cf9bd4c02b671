import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itemCheck, type AnalysisContext, type Check } from './check.js';
import type { Finding } from './finding.js';
import { checkTasks, defaultWorkers, mergeTasks, POOL_MIN_NODES } from './parallel.js';
import { inputOf, nodesYaml, webDeployment } from './test-input.js';

const finding = (rule: string, object: string): Finding => ({ severity: 'warning', rule, object, message: object, evidence: [], fix: [] });
const ctx = {} as AnalysisContext;

/** A parted check whose items 0..n-1 yield a finding each except every third, which yields none. */
const parted = (rule: string, n: number) =>
  itemCheck({ rule, description: '', items: () => Array.from({ length: n }, (_, i) => i), findings: (_, i) => (i % 3 === 2 ? [] : [finding(rule, `item-${i}`)]) });
const whole = (rule: string): Check => ({ rule, description: '', run: () => [finding(rule, 'a'), finding(rule, 'b')] });

describe('check tasks on a pool', () => {
  const checks = [whole('first'), parted('losses', 11), whole('last'), parted('rollouts', 2)];

  for (const parts of [1, 2, 3, 4, 7, 16]) {
    it(`merged back from ${parts} part(s) per parted check, the findings are run()'s, in the same order`, () => {
      const tasks = checkTasks(checks, parts);
      // Run in reverse, as a pool may finish them: results still line up with tasks.
      const results = [...tasks].reverse().map((t) => {
        const c = checks[t.check]!;
        return t.part ? (c as ReturnType<typeof parted>).runPart(ctx, t.part) : [c.run(ctx)];
      }).reverse();
      assert.deepEqual(mergeTasks(checks, tasks, results), checks.flatMap((c) => c.run(ctx)));
    });
  }

  it('parted checks come first, part by part, whole checks after', () => {
    assert.deepEqual(
      checkTasks(checks, 2).map((t) => (t.part ? `${t.check}:${t.part.index}/${t.part.count}` : `${t.check}`)),
      ['1:0/2', '3:0/2', '1:1/2', '3:1/2', '0', '2'],
    );
  });

  it('refuses a part count that is not a positive integer', () => {
    assert.throws(() => checkTasks(checks, 0), /positive integer/);
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
});
