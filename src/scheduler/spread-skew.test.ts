import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildClusterState, loadSources } from '../io/load.js';
import { spreadSkews } from './spread-skew.js';

const node = (name: string, zone: string | undefined, extra = '') =>
  `apiVersion: v1\nkind: Node\nmetadata: {name: ${name}, labels: {kubernetes.io/hostname: ${name}${zone ? `, topology.kubernetes.io/zone: ${zone}` : ''}}}\nspec: {${extra}}\nstatus: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}`;
const pod = (name: string, on: string, spread = '') =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, labels: {app: web}}\nspec: {${on ? `nodeName: ${on}, ` : ''}containers: [{name: c, image: i}]${spread}}`;
const zoneSpread = (extra = '') => `, topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}${extra}}]`;

function skews(docs: string[], podName: string) {
  const r = loadSources([{ name: 'in.yaml', text: docs.join('\n---\n') }]);
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  const cluster = buildClusterState(r.input);
  return spreadSkews(cluster, cluster.getPod(`default/${podName}`)!);
}

test('matching pods per zone and max − min; a node without the key is not counted', () => {
  const s = skews([node('a', 'z1'), node('b', 'z1'), node('c', 'z2'), node('d', undefined), pod('w1', 'a'), pod('w2', 'b'), pod('w3', 'd'), pod('new', '', zoneSpread())], 'new');
  assert.deepEqual(s, [{ topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', maxSkew: 1, minDomains: 1, domains: [{ domain: 'z1', pods: 2 }, { domain: 'z2', pods: 0 }], skew: 2 }]);
});

test('fewer domains than minDomains: the minimum reads as 0', () => {
  const s = skews([node('a', 'z1'), pod('w1', 'a'), pod('new', '', zoneSpread(', minDomains: 3'))], 'new');
  assert.deepEqual(s[0]?.domains, [{ domain: 'z1', pods: 1 }]);
  assert.equal(s[0]?.skew, 1);
});

test('nodeTaintsPolicy Honor: a node with a taint the pod does not tolerate is not counted', () => {
  const docs = [node('a', 'z1'), node('b', 'z2', 'taints: [{key: k, effect: NoSchedule}]'), pod('w1', 'a')];
  assert.equal(skews([...docs, pod('new', '', zoneSpread())], 'new')[0]?.domains.length, 2);
  assert.deepEqual(skews([...docs, pod('new', '', zoneSpread(', nodeTaintsPolicy: Honor'))], 'new')[0]?.domains, [{ domain: 'z1', pods: 1 }]);
});

test('a pod without constraints has no skews', () => {
  assert.deepEqual(skews([node('a', 'z1'), pod('new', '')], 'new'), []);
});
