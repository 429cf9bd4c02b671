import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadScenario } from './scenario.js';

const load = (block: string) => loadScenario({ name: 's.yaml', text: `apiVersion: berth.dev/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nspec:\n  descheduler:\n${block}` });
const errorText = (r: ReturnType<typeof load>) => (!r.ok ? r.errors.map((d) => `${d.file}:${d.line}:${d.column}: ${d.object ?? ''}: ${d.field ?? ''}: ${d.message}`).join('\n') : '');

describe('scenario descheduler block', () => {
  it('compiles strategies with upstream defaults, the interval and the evictor args', () => {
    const r = load('    interval: 2m\n    evictor: {evictLocalStoragePods: true, priorityThreshold: {value: 1000}}\n    maxNoOfPodsToEvictPerNode: 3\n    strategies:\n      RemoveDuplicates: {}\n      RemovePodsViolatingTopologySpreadConstraint: {}\n      LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n');
    assert.ok(r.ok, errorText(r));
    const d = r.scenario.spec.descheduler!;
    assert.equal(d.enabled, true);
    assert.equal(d.intervalMs, 120_000);
    assert.equal(d.policy.maxNoOfPodsToEvictPerNode, 3);
    assert.equal(d.policy.predictPlacement, undefined);
    const [profile] = d.policy.profiles;
    assert.deepEqual(profile!.evictor, { evictLocalStoragePods: true, priorityThreshold: 1000 });
    assert.deepEqual(profile!.deschedule, []);
    assert.deepEqual(profile!.balance, [
      { name: 'RemoveDuplicates', args: {} },
      { name: 'RemovePodsViolatingTopologySpreadConstraint', args: { constraints: ['DoNotSchedule'] } },
      { name: 'LowNodeUtilization', args: { thresholds: { cpu: 20 }, targetThresholds: { cpu: 50 } } },
    ]);
  });
  it('reads a descheduler/v1alpha2 policy inline, with predictPlacement', () => {
    const r = load('    predictPlacement: true\n    policy:\n      apiVersion: descheduler/v1alpha2\n      kind: DeschedulerPolicy\n      profiles:\n      - name: p\n        pluginConfig: [{name: RemoveDuplicates}]\n        plugins: {balance: {enabled: [RemoveDuplicates]}}\n');
    assert.ok(r.ok, errorText(r));
    assert.equal(r.scenario.spec.descheduler!.policy.predictPlacement, true);
    assert.deepEqual(r.scenario.spec.descheduler!.policy.profiles[0]!.balance, [{ name: 'RemoveDuplicates', args: {} }]);
  });
  it('defaults to every 5 minutes', () => {
    const r = load('    strategies: {RemoveDuplicates: {}}\n');
    assert.ok(r.ok, errorText(r));
    assert.equal(r.scenario.spec.descheduler!.intervalMs, 300_000);
  });
  const cases: { name: string; block: string; want: RegExp }[] = [
    { name: 'an unknown strategy', block: '    strategies:\n      RemovePodsNobodyWrote: {}\n', want: /s\.yaml:7:\d+: Scenario: spec\.descheduler\.strategies\.RemovePodsNobodyWrote: .*no such descheduler plugin/ },
    { name: 'a threshold above 100', block: '    strategies:\n      HighNodeUtilization: {thresholds: {cpu: 120}}\n', want: /s\.yaml:7:\d+: Scenario: spec\.descheduler\.strategies\.HighNodeUtilization\.thresholds\.cpu: / },
    { name: 'a __proto__ threshold (was dropped without a word)', block: '    strategies:\n      HighNodeUtilization: {thresholds: {__proto__: 20}}\n', want: /s\.yaml:7:\d+: Scenario: spec\.descheduler\.strategies\.HighNodeUtilization\.thresholds: Invalid value: "__proto__": name part must consist/ },
    { name: 'thresholds above targetThresholds', block: '    strategies:\n      LowNodeUtilization: {thresholds: {cpu: 60}, targetThresholds: {cpu: 50}}\n', want: /s\.yaml:7:\d+: .*LowNodeUtilization\.thresholds\.cpu: Invalid value: thresholds' cpu percentage is greater than targetThresholds'/ },
    { name: 'different resources', block: '    strategies:\n      LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {memory: 50}}\n', want: /LowNodeUtilization\.targetThresholds: Invalid value: thresholds and targetThresholds configured different resources/ },
    { name: 'include and exclude', block: '    strategies:\n      RemoveDuplicates: {namespaces: {include: [a], exclude: [b]}}\n', want: /s\.yaml:7:\d+: .*RemoveDuplicates\.namespaces: Invalid value: only one of Include\/Exclude namespaces can be set/ },
    { name: 'policy and the shorthand together', block: '    policy: {profiles: []}\n    strategies: {RemoveDuplicates: {}}\n', want: /s\.yaml:6:\d+: .*spec\.descheduler\.policy: Invalid value: give either policy or the evictor\/strategies shorthand/ },
    { name: 'an unknown field inside a plugin', block: '    strategies:\n      RemoveDuplicates: {excludeOwnerKind: [Job]}\n', want: /s\.yaml:7:\d+: .*spec\.descheduler\.strategies\.RemoveDuplicates: Unrecognized key: "excludeOwnerKind"/ },
    { name: 'a zero interval', block: '    interval: 0s\n    strategies: {RemoveDuplicates: {}}\n', want: /s\.yaml:6:\d+: .*spec\.descheduler\.interval: Invalid value: "0s": must be greater than 0/ },
    { name: 'an unknown constraint kind', block: '    strategies:\n      RemovePodsViolatingTopologySpreadConstraint: {constraints: [Sometimes]}\n', want: /constraints\[0\]/ },
  ];
  for (const c of cases) {
    it(`refuses ${c.name}`, () => {
      const r = load(c.block);
      assert.equal(r.ok, false);
      assert.match(errorText(r), c.want);
    });
  }
});
