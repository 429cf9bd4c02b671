// ImageLocality: prefers nodes that already have the pod's images, weighted by
// image size and by how widely the image is spread (to avoid piling onto one node).

import { normalizedImageName, type NodeInfo } from '../../cluster/node-info.js';
import type { ClusterState } from '../../cluster/state.js';
import type { ScorePlugin } from '../framework.js';
import { MAX_NODE_SCORE } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { perPod } from './resource-scoring.js';

export const IMAGE_LOCALITY = 'ImageLocality';
const MB = 1024 * 1024;
const MIN_THRESHOLD = 23 * MB;
const MAX_CONTAINER_THRESHOLD = 1000 * MB;

export function imageLocalityScore(sumScores: number, imageCount: number): number {
  const maxThreshold = MAX_CONTAINER_THRESHOLD * imageCount;
  const clamped = Math.min(Math.max(sumScores, MIN_THRESHOLD), maxThreshold);
  return Math.trunc((MAX_NODE_SCORE * (clamped - MIN_THRESHOLD)) / (maxThreshold - MIN_THRESHOLD));
}

/** The node's score for the pod's normalised `images` (of `count` containers) in `cluster`. */
function nodeScore(images: readonly string[], count: number, cluster: ClusterState, nodeInfo: NodeInfo): number {
  let sum = 0;
  for (const image of images) {
    const state = cluster.imageState(nodeInfo, image);
    if (state) sum += Math.trunc(state.sizeBytes * (state.numNodes / cluster.numNodes));
  }
  return imageLocalityScore(sum, count);
}

export const newImageLocality: PluginFactory = ({ handle }): ScorePlugin => {
  // Normalised once per pod rather than once per node.
  const images = perPod((pod) => pod.images.map(normalizedImageName));
  return {
    name: IMAGE_LOCALITY,
    score: (_state, pod, nodeInfo) => nodeScore(images(pod), pod.images.length, handle.cluster, nodeInfo),
    scoreAll: (_state, pod, nodes, out, offset) => {
      const cluster = handle.cluster;
      const own = images(pod);
      // When no node has any of the images, every node scores as an empty one.
      if (!own.some((image) => cluster.hasImage(image))) {
        out.fill(imageLocalityScore(0, pod.images.length), offset, offset + nodes.length);
        return;
      }
      for (let j = 0; j < nodes.length; j++) out[offset + j] = nodeScore(own, pod.images.length, cluster, nodes[j]!);
    },
  };
};
