/**
 * A Map that holds at most `capacity` keys: a key beyond that is not stored, and the overflow is
 * counted and reported once. Used for everything keyed by operation or dependency name. The
 * factory is given once, so the per-span `getOrCreate` allocates no closure. Entries are never
 * removed, so callers may keep a value (the engine keeps each operation's, see OperationState).
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();
  private overflowCount = 0;

  constructor(
    readonly capacity: number,
    private readonly create: (key: K) => V,
    private readonly onFirstOverflow: (capacity: number) => void = () => {},
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Keys refused because the map was full. */
  get overflow(): number {
    return this.overflowCount;
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** The value for `key`, created if there is room; undefined when full. */
  getOrCreate(key: K): V | undefined {
    let value = this.entries.get(key);
    if (value !== undefined) return value;
    if (this.entries.size >= this.capacity) {
      if (this.overflowCount++ === 0) this.onFirstOverflow(this.capacity);
      return undefined;
    }
    value = this.create(key);
    this.entries.set(key, value);
    return value;
  }

  /** Each entry in insertion order, without the pair an iterator makes per entry. */
  forEach(callback: (value: V, key: K) => void): void {
    this.entries.forEach(callback);
  }

  keys(): IterableIterator<K> {
    return this.entries.keys();
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries[Symbol.iterator]();
  }
}
