/**
 * The line get_service_health adds when the state store is not what it should be: degraded
 * (writes failing, state local to this process), fallen back to memory at start, or with writes
 * dropped while it was away. Nothing when all is well.
 */
import type { StoreStatus } from '../../store/state-writer.js';

export function storeNote(status: StoreStatus | undefined): string | undefined {
  if (!status) return undefined;
  const dropped = Object.entries(status.dropped).filter(([, n]) => n > 0);
  const drops = dropped.length ? `; ${dropped.map(([collection, n]) => `${n} ${collection} writes dropped`).join(', ')} (more than ${status.maxPending} waited)` : '';
  if (status.fallback) return `STATE STORE: memory: (${status.fallback}); state is lost at restart${drops}`;
  if (status.state === 'degraded')
    return `STATE STORE: DEGRADED, ${status.description} is not answering (${status.lastError ?? 'unknown error'}); state is local to this process, ${status.pending} writes wait for it (at most ${status.maxPending})${drops}`;
  if (!status.restored && status.kind !== 'memory') return `STATE STORE: ${status.description} answers, but the previous run's state was not loaded at start${drops}`;
  return drops ? `STATE STORE: ${status.description}${drops}` : undefined;
}
