/** `memory:`: the state store that forgets at exit; also the fallback when no other store can open. */
import type { Mutation, StateStore, StoredRecord } from './state-store.js';

export class MemoryStore implements StateStore {
  readonly kind = 'memory';
  readonly description = 'memory:';
  private readonly collections = new Map<string, Map<string, { seq: number; value: string }>>();

  async open(): Promise<void> {}

  async load(collection: string): Promise<StoredRecord[]> {
    const records = [...(this.collections.get(collection)?.entries() ?? [])].sort((a, b) => a[1].seq - b[1].seq);
    return records.map(([key, { value }]) => ({ key, value }));
  }

  async write(mutations: readonly Mutation[]): Promise<void> {
    for (const { collection, key, seq, value } of mutations) {
      let records = this.collections.get(collection);
      if (!records) this.collections.set(collection, (records = new Map()));
      if (value === undefined) records.delete(key);
      else records.set(key, { seq: records.get(key)?.seq ?? seq, value });
    }
  }

  async trim(collection: string, keep: number): Promise<number> {
    const records = this.collections.get(collection);
    if (!records || records.size <= keep) return 0;
    const oldest = [...records].sort((a, b) => a[1].seq - b[1].seq).slice(0, records.size - keep);
    for (const [key] of oldest) records.delete(key);
    return oldest.length;
  }

  async close(): Promise<void> {}
}
