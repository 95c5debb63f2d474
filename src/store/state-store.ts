/**
 * The one interface svc's durable state goes through (docs/state.md): records of a few
 * collections (audit trail, sessions, incidents, changes, remediation flags, pending
 * verifications), each a key and a JSON text, kept in the order of their first write.
 *
 * Three implementations share test/store/state-store.contract.test.ts: memory-store.ts,
 * sqlite-store.ts (`node:sqlite`, the default) and redis-store.ts (the `redis` v5 client). Writes
 * reach a store only through state-writer.ts, in batches, off the request path.
 */

export type StoreKind = 'memory' | 'sqlite' | 'redis';

/** One write: `value` undefined deletes the record. */
export interface Mutation {
  readonly collection: string;
  readonly key: string;
  /** Order of first write: kept when a record is written again. */
  readonly seq: number;
  readonly value: string | undefined;
}

export interface StoredRecord {
  readonly key: string;
  readonly value: string;
}

export interface StateStore {
  readonly kind: StoreKind;
  /** Where it is, credentials hidden: safe to print. */
  readonly description: string;
  /** Connects and migrates the schema forward; throws when the store cannot be used. */
  open(): Promise<void>;
  /** The collection's records, oldest first write first. */
  load(collection: string): Promise<StoredRecord[]>;
  /** Applies the mutations in order, all or none. */
  write(mutations: readonly Mutation[]): Promise<void>;
  /** Deletes the oldest records of a collection beyond `keep`; resolves with how many. */
  trim(collection: string, keep: number): Promise<number>;
  close(): Promise<void>;
}

/** The schema version this build writes; older stores are migrated forward at open. */
export const SCHEMA_VERSION = 1;

export class StoreVersionError extends Error {}
