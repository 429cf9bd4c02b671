// ImageLocality: prefers nodes that already have the pod's images, weighted by
// image size and by how widely the image is spread (to avoid piling onto one node).

import { normalizedImageName } from '../../cluster/node-info.js';
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

export const newImageLocality: PluginFactory = ({ handle }): ScorePlugin => {
  // Normalised once per pod rather than once per node.
  const images = perPod((pod) => pod.images.map(normalizedImageName));
  return {
    name: IMAGE_LOCALITY,
    score: (_state, pod, nodeInfo) => {
      const totalNodes = handle.cluster.numNodes;
      let sum = 0;
      for (const image of images(pod)) {
        const state = nodeInfo.imageStates.get(image);
        if (state) sum += Math.trunc(state.sizeBytes * (state.numNodes / totalNodes));
      }
      return imageLocalityScore(sum, pod.images.length);
    },
  };
};
