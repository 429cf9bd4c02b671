// zod shapes for Karpenter's NodePool (karpenter.sh/v1) and the envelope of berth's
// InstanceTypeCatalog. They check types only; values (patterns, enums, CEL rules,
// defaults) are validated by src/model/nodepool.ts and parseInstanceTypeCatalog,
// which report every problem at its field.

import { z } from 'zod';
import type { NodeClaimManifest } from '../model/nodeclaim.js';
import type { NodePoolManifest } from '../model/nodepool.js';
import { describeValue, int, objectMeta, quantityMap, strList, strMap } from './schemas.js';

const str = z.string();

// The CRD types budget nodes as a string; an unquoted `nodes: 5` is rejected by the API server.
const budgetNodes = z.string({
  error: (iss) => (iss.input === undefined ? undefined : `Invalid type: expected string, got ${describeValue(iss.input)} (write it quoted: "${String(iss.input)}")`),
});

const requirement = z.object({ key: str, operator: str, values: strList.optional(), minValues: int.optional() });

const taint = z.object({ key: str, value: str.optional(), effect: str, timeAdded: str.optional() });

// A NodeClaim's taints are written by Karpenter from its NodePool: the API's effects only.
const claimTaint = z.object({ key: str, value: str.optional(), effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']) });

const budget = z.object({ nodes: budgetNodes.optional(), schedule: str.optional(), duration: str.optional(), reasons: strList.optional() });

export const nodePoolSchema = z.object({
  apiVersion: str.optional(),
  metadata: objectMeta.default({}),
  spec: z.object({
    template: z.object({
      metadata: z.object({ labels: strMap.optional(), annotations: strMap.optional() }).optional(),
      spec: z.object({
        requirements: z.array(requirement),
        nodeClassRef: z.object({ group: str, kind: str, name: str }),
        taints: z.array(taint).optional(),
        startupTaints: z.array(taint).optional(),
        expireAfter: str.optional(),
        terminationGracePeriod: str.optional(),
      }),
    }),
    disruption: z.object({ consolidationPolicy: str.optional(), consolidateAfter: str.optional(), budgets: z.array(budget).optional() }).optional(),
    limits: quantityMap.optional(),
    weight: int.optional(),
    replicas: int.optional(),
  }),
}) satisfies z.ZodType<Omit<NodePoolManifest, 'kind'>>;

/**
 * A Karpenter NodeClaim: its hash stamp (annotations), the Node it became
 * (status.nodeName, providerID), and what Karpenter's cluster state plans with while
 * that Node is missing or uninitialized (labels, taints, startup taints, capacity).
 */
export const nodeClaimSchema = z.object({
  apiVersion: str.optional(),
  metadata: objectMeta.default({}),
  spec: z.object({ taints: z.array(claimTaint).optional(), startupTaints: z.array(claimTaint).optional() }).optional(),
  status: z
    .object({
      nodeName: str.optional(),
      providerID: str.optional(),
      capacity: quantityMap.optional(),
      allocatable: quantityMap.optional(),
      conditions: z.array(z.object({ type: str, status: str })).optional(),
    })
    .optional(),
}) satisfies z.ZodType<Omit<NodeClaimManifest, 'kind'>>;

/** Only the envelope: parseInstanceTypeCatalog validates `spec` with its own messages. */
export const instanceTypeCatalogSchema = z.object({
  apiVersion: str.optional(),
  metadata: objectMeta.default({}),
  spec: z.unknown(),
});
