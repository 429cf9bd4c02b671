import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { ClusterState } from '../../cluster/state.js';
import type { Node } from '../../model/node.js';
import type { Pod } from '../../model/pod.js';
import { buildPlugin, byName, clusterOf, mkNode, mkPod, scoreNodes } from '../../../test/fixtures/plugin-harness.js';
import type { ScorePlugin } from '../framework.js';
import { IMAGE_LOCALITY, imageLocalityScore, newImageLocality } from './image-locality.js';

const mb = 1024 * 1024;
type Images = { names: string[]; sizeBytes: number }[];
const img = (sizeMB: number, ...names: string[]) => ({ names, sizeBytes: sizeMB * mb });

const node403002000: Images = [img(40, 'gcr.io/40:latest', 'gcr.io/40:v1', 'gcr.io/40:v1'), img(300, 'gcr.io/300:latest', 'gcr.io/300:v1'), img(2000, 'gcr.io/2000:latest')];
const node25010: Images = [img(250, 'gcr.io/250:latest'), img(10, 'gcr.io/10:latest', 'gcr.io/10:v1')];
const node60040900: Images = [img(600, 'gcr.io/600:latest'), img(40, 'gcr.io/40:latest'), img(900, 'gcr.io/900:latest')];
const node300600900: Images = [img(300, 'gcr.io/300:latest'), img(600, 'gcr.io/600:latest'), img(900, 'gcr.io/900:latest')];
const node400030: Images = [img(4000, 'gcr.io/4000:latest'), img(30, 'gcr.io/30:latest')];
const node203040: Images = [img(20, 'gcr.io/20:latest'), img(30, 'gcr.io/30:latest'), img(40, 'gcr.io/40:latest')];

const imageNode = (name: string, images: Images): Node => mkNode(name, { images });
let seq = 0;
const podWithImages = (images: string[], init: string[] = []): Pod =>
  mkPod(`p${seq++}`, { containers: images.map((image, i) => ({ name: `c${i}`, image })), initContainers: init.map((image, i) => ({ name: `i${i}`, image })) });

describe('ImageLocality (TestImageLocalityPriority)', () => {
  const cases: { name: string; pod: Pod; nodes: Node[]; want: Record<string, number> }[] = [
    // node2: 100 * (250M/2 - 23M) / (1000M*2 - 23M) = 5
    { name: 'two images spread on two nodes, prefer the larger image one', pod: podWithImages(['gcr.io/40', 'gcr.io/250']), nodes: [imageNode('node1', node403002000), imageNode('node2', node25010)], want: { node1: 0, node2: 5 } },
    { name: 'two images on one node, prefer this node', pod: podWithImages(['gcr.io/40', 'gcr.io/300']), nodes: [imageNode('node1', node403002000), imageNode('node2', node25010)], want: { node1: 7, node2: 0 } },
    { name: 'if exceed limit, use limit', pod: podWithImages(['gcr.io/10', 'gcr.io/4000']), nodes: [imageNode('node1', node400030), imageNode('node2', node25010)], want: { node1: 100, node2: 0 } },
    {
      name: 'if exceed limit, use limit (with node which has no images present)',
      pod: podWithImages(['gcr.io/10', 'gcr.io/4000']),
      nodes: [imageNode('node1', node400030), imageNode('node2', node25010), imageNode('node3', [])],
      want: { node1: 66, node2: 0, node3: 0 },
    },
    {
      name: 'pod with multiple large images, node2 is preferred',
      pod: podWithImages(['gcr.io/300', 'gcr.io/600', 'gcr.io/900']),
      nodes: [imageNode('node1', node60040900), imageNode('node2', node300600900), imageNode('node3', [])],
      want: { node1: 32, node2: 36, node3: 0 },
    },
    { name: 'pod with multiple small images', pod: podWithImages(['gcr.io/30', 'gcr.io/40']), nodes: [imageNode('node1', node203040), imageNode('node2', node400030)], want: { node1: 1, node2: 0 } },
    { name: 'same images as ImageVolume pod but as regular container images', pod: podWithImages(['gcr.io/30', 'gcr.io/300']), nodes: [imageNode('node1', node300600900), imageNode('node2', node400030)], want: { node1: 6, node2: 0 } },
    {
      name: 'include InitContainers: two images spread on two nodes, prefer the larger image one',
      pod: podWithImages(['gcr.io/30'], ['gcr.io/300']),
      nodes: [imageNode('node1', node403002000), imageNode('node2', node203040)],
      want: { node1: 6, node2: 0 },
    },
    {
      name: 'image volumes count like container images (ImageVolume)',
      pod: mkPod(`p${seq++}`, { containers: [{ name: 'c', image: 'gcr.io/30' }], volumes: [{ name: 'v', image: { reference: 'gcr.io/300' } }] }),
      nodes: [imageNode('node1', node300600900), imageNode('node2', node400030)],
      want: { node1: 6, node2: 0 },
    },
    { name: 'an explicit tag is looked up as written', pod: podWithImages(['gcr.io/300:v1', 'gcr.io/40:v1']), nodes: [imageNode('node1', node403002000), imageNode('node2', [])], want: { node1: 7, node2: 0 } },
    { name: 'a registry port is not a tag', pod: podWithImages(['localhost:5000/app']), nodes: [imageNode('node1', [img(500, 'localhost:5000/app:latest')]), imageNode('node2', [])], want: { node1: 23, node2: 0 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cluster = clusterOf(c.nodes);
      const { plugin } = buildPlugin<ScorePlugin>(newImageLocality, {}, cluster);
      assert.equal(plugin.name, IMAGE_LOCALITY);
      assert.deepEqual(byName(scoreNodes(plugin, c.pod, cluster).scores), c.want);
    });
  }
});

describe('ImageLocality on copies of a cluster', () => {
  const nodes = [imageNode('node1', node403002000), imageNode('node2', node25010), imageNode('node3', node300600900)];
  const scores = (cluster: ClusterState, pod: Pod) => byName(scoreNodes(buildPlugin<ScorePlugin>(newImageLocality, {}, cluster).plugin, pod, cluster).scores);
  for (const copy of ['clone', 'fork'] as const) {
    it(`a ${copy} that lost a node scores as a cluster built without it, and the original as before`, () => {
      const pod = podWithImages(['gcr.io/300', 'gcr.io/600']);
      const original = clusterOf(nodes);
      const before = scores(original, pod);
      const c = original[copy]();
      c.removeNode('node3');
      assert.deepEqual(scores(c, pod), scores(clusterOf(nodes.slice(0, 2)), pod));
      assert.notDeepEqual(scores(c, pod), { node1: before['node1'], node2: before['node2'] });
      assert.deepEqual(scores(original, pod), before);
    });
  }
});

describe('imageLocalityScore (calculatePriority)', () => {
  const cases = [
    { name: 'below the minimum threshold is 0', sum: 10 * mb, images: 1, want: 0 },
    { name: 'above the per-image maximum is 100', sum: 5000 * mb, images: 2, want: 100 },
    { name: 'linear in between, truncated', sum: 125 * mb, images: 2, want: 5 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(imageLocalityScore(c.sum, c.images), c.want));
});
