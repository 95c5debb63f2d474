/**
 * The most recent records of one kind, at most `capacity` of them: a ring that overwrites the
 * oldest, counting what it dropped. Readers ask for the records received since a time.
 */
export interface Timed {
  /** When svc received it (epoch ms, svc's clock: browsers' clocks are not trusted). */
  readonly at: number;
}

export class RecentRecords<T extends Timed> {
  private readonly items: T[] = [];
  private next = 0;
  /** Records overwritten to stay within capacity. */
  dropped = 0;

  constructor(readonly capacity: number) {}

  push(record: T): void {
    if (this.items.length < this.capacity) {
      this.items.push(record);
      return;
    }
    this.items[this.next] = record;
    this.next = (this.next + 1) % this.capacity;
    this.dropped++;
  }

  /** Records received at or after `since`, oldest first. */
  since(since: number): T[] {
    const ordered = this.items.length < this.capacity ? this.items : [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
    return ordered.filter((r) => r.at >= since);
  }

  get size(): number {
    return this.items.length;
  }
}

/** A map of at most `capacity` keys; a new key beyond it evicts the least recently set one. */
export class EvictingMap<K, V> {
  private readonly map = new Map<K, V>();
  evicted = 0;

  constructor(readonly capacity: number) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): void {
    if (this.map.has(key)) this.map.delete(key);
    else if (this.map.size >= this.capacity) {
      this.map.delete(this.map.keys().next().value as K);
      this.evicted++;
    }
    this.map.set(key, value);
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  get size(): number {
    return this.map.size;
  }
}
