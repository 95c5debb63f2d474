/**
 * Names the operation of a server span (docs/telemetry.md "Operation names"), always in the
 * canonical `{name}` spelling (src/shared/operation-name.ts):
 * 1. `<METHOD> <http.route>`, the route the framework matched. A route that names only the end
 *    of the path (Hapi's plugin routes omit their prefix) gets the path's leading segments.
 * 2. Without a route, the configured or declared operation whose template (`GET /orders/{id}` or
 *    `GET /orders/:id`) matches `url.path`.
 * 3. Without either, a 404 is `<METHOD> (unmatched route)`: never mixed with real traffic.
 * 4. Otherwise a template inferred from the path (route-inference.ts), `GET /users/{param:int}`.
 * Names of routes are cached per method and route, so the common case allocates nothing.
 */
import type { Attributes } from '@opentelemetry/api';
import { SEMCONV } from '../shared/attribute-names.js';
import { canonicalOperationName, canonicalPath, unmatchedOperationName } from '../shared/operation-name.js';
import type { RouteInference } from './route-inference.js';

const OPERATION_NAME = /^([A-Z_]+) (\/\S*)$/;
const PARAMETER = /\{[^/}]+\}|:[^/]+/g;
const NOT_FOUND = 404;

interface Template {
  readonly name: string;
  readonly method: string;
  readonly path: RegExp;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function withoutQuery(path: string): string {
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}

/** Parameters spelled either way read the same: `/orders/{id}` and `/orders/:orderId` are `/orders/{}`. */
function shape(path: string): string {
  return path.replace(PARAMETER, '{}');
}

/** At most this many prefixes are added to one relative route (Hapi: one per plugin registering it). */
const MAX_PREFIXES_PER_ROUTE = 8;

/** A cached route: its name, or, for a route that names only the end of paths, the prefixes seen. */
type RouteEntry = { readonly name: string } | { readonly relative: string; readonly prefixed: Map<string, string> };

export class OperationNamer {
  private readonly templates: Template[] = [];
  private readonly byShape = new Map<string, string>();
  private readonly byMethodAndRoute = new Map<string, Map<string, RouteEntry>>();
  private cachedRoutes = 0;

  /**
   * @param operationNames configured and declared operation names; those of the form
   *   `<METHOD> <path>` serve as templates.
   * @param inference infers templates for paths no route or template names; kept by the caller
   *   across namers, since what it learned outlives a rebuild.
   * @param maxCachedRoutes bound on the (method, route) cache.
   */
  constructor(
    operationNames: Iterable<string>,
    private readonly inference: RouteInference,
    private readonly maxCachedRoutes = 1000,
  ) {
    for (const name of operationNames) {
      const match = OPERATION_NAME.exec(name);
      if (!match) continue;
      const [, method, path] = match as unknown as [string, string, string];
      const pattern = path.split(PARAMETER).map(escapeRegExp).join('[^/]+');
      const canonical = canonicalOperationName(name);
      this.templates.push({ name: canonical, method, path: new RegExp(`^${pattern}/?$`) });
      this.byShape.set(`${method} ${shape(path)}`, canonical);
    }
  }

  nameServerSpan(attributes: Attributes, spanName: string): string {
    const method = attributes[SEMCONV.httpMethod];
    if (typeof method !== 'string') return spanName;
    const target = attributes[SEMCONV.urlPath] ?? attributes[SEMCONV.httpTarget];
    const path = typeof target === 'string' ? withoutQuery(target) : undefined;
    const route = attributes[SEMCONV.httpRoute];
    if (typeof route === 'string' && route !== '') return this.routeName(method, route, path);
    if (path === undefined) return spanName;
    for (const template of this.templates) {
      if (template.method === method && template.path.test(path)) return template.name;
    }
    if (attributes[SEMCONV.httpStatusCode] === NOT_FOUND) return unmatchedOperationName(method);
    return `${method} ${this.inference.templateOf(path)}`;
  }

  private routeName(method: string, route: string, path: string | undefined): string {
    let routes = this.byMethodAndRoute.get(method);
    let entry = routes?.get(route);
    if (entry === undefined) {
      entry = this.routeEntry(method, route, path);
      if (this.cachedRoutes < this.maxCachedRoutes) {
        if (!routes) this.byMethodAndRoute.set(method, (routes = new Map()));
        routes.set(route, entry);
        this.cachedRoutes++;
      }
    }
    return 'name' in entry ? entry.name : this.prefixedName(method, entry, path);
  }

  private routeEntry(method: string, route: string, path: string | undefined): RouteEntry {
    const canonical = canonicalPath(route);
    if (path !== undefined && withPrefix(canonical, path) !== canonical) return { relative: canonical, prefixed: new Map() };
    return { name: this.byShape.get(`${method} ${shape(canonical)}`) ?? `${method} ${canonical}` };
  }

  private prefixedName(method: string, entry: { relative: string; prefixed: Map<string, string> }, path: string | undefined): string {
    const full = path === undefined ? entry.relative : withPrefix(entry.relative, path);
    let name = entry.prefixed.get(full);
    if (name === undefined) {
      if (entry.prefixed.size >= MAX_PREFIXES_PER_ROUTE) return `${method} ${entry.relative}`;
      name = this.byShape.get(`${method} ${shape(full)}`) ?? `${method} ${full}`;
      entry.prefixed.set(full, name);
    }
    return name;
  }
}

/**
 * The route with the leading segments of `path` it lacks: `/orders/{id}` for `/shop/orders/7` is
 * `/shop/orders/{id}`. The route is returned as is when it spans the whole path, has a wildcard,
 * or its segments do not match the end of the path.
 */
function withPrefix(route: string, path: string): string {
  if (route.includes('*')) return route;
  const routeSegments = route.split('/').filter(Boolean);
  const pathSegments = path.split('/').filter(Boolean);
  const extra = pathSegments.length - routeSegments.length;
  if (extra <= 0 || routeSegments.length === 0) return route;
  for (let i = 0; i < routeSegments.length; i++) {
    const segment = routeSegments[i] as string;
    if (!segment.startsWith('{') && segment !== pathSegments[extra + i]) return route;
  }
  return `/${pathSegments.slice(0, extra).join('/')}${route === '/' ? '' : route}`;
}
