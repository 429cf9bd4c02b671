// Resource name classes from core/v1 helpers: which requests the scheduler counts as "scalar" resources.

const NATIVE_DOMAIN = 'kubernetes.io/';
const REQUESTS_PREFIX = 'requests.';

/** Native: no domain at all, or in the kubernetes.io domain. */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes(NATIVE_DOMAIN);
}

/** Extended resources: fully qualified, outside kubernetes.io (e.g. nvidia.com/gpu). */
export function isExtendedResourceName(name: string): boolean {
  return !isNativeResource(name) && !name.startsWith(REQUESTS_PREFIX);
}

export function isHugePageResourceName(name: string): boolean {
  return name.startsWith('hugepages-');
}

/** IsStandardContainerResourceName: the names a container's resources may use without a domain. */
export function isStandardContainerResourceName(name: string): boolean {
  return name === 'cpu' || name === 'memory' || name === 'ephemeral-storage' || isHugePageResourceName(name);
}

/** Resources tracked in framework.Resource.ScalarResources (IsScalarResourceName). */
export function isScalarResourceName(name: string): boolean {
  return isExtendedResourceName(name) || isHugePageResourceName(name) || name.includes(NATIVE_DOMAIN) || name.startsWith('attachable-volumes-');
}
