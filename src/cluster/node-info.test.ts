import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileNode } from '../model/node.js';
import type { PodSpecManifest } from '../model/manifest.js';
import { compilePod, type HostPort, type Pod } from '../model/pod.js';
import { HostPortSet, NodeInfo, normalizedImageName } from './node-info.js';

const MI = 1024 * 1024;
let order = 0;

function mkPod(name: string, spec: Partial<PodSpecManifest> = {}): Pod {
  return compilePod({ metadata: { name, namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c' }], ...spec } }, { order: order++ });
}
const withCpu = (name: string, cpu: string, memory?: string) =>
  mkPod(name, { containers: [{ name: 'c', resources: { requests: { cpu, ...(memory ? { memory } : {}) } } }] });
const port = (port: number, hostIP = '', protocol: HostPort['protocol'] = 'TCP'): HostPort => ({ hostIP, protocol, port });
const node = () => compileNode({ metadata: { name: 'n1' }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: 110 } } }, 0);

describe('NodeInfo addPod/removePod', () => {
  it('sums requests and non-zero requests', () => {
    const info = new NodeInfo(node());
    info.addPod(withCpu('a', '500m', '1Gi'));
    info.addPod(mkPod('b'));
    info.addPod(mkPod('c', { containers: [{ name: 'c', resources: { requests: { 'example.com/gpu': 1 } } }] }));
    assert.deepEqual(info.requested, { cpu: 500, memory: 1024 * MI, 'example.com/gpu': 1 });
    assert.equal(info.nonZeroCpu, 500 + 100 + 100);
    assert.equal(info.nonZeroMemory, 1024 * MI + 200 * MI + 200 * MI);
  });

  it('removing gives the sums back and bumps the generation', () => {
    const info = new NodeInfo(node());
    const a = withCpu('a', '500m');
    info.addPod(a);
    info.addPod(withCpu('b', '250m'));
    const gen = info.generation;
    assert.equal(info.removePod(a), true);
    assert.deepEqual(info.requested.cpu, 250);
    assert.equal(info.nonZeroCpu, 250);
    assert.ok(info.generation > gen);
  });

  it('removing a pod that is not there changes nothing', () => {
    const info = new NodeInfo(node());
    info.addPod(withCpu('a', '1'));
    const gen = info.generation;
    assert.equal(info.removePod(withCpu('zzz', '1')), false);
    assert.deepEqual([info.pods.length, info.requested.cpu, info.generation], [1, 1000, gen]);
  });

  it('the pod stored is the one removed, whatever the caller passes', () => {
    const info = new NodeInfo(node());
    info.addPod(withCpu('a', '1'));
    info.removePod(withCpu('a', '3')); // same key, different requests
    assert.equal(info.requested.cpu, 0);
  });

  it('removal moves the last pod into the gap (removeFromSlice)', () => {
    const info = new NodeInfo(node());
    for (const n of ['a', 'b', 'c', 'd']) info.addPod(mkPod(n));
    info.removePod(mkPod('b'));
    assert.deepEqual(info.pods.map((p) => p.name), ['a', 'd', 'c']);
    info.addPod(mkPod('e'));
    assert.deepEqual(info.pods.map((p) => p.name), ['a', 'd', 'c', 'e']);
  });

  it('tracks pods with affinity and with required anti-affinity', () => {
    const info = new NodeInfo(node());
    const term = { topologyKey: 'zone', labelSelector: { matchLabels: { app: 'x' } } };
    const aff = mkPod('aff', { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term }] } } });
    const anti = mkPod('anti', { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } });
    info.addPod(aff);
    info.addPod(anti);
    info.addPod(mkPod('plain'));
    assert.deepEqual(info.podsWithAffinity.map((p) => p.name), ['aff', 'anti']);
    assert.deepEqual(info.podsWithRequiredAntiAffinity.map((p) => p.name), ['anti']);
    info.removePod(aff);
    assert.deepEqual(info.podsWithAffinity.map((p) => p.name), ['anti']);
  });

  it('host ports are added and released', () => {
    const info = new NodeInfo(node());
    const p = mkPod('p', { containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 80 }] }] });
    info.addPod(p);
    assert.equal(info.usedPorts.conflicts(port(80)), true);
    info.removePod(p);
    assert.equal(info.usedPorts.size, 0);
  });

  it('removal by position index keeps removeFromSlice order through a long mixed sequence, in a clone too', () => {
    // Reference: the scan-and-swap removal the index replaced.
    const want: string[] = [];
    const info = new NodeInfo(node());
    let copy: NodeInfo | undefined;
    for (let step = 0; step < 400; step++) {
      const name = `p${(step * 37) % 53}`;
      const at = want.indexOf(name);
      if (at < 0) {
        want.push(name);
        (copy ?? info).addPod(mkPod(name));
      } else {
        want[at] = want[want.length - 1]!;
        want.pop();
        assert.equal((copy ?? info).removePod(mkPod(name)), true);
      }
      if (step === 150) copy = info.clone();
      assert.deepEqual((copy ?? info).pods.map((p) => p.name), want, `step ${step}`);
    }
  });

  it('clone is independent', () => {
    const info = new NodeInfo(node());
    info.addPod(withCpu('a', '1'));
    const c = info.clone();
    c.addPod(mkPod('b', { containers: [{ name: 'c', ports: [{ containerPort: 1, hostPort: 1 }] }] }));
    assert.deepEqual([info.pods.length, info.requested.cpu, info.usedPorts.size], [1, 1000, 0]);
    assert.deepEqual([c.pods.length, c.requested.cpu, c.usedPorts.size], [2, 1000, 1]);
    assert.equal(c.node, info.node);
  });

  it("a clone shares the position maps until one side adds or removes a pod; then each finds its own pods' positions", () => {
    const positions = (i: NodeInfo) => (i as unknown as { podPositions: ReadonlyMap<string, number> }).podPositions;
    const named = (i: NodeInfo) => [...positions(i)].map(([key, at]) => [key.split('/')[1], at]).sort((x, y) => Number(x[1]) - Number(y[1]));
    const info = new NodeInfo(node());
    for (const name of ['a', 'b', 'c']) info.addPod(mkPod(name));
    const c = info.clone();
    const other = info.clone();
    assert.equal(positions(c), positions(info), 'an unchanged clone copies no map');
    // The source changes first: its copies keep the positions they started with.
    assert.equal(info.removePod(mkPod('a')), true);
    assert.notEqual(positions(info), positions(c));
    assert.deepEqual(named(c), [['a', 0], ['b', 1], ['c', 2]]);
    assert.equal(c.removePod(mkPod('b')), true);
    assert.deepEqual(c.pods.map((p) => p.name), ['a', 'c']);
    assert.equal(other.removePod(mkPod('c')), true);
    assert.deepEqual([info, c, other].map((i) => i.pods.map((p) => p.name)), [['c', 'b'], ['a', 'c'], ['a', 'b']]);
    assert.deepEqual([info, c, other].map(named), [[['c', 0], ['b', 1]], [['a', 0], ['c', 1]], [['a', 0], ['b', 1]]]);
  });

  it('clone keeps the affinity lists apart and in removeFromSlice order', () => {
    const anti = (name: string) => mkPod(name, { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: name } } }] } } });
    const info = new NodeInfo(node());
    for (const name of ['a', 'b', 'c']) info.addPod(anti(name));
    info.addPod(mkPod('plain'));
    const c = info.clone();
    assert.equal(c.removePod(anti('a')), true);
    c.addPod(anti('d'));
    assert.deepEqual(c.podsWithRequiredAntiAffinity.map((p) => p.name), ['c', 'b', 'd']);
    assert.deepEqual(c.podsWithAffinity.map((p) => p.name), ['c', 'b', 'd']);
    assert.equal(c.removePod(anti('b')), true);
    assert.deepEqual(c.podsWithAffinity.map((p) => p.name), ['c', 'd']);
    assert.deepEqual(info.podsWithRequiredAntiAffinity.map((p) => p.name), ['a', 'b', 'c']);
    assert.deepEqual(info.pods.map((p) => p.name), ['a', 'b', 'c', 'plain']);
    assert.equal(info.removePod(anti('c')), true);
    assert.deepEqual(info.podsWithAffinity.map((p) => p.name), ['a', 'b']);
    assert.deepEqual(c.podsWithAffinity.map((p) => p.name), ['c', 'd']);
  });
});

// HostPortInfo.Add/Remove/CheckConflict.
describe('HostPortSet', () => {
  const cases: { name: string; used: HostPort[]; probe: HostPort; want: boolean }[] = [
    { name: 'same ip, protocol and port', used: [port(80, '10.0.0.1')], probe: port(80, '10.0.0.1'), want: true },
    { name: 'other port', used: [port(80)], probe: port(81), want: false },
    { name: 'other protocol', used: [port(53, '', 'UDP')], probe: port(53, '', 'TCP'), want: false },
    { name: 'empty ip means 0.0.0.0', used: [port(80, '')], probe: port(80, '0.0.0.0'), want: true },
    { name: '0.0.0.0 in use blocks a specific ip', used: [port(80, '0.0.0.0')], probe: port(80, '10.0.0.1'), want: true },
    { name: 'a specific ip in use blocks 0.0.0.0', used: [port(80, '10.0.0.1')], probe: port(80, ''), want: true },
    { name: 'two specific ips do not conflict', used: [port(80, '10.0.0.1')], probe: port(80, '10.0.0.2'), want: false },
    { name: 'empty protocol means TCP', used: [port(80, '', '' as never)], probe: port(80, '', 'TCP'), want: true },
    { name: 'port 0 never conflicts', used: [port(0)], probe: port(0), want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = new HostPortSet();
      for (const p of c.used) s.add(p);
      assert.equal(s.conflicts(c.probe), c.want);
    });
  }

  it('is a set: two users of a port, one removal frees it', () => {
    const s = new HostPortSet();
    s.add(port(80));
    s.add(port(80));
    assert.equal(s.size, 1);
    s.remove(port(80));
    assert.equal(s.conflicts(port(80)), false);
    assert.equal(s.size, 0);
  });

  it('removal is normalized like addition', () => {
    const s = new HostPortSet();
    s.add(port(80, '0.0.0.0', 'TCP'));
    s.remove(port(80, '', '' as never));
    assert.equal(s.size, 0);
  });

  it('a clone and its original change apart', () => {
    const s = new HostPortSet();
    s.add(port(80));
    const c = s.clone();
    c.add(port(81));
    s.remove(port(80));
    assert.deepEqual([s.conflicts(port(80)), s.conflicts(port(81)), s.size], [false, false, 0]);
    assert.deepEqual([c.conflicts(port(80)), c.conflicts(port(81)), c.size], [true, true, 2]);
    const again = c.clone();
    again.remove(port(81));
    assert.deepEqual([c.size, again.size], [2, 1]);
  });

  it('removing an absent entry is harmless', () => {
    const s = new HostPortSet();
    s.add(port(80, '10.0.0.1'));
    s.remove(port(80, '10.0.0.2'));
    s.remove(port(81, '10.0.0.1'));
    assert.equal(s.size, 1);
  });
});

// imagelocality.normalizedImageName.
describe('normalizedImageName', () => {
  const cases: [string, string][] = [
    ['nginx', 'nginx:latest'],
    ['nginx:1.25', 'nginx:1.25'],
    ['docker.io/library/nginx', 'docker.io/library/nginx:latest'],
    ['registry:5000/team/app', 'registry:5000/team/app:latest'],
    ['registry:5000/team/app:v2', 'registry:5000/team/app:v2'],
    ['app@sha256:abc', 'app@sha256:abc'],
    // No ':' at all after the last '/': upstream appends the tag even to a malformed digest.
    ['app@sha256', 'app@sha256:latest'],
    ['', ':latest'],
  ];
  for (const [input, want] of cases) it(JSON.stringify(input), () => assert.equal(normalizedImageName(input), want));
});
