/**
 * Where the stores that hold state in memory (audit trail, sessions, incidents, changes,
 * remediation, verifications) announce what changed: constant time, no I/O, no serialisation.
 * `value` is called when the batch is written, off the request path, and returns the record as
 * JSON-ready data. The state writer (src/store/state-writer.ts) is the real sink; NO_SINK is none.
 */
export interface StateSink {
  put(collection: string, key: string, value: () => unknown): void;
  delete(collection: string, key: string): void;
}

export const NO_SINK: StateSink = { put() {}, delete() {} };
