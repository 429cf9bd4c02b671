// What the workload controllers share, as upstream's share an informer store and a
// workqueue: their objects by namespace/name and by uid, the owner of a pod, and a
// queue that holds at most one pending sync per object, run at the current instant.

import type { Pod } from '../../model/pod.js';
import type { World } from '../world.js';

export interface KeyedObject {
  readonly namespace: string;
  readonly name: string;
  /** namespace/name */
  readonly key: string;
  readonly uid: string;
}

export abstract class KeyedController<T extends KeyedObject> {
  /** The objects by namespace/name. */
  readonly objects = new Map<string, T>();
  private readonly byUid = new Map<string, T>();
  private readonly queued = new Set<string>();

  /**
   * @param kind lower-case kind for error messages ("deployment")
   * @param syncEvent the engine's label for a queued sync
   */
  constructor(
    readonly world: World,
    private readonly kind: string,
    private readonly syncEvent: string,
  ) {}

  /** One reconciliation of the object, run from the queue. */
  protected abstract sync(o: T): void;

  /** The object the pod's controller reference points at, when this controller has it. */
  ownerOf(pod: Pod): T | undefined {
    const ref = pod.ownerReferences.find((r) => r.controller);
    return ref ? this.byUid.get(ref.uid) : undefined;
  }

  protected withUid(uid: string): T | undefined {
    return this.byUid.get(uid);
  }

  protected assertNew(key: string): void {
    if (this.objects.has(key)) throw new Error(`${this.kind} ${key} already exists`);
  }

  protected register(o: T): void {
    this.assertNew(o.key);
    this.objects.set(o.key, o);
    this.byUid.set(o.uid, o);
  }

  /** The object deleted: it is no longer found, and a sync already queued for it does nothing. */
  protected unregister(o: T): void {
    this.objects.delete(o.key);
    this.byUid.delete(o.uid);
  }

  protected mustGet(key: string): T {
    const o = this.objects.get(key);
    if (!o) throw new Error(`${this.kind} ${key} does not exist`);
    return o;
  }

  /** Queues a sync now unless one is already pending (a workqueue deduplicates keys). */
  protected enqueue(o: T): void {
    if (this.queued.has(o.key)) return;
    this.queued.add(o.key);
    this.world.engine.at(this.world.engine.now, this.syncEvent, () => {
      this.queued.delete(o.key);
      if (this.byUid.get(o.uid) === o) this.sync(o);
    });
  }
}
