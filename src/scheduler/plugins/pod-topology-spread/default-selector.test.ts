import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ClusterState, OWNER_KINDS, type OwnerSelector } from '../../../cluster/state.js';
import type { LabelSelectorManifest } from '../../../model/manifest.js';
import { compilePod, type Pod } from '../../../model/pod.js';
import { compileLabelSelector, nothingSelector } from '../../../model/selector.js';
import { defaultSelector } from './default-selector.js';

const sel = (spec: LabelSelectorManifest | null, namespace = 'default', name = 'x'): OwnerSelector => ({
  namespace,
  name,
  uid: name,
  selector: spec === null ? nothingSelector() : compileLabelSelector(spec),
});

function pod(labels: Record<string, string>, owners: { apiVersion?: string; kind: string; name: string; controller?: boolean }[] = [], namespace = 'default'): Pod {
  return compilePod({ metadata: { name: 'p', namespace, labels, ownerReferences: owners.map((o) => ({ apiVersion: 'apps/v1', controller: true, ...o })) }, spec: { containers: [{ name: 'c' }] } }, { order: 0 });
}

interface Case {
  readonly name: string;
  readonly services?: OwnerSelector[];
  readonly replicationControllers?: OwnerSelector[];
  readonly replicaSets?: OwnerSelector[];
  readonly statefulSets?: OwnerSelector[];
  readonly pod: Pod;
  /** Labels the selector must accept / reject; empty `accepts` and `rejects` means "no requirements". */
  readonly accepts: Record<string, string>[];
  readonly rejects: Record<string, string>[];
}

const labels = { app: 'web', tier: 'front', rev: 'v1' };

const cases: Case[] = [
  { name: 'nothing selects or owns the pod: empty selector', pod: pod(labels), accepts: [], rejects: [] },
  {
    name: 'a matching Service contributes its selector',
    services: [sel({ matchLabels: { app: 'web' } })],
    pod: pod(labels),
    accepts: [{ app: 'web' }],
    rejects: [{ app: 'db' }, {}],
  },
  {
    name: 'several matching Services merge their selectors',
    services: [sel({ matchLabels: { app: 'web' } }, 'default', 's1'), sel({ matchLabels: { tier: 'front' } }, 'default', 's2')],
    pod: pod(labels),
    accepts: [{ app: 'web', tier: 'front' }],
    rejects: [{ app: 'web' }, { tier: 'front' }],
  },
  {
    name: 'Services that do not match, that live in another namespace, or that have no selector are left out',
    services: [sel({ matchLabels: { app: 'db' } }, 'default', 's1'), sel({ matchLabels: { tier: 'front' } }, 'other', 's2'), sel(null, 'default', 's3')],
    pod: pod(labels),
    accepts: [],
    rejects: [],
  },
  {
    name: 'a Service with an empty selector matches but adds no requirement',
    services: [sel({})],
    pod: pod(labels),
    accepts: [],
    rejects: [],
  },
  {
    name: 'the controlling ReplicaSet adds its requirements to the Service ones',
    services: [sel({ matchLabels: { tier: 'front' } })],
    replicaSets: [sel({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'rev', operator: 'Exists', values: [] }] }, 'default', 'web-rs')],
    pod: pod(labels, [{ kind: 'ReplicaSet', name: 'web-rs' }]),
    accepts: [{ app: 'web', tier: 'front', rev: 'v9' }],
    rejects: [{ app: 'web', tier: 'front' }, { app: 'web', rev: 'v1' }],
  },
  {
    name: 'the controlling StatefulSet contributes its selector',
    statefulSets: [sel({ matchLabels: { app: 'web' } }, 'default', 'web-ss')],
    pod: pod(labels, [{ kind: 'StatefulSet', name: 'web-ss' }]),
    accepts: [{ app: 'web' }],
    rejects: [{}],
  },
  {
    name: 'the controlling ReplicationController merges its label map',
    replicationControllers: [sel({ matchLabels: { app: 'web' } }, 'default', 'web-rc')],
    pod: pod(labels, [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'web-rc' }]),
    accepts: [{ app: 'web' }],
    rejects: [{ app: 'db' }],
  },
  {
    name: 'an owner of another group/version (extensions/v1beta1 ReplicaSet) is not looked up',
    replicaSets: [sel({ matchLabels: { app: 'web' } }, 'default', 'web-rs')],
    pod: pod(labels, [{ apiVersion: 'extensions/v1beta1', kind: 'ReplicaSet', name: 'web-rs' }]),
    accepts: [],
    rejects: [],
  },
  {
    name: 'an owner that is not the controller is ignored',
    replicaSets: [sel({ matchLabels: { app: 'web' } }, 'default', 'web-rs')],
    pod: pod(labels, [{ kind: 'ReplicaSet', name: 'web-rs', controller: false }]),
    accepts: [],
    rejects: [],
  },
  {
    name: 'a controller of another kind (Job) contributes nothing',
    replicaSets: [sel({ matchLabels: { app: 'web' } }, 'default', 'web')],
    pod: pod(labels, [{ kind: 'Job', name: 'web' }]),
    accepts: [],
    rejects: [],
  },
  {
    name: 'the ReplicaSet is looked up in the pod namespace',
    replicaSets: [sel({ matchLabels: { app: 'web' } }, 'other', 'web-rs')],
    pod: pod(labels, [{ kind: 'ReplicaSet', name: 'web-rs' }]),
    accepts: [],
    rejects: [],
  },
  {
    name: 'a ReplicaSet with a nil selector contributes nothing',
    replicaSets: [sel(null, 'default', 'web-rs')],
    pod: pod(labels, [{ kind: 'ReplicaSet', name: 'web-rs' }]),
    accepts: [],
    rejects: [],
  },
];

describe('defaultSelector', () => {
  for (const tc of cases) {
    it(tc.name, () => {
      const cluster = new ClusterState();
      for (const kind of OWNER_KINDS) cluster.addOwners(kind, tc[kind] ?? []);
      const s = defaultSelector(tc.pod, cluster);
      assert.equal(s.everything, tc.accepts.length === 0 && tc.rejects.length === 0);
      for (const l of tc.accepts) assert.equal(s.matches(l), true, JSON.stringify(l));
      for (const l of tc.rejects) assert.equal(s.matches(l), false, JSON.stringify(l));
    });
  }

  it('follows the owner list as controllers add and remove entries (the first of a name counts)', () => {
    const cluster = new ClusterState();
    const owned = pod(labels, [{ kind: 'StatefulSet', name: 'db' }]);
    const selects = (l: Record<string, string>) => defaultSelector(owned, cluster).matches(l);
    cluster.addOwners('statefulSets', [sel({ matchLabels: { app: 'web' } }, 'default', 'other')]);
    assert.equal(defaultSelector(owned, cluster).everything, true);
    cluster.addOwners('statefulSets', [sel({ matchLabels: { tier: 'front' } }, 'default', 'db')]);
    assert.equal(selects({ tier: 'front' }), true);
    // A second entry of the same name: the first still counts.
    cluster.addOwners('statefulSets', [sel({ matchLabels: { tier: 'back' } }, 'default', 'db')]);
    assert.equal(selects({ tier: 'front' }), true);
    // The first goes: the second counts; then it goes too and another takes its place in the length.
    cluster.removeOwner('statefulSets', 'db');
    assert.equal(selects({ tier: 'back' }), true);
    cluster.removeOwner('statefulSets', 'db');
    cluster.addOwners('statefulSets', [sel({ matchLabels: { app: 'web' } }, 'default', 'cache')]);
    assert.equal(defaultSelector(owned, cluster).everything, true);
  });

  it('sees an entry replaced in the middle of an owner list that keeps its length and last entry', () => {
    const cluster = new ClusterState();
    const owned = pod(labels, [{ kind: 'ReplicaSet', name: 'web-rs' }]);
    const last = sel({ matchLabels: { app: 'x' } }, 'default', 'last');
    cluster.addOwners('replicaSets', [sel({ matchLabels: { app: 'y' } }, 'default', 'first'), sel({ matchLabels: { tier: 'front' } }, 'default', 'web-rs'), last]);
    assert.equal(defaultSelector(owned, cluster).matches({ tier: 'front' }), true);
    // The pod's ReplicaSet goes and comes back with another selector, the last entry pushed back after it.
    cluster.removeOwner('replicaSets', 'web-rs');
    cluster.removeOwner('replicaSets', 'last');
    cluster.addOwners('replicaSets', [sel({ matchLabels: { tier: 'back' } }, 'default', 'web-rs'), last]);
    assert.equal(cluster.replicaSets.length, 3);
    assert.equal(cluster.replicaSets[2], last);
    assert.equal(defaultSelector(owned, cluster).matches({ tier: 'back' }), true);
    assert.equal(defaultSelector(owned, cluster).matches({ tier: 'front' }), false);
  });

  it("merges the Services of the pod's namespace in list order, and follows the list as it changes", () => {
    const cluster = new ClusterState();
    const inA = pod(labels, [], 'a');
    const keys = () => defaultSelector(inA, cluster).requirements.map((r) => r.key);
    cluster.addOwners('services', [
      sel({ matchLabels: { rev: 'v1' } }, 'a', 's1'),
      sel({ matchLabels: { app: 'web' } }, 'b', 's2'),
      sel({ matchLabels: { tier: 'front' } }, 'a', 's3'),
      sel({ matchLabels: { app: 'web' } }, 'a', 's4'),
    ]);
    assert.deepEqual(keys(), ['rev', 'tier', 'app']);
    // A Service in another namespace changes nothing; one in the pod's adds its keys after the others'.
    cluster.addOwners('services', [sel({ matchLabels: { other: 'x' } }, 'b', 's5')]);
    assert.deepEqual(keys(), ['rev', 'tier', 'app']);
    cluster.removeOwner('services', 's1');
    cluster.addOwners('services', [sel({ matchLabels: { rev: 'v1' } }, 'a', 's6')]);
    assert.deepEqual(keys(), ['tier', 'app', 'rev']);
    // A copy (a simulation's) reads its own list: it gains a Service the original does not have.
    const copy = cluster.clone();
    assert.deepEqual(defaultSelector(pod(labels, [], 'b'), copy).requirements.map((r) => r.key), ['app']);
    copy.addOwners('services', [sel({ matchLabels: { tier: 'front' } }, 'b', 's7')]);
    assert.deepEqual(defaultSelector(pod(labels, [], 'b'), copy).requirements.map((r) => r.key), ['app', 'tier']);
    assert.deepEqual(defaultSelector(pod(labels, [], 'b'), cluster).requirements.map((r) => r.key), ['app']);
  });

  it('a copy of an owner list, grown or with an entry taken out, is read as itself', () => {
    const owned = pod(labels, [{ kind: 'ReplicaSet', name: 'web-rs' }]);
    const other = pod(labels, [{ kind: 'StatefulSet', name: 'db' }]);
    const built = new ClusterState();
    built.addOwners('replicaSets', Array.from({ length: 10 }, (_, i) => sel({ matchLabels: { app: `x${i}` } }, 'default', `rs${i}`)));
    built.addOwners('statefulSets', [sel({ matchLabels: { tier: 'front' } }, 'default', 'db')]);
    assert.equal(defaultSelector(owned, built).everything, true);
    assert.equal(defaultSelector(other, built).matches({ tier: 'front' }), true);
    const copy = (from: ClusterState) => {
      const c = new ClusterState();
      c.addOwners('replicaSets', from.replicaSets);
      c.addOwners('statefulSets', from.statefulSets);
      return c;
    };
    // A copy that gained the pod's ReplicaSet, one that also lost an earlier entry, and the built one again.
    const grown = copy(built);
    grown.addOwners('replicaSets', [sel({ matchLabels: { app: 'web' } }, 'default', 'web-rs')]);
    assert.equal(defaultSelector(owned, grown).matches({ app: 'web' }), true);
    assert.equal(defaultSelector(other, grown).matches({ tier: 'front' }), true);
    const spliced = copy(grown);
    spliced.removeOwner('replicaSets', 'rs2');
    spliced.addOwners('replicaSets', [sel({ matchLabels: { app: 'api' } }, 'default', 'web-rs')]);
    spliced.removeOwner('replicaSets', 'web-rs');
    assert.equal(defaultSelector(owned, spliced).matches({ app: 'api' }), true);
    assert.equal(defaultSelector(owned, spliced).matches({ app: 'web' }), false);
    assert.equal(defaultSelector(owned, built).everything, true);
    assert.equal(defaultSelector(owned, copy(built)).everything, true);
  });
});
