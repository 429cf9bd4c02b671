// A map over a read-only base map that it never changes: writes and deletions go to
// its own layer, so a copy costs nothing until it is written, and then what it writes.
// For what every simulation over one built cluster starts with (the World's pod
// indexes), which each used to copy whole.

const DELETED: unique symbol = Symbol('deleted');

export class LayeredMap<K, V> {
  private readonly own = new Map<K, V | typeof DELETED>();

  constructor(private readonly base: ReadonlyMap<K, V>) {}

  get(key: K): V | undefined {
    const v = this.own.get(key);
    if (v === undefined) return this.base.get(key);
    return v === DELETED ? undefined : v;
  }

  has(key: K): boolean {
    const v = this.own.get(key);
    return v === undefined ? this.base.has(key) : v !== DELETED;
  }

  set(key: K, value: V): this {
    this.own.set(key, value);
    return this;
  }

  /** Whether the key was there. */
  delete(key: K): boolean {
    const had = this.has(key);
    if (had) this.own.set(key, DELETED);
    return had;
  }
}
