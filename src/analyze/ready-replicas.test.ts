import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podGroups } from './pod-groups.js';
import { readyWindow, trackReady } from './ready-replicas.js';
import { contextFor, deploymentYaml, listYaml, loadInput, nodeYaml } from './test-input.js';
import { simulateWhatIf } from './what-if.js';

describe('trackReady', () => {
  it('follows a group through a node failure: ready at start, down when the node is NotReady, back after eviction and rescheduling', () => {
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'b'), deploymentYaml('web', 1)) });
    const ctx = contextFor(input);
    const [web] = podGroups(input);
    const tracker = trackReady([web!]);
    const run = simulateWhatIf(ctx, { name: 't', steps: [{ at: 60_000, action: { type: 'failNode', node: 'n1' } }], untilMs: 600_000, observe: tracker.observe });
    const bound = run.events.find((e) => e.type === 'Scheduled')!['node'];
    assert.equal(bound, 'n1', 'the replica starts on n1 (the first of two equal nodes)');
    const series = tracker.series(web!);
    assert.deepEqual(series.slice(0, 2), [{ t: 0, ready: 0 }, { t: 2000, ready: 1 }]);
    const notReady = run.events.find((e) => e.type === 'NodeNotReady')!.t;
    assert.deepEqual(series[2], { t: notReady, ready: 0 });
    const w = readyWindow(series, 60_000, 600_000, 1, 1);
    assert.equal(w.min, 0);
    assert.equal(w.minAt, notReady);
    assert.ok(w.wholeAgainAt !== undefined && w.wholeAgainAt > notReady + 300_000, 'back only after the 300 s eviction');
    assert.equal(w.belowMs, w.wholeAgainAt - notReady);
    const replacement = run.events.find((e) => e.type === 'PodCreated' && e.t > notReady)!['pod'] as string;
    assert.equal(tracker.isMember(web!, replacement), true);
    assert.equal(tracker.isMember(web!, 'default/other'), false);
  });
});

describe('trackReady, each group as if alone', () => {
  it('counts a pod for every group that has it, as one tracker per group does (a first-match tracker counts it once)', () => {
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'b'), deploymentYaml('web', 2)) });
    const [web] = podGroups(input);
    // A second group that has the same pods (overlapping selectors).
    const alias = { ...web!, object: 'Deployment/default/web-alias' };
    const each = trackReady([web!, alias], true);
    const alone = [trackReady([web!]), trackReady([alias])];
    const firstMatch = trackReady([web!, alias]);
    simulateWhatIf(contextFor(input), {
      name: 't',
      steps: [{ at: 60_000, action: { type: 'failNode', node: 'n1' } }],
      untilMs: 600_000,
      observe: (sim) => [each, ...alone, firstMatch].forEach((t) => t.observe(sim)),
    });
    assert.deepEqual(each.series(web!), alone[0]!.series(web!));
    assert.deepEqual(each.series(alias), alone[1]!.series(alias));
    assert.equal(each.ready(alias), 2);
    assert.equal(firstMatch.ready(alias), 0);
  });
});

describe('trackReady over many runs', () => {
  it('matches each pod of a built cluster against the groups once: a later run over the same list of groups asks no group again', () => {
    const pod = (i: number, node: string) =>
      `- {apiVersion: v1, kind: Pod, metadata: {name: web-7d9f-${i}, namespace: default, labels: {app: web, pod-template-hash: 7d9f}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9f, uid: rs-web, controller: true}]}, spec: {nodeName: ${node}, containers: [{name: main, image: web, resources: {requests: {cpu: 100m}}}]}, status: {phase: Running}}`;
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'b'), deploymentYaml('web', 2), pod(1, 'n1'), pod(2, 'n2')) });
    let asked = 0;
    const groups = podGroups(input).map((g) => ({ ...g, has: (p: Parameters<typeof g.has>[0]) => (asked++, g.has(p)) }));
    const askedAtStart = () => {
      const tracker = trackReady(groups);
      const before = asked;
      let atStart = 0;
      simulateWhatIf(contextFor(input), {
        name: 't',
        steps: [],
        untilMs: 60_000,
        observe: (sim) => {
          tracker.observe(sim);
          atStart = asked - before;
        },
      });
      assert.equal(tracker.ready(groups[0]!), 2);
      return atStart;
    };
    assert.equal(askedAtStart(), 2, 'the first run matches its two pods');
    assert.equal(askedAtStart(), 0, 'the next run knows them');
  });
});

describe('readyWindow', () => {
  const series = [
    { t: 0, ready: 3 },
    { t: 100, ready: 2 },
    { t: 200, ready: 0 },
    { t: 300, ready: 3 },
  ];
  const cases = [
    { name: 'dip and recovery', from: 50, until: 1000, floor: 2, whole: 3, want: { before: 3, min: 0, minAt: 200, belowMs: 100, wholeAgainAt: 300 } },
    { name: 'window before the dip', from: 0, until: 50, floor: 2, whole: 3, want: { before: 3, min: 3, minAt: 0, belowMs: 0, wholeAgainAt: 0 } },
    { name: 'never whole again within the window', from: 50, until: 250, floor: 3, whole: 3, want: { before: 3, min: 0, minAt: 200, belowMs: 150, wholeAgainAt: undefined } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(readyWindow(series, c.from, c.until, c.floor, c.whole), c.want));
});
