/**
 * Loads a package of the OpenTelemetry SDK synchronously, when svc first needs it: an
 * instrumentation when the app resolves what it patches, an exporter or metrics package when a
 * variable names it. Its CommonJS build is loaded: the ES module build of the same packages holds
 * several MB more RSS, for no gain in start-up time.
 */
import { createRequire } from 'node:module';

/** `pkg` as resolved from `from`: the package whose dependency it is, or svc's own module's URL. */
export function loadPackage(pkg: string, from: string): Record<string, unknown> {
  return createRequire(from.startsWith('file:') ? from : import.meta.resolve(from))(pkg) as Record<string, unknown>;
}
