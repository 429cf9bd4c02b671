import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { groupFinder, podGroups, podsOf } from './pod-groups.js';
import { deploymentYaml, listYaml, loadInput, nodeYaml } from './test-input.js';

describe('podGroups', () => {
  it('one group per Deployment (not its ReplicaSet, not DaemonSets) and per set of controller-less pods with the same labels', () => {
    const input = loadInput({ file: 'examples/apiserver-spread-only.yaml' }, {
      text: listYaml(
        deploymentYaml('web', 2),
        `- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: web-abc, namespace: default, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true}]}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web, pod-template-hash: abc}}
    template:
      metadata: {labels: {app: web, pod-template-hash: abc}}
      spec: {containers: [{name: c, image: app:v1}]}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: default}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec: {containers: [{name: c, image: agent:v1}]}
- {apiVersion: v1, kind: Pod, metadata: {name: lone, namespace: kube-system}, spec: {containers: [{name: c, image: x}]}}`,
      ),
    });
    const groups = podGroups(input);
    assert.deepEqual(groups.map((g) => `${g.object} x${g.replicas}`), ['Deployment/default/web x2', 'Pod/kube-system/apiserver-0 x3']);
    const apiserver = groups[1]!;
    assert.deepEqual(podsOf(apiserver, input.pods).map((p) => p.name), ['apiserver-0', 'apiserver-1', 'apiserver-2']);
    assert.deepEqual(podsOf(groups[0]!, input.pods).map((p) => p.labels['app']), ['web', 'web']);
  });

  it('the same groups, made once per input', () => {
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'a'), deploymentYaml('web', 2)) });
    assert.equal(podGroups(input), podGroups(input));
    assert.notEqual(podGroups(input), podGroups(loadInput({ text: listYaml(nodeYaml('n1', 'a'), deploymentYaml('web', 2)) })));
  });

  it('a pod joins a workload by namespace, selector and having a controller', () => {
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'a'), deploymentYaml('web', 1)) });
    const [web] = podGroups(input);
    const owned = [{ kind: 'ReplicaSet', name: 'web-x', uid: 'u', apiVersion: 'apps/v1', controller: true }];
    assert.equal(web!.has({ namespace: 'default', labels: { app: 'web' }, ownerReferences: owned }), true);
    assert.equal(web!.has({ namespace: 'other', labels: { app: 'web' }, ownerReferences: owned }), false);
    assert.equal(web!.has({ namespace: 'default', labels: { app: 'web' }, ownerReferences: [] }), false);
  });

  it('groupFinder finds exactly the groups that have a pod, in their order, whatever the selectors', () => {
    const deploy = (name: string, ns: string, selector: string, labels: string) => `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: ${name}, namespace: ${ns}}
  spec:
    replicas: 2
    selector: ${selector}
    template:
      metadata: {labels: ${labels}}
      spec: {containers: [{name: c, image: app:v1}]}`;
    const bare = (name: string, ns: string, labels: string) => `- {apiVersion: v1, kind: Pod, metadata: {name: ${name}, namespace: ${ns}, labels: ${labels}}, spec: {containers: [{name: c, image: x}]}}`;
    const input = loadInput({
      text: listYaml(
        deploy('by-app', 'a', '{matchLabels: {app: web}}', '{app: web}'),
        deploy('by-app-tier', 'a', '{matchLabels: {app: web, tier: front}}', '{app: web, tier: front}'),
        deploy('in-two', 'a', '{matchExpressions: [{key: tier, operator: In, values: [front, back]}]}', '{tier: back}'),
        deploy('not-in', 'a', '{matchExpressions: [{key: app, operator: NotIn, values: [web]}]}', '{app: db}'),
        deploy('exists', 'b', '{matchExpressions: [{key: app, operator: Exists}]}', '{app: db}'),
        deploy('other-ns', 'b', '{matchLabels: {app: web}}', '{app: web}'),
        bare('lone-0', 'a', '{app: cache}'),
        bare('lone-1', 'a', '{app: cache}'),
        bare('pair-0', 'b', '{app: web, tier: back}'),
      ),
    });
    const groups = podGroups(input);
    assert.equal(groups.length, 8);
    assert.equal(groups.filter((g) => g.requiredLabel === undefined).length, 2, 'NotIn and Exists selectors are asked for every pod');
    const find = groupFinder(groups);
    const owned = [{ kind: 'ReplicaSet', name: 'r', uid: 'u', apiVersion: 'apps/v1', controller: true }];
    const pod = fc.record({
      namespace: fc.constantFrom('a', 'b', 'c'),
      labels: fc.dictionary(fc.constantFrom('app', 'tier', 'zone'), fc.constantFrom('web', 'db', 'cache', 'front', 'back')),
      ownerReferences: fc.constantFrom([], owned),
    });
    fc.assert(fc.property(pod, (p) => assert.deepEqual(find(p).map((g) => g.object), groups.filter((g) => g.has(p)).map((g) => g.object))), { numRuns: 2000 });
  });
});
