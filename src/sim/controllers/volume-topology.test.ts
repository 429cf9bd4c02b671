import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StorageClass } from '../../model/volumes.js';
import { chooseTopology, claimNameHashAndOffset, flattenAllowedTopologies, type DriverNode } from './volume-topology.js';

const ZONE = 'topology.kubernetes.io/zone';

function sc(o: Partial<StorageClass> = {}): StorageClass {
  return { name: 'gp3', provisioner: 'ebs.csi.aws.com', volumeBindingMode: 'Immediate', allowedTopologies: [], isDefault: false, ...o };
}

function nodes(...zones: string[]): DriverNode[] {
  return zones.map((z, i) => ({ name: `n${i}`, labels: { [ZONE]: z }, topologyKeys: [ZONE] }));
}

const zoneOf = (c: ReturnType<typeof chooseTopology>) => ('topology' in c ? c.topology?.find((s) => s.key === ZONE)?.value : `error: ${c.error}`);

describe('external-provisioner topology', () => {
  // The hashes are Go's hash/fnv New32 of the same strings (checked with go run).
  it('hashes only the StatefulSet part of <claim>-<sts>-<ordinal> and offsets by the ordinal (getPVCNameHashAndIndexOffset)', () => {
    assert.deepEqual(claimNameHashAndOffset('data-etcd-2'), { hash: 262400755, offset: 2 });
    assert.deepEqual(claimNameHashAndOffset('web-7'), { hash: 1181096325, offset: 7 });
    assert.deepEqual(claimNameHashAndOffset('data-etcd'), { hash: 2974616480, offset: 0 });
  });

  it('spreads an Immediate StatefulSet claim per ordinal over the zones where the driver runs', () => {
    // fnv32("etcd") % 3 = 1: ordinal 0 takes the second sorted zone, then round-robin.
    const got = [0, 1, 2, 3].map((o) => zoneOf(chooseTopology(sc(), `data-etcd-${o}`, nodes('us-west-2c', 'us-west-2a', 'us-west-2b', 'us-west-2a'), undefined)));
    assert.deepEqual(got, ['us-west-2b', 'us-west-2c', 'us-west-2a', 'us-west-2b']);
  });

  it('takes the requisite terms from allowedTopologies when the class has them (flatten distributes values)', () => {
    const allowed = sc({ allowedTopologies: [[{ key: ZONE, values: ['us-west-2b', 'us-west-2a'] }, { key: 'tier', values: ['x'] }]] });
    assert.deepEqual(
      flattenAllowedTopologies(allowed).map((t) => t.map((s) => `${s.key}=${s.value}`)),
      [
        [`tier=x`, `${ZONE}=us-west-2b`],
        [`tier=x`, `${ZONE}=us-west-2a`],
      ],
    );
    const one = sc({ allowedTopologies: [[{ key: ZONE, values: ['us-west-2c'] }]] });
    assert.equal(zoneOf(chooseTopology(one, 'data-etcd-0', nodes('us-west-2a'), undefined)), 'us-west-2c');
  });

  it('prefers the selected node topology for WaitForFirstConsumer', () => {
    const ns = nodes('us-west-2a', 'us-west-2b', 'us-west-2c');
    assert.equal(zoneOf(chooseTopology(sc(), 'data-etcd-0', ns, ns[2])), 'us-west-2c');
  });

  it('fails when the selected node has no topology keys or is outside allowedTopologies', () => {
    const bare: DriverNode = { name: 'x', labels: {}, topologyKeys: [] };
    assert.equal(zoneOf(chooseTopology(sc(), 'c', [], bare)), 'error: no topology key found for node x');
    const ns = nodes('us-west-2a');
    const only = sc({ allowedTopologies: [[{ key: ZONE, values: ['us-west-2b'] }]] });
    assert.match(zoneOf(chooseTopology(only, 'c', ns, ns[0])) ?? '', /^error: topology of selected node "n0" is not in requisite/);
  });

  it('passes no requirement when no node reports topology keys', () => {
    assert.deepEqual(chooseTopology(sc(), 'c', [{ name: 'n', labels: {}, topologyKeys: [] }], undefined), { topology: null });
  });
});
