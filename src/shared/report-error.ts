/**
 * The one place svc failures go: counted per site and written once to stderr (and OTel diag), so
 * nothing svc does wrong reaches or floods the host application.
 */
import { diag } from '@opentelemetry/api';
import { printable } from './printable.js';

const counts = new Map<string, number>();

export function reportError(site: string, error: unknown): void {
  const count = (counts.get(site) ?? 0) + 1;
  counts.set(site, count);
  if (count > 1) return;
  const message = printable(error instanceof Error ? error.message : String(error), 500);
  diag.error(`svc: ${site} failed: ${message}`);
  process.stderr.write(`svc: ${site} failed: ${message} (further failures here are counted, not logged)\n`);
}

/** How often each site failed, for health reporting and tests. */
export function errorCounts(): ReadonlyMap<string, number> {
  return counts;
}
