// HorizontalPodAutoscalers through the loader: what lands in the input, errors at
// their file:line:column and field, targets that are not in the input.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDiagnostic } from './diagnostics.js';
import { loadSources } from './load.js';

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: web:v1}]}}
`;
const hpa = (spec: string, apiVersion = 'autoscaling/v2') => `---
apiVersion: ${apiVersion}
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
${spec}
`;

const load = (text: string) => loadSources([{ name: 'h.yaml', text: deployment + text }]);

describe('HorizontalPodAutoscaler', () => {
  test('its target and bounds; minReplicas defaults to 1', () => {
    const r = load(hpa('  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 10\n  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}]'));
    assert.ok(r.ok);
    assert.deepEqual(r.input.hpas, [{ namespace: 'default', name: 'web', key: 'default/web', target: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 10 }]);
  });

  const bad = [
    { name: 'maxReplicas below minReplicas', spec: '  scaleTargetRef: {kind: Deployment, name: web}\n  minReplicas: 5\n  maxReplicas: 3', want: 'h.yaml:14:16: HorizontalPodAutoscaler default/web: spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`' },
    { name: 'minReplicas 0', spec: '  scaleTargetRef: {kind: Deployment, name: web}\n  minReplicas: 0\n  maxReplicas: 3', want: 'h.yaml:13:16: HorizontalPodAutoscaler default/web: spec.minReplicas: Invalid value: 0: must be greater than or equal to 1' },
    { name: 'no target name', spec: '  scaleTargetRef: {kind: Deployment}\n  maxReplicas: 3', want: 'h.yaml:12:3: HorizontalPodAutoscaler default/web: spec.scaleTargetRef.name: Required value' },
    { name: 'no maxReplicas', spec: '  scaleTargetRef: {kind: Deployment, name: web}', want: 'h.yaml:11:1: HorizontalPodAutoscaler default/web: spec.maxReplicas: Required value' },
  ];
  for (const c of bad) {
    test(c.name, () => {
      const r = load(hpa(c.spec));
      assert.equal(r.ok, false);
      const got = !r.ok ? r.errors.map(formatDiagnostic) : [];
      assert.equal(got.length, 1, got.join('\n'));
      assert.ok(got[0]!.startsWith(c.want), got[0]);
    });
  }

  test('a target that is not in the input is a warning, and the autoscaler is left out', () => {
    const r = load(hpa('  scaleTargetRef: {kind: Deployment, name: api}\n  maxReplicas: 3'));
    assert.ok(r.ok);
    assert.deepEqual(r.input.hpas, []);
    assert.match(r.warnings.map(formatDiagnostic).join('\n'), /spec\.scaleTargetRef: Not found: Deployment default\/api is not in the input/);
  });

  test('autoscaling/v1 is skipped with a warning', () => {
    const r = load(hpa('  scaleTargetRef: {kind: Deployment, name: web}\n  maxReplicas: 3', 'autoscaling/v1'));
    assert.ok(r.ok);
    assert.deepEqual(r.input.hpas, []);
    assert.match(r.warnings.map(formatDiagnostic).join('\n'), /berth reads HorizontalPodAutoscaler at autoscaling\/v2/);
  });
});
