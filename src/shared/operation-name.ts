/**
 * The one spelling of an HTTP operation name: `<METHOD> <path template>`, parameters written
 * `{name}` as in OpenAPI path templates (docs/telemetry.md "Operation names"). Express, Fastify,
 * Koa and NestJS report `:name`; Hapi and `svc.yml` usually say `{name}`. Every name svc shows,
 * and every name it is given (configuration, decorators, tool arguments), goes through
 * `canonicalOperationName`, so either spelling finds the same operation.
 */

const HTTP_OPERATION = /^([A-Z_]+) (\/\S*)$/;
/** `:name` (optionally `:name?`) where a parameter may start: after `/`, `-` or `.` (`/:from-:to`). */
const COLON_PARAMETER = /(?<=[/.-]):(\w+)(\??)/g;

/** A `{param:<kind>}` placeholder of a template inferred from paths (src/telemetry/route-inference.ts). */
const INFERRED_PLACEHOLDER = /\{param:[a-z]+\}/;

/** What every tool says of a name whose route was inferred from request paths. */
export const INFERRED_ROUTE = 'route inferred from request paths, not named by a framework';

/** Whether the name's route was inferred from paths: it holds a `{param:<kind>}` placeholder. */
export function isInferredOperationName(name: string): boolean {
  return INFERRED_PLACEHOLDER.test(name);
}

/** Requests no route matched (404s with no route), one operation per method. */
export const UNMATCHED_ROUTE = '(unmatched route)';

export function unmatchedOperationName(method: string): string {
  return `${method} ${UNMATCHED_ROUTE}`;
}

/** `/users/:id` → `/users/{id}`; a literal colon (`/books:search`, `/at/12:30`) is kept. */
export function canonicalPath(path: string): string {
  return path.includes(':') ? path.replace(COLON_PARAMETER, '{$1$2}') : path;
}

/** `GET /users/:id` → `GET /users/{id}`; names that are not `<METHOD> /path` are returned as given. */
export function canonicalOperationName(name: string): string {
  if (!name.includes(':')) return name;
  const match = HTTP_OPERATION.exec(name);
  return match ? `${match[1]} ${canonicalPath(match[2] as string)}` : name;
}
