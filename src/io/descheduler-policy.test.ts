import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadDeschedulerPolicy, parseSelectorString } from './descheduler-policy.js';

const HEAD = 'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n';
const load = (body: string, predict = false) => loadDeschedulerPolicy({ name: 'p.yaml', text: HEAD + body }, predict);
const errorText = (r: ReturnType<typeof load>) => (!r.ok ? r.errors.map((d) => `${d.file}:${d.line}:${d.column}: ${d.field ?? ''}: ${d.message}`).join('\n') : '');

describe('descheduler/v1alpha2 DeschedulerPolicy', () => {
  it('reads profiles, plugin args with their defaults, the DefaultEvictor args, nodeSelector and the limits', () => {
    const r = load(
      [
        'nodeSelector: "pool=general,!gpu"',
        'maxNoOfPodsToEvictPerNode: 2',
        'maxNoOfPodsToEvictTotal: 10',
        'profiles:',
        '- name: a',
        '  pluginConfig:',
        '  - name: DefaultEvictor',
        '    args: {nodeFit: true, minReplicas: 2, minPodAge: 5m, priorityThreshold: {value: 1000}, namespaceLabelSelector: {matchLabels: {team: x}}}',
        '  - name: RemovePodsViolatingTopologySpreadConstraint',
        '    args: {constraints: [DoNotSchedule, ScheduleAnyway]}',
        '  plugins:',
        '    deschedule: {enabled: [RemovePodsViolatingNodeTaints, RemoveFailedPods]}',
        '    balance: {enabled: [RemoveDuplicates, RemovePodsViolatingTopologySpreadConstraint], disabled: [RemoveDuplicates]}',
        '- name: b',
        '  plugins: {balance: {enabled: [HighNodeUtilization]}}',
        '  pluginConfig: [{name: HighNodeUtilization, args: {thresholds: {cpu: 20}}}]',
        '',
      ].join('\n'),
    );
    assert.ok(r.ok, errorText(r));
    const p = r.policy;
    assert.equal(p.maxNoOfPodsToEvictPerNode, 2);
    assert.equal(p.maxNoOfPodsToEvictTotal, 10);
    assert.equal(p.predictPlacement, undefined);
    assert.ok(p.nodeSelector!.matches({ pool: 'general' }));
    assert.ok(!p.nodeSelector!.matches({ pool: 'general', gpu: 'yes' }));
    const [a, b] = p.profiles;
    assert.deepEqual(a!.deschedule.map((e) => [e.name, e.args]), [
      ['RemovePodsViolatingNodeTaints', {}],
      ['RemoveFailedPods', { minPodLifetimeSeconds: 3600 }],
    ]);
    assert.deepEqual(a!.balance.map((e) => [e.name, e.args]), [['RemovePodsViolatingTopologySpreadConstraint', { constraints: ['DoNotSchedule', 'ScheduleAnyway'] }]]);
    assert.equal(a!.evictor.nodeFit, true);
    assert.equal(a!.evictor.minReplicas, 2);
    assert.equal(a!.evictor.minPodAgeMs, 300_000);
    assert.equal(a!.evictor.priorityThreshold, 1000);
    assert.ok(a!.evictor.namespaceLabelSelector!.matches({ team: 'x' }));
    assert.deepEqual(b!.balance, [{ name: 'HighNodeUtilization', args: { thresholds: { cpu: 20 } } }]);
    assert.deepEqual(b!.evictor, {});
  });
  it('predictPlacement is berth\'s option, set by the caller', () => {
    const r = load('profiles: []\n', true);
    assert.ok(r.ok);
    assert.equal(r.policy.predictPlacement, true);
  });
  const cases: { name: string; body: string; want: RegExp }[] = [
    { name: 'an unknown top-level field', body: 'profile: []\n', want: /p\.yaml:3:1: : Unrecognized key: "profile"/ },
    { name: 'the wrong apiVersion', body: '', want: /./ },
    { name: 'an unknown plugin', body: 'profiles:\n- name: a\n  plugins: {balance: {enabled: [Rebalance]}}\n', want: /p\.yaml:5:\d+: profiles\[0\]\.plugins\.balance\.enabled\[0\]: Unsupported value: "Rebalance": no such descheduler plugin/ },
    { name: 'a plugin at the wrong extension point', body: 'profiles:\n- name: a\n  plugins: {deschedule: {enabled: [RemoveDuplicates]}}\n', want: /profiles\[0\]\.plugins\.deschedule\.enabled\[0\]: Invalid value: "RemoveDuplicates" is not a deschedule plugin \(enable it under balance\)/ },
    { name: 'utilization without thresholds', body: 'profiles:\n- name: a\n  plugins: {balance: {enabled: [LowNodeUtilization]}}\n', want: /p\.yaml:5:\d+: profiles\[0\]\.plugins\.balance\.enabled\[0\]: Required value: no resource threshold is configured \(no pluginConfig entry gives LowNodeUtilization its args\)/ },
    { name: 'a threshold above 100', body: 'profiles:\n- name: a\n  pluginConfig: [{name: HighNodeUtilization, args: {thresholds: {cpu: 101}}}]\n  plugins: {balance: {enabled: [HighNodeUtilization]}}\n', want: /profiles\[0\]\.pluginConfig\[0\]\.args\.thresholds\.cpu: / },
    { name: 'include namespaces for a utilization plugin', body: 'profiles:\n- name: a\n  pluginConfig: [{name: HighNodeUtilization, args: {thresholds: {cpu: 10}, evictableNamespaces: {include: [x]}}}]\n  plugins: {balance: {enabled: [HighNodeUtilization]}}\n', want: /evictableNamespaces\.include: Invalid value: only Exclude namespaces can be set/ },
    { name: 'a zero restart threshold', body: 'profiles:\n- name: a\n  plugins: {deschedule: {enabled: [RemovePodsHavingTooManyRestarts]}}\n', want: /enabled\[0\]: Invalid value: invalid PodsHavingTooManyRestarts threshold/ },
    { name: 'PodLifeTime without a criterion', body: 'profiles:\n- name: a\n  plugins: {deschedule: {enabled: [PodLifeTime]}}\n', want: /at least one filtering criterion must be specified/ },
    { name: 'an unknown PodLifeTime state', body: 'profiles:\n- name: a\n  pluginConfig: [{name: PodLifeTime, args: {states: [Sleepy]}}]\n  plugins: {deschedule: {enabled: [PodLifeTime]}}\n', want: /states\[0\]: Unsupported value: states must be one of/ },
    { name: 'duplicate profile names', body: 'profiles:\n- name: a\n- name: a\n', want: /p\.yaml:5:\d+: profiles\[1\]\.name: Duplicate value: "a"/ },
    { name: 'priorityThreshold by name', body: 'profiles:\n- name: a\n  pluginConfig: [{name: DefaultEvictor, args: {priorityThreshold: {name: high}}}]\n', want: /priorityThreshold\.name: Unsupported value/ },
    { name: 'a bad minPodAge', body: 'profiles:\n- name: a\n  pluginConfig: [{name: DefaultEvictor, args: {minPodAge: soon}}]\n', want: /args\.minPodAge: time: invalid duration "soon"/ },
    { name: 'a bad nodeSelector', body: 'nodeSelector: "a in b"\n', want: /nodeSelector: Invalid value: "a in b": unable to parse requirement/ },
  ];
  for (const c of cases) {
    it(`refuses ${c.name}`, () => {
      const r = c.name === 'the wrong apiVersion' ? loadDeschedulerPolicy({ name: 'p.yaml', text: 'apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\n' }) : load(c.body);
      assert.equal(r.ok, false);
      assert.match(errorText(r), c.want);
    });
  }
  it('reads labels.Parse selector strings', () => {
    const s = parseSelectorString('a=b, c!=d, e in (x, y), f notin (z), g, !h', []);
    assert.ok(s.matches({ a: 'b', e: 'x', g: '' }));
    assert.ok(!s.matches({ a: 'b', e: 'x', g: '', h: '1' }));
    assert.ok(!s.matches({ a: 'b', e: 'q', g: '' }));
    assert.ok(parseSelectorString('', []).matches({}));
  });
});
