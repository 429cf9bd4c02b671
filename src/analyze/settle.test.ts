import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podGroups } from './pod-groups.js';
import { settle, settledGroups } from './settle.js';
import { contextFor, deploymentYaml, listYaml, loadInput, nodeYaml } from './test-input.js';

describe('settledGroups', () => {
  it("gives each group what settle gives it alone, a pod counted for every group it belongs to", () => {
    // web-x's pods carry app: web too, so the web group counts them as well.
    const lookalike = deploymentYaml('web-x', 2).replace('selector: {matchLabels: {app: web-x}}', 'selector: {matchLabels: {app: web, tier: x}}').replace('labels: {app: web-x}', 'labels: {app: web, tier: x}');
    const ctx = contextFor(loadInput({ text: listYaml(nodeYaml('n1', 'a'), nodeYaml('n2', 'a'), nodeYaml('n3', 'b'), deploymentYaml('web', 3), lookalike, deploymentYaml('db', 2)) }));
    const groups = podGroups(ctx.input);
    const { t0, placements } = settledGroups(ctx, groups);
    for (const g of groups) {
      const alone = settle(ctx, [g]);
      assert.equal(t0, alone.t0);
      const want = alone.placement.filter((p) => p.hosts.has(g)).map((p) => [p.node.name, p.hosts.get(g)]);
      assert.deepEqual(placements.get(g)!.map((p) => [p.node.name, p.pods.length]), want, g.object);
    }
    assert.equal(placements.get(groups.find((g) => g.name === 'web')!)!.reduce((n, p) => n + p.pods.length, 0), 5, 'web counts its 3 pods and web-x 2');
  });
});
