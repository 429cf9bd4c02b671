import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadSchedulerConfig } from './scheduler-config.js';

const load = (text: string) => loadSchedulerConfig({ name: 'sched.yaml', text });
const HEAD = 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n';

describe('loadSchedulerConfig: profile plugins', () => {
  const cases: { name: string; plugins: string }[] = [
    { name: 'only score weights', plugins: '    score: {enabled: [{name: NodeResourcesFit, weight: 5}]}' },
    { name: 'only multiPoint disabled', plugins: '    multiPoint: {disabled: [{name: ImageLocality}]}' },
    { name: 'two extension points', plugins: '    filter: {disabled: [{name: NodePorts}]}\n    preFilter: {disabled: [{name: NodePorts}]}' },
  ];
  for (const c of cases) {
    it(`a profile may name just the extension points it changes: ${c.name}`, () => {
      const r = load(`${HEAD}profiles:\n- schedulerName: default-scheduler\n  plugins:\n${c.plugins}\n`);
      assert.ok(r.ok, r.ok ? '' : r.errors.map((e) => e.message).join('; '));
    });
  }

  it('an unknown extension point is still an error', () => {
    const r = load(`${HEAD}profiles:\n- plugins:\n    scoring: {enabled: [{name: NodeResourcesFit}]}\n`);
    assert.equal(r.ok, false);
  });
});
