// A pod a controller creates from its compiled template: a generated name
// (`<prefix><5 random characters>`, as the API server's generateName makes them,
// from the simulation's seeded generator), a fresh uid, the controller's owner
// reference, unbound and Pending.

import { changedPod, type OwnerReference, type Pod } from '../../model/pod.js';
import type { World } from '../world.js';

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function newControlledPod(world: World, template: Pod, o: { namespace: string; prefix: string; labels: Pod['labels']; annotations?: Pod['annotations']; owner: OwnerReference }): Pod {
  const { cluster, engine } = world;
  let name: string;
  do {
    let suffix = '';
    for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[engine.rand.intn(NAME_ALPHABET.length)];
    name = o.prefix + suffix;
  } while (cluster.getPod(`${o.namespace}/${name}`));
  return changedPod(template, {
    namespace: o.namespace,
    name,
    key: `${o.namespace}/${name}`,
    uid: world.newUid(),
    labels: o.labels,
    ...(o.annotations ? { annotations: o.annotations } : {}),
    ownerReferences: [o.owner],
    creation: engine.now,
    nodeName: '',
    nominatedNodeName: '',
    phase: 'Pending',
    terminating: false,
    preemptedByScheduler: false,
  });
}
