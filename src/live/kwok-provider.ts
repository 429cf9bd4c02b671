// A CloudProvider whose instances are kwok fake nodes: launching a claim creates
// the Node object it would register as (the instance type's labels, the NodePool's
// labels and taints, capacity and allocatable from the instance type) with kwok's
// annotation, so a kwok started with
// --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake makes it Ready and
// runs the pods the real kube-scheduler binds to it.

import { formatResource } from '../model/quantity.js';
import type { ResourceList } from '../model/resources.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import { launchedNodeLabels } from '../provisioner/launched-node.js';
import { LABEL_NODECLAIM, nodeClaimOf } from './claims.js';
import type { CloudProvider, Instance, Launch } from './cloud-provider.js';
import { statusCode, type Kube } from './kube.js';
import { createdAt, type KubeObject } from './objects.js';

export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

function quantities(list: ResourceList): Record<string, string> {
  return Object.fromEntries(Object.entries(list).map(([k, v]) => [k, formatResource(k, v)]));
}

/** The Node object of a launched claim (named after it). */
export function kwokNode(launch: Launch): KubeObject {
  const { claim, pool, instanceType: it } = launch;
  const capacityType = claim.capacityType === 'spot' ? 'spot' : 'on-demand';
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: claim.name,
      labels: { ...launchedNodeLabels(pool, it, { zone: claim.zone, capacityType }, claim.name), [LABEL_NODECLAIM]: claim.name, type: 'kwok' },
      annotations: { [KWOK_NODE_ANNOTATION]: 'fake' },
    },
    // Startup taints are left off: nothing on a fake node would remove them.
    spec: { providerID: `kwok://${claim.name}`, taints: pool.taints.map((t) => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect })) },
    status: { capacity: quantities(it.capacity), allocatable: quantities(it.allocatable) },
  };
}

export class KwokProvider implements CloudProvider {
  readonly name = 'kwok';

  constructor(
    private readonly kube: Kube,
    private readonly instanceTypes: readonly InstanceType[],
    /** Simulated boot time before the node registers (0: at once). */
    private readonly launchDelayMs = 0,
  ) {}

  getInstanceTypes(): readonly InstanceType[] {
    return this.instanceTypes;
  }

  async create(launch: Launch): Promise<Instance> {
    if (this.launchDelayMs > 0) await new Promise((r) => setTimeout(r, this.launchDelayMs));
    let node: KubeObject;
    try {
      node = await this.kube.create(kwokNode(launch));
    } catch (e) {
      if (statusCode(e) !== 409) throw e;
      node = (await this.kube.read('v1', 'Node', launch.claim.name)) ?? kwokNode(launch);
    }
    return instanceOf(node);
  }

  async delete(instance: Pick<Instance, 'nodeName'>): Promise<void> {
    await this.kube.delete('v1', 'Node', instance.nodeName);
  }

  async list(): Promise<Instance[]> {
    const nodes = await this.kube.api.list('v1', 'Node', undefined, undefined, undefined, undefined, undefined, LABEL_NODECLAIM);
    return (nodes.items as KubeObject[]).map(instanceOf);
  }
}

function instanceOf(node: KubeObject): Instance {
  const providerID = (node.spec as { providerID?: string } | undefined)?.providerID ?? '';
  return { nodeName: node.metadata?.name ?? '', claim: nodeClaimOf(node), created: createdAt(node), providerID };
}
