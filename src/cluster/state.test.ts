import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compileNode, type Node } from '../model/node.js';
import { compilePod } from '../model/pod.js';
import { Rand } from '../model/rand.js';
import { compileLabelSelector } from '../model/selector.js';
import { clusterTally } from './node-tally.js';
import { ClusterState, zoneKey } from './state.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ZONE = 'topology.kubernetes.io/zone';
const REGION = 'topology.kubernetes.io/region';
const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const BETA_REGION = 'failure-domain.beta.kubernetes.io/region';

function mkNode(name: string, labels: Record<string, string> = {}, images: { names: string[]; sizeBytes: number }[] = []): Node {
  return compileNode({ metadata: { name, labels }, status: { allocatable: { cpu: '4', pods: 110 }, images } }, 0);
}
const inZone = (name: string, zone: string) => mkNode(name, { [ZONE]: zone });
const mkPod = (name: string, nodeName: string, cpu = '100m') =>
  compilePod({ metadata: { name }, spec: { nodeName, containers: [{ name: 'c', resources: { requests: { cpu } } }] } }, { order: 0 });
const names = (s: ClusterState) => s.nodeInfos().map((n) => n.node.name);

// component-helpers node/topology.GetZoneKey.
describe('zoneKey', () => {
  const cases: { name: string; labels: Record<string, string>; want: string }[] = [
    { name: 'no topology labels', labels: {}, want: '' },
    { name: 'GA zone only', labels: { [ZONE]: 'a' }, want: ':\x00:a' },
    { name: 'GA region and zone', labels: { [REGION]: 'r', [ZONE]: 'a' }, want: 'r:\x00:a' },
    { name: 'beta labels take precedence', labels: { [BETA_REGION]: 'old-r', [BETA_ZONE]: 'old-a', [REGION]: 'r', [ZONE]: 'a' }, want: 'old-r:\x00:old-a' },
    { name: 'an empty beta zone still takes precedence', labels: { [BETA_ZONE]: '', [ZONE]: 'a', [REGION]: 'r' }, want: 'r:\x00:' },
    { name: 'region alone', labels: { [REGION]: 'r' }, want: 'r:\x00:' },
    { name: 'both empty is no zone', labels: { [REGION]: '', [ZONE]: '' }, want: '' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(zoneKey(c.labels), c.want));
});

// backend/cache nodeTree.list.
describe('node-tree order', () => {
  it('round-robin across zones in order of first appearance', () => {
    const s = new ClusterState();
    for (const n of [inZone('a1', 'a'), inZone('b1', 'b'), inZone('a2', 'a'), inZone('a3', 'a'), inZone('c1', 'c'), inZone('b2', 'b')]) s.addNode(n);
    assert.deepEqual(names(s), ['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('nodeInfosNamed gives the named nodes that exist in node-tree order, small sets by lookup and large ones by walking', () => {
    const s = new ClusterState();
    for (let i = 0; i < 12; i++) s.addNode(inZone(`n${i}`, `z${i % 3}`));
    const order = names(s);
    const named = (set: string[]) => s.nodeInfosNamed(new Set(set)).map((n) => n.node.name);
    assert.deepEqual(named(['n4', 'missing', 'n0']), ['n0', 'n4']);
    assert.deepEqual(named(order.slice(2, 10).reverse()), order.slice(2, 10));
    s.removeNode('n0');
    s.addNode(inZone('n0', 'z1'));
    assert.deepEqual(named(['n0', 'n1']), names(s).filter((n) => n === 'n0' || n === 'n1'));
  });

  it('nodes without zone labels form their own zone', () => {
    const s = new ClusterState();
    for (const n of [mkNode('x1'), inZone('a1', 'a'), mkNode('x2')]) s.addNode(n);
    assert.deepEqual(names(s), ['x1', 'a1', 'x2']);
  });

  it('removing the last node of a zone removes the zone; it comes back last', () => {
    const s = new ClusterState();
    for (const n of [inZone('a1', 'a'), inZone('b1', 'b'), inZone('c1', 'c'), inZone('c2', 'c')]) s.addNode(n);
    s.removeNode('a1');
    assert.deepEqual(names(s), ['b1', 'c1', 'c2']);
    s.addNode(inZone('a2', 'a'));
    assert.deepEqual(names(s), ['b1', 'c1', 'a2', 'c2']);
  });

  it('removing a node in the middle of a zone keeps the others in order', () => {
    const s = new ClusterState();
    for (const n of [inZone('a1', 'a'), inZone('a2', 'a'), inZone('a3', 'a'), inZone('b1', 'b')]) s.addNode(n);
    s.removeNode('a2');
    assert.deepEqual(names(s), ['a1', 'b1', 'a3']);
  });

  it('a duplicate node is refused', () => {
    const s = new ClusterState();
    s.addNode(inZone('a1', 'a'));
    assert.throws(() => s.addNode(inZone('a1', 'b')));
  });
});

describe('pods', () => {
  it('bound pods are summed on their node; removal subtracts', () => {
    const s = new ClusterState();
    s.addNode(inZone('n1', 'a'));
    s.addPod(mkPod('p1', 'n1', '500m'));
    s.addPod(mkPod('p2', 'n1', '250m'));
    s.addPod(mkPod('pending', ''));
    assert.equal(s.nodeInfo('n1')!.requested.cpu, 750);
    assert.deepEqual(s.pendingPods().map((p) => p.name), ['pending']);
    s.removePod('default/p1');
    assert.equal(s.nodeInfo('n1')!.requested.cpu, 250);
    assert.equal(s.removePod('default/p1'), undefined);
  });

  it('updatePod moves a pod onto its node', () => {
    const s = new ClusterState();
    s.addNode(inZone('n1', 'a'));
    s.addPod(mkPod('p', ''));
    s.updatePod(mkPod('p', 'n1', '1'));
    assert.deepEqual([s.nodeInfo('n1')!.pods.length, s.nodeInfo('n1')!.requested.cpu, s.pendingPods().length], [1, 1000, 0]);
  });

  it('a duplicate pod key is refused', () => {
    const s = new ClusterState();
    s.addPod(mkPod('p', ''));
    assert.throws(() => s.addPod(mkPod('p', '')));
  });

  it('removeNode returns its pods, which stay in the store', () => {
    const s = new ClusterState();
    s.addNode(inZone('n1', 'a'));
    s.addPod(mkPod('p', 'n1'));
    assert.deepEqual(s.removeNode('n1').map((p) => p.name), ['p']);
    assert.equal(s.getPod('default/p')?.nodeName, 'n1');
    assert.equal(s.numNodes, 0);
  });

  it('bumps version on every change', () => {
    const s = new ClusterState();
    const v0 = s.version;
    s.addNode(inZone('n1', 'a'));
    s.addPod(mkPod('p', 'n1'));
    s.removePod('default/p');
    assert.equal(s.version, v0 + 3);
  });
});

describe('topologyDomains', () => {
  it('counts nodes per label value and forgets values with no node', () => {
    const s = new ClusterState();
    for (const n of [inZone('a1', 'a'), inZone('a2', 'a'), inZone('b1', 'b')]) s.addNode(n);
    assert.deepEqual([...s.topologyDomains(ZONE)], [['a', 2], ['b', 1]]);
    s.removeNode('b1');
    assert.deepEqual([...s.topologyDomains(ZONE)], [['a', 2]]);
    assert.equal(s.topologyDomains('kubernetes.io/hostname').get('a1'), 1);
    assert.equal(s.topologyDomains('missing').size, 0);
  });
});

// cacheImpl.addNodeImageStates / removeNodeImageStates.
describe('image states', () => {
  const img = (sizeBytes: number, ...imageNames: string[]) => ({ names: imageNames, sizeBytes });

  it('numNodes counts the nodes having each reported name', () => {
    const s = new ClusterState();
    s.addNode(mkNode('n1', {}, [img(100, 'nginx:1.25', 'nginx@sha256:abc'), img(50, 'redis:7')]));
    s.addNode(mkNode('n2', {}, [img(100, 'nginx:1.25')]));
    const n1 = (name: string) => s.imageState(s.nodeInfo('n1')!, name);
    assert.deepEqual([n1('nginx:1.25')!.numNodes, n1('nginx@sha256:abc')!.numNodes, n1('redis:7')!.numNodes], [2, 1, 1]);
    assert.equal(n1('nginx:1.25')!.sizeBytes, 100);
    assert.equal(s.imageState(s.nodeInfo('n2')!, 'redis:7'), undefined);
  });

  it('a node listing a name twice counts once', () => {
    const s = new ClusterState();
    s.addNode(mkNode('n1', {}, [img(100, 'app:v1'), img(200, 'app:v1')]));
    assert.equal(s.imageState(s.nodeInfo('n1')!, 'app:v1')!.numNodes, 1);
  });

  it('node image names are kept as reported, not normalized', () => {
    const s = new ClusterState();
    s.addNode(mkNode('n1', {}, [img(100, 'nginx')]));
    const n1 = s.nodeInfo('n1')!;
    assert.deepEqual([s.imageState(n1, 'nginx') !== undefined, s.imageState(n1, 'nginx:latest') !== undefined], [true, false]);
  });

  it('removing a node decrements, and an image no node has is forgotten (its size with it)', () => {
    const s = new ClusterState();
    s.addNode(mkNode('n1', {}, [img(100, 'app:v1')]));
    s.addNode(mkNode('n2', {}, [img(100, 'app:v1')]));
    s.removeNode('n1');
    assert.equal(s.imageState(s.nodeInfo('n2')!, 'app:v1')!.numNodes, 1);
    s.removeNode('n2');
    s.addNode(mkNode('n3', {}, [img(300, 'app:v1')]));
    assert.deepEqual(s.imageState(s.nodeInfo('n3')!, 'app:v1'), { sizeBytes: 300, numNodes: 1 });
  });
});

describe('updateNode', () => {
  it('keeps the pods and their sums, and re-indexes labels', () => {
    const s = new ClusterState();
    s.addNode(inZone('n1', 'a'));
    s.addPod(mkPod('p', 'n1', '250m'));
    s.updateNode(mkNode('n1', { [ZONE]: 'a', team: 'x' }));
    assert.equal(s.nodeInfo('n1')!.requested['cpu'], 250);
    assert.equal(s.nodeInfo('n1')!.pods.length, 1);
    assert.deepEqual([...s.topologyDomains('team')], [['x', 1]]);
  });
  it('a zone change moves the node to the end of its new zone', () => {
    const s = new ClusterState();
    for (const [n, z] of [['a1', 'a'], ['b1', 'b'], ['a2', 'a']] as const) s.addNode(inZone(n, z));
    s.updateNode(inZone('a1', 'b'));
    assert.deepEqual(names(s), ['a2', 'b1', 'a1']);
    assert.deepEqual([...s.topologyDomains(ZONE)].sort(), [['a', 1], ['b', 2]]);
  });
  it('within its zone the node keeps its place and the node list stays the same object, while a tally over it sees the new labels', () => {
    const s = new ClusterState();
    for (const n of ['a1', 'a2']) s.addNode(mkNode(n, { [ZONE]: 'a', team: 'x' }));
    const teams = () =>
      clusterTally(s, 'teams', () => ({
        totals: new Map<string, number>(),
        contribution: (info) => info.node.labels['team'] ?? '',
        apply: (totals: Map<string, number>, team: string, sign) => totals.set(team, (totals.get(team) ?? 0) + sign),
        copy: (totals) => new Map(totals),
      }));
    assert.equal(teams().get('x'), 2);
    const list = s.nodeInfos();
    const version = s.version;
    s.updateNode(mkNode('a1', { [ZONE]: 'a', team: 'y' }));
    assert.equal(s.nodeInfos(), list);
    assert.deepEqual(names(s), ['a1', 'a2']);
    assert.ok(s.version > version);
    assert.deepEqual([teams().get('x'), teams().get('y')], [1, 1]);
  });
  it('image states follow the new image list', () => {
    const s = new ClusterState();
    s.addNode(mkNode('n1', {}, [{ names: ['app:v1'], sizeBytes: 10 }]));
    s.updateNode(mkNode('n1', {}, [{ names: ['app:v2'], sizeBytes: 20 }]));
    assert.deepEqual([...s.nodeInfo('n1')!.imageNames.keys()], ['app:v2']);
    assert.equal(s.imageState(s.nodeInfo('n1')!, 'app:v1'), undefined);
    assert.equal(s.hasImage('app:v1'), false);
  });
});

describe('nodes hosting affinity pods', () => {
  const affinityPod = (name: string, nodeName: string, required: boolean) =>
    compilePod(
      {
        metadata: { name, labels: { app: 'a' } },
        spec: {
          nodeName,
          affinity: required
            ? { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'a' } }, topologyKey: 'kubernetes.io/hostname' }] } }
            : { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { labelSelector: { matchLabels: { app: 'a' } }, topologyKey: 'kubernetes.io/hostname' } }] } },
          containers: [{ name: 'c' }],
        },
      },
      { order: 0 },
    );

  it('stay in node-tree order as pods come and go', () => {
    const s = new ClusterState();
    for (let i = 0; i < 12; i++) s.addNode(inZone(`n${i}`, `z${i % 3}`));
    const rand = new Rand(7);
    const bound: string[] = [];
    for (let step = 0; step < 300; step++) {
      // Read the lists first, so later changes update them rather than rebuild them.
      s.nodesWithAffinityPods();
      s.nodesWithRequiredAntiAffinityPods();
      if (bound.length > 0 && rand.intn(3) === 0) {
        s.removePod(bound.splice(rand.intn(bound.length), 1)[0]!);
      } else {
        const p = affinityPod(`p${step}`, `n${rand.intn(12)}`, rand.intn(2) === 0);
        s.addPod(p);
        bound.push(p.key);
      }
      assert.deepEqual(s.nodesWithAffinityPods(), s.nodeInfos().filter((n) => n.podsWithAffinity.length > 0));
      assert.deepEqual(s.nodesWithRequiredAntiAffinityPods(), s.nodeInfos().filter((n) => n.podsWithRequiredAntiAffinity.length > 0));
    }
  });
});

describe('podsInNamespace', () => {
  it('lists a namespace’s pods in the order pods() lists them, through adds, updates and removals', () => {
    const s = new ClusterState();
    s.addNode(mkNode('n1'));
    const inNs = (name: string, namespace: string) => compilePod({ metadata: { name, namespace }, spec: { containers: [{ name: 'c' }] } }, { order: 0 });
    for (const [name, ns] of [['a', 'x'], ['b', 'y'], ['c', 'x'], ['d', 'x']] as const) s.addPod(inNs(name, ns));
    s.updatePod({ ...s.getPod('x/a')!, nodeName: 'n1' });
    s.removePod('x/c');
    const keys = (it: Iterable<{ key: string }>) => [...it].map((p) => p.key);
    assert.deepEqual(keys(s.podsInNamespace('x')), keys([...s.pods()].filter((p) => p.namespace === 'x')));
    assert.deepEqual({ x: keys(s.podsInNamespace('x')), y: keys(s.podsInNamespace('y')), none: keys(s.podsInNamespace('z')) }, { x: ['x/d', 'x/a'], y: ['y/b'], none: [] });
  });
});

describe('clone', () => {
  const podOrder = (s: ClusterState) => s.nodeInfos().map((i) => `${i.node.name}:${i.pods.map((p) => p.name).join(',')}`);
  /** Three zones, pods replaced in store order (as admission does), which permutes each node's pod list. */
  function permuted(): ClusterState {
    const s = new ClusterState();
    for (let i = 0; i < 6; i++) s.addNode(mkNode(`n${i}`, { [ZONE]: `z${i % 3}` }, [{ names: ['img:1'], sizeBytes: 1000 }]));
    for (let i = 0; i < 24; i++) s.addPod(mkPod(`p${i}`, `n${i % 6}`));
    for (const p of [...s.pods()]) s.updatePod(p);
    return s;
  }

  it('has the same nodes, pods and pod order on every node as the state it copies', () => {
    const s = permuted();
    assert.deepEqual(podOrder(s)[0], 'n0:p12,p0,p6,p18');
    const c = s.clone();
    assert.deepEqual(podOrder(c), podOrder(s));
    assert.deepEqual([...c.pods()].map((p) => p.key), [...s.pods()].map((p) => p.key));
    assert.deepEqual(c.nodeInfo('n1')!.requested, s.nodeInfo('n1')!.requested);
    assert.equal(c.version, s.version);
    assert.equal(c.boundVersion, s.boundVersion);
    assert.deepEqual([...c.topologyDomains(ZONE)], [...s.topologyDomains(ZONE)]);
  });

  it('changes to the copy leave the original as it was, and the other way round', () => {
    const s = permuted();
    const before = podOrder(s);
    const c = s.clone();
    c.removePod('default/p0');
    c.removeNode('n5');
    c.addNode(mkNode('n9', { [ZONE]: 'z9' }, [{ names: ['img:1'], sizeBytes: 1000 }]));
    c.updateNode({ ...c.nodeInfo('n2')!.node, labels: { [ZONE]: 'z0' } });
    assert.deepEqual(podOrder(s), before);
    assert.equal(s.getPod('default/p0')?.nodeName, 'n0');
    assert.deepEqual([...s.topologyDomains(ZONE)], [['z0', 2], ['z1', 2], ['z2', 2]]);
    assert.equal(s.imageState(s.nodeInfo('n0')!, 'img:1')!.numNodes, 6);
    assert.equal(c.imageState(c.nodeInfo('n0')!, 'img:1')!.numNodes, 6);
    assert.deepEqual([...s.podsInNamespace('default')].length, 24);
    s.removePod('default/p1');
    assert.equal(c.getPod('default/p1')?.nodeName, 'n1');
    assert.equal(c.nodeInfo('n1')!.pods.length, 4);
  });

  for (const copy of ['clone', 'fork'] as const) {
    it(`a ${copy} shares each node's image names and counts images on its own (each simulation copies every node)`, () => {
      const s = new ClusterState();
      s.addNode(mkNode('plain'));
      for (const n of ['a', 'b']) s.addNode(mkNode(n, {}, [{ names: ['img:1', 'img:1@sha256:x'], sizeBytes: 1000 }]));
      const c = s[copy]();
      assert.equal(c.nodeInfo('a')!.imageNames, s.nodeInfo('a')!.imageNames);
      c.removeNode('b');
      c.updateNode(mkNode('plain', {}, [{ names: ['img:2'], sizeBytes: 10 }]));
      assert.deepEqual([c.imageState(c.nodeInfo('a')!, 'img:1')!.numNodes, c.imageState(c.nodeInfo('plain')!, 'img:2')!.numNodes], [1, 1]);
      assert.deepEqual([s.imageState(s.nodeInfo('a')!, 'img:1')!.numNodes, s.imageState(s.nodeInfo('plain')!, 'img:2'), s.hasImage('img:2')], [2, undefined, false]);
    });
  }
});

test('a selection keeps the pods a selector matches in podsInNamespace order through adds, updates and removals', () => {
  const cluster = new ClusterState();
  const pod = (name: string, app: string, namespace = 'ns') => compilePod({ metadata: { name, namespace, labels: { app } }, spec: { containers: [{ name: 'c' }] } }, { order: 0 });
  for (const p of [pod('a', 'web'), pod('b', 'db'), pod('c', 'web'), pod('d', 'web', 'other')]) cluster.addPod(p);
  const web = cluster.selection('ns', compileLabelSelector({ matchLabels: { app: 'web' } }));
  const keys = () => [...web.keys()];
  const inOrder = () => [...cluster.podsInNamespace('ns')].filter((p) => p.labels['app'] === 'web').map((p) => p.key);
  assert.deepEqual(keys(), ['ns/a', 'ns/c']);
  cluster.updatePod({ ...cluster.getPod('ns/a')! });
  cluster.addPod(pod('e', 'web'));
  cluster.updatePod({ ...cluster.getPod('ns/b')!, labels: { app: 'web' } });
  cluster.updatePod({ ...cluster.getPod('ns/c')!, labels: { app: 'db' } });
  cluster.addPod(pod('f', 'web', 'other'));
  assert.deepEqual(keys(), inOrder());
  assert.deepEqual(keys(), ['ns/a', 'ns/e', 'ns/b']);
  cluster.removePod('ns/e');
  assert.deepEqual(keys(), ['ns/a', 'ns/b']);
  assert.equal(cluster.clone().selection('ns', compileLabelSelector({ matchLabels: { app: 'web' } })).size, 2);
  // In place: a pod keeps its place; one that stops or starts matching leaves or joins in store order.
  cluster.replacePodInPlace({ ...cluster.getPod('ns/a')!, nodeName: '' });
  cluster.replacePodInPlace({ ...cluster.getPod('ns/c')!, labels: { app: 'web' } });
  assert.deepEqual(keys(), inOrder());
  cluster.replacePodInPlace({ ...cluster.getPod('ns/a')!, labels: { app: 'db' } });
  assert.deepEqual(keys(), inOrder());
});

describe('what a copy reads of the state it copies while neither changed (selections, pending pods)', () => {
  const pod = (name: string, app: string, nodeName = '') => compilePod({ metadata: { name, namespace: 'ns', labels: { app } }, spec: { nodeName, containers: [{ name: 'c' }] } }, { order: 0 });
  const web = compileLabelSelector({ matchLabels: { app: 'web' } });
  function built(): ClusterState {
    const s = new ClusterState();
    s.addNode(inZone('n0', 'z0'));
    for (const p of [pod('a', 'web', 'n0'), pod('b', 'db'), pod('c', 'web'), pod('d', 'web', 'n0')]) s.addPod(p);
    // Store order is no longer input order.
    s.updatePod({ ...s.getPod('ns/a')! });
    return s;
  }
  const fresh = (s: ClusterState) => [...s.podsInNamespace('ns')].filter((p) => web.matches(p.labels)).map((p) => p.key);

  for (const copy of ['clone', 'fork'] as const) {
    it(`a ${copy}'s selection and pending pods are those it would work out itself, and stay its own`, () => {
      const s = built();
      const c1 = s[copy]();
      const c2 = s[copy]();
      const sel1 = c1.selection('ns', web);
      const sel2 = c2.selection('ns', web);
      assert.deepEqual([...sel1.keys()], fresh(s));
      assert.deepEqual([...sel1.keys()], ['ns/c', 'ns/d', 'ns/a']);
      assert.deepEqual(c1.pendingPods().map((p) => p.key), ['ns/b', 'ns/c']);
      c1.addPod(pod('e', 'web'));
      c1.removePod('ns/d');
      c1.pendingPods().pop();
      // The other copy and the source are as they were.
      assert.deepEqual([...sel1.keys()], ['ns/c', 'ns/a', 'ns/e']);
      assert.deepEqual([...sel2.keys()], ['ns/c', 'ns/d', 'ns/a']);
      assert.deepEqual(c2.pendingPods().map((p) => p.key), ['ns/b', 'ns/c']);
      assert.deepEqual(fresh(s), ['ns/c', 'ns/d', 'ns/a']);
      // A copy that changed before asking works its answers out itself.
      assert.deepEqual([...c1.selection('ns', web).keys()], ['ns/c', 'ns/a', 'ns/e']);
      assert.deepEqual(c1.pendingPods().map((p) => p.key), ['ns/b', 'ns/c', 'ns/e']);
    });
  }

  it('a copy does not keep the state it came from alive (what-if runs a check keeps would keep every built cluster)', async () => {
    let s: ClusterState | undefined = built();
    const source = new WeakRef(s);
    const c = s.clone();
    s = undefined;
    // A WeakRef holds its target until the end of the job that made it.
    await new Promise(setImmediate);
    gc();
    assert.equal(source.deref(), undefined);
    assert.deepEqual([...c.selection('ns', web).keys()], ['ns/c', 'ns/d', 'ns/a']);
  });

  it('a clone of a state that changed after the copy no longer reads it', () => {
    const s = built();
    const c = s.clone();
    s.addPod(pod('e', 'web'));
    assert.deepEqual([...c.selection('ns', web).keys()], ['ns/c', 'ns/d', 'ns/a']);
    assert.deepEqual(c.pendingPods().map((p) => p.key), ['ns/b', 'ns/c']);
  });
});

describe('fork', () => {
  const podOrder = (s: ClusterState) => s.nodeInfos().map((i) => `${i.node.name}:${i.pods.map((p) => p.name).join(',')}`);
  function spread(): ClusterState {
    const s = new ClusterState();
    for (let i = 0; i < 6; i++) s.addNode(inZone(`n${i}`, `z${i % 3}`));
    for (let i = 0; i < 24; i++) s.addPod(mkPod(`p${i}`, `n${i % 6}`));
    for (const p of [...s.pods()]) s.updatePod(p);
    return s;
  }

  it('shares each node until the fork changes it, then changes its own copy only', () => {
    const s = spread();
    const before = podOrder(s);
    const f = s.fork();
    assert.deepEqual(podOrder(f), before);
    assert.equal(f.nodeInfo('n1'), s.nodeInfo('n1'));
    f.removePod('default/p1');
    f.addPod(mkPod('extra', 'n2'));
    f.removeNode('n5');
    f.updateNode({ ...f.nodeInfo('n3')!.node, labels: { [ZONE]: 'z1' } });
    assert.notEqual(f.nodeInfo('n1'), s.nodeInfo('n1'));
    assert.equal(f.nodeInfo('n0'), s.nodeInfo('n0'));
    assert.deepEqual(podOrder(s), before);
    assert.equal(s.nodeInfo('n1')!.pods.length, 4);
    assert.equal(f.nodeInfo('n1')!.pods.length, 3);
    assert.equal(f.nodeInfo('n2')!.requested.cpu, 500);
    assert.equal(s.nodeInfo('n2')!.requested.cpu, 400);
    assert.deepEqual([...s.topologyDomains(ZONE)], [['z0', 2], ['z1', 2], ['z2', 2]]);
    assert.deepEqual(names(f), ['n0', 'n1', 'n2', 'n4', 'n3']);
  });

  it('refuses to change a shared node once the state it came from changed', () => {
    const s = spread();
    const f = s.fork();
    s.removePod('default/p0');
    assert.throws(() => f.removePod('default/p6'), /changed while a fork of it was in use/);
  });

  it('a pod replaced in place keeps its place in the store order', () => {
    const s = spread();
    const order = [...s.pods()].map((p) => p.key);
    const p3 = s.getPod('default/p3')!;
    s.replacePodInPlace({ ...p3, nodeName: '' });
    assert.deepEqual([...s.pods()].map((p) => p.key), order);
    assert.deepEqual(s.pendingPods().map((p) => p.key), ['default/p3']);
    assert.equal(s.nodeInfo('n3')!.pods.length, 3);
  });
});

describe('what is kept of every stored pod', () => {
  const withSpread = (name: string, nodeName: string, key: string) =>
    compilePod({ metadata: { name, labels: { app: 'a' } }, spec: { nodeName, topologySpreadConstraints: [{ maxSkew: 1, topologyKey: key, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'a' } } }], containers: [{ name: 'c' }] } }, { order: 0 });
  const withAnti = (name: string) =>
    compilePod({ metadata: { name, labels: { app: 'a' } }, spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'a' } }, topologyKey: ZONE }] } }, containers: [{ name: 'c' }] } }, { order: 0 });
  const bound = (s: ClusterState, names: string[]) => s.podsBoundTo(new Set(names)).map((p) => p.name).sort();

  it('spread topology keys and anti-affinity pods follow pods added, replaced and removed, bound or pending, in forks and clones too', () => {
    const s = new ClusterState();
    s.addNode(inZone('n0', 'z0'));
    s.addPod(withSpread('a', 'n0', 'rack'));
    s.addPod(withSpread('b', '', 'rack'));
    s.addPod(withSpread('c', '', ZONE));
    assert.deepEqual([...s.spreadTopologyKeys()], ['rack', ZONE]);
    s.removePod('default/a');
    assert.deepEqual([...s.spreadTopologyKeys()], ['rack', ZONE]);
    s.replacePodInPlace({ ...s.getPod('default/b')!, topologySpreadConstraints: [] });
    assert.deepEqual([...s.spreadTopologyKeys()], [ZONE]);
    assert.equal(s.hasAntiAffinityPods(), false);
    s.addPod(withAnti('d'));
    const f = s.fork();
    const c = s.clone();
    assert.equal(f.hasAntiAffinityPods(), true);
    f.removePod('default/d');
    f.removePod('default/c');
    assert.equal(f.hasAntiAffinityPods(), false);
    assert.deepEqual([...f.spreadTopologyKeys()], []);
    assert.deepEqual([...s.spreadTopologyKeys()], [ZONE]);
    assert.equal(c.hasAntiAffinityPods(), true);
    assert.equal(s.hasAntiAffinityPods(), true);
  });

  it('pods bound to nodes: from their NodeInfos, and all of them once a removed node left its pods behind', () => {
    const s = new ClusterState();
    for (const n of ['n0', 'n1', 'n2']) s.addNode(inZone(n, 'z0'));
    for (let i = 0; i < 6; i++) s.addPod(mkPod(`p${i}`, `n${i % 3}`));
    assert.deepEqual(bound(s, ['n0', 'n3']), ['p0', 'p3']);
    s.addPod(mkPod('early', 'n3'));
    assert.deepEqual(bound(s, ['n0', 'n3']), ['early', 'p0', 'p3']);
    s.removePod('default/early');
    s.removeNode('n1');
    s.addNode(inZone('n1', 'z0'));
    assert.deepEqual(bound(s, ['n1']), ['p1', 'p4']);
    s.addPod(mkPod('late', 'n1'));
    assert.deepEqual(bound(s, ['n1']), ['late', 'p1', 'p4']);
    assert.deepEqual(bound(s.fork(), ['n0', 'n1']), ['late', 'p0', 'p1', 'p3', 'p4']);
  });
});
