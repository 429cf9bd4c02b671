// A CloudProvider whose instances are kwok fake nodes: launching a claim creates
// the Node object it would register as, as a kubelet registers it: the instance
// type's labels, the NodePool's labels, taints and startup taints, capacity and
// allocatable from the instance type, conditions saying it is not Ready yet, and
// berth's termination finalizer. kwok (started with
// --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake and the stages
// of test/cluster/stages/) makes it Ready after its configured delay, removes the
// startup taints listed in kwok.berth.dev/startup-taints (as the agent owning them
// would) and runs the pods the real kube-scheduler binds to it.

import { formatResource } from '../model/quantity.js';
import type { ResourceList } from '../model/resources.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import { launchedNodeLabels } from '../provisioner/launched-node.js';
import { LABEL_NODECLAIM, nodeClaimOf, TERMINATION_FINALIZER } from './claims.js';
import type { CloudProvider, Instance, Launch } from './cloud-provider.js';
import { statusCode, type Kube } from './kube.js';
import { createdAt, type KubeObject } from './objects.js';

export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';
/** The startup taints' keys, comma-separated, for the kwok stage that plays the agents removing them. */
export const KWOK_STARTUP_TAINTS_ANNOTATION = 'kwok.berth.dev/startup-taints';

/** What a kubelet reports when it registers, before its runtime and network are up. */
function registeringConditions(now: string): object[] {
  const condition = (type: string, status: string, reason: string, message: string) => ({ type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime: now });
  return [
    condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    condition('Ready', 'False', 'KubeletNotReady', 'container runtime status check may not have completed yet'),
  ];
}

function quantities(list: ResourceList): Record<string, string> {
  return Object.fromEntries(Object.entries(list).map(([k, v]) => [k, formatResource(k, v)]));
}

/** The Node object of a launched claim (named after it), as it registers. */
export function kwokNode(launch: Launch, now = new Date()): KubeObject {
  const { claim, pool, instanceType: it } = launch;
  const capacityType = claim.capacityType === 'spot' ? 'spot' : 'on-demand';
  const taint = (t: (typeof pool.taints)[number]) => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: claim.name,
      labels: { ...launchedNodeLabels(pool, it, { zone: claim.zone, capacityType }, claim.name), [LABEL_NODECLAIM]: claim.name, type: 'kwok' },
      annotations: { [KWOK_NODE_ANNOTATION]: 'fake', [KWOK_STARTUP_TAINTS_ANNOTATION]: pool.startupTaints.map((t) => t.key).join(',') },
      finalizers: [TERMINATION_FINALIZER],
    },
    spec: { providerID: `kwok://${claim.name}`, taints: [...pool.taints, ...pool.startupTaints].map(taint) },
    status: { capacity: quantities(it.capacity), allocatable: quantities(it.allocatable), conditions: registeringConditions(now.toISOString().replace(/\.\d+Z$/, 'Z')) },
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

  /** Ends the instance: for kwok, the Node itself goes (its finalizer is the terminator's to remove). */
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
