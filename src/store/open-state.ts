/**
 * Opens the state store `svc.store.url` names, behind a state writer. Where SQLite cannot be
 * used (no `node:sqlite` in this Node, a directory that is not writable, a file that is no
 * database or was written by a newer svc) svc runs on `memory:` and says so in one stderr line.
 * A Redis that does not answer at start is kept: svc runs on local state and writes once it
 * answers (state-writer.ts).
 */
import { resolve } from 'node:path';
import type { FleetSync } from '../fleet/fleet-sync.js';
import { MemoryStore } from './memory-store.js';
import { RedisStore } from './redis-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { StateStore } from './state-store.js';
import { StateWriter, type StateWriterOptions } from './state-writer.js';
import { parseStoreUrl, withoutSecret } from './store-url.js';

export interface OpenStateOptions extends Omit<StateWriterOptions, 'redact'> {
  readonly url: string;
  readonly password?: string;
  /** The service name: replicas of one service share its records. */
  readonly namespace: string;
  readonly cwd: string;
  /** This replica's id in the fleet of processes sharing the store (src/fleet/instance-id.ts). */
  readonly instanceId: string;
}

export interface OpenedState {
  readonly writer: StateWriter;
  /** Resolves once the store is open (or known not to be): loads may begin. */
  readonly ready: Promise<boolean>;
  readonly instanceId: string;
  /** On a Redis store: what keeps sessions, audit, incidents and remediation the same on every replica. */
  readonly fleetSync?: FleetSync;
}

function secretsOf(options: OpenStateOptions): string[] {
  const secrets = options.password ? [options.password] : [];
  try {
    const url = new URL(options.url);
    if (url.password) secrets.push(url.password, decodeURIComponent(url.password));
  } catch {
    // not a URL with a password
  }
  return secrets;
}

export function openState(options: OpenStateOptions): OpenedState {
  const secrets = secretsOf(options);
  const redact = (message: string): string => withoutSecret(message, secrets);
  const writerOptions: StateWriterOptions = { ...options, redact };
  const memory = (why: string): OpenedState => {
    options.report?.(`state store ${why}; svc keeps its state in memory (memory:) and forgets it at exit`);
    const writer = new StateWriter(new MemoryStore(), writerOptions, why).start();
    return { writer, ready: Promise.resolve(false), instanceId: options.instanceId };
  };
  const location = parseStoreUrl(options.url);
  if (location.kind === 'memory') return { writer: new StateWriter(new MemoryStore(), writerOptions).start(), ready: Promise.resolve(true), instanceId: options.instanceId };
  if (location.kind === 'sqlite') {
    const store = new SqliteStore(resolve(options.cwd, location.path), options.namespace);
    // node:sqlite opens synchronously: the outcome is known here, before anything is queued.
    try {
      store.openSync();
    } catch (error) {
      return memory(`${store.description} cannot be used (${redact(error instanceof Error ? error.message : String(error))})`);
    }
    return { writer: new StateWriter(store, writerOptions).start(), ready: Promise.resolve(true), instanceId: options.instanceId };
  }
  const store: StateStore = new RedisStore({ url: location.url, password: options.password, namespace: options.namespace, connectTimeoutMs: options.timeoutMs });
  const writer = new StateWriter(store, writerOptions).start();
  const ready = store.open().then(
    () => true,
    (error: unknown) => {
      writer.markDegraded(error);
      return false;
    },
  );
  return { writer, ready, instanceId: options.instanceId };
}
