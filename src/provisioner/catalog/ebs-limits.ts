// How many EBS volumes the EBS CSI driver lets the scheduler attach to a new node
// of an instance type: the allocatable count its node plugin writes into the
// node's CSINode for ebs.csi.aws.com (aws-ebs-csi-driver pkg/driver/node.go,
// getVolumesLimit, with default options). The instance type's EC2 attachment limit
// less the root volume, and on a shared limit less each network interface beyond
// the primary one. A node comes up with its primary interface only, so both come to
// the limit less one. Karpenter itself does not use this for new NodeClaims (v1.14.1
// reads limits from CSINodes of nodes that exist); the simulator gives launched
// nodes the CSINode the driver would register.

export const EBS_CSI_DRIVER = 'ebs.csi.aws.com';

/** The EC2 attachment limit of an instance type (DescribeInstanceTypes EbsInfo). */
export interface EbsAttachmentLimit {
  readonly maxAttachments: number;
  /** shared: one budget for EBS volumes, network interfaces and NVMe instance store; dedicated: EBS volumes only. */
  readonly limitType: 'shared' | 'dedicated';
}

/** Network interfaces attached when the driver's node plugin starts: the primary one. */
const ENIS_AT_STARTUP = 1;

export function ebsCsiVolumeLimit(limit: EbsAttachmentLimit, attachedENIs = ENIS_AT_STARTUP): number {
  let available = limit.maxAttachments - 1; // the root volume
  if (limit.limitType === 'shared') available -= attachedENIs - 1;
  // The driver never reports less than 1: Kubernetes reads 0 as no limit.
  return Math.max(1, available);
}
