import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { qualifiedNameErrors as labelKeyErrors } from '../../../model/label-syntax.js';
import { parsePodTopologySpreadArgs, SYSTEM_DEFAULT_CONSTRAINTS } from './args.js';

describe('parsePodTopologySpreadArgs', () => {
  it('System defaulting: hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway, in that order', () => {
    assert.deepEqual(parsePodTopologySpreadArgs({}), {
      systemDefaulted: true,
      defaultConstraints: [
        { topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
        { topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
      ],
    });
    assert.equal(parsePodTopologySpreadArgs({ defaultingType: 'System' }).defaultConstraints, SYSTEM_DEFAULT_CONSTRAINTS);
  });

  it('List defaulting keeps the written constraints, including minDomains and policies', () => {
    const c = { topologyKey: 'rack', maxSkew: 2, whenUnsatisfiable: 'DoNotSchedule', minDomains: 2, nodeAffinityPolicy: 'Ignore', nodeTaintsPolicy: 'Honor' };
    assert.deepEqual(parsePodTopologySpreadArgs({ apiVersion: 'kubescheduler.config.k8s.io/v1', kind: 'PodTopologySpreadArgs', defaultingType: 'List', defaultConstraints: [c] }), {
      systemDefaulted: false,
      defaultConstraints: [c],
    });
  });

  it('List defaulting without constraints has none', () => {
    assert.deepEqual(parsePodTopologySpreadArgs({ defaultingType: 'List', defaultConstraints: null }), { systemDefaulted: false, defaultConstraints: [] });
  });

  it('a path prefixes every field, as the configuration validator reports them', () => {
    assert.throws(() => parsePodTopologySpreadArgs({ defaultingType: 'List', defaultConstraints: [{ topologyKey: 'zone', maxSkew: 0, whenUnsatisfiable: 'DoNotSchedule' }] }, 'profiles[0].pluginConfig[2].args'), {
      message: 'profiles[0].pluginConfig[2].args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)',
    });
  });

  const typeErrors: { name: string; args: Record<string, unknown>; error: string }[] = [
    { name: 'defaultingType must be a string', args: { defaultingType: 1 }, error: 'PodTopologySpreadArgs: defaultingType: must be a string' },
    { name: 'defaultConstraints must be a list', args: { defaultConstraints: {} }, error: 'PodTopologySpreadArgs: defaultConstraints: must be a list' },
    { name: 'maxSkew must be an integer', args: { defaultingType: 'List', defaultConstraints: [{ maxSkew: 1.5 }] }, error: 'PodTopologySpreadArgs: defaultConstraints[0].maxSkew: must be an integer' },
    { name: 'unknown constraint field', args: { defaultingType: 'List', defaultConstraints: [{ skew: 1 }] }, error: 'PodTopologySpreadArgs: defaultConstraints[0].skew: unknown field' },
  ];
  for (const tc of typeErrors) {
    it(tc.name, () => assert.throws(() => parsePodTopologySpreadArgs(tc.args), { message: tc.error }));
  }
});

describe('labelKeyErrors', () => {
  const subdomain =
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const name =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  const cases: { name: string; key: string; want: string[] }[] = [
    { name: 'plain name', key: 'zone', want: [] },
    { name: 'prefixed name', key: 'topology.kubernetes.io/zone', want: [] },
    { name: 'empty prefix', key: '/zone', want: ['prefix part must be non-empty'] },
    { name: 'upper-case prefix', key: 'Example.com/zone', want: [subdomain] },
    { name: 'empty name after a prefix', key: 'example.com/', want: ['name part must be non-empty', name] },
    { name: 'name ending with a dash', key: 'zone-', want: [name] },
    { name: 'name longer than 63 bytes', key: 'a'.repeat(64), want: ['name part must be no more than 63 bytes'] },
  ];
  for (const tc of cases) {
    it(tc.name, () => assert.deepEqual(labelKeyErrors(tc.key), tc.want));
  }
});
