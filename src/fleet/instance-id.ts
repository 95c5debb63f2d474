/**
 * A replica's id in its fleet (docs/state.md, Fleet): `svc.fleet.instance-id`, else the OTel
 * Resource's `service.instance.id` from OTEL_RESOURCE_ATTRIBUTES, else `<host>:<pid>:<4 hex>`
 * (the random part tells a restarted process with a reused pid from its predecessor).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

export function instanceIdFrom(configured: string | undefined, env: NodeJS.ProcessEnv): string {
  if (configured) return configured;
  const pair = (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',').find((p) => p.trim().startsWith('service.instance.id='));
  const fromResource = pair ? decodeURIComponent(pair.slice(pair.indexOf('=') + 1).trim()).slice(0, 256) : '';
  return fromResource || `${hostname().slice(0, 64)}:${process.pid}:${randomBytes(2).toString('hex')}`;
}
