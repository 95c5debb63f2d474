/**
 * Browser telemetry from configuration (`svc.frontend.*`): the state the tools read, the span
 * processor that links backend spans to browser traces, and the listener browsers send to. The
 * listener's URL goes to stderr, as its port may be ephemeral.
 */
import type { Clock } from '../analysis/clock.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import { FrontendListener } from './frontend-listener.js';
import { FrontendTelemetry } from './frontend-telemetry.js';

export function frontendTelemetry(config: ResolvedConfig, clock: Clock): FrontendTelemetry {
  return new FrontendTelemetry({
    clock,
    maxRecords: config.get('frontend.max-records'),
    maxRoutes: config.get('frontend.max-routes'),
    maxSessions: config.get('frontend.max-sessions'),
  });
}

export async function startFrontendListener(config: ResolvedConfig, telemetry: FrontendTelemetry, ownPorts: Set<number>, now?: () => number): Promise<FrontendListener> {
  const listener = new FrontendListener({
    host: config.get('frontend.host'),
    port: config.get('frontend.port'),
    allowedOrigins: config.get('frontend.allowed-origins'),
    maxBodyBytes: config.get('frontend.max-body-bytes'),
    maxSpansPerRequest: config.get('frontend.max-spans-per-request'),
    rateLimitPerMinute: config.get('frontend.rate-limit-per-minute'),
    telemetry,
    ownPorts,
    now,
  });
  const url = await listener.start();
  process.stderr.write(`svc: browser telemetry listener at ${url}\n`);
  return listener;
}
