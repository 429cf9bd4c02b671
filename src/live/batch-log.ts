// One log line per planned batch: which pods, what was decided for them (NodeClaims
// launched, with type, zone and price; pods no NodePool can take, with the reason;
// or "fits capacity in flight"). A batch planned again with the same pods and the
// same outcome (pods still waiting for a claim that is launching) logs at debug
// level for REPEAT_LOG_MS, then once more at info with the count it kept quiet.

import type { Logger } from 'pino';
import type { ProvisionPlan } from '../provisioner/plan.js';

export const REPEAT_LOG_MS = 60_000;
/** Pods named in one line; the rest are counted. */
const PODS_NAMED = 20;

export interface PlannedBatch {
  readonly pods: readonly string[];
  readonly nodes: number;
  readonly inFlight: readonly string[];
  readonly plan: Pick<ProvisionPlan, 'nodeClaims' | 'unschedulable' | 'costPerHour'>;
}

/** The line's message: the decision in words. */
export function batchDecision(b: PlannedBatch): string {
  const parts: string[] = [];
  const { nodeClaims, unschedulable, costPerHour } = b.plan;
  if (nodeClaims.length > 0) {
    const types = nodeClaims.map((c) => `${c.instanceType} in ${c.zone} (${c.capacityType})`).join(', ');
    parts.push(`launch ${nodeClaims.length} NodeClaim(s): ${types}, $${costPerHour.toFixed(4)}/h`);
  }
  if (unschedulable.length > 0) parts.push(`${unschedulable.length} pod(s) fit no NodePool`);
  if (parts.length === 0) parts.push(b.inFlight.length > 0 ? `fits capacity in flight (${b.inFlight.length} NodeClaim(s) launching)` : 'fits existing nodes');
  return `planned batch of ${b.pods.length} pod(s): ${parts.join('; ')}`;
}

export class BatchLog {
  private lastKey = '';
  private lastAt = 0;
  private quiet = 0;

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  planned(b: PlannedBatch): void {
    const pods = [...b.pods].sort();
    const nodeClaims = b.plan.nodeClaims.map((c) => ({ nodePool: c.nodePool, instanceType: c.instanceType, zone: c.zone, capacityType: c.capacityType, pricePerHour: c.pricePerHour, pods: c.pods }));
    const unschedulable = b.plan.unschedulable.map((u) => ({ pod: u.pod, message: u.message }));
    const key = JSON.stringify([pods, nodeClaims.map((c) => [c.instanceType, c.zone, c.pods]), unschedulable]);
    const now = this.now();
    const fields = {
      pods: pods.slice(0, PODS_NAMED),
      ...(pods.length > PODS_NAMED ? { morePods: pods.length - PODS_NAMED } : {}),
      nodes: b.nodes,
      inFlight: b.inFlight,
      nodeClaims,
      unschedulable,
    };
    if (key === this.lastKey && now - this.lastAt < REPEAT_LOG_MS) {
      this.quiet++;
      this.log.debug(fields, batchDecision(b));
      return;
    }
    this.log.info({ ...fields, ...(key === this.lastKey && this.quiet > 0 ? { repeatsNotLogged: this.quiet } : {}) }, batchDecision(b));
    this.lastKey = key;
    this.lastAt = now;
    this.quiet = 0;
  }
}
