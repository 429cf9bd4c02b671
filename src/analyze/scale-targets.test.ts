import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podGroups } from './pod-groups.js';
import { scaleTargets } from './scale-targets.js';
import { deploymentYaml, listYaml, loadInput, nodeYaml } from './test-input.js';

const hpa = (target: string, max: number) => `- {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: ${target}, namespace: default}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: ${target}}, minReplicas: 2, maxReplicas: ${max}}}`;

describe('scaleTargets', () => {
  it("an autoscaler's maxReplicas, else --scale-up F times the replicas; controller-less pods and autoscalers already at their max are left alone", () => {
    const input = loadInput(
      { text: listYaml(nodeYaml('n1', 'a'), deploymentYaml('web', 2), deploymentYaml('api', 3), deploymentYaml('done', 4), hpa('api', 10), hpa('done', 4)) },
      { file: 'examples/apiserver-spread-only.yaml' },
    );
    const targets = scaleTargets(podGroups(input), input.hpas, 1.5);
    assert.deepEqual(targets.map((t) => `${t.group.object} ${t.replicas} (${t.why})`), ['Deployment/default/web 3 (--scale-up 1.5 of its 2 replicas)', 'Deployment/default/api 10 (HorizontalPodAutoscaler api maxReplicas)']);
  });

  it('without --scale-up only workloads with an autoscaler are scaled', () => {
    const input = loadInput({ text: listYaml(nodeYaml('n1', 'a'), deploymentYaml('web', 2), deploymentYaml('api', 3), hpa('api', 10)) });
    assert.deepEqual(scaleTargets(podGroups(input), input.hpas).map((t) => t.group.object), ['Deployment/default/api']);
  });
});
