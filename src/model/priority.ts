// PriorityClasses (scheduling.k8s.io/v1): resolve a pod's priority as the Priority admission plugin does.

import { FieldError } from './errors.js';
import type { ObjectMetaManifest } from './manifest.js';

export interface PriorityClassManifest {
  apiVersion?: string;
  kind?: 'PriorityClass';
  metadata: ObjectMetaManifest;
  value: number;
  globalDefault?: boolean;
  preemptionPolicy?: 'PreemptLowerPriority' | 'Never';
  description?: string;
}

export interface PriorityClass {
  readonly name: string;
  readonly value: number;
  readonly globalDefault: boolean;
  readonly preemptionPolicy: 'PreemptLowerPriority' | 'Never';
}

/** Built-in classes every cluster has. */
export const SYSTEM_PRIORITY_CLASSES: readonly PriorityClass[] = [
  { name: 'system-cluster-critical', value: 2000000000, globalDefault: false, preemptionPolicy: 'PreemptLowerPriority' },
  { name: 'system-node-critical', value: 2000001000, globalDefault: false, preemptionPolicy: 'PreemptLowerPriority' },
];

export function compilePriorityClass(m: PriorityClassManifest): PriorityClass {
  const name = m.metadata.name ?? '';
  if (!name) throw new FieldError('Required value: name is required', ['metadata', 'name']);
  if (!Number.isInteger(m.value) || m.value > 1000000000) {
    if (!name.startsWith('system-')) throw new FieldError(`Invalid value: ${m.value}: maximum allowed value of a user defined priority is 1000000000`, ['value']);
  }
  return { name, value: m.value, globalDefault: m.globalDefault ?? false, preemptionPolicy: m.preemptionPolicy ?? 'PreemptLowerPriority' };
}

export class PriorityResolver {
  private readonly byName = new Map<string, PriorityClass>();
  private readonly globalDefault?: PriorityClass;

  constructor(classes: readonly PriorityClass[]) {
    for (const c of [...SYSTEM_PRIORITY_CLASSES, ...classes]) this.byName.set(c.name, c);
    this.globalDefault = classes.find((c) => c.globalDefault);
  }

  /** undefined when the class name is unknown (the API server would reject the pod). */
  resolve(priorityClassName: string | undefined): PriorityClass | undefined | null {
    if (!priorityClassName) return this.globalDefault ?? null;
    return this.byName.get(priorityClassName);
  }
}
