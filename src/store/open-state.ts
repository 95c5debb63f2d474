/**
 * Opens the state store `svc.store.url` names, behind a state writer. Where SQLite cannot be
 * used (no `node:sqlite` in this Node, a directory that is not writable, a file that is no
 * database or was written by a newer svc) svc runs on `memory:` and says so in one stderr line.
 * A Redis that does not answer at start is kept: svc runs on local state and writes once it
 * answers (state-writer.ts).
 */
import { resolve } from 'node:path';
import { Checkpoints } from './checkpoints.js';
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
  /** How often the analysis state is checkpointed (`svc.store.checkpoint-interval`; default 30 s). */
  readonly checkpointIntervalMs?: number;
}

export interface OpenedState {
  readonly writer: StateWriter;
  /** Resolves once the store is open (or known not to be): loads may begin. */
  readonly ready: Promise<boolean>;
  readonly instanceId: string;
  /** The analysis state's checkpoints (src/store/checkpoints.ts). */
  readonly checkpoints: Checkpoints;
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
  // On Redis each replica keeps its own analysis records, under its id (docs/state.md, Fleet).
  const opened = (writer: StateWriter, ready: Promise<boolean>): OpenedState => {
    const owner = writer.store.kind === 'redis' ? encodeURIComponent(options.instanceId) : '';
    const checkpoints = new Checkpoints(writer, { intervalMs: options.checkpointIntervalMs ?? 30_000, owner, report: options.report ?? (() => {}) });
    return { writer, ready, instanceId: options.instanceId, checkpoints };
  };
  const memory = (why: string): OpenedState => {
    options.report?.(`state store ${why}; svc keeps its state in memory (memory:) and forgets it at exit`);
    return opened(new StateWriter(new MemoryStore(), writerOptions, why).start(), Promise.resolve(false));
  };
  const location = parseStoreUrl(options.url);
  if (location.kind === 'memory') return opened(new StateWriter(new MemoryStore(), writerOptions).start(), Promise.resolve(true));
  if (location.kind === 'sqlite') {
    const store = new SqliteStore(resolve(options.cwd, location.path), options.namespace);
    // node:sqlite opens synchronously: the outcome is known here, before anything is queued.
    try {
      store.openSync();
    } catch (error) {
      return memory(`${store.description} cannot be used (${redact(error instanceof Error ? error.message : String(error))})`);
    }
    return opened(new StateWriter(store, writerOptions).start(), Promise.resolve(true));
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
  return opened(writer, ready);
}
