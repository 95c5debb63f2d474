/**
 * `sqlite:<path>`: the embedded default (`./.svc/state.db`), through `node:sqlite`. One table of
 * records keyed by namespace (the service name), collection and key; `seq` keeps the order of
 * first write. WAL journal, and a busy timeout of 0: a locked file fails the batch at once (the
 * writer keeps it and retries) instead of blocking the event loop.
 *
 * `PRAGMA user_version` is the schema version: an older file is migrated forward at open, in one
 * transaction; a file written by a newer svc is refused (StoreVersionError), never rewritten.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Mutation, type StateStore, type StoredRecord, StoreVersionError } from './state-store.js';

type SqliteModule = typeof import('node:sqlite');
type Database = InstanceType<SqliteModule['DatabaseSync']>;

/** `node:sqlite`, or undefined on a Node without it (svc then falls back to memory). */
export function sqliteModule(): SqliteModule | undefined {
  try {
    return process.getBuiltinModule?.('node:sqlite') as SqliteModule | undefined;
  } catch {
    return undefined;
  }
}

/** Step n takes a file at version n to n + 1; there are SCHEMA_VERSION steps (state-store.ts). */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS records (
     namespace TEXT NOT NULL, collection TEXT NOT NULL, key TEXT NOT NULL, seq INTEGER NOT NULL, value TEXT NOT NULL,
     PRIMARY KEY (namespace, collection, key)) WITHOUT ROWID;
   CREATE INDEX IF NOT EXISTS records_order ON records (namespace, collection, seq);`,
];

export class SqliteStore implements StateStore {
  readonly kind = 'sqlite';
  readonly description: string;
  private db: Database | undefined;

  constructor(
    private readonly path: string,
    private readonly namespace: string,
    private readonly sqlite: SqliteModule | undefined = sqliteModule(),
    private readonly migrations: readonly string[] = MIGRATIONS,
  ) {
    this.description = `sqlite:${path}`;
  }

  async open(): Promise<void> {
    this.openSync();
  }

  /** open() without a promise: node:sqlite is synchronous, so the outcome is known at once. */
  openSync(): void {
    if (!this.sqlite) throw new Error(`node:sqlite is not available in Node ${process.version}`);
    if (this.path !== ':memory:') mkdirSync(dirname(this.path), { recursive: true });
    const db = new this.sqlite.DatabaseSync(this.path, { timeout: 0 });
    try {
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      const version = Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
      if (version > this.migrations.length)
        throw new StoreVersionError(`${this.description} has schema version ${version}, written by a newer svc (this one knows up to ${this.migrations.length}); it is left as it is`);
      if (version < this.migrations.length) {
        db.exec('BEGIN IMMEDIATE');
        try {
          for (let step = version; step < this.migrations.length; step++) db.exec(this.migrations[step]!);
          db.exec(`PRAGMA user_version = ${this.migrations.length}`);
          db.exec('COMMIT');
        } catch (error) {
          db.exec('ROLLBACK');
          throw error;
        }
      }
      // A file that is no database fails here, at open, rather than at the first write.
      db.prepare('SELECT count(*) FROM records WHERE namespace = ?').get(this.namespace);
    } catch (error) {
      db.close();
      throw error;
    }
    this.db = db;
  }

  private get open_(): Database {
    if (!this.db) throw new Error(`${this.description} is not open`);
    return this.db;
  }

  async load(collection: string): Promise<StoredRecord[]> {
    const rows = this.open_.prepare('SELECT key, value FROM records WHERE namespace = ? AND collection = ? ORDER BY seq').all(this.namespace, collection);
    return rows.map((row) => ({ key: String(row.key), value: String(row.value) }));
  }

  async write(mutations: readonly Mutation[]): Promise<void> {
    const db = this.open_;
    const put = db.prepare('INSERT INTO records (namespace, collection, key, seq, value) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value');
    const remove = db.prepare('DELETE FROM records WHERE namespace = ? AND collection = ? AND key = ?');
    db.exec('BEGIN IMMEDIATE');
    try {
      for (const m of mutations) {
        if (m.value === undefined) remove.run(this.namespace, m.collection, m.key);
        else put.run(this.namespace, m.collection, m.key, m.seq, m.value);
      }
      db.exec('COMMIT');
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }

  async trim(collection: string, keep: number): Promise<number> {
    const result = this.open_
      .prepare(
        `DELETE FROM records WHERE namespace = ?1 AND collection = ?2 AND seq < (
           SELECT seq FROM records WHERE namespace = ?1 AND collection = ?2 ORDER BY seq DESC LIMIT 1 OFFSET ?3)`,
      )
      .run(this.namespace, collection, Math.max(0, keep - 1));
    return Number(result.changes);
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
  }
}
