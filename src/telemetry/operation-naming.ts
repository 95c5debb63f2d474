/**
 * Names the operation of a server span (DESIGN "Names"): `<METHOD> <http.route>`; without a route,
 * the configured operation whose template (`GET /orders/{id}` or `GET /orders/:id`) matches
 * `url.path`; otherwise the span name. A route equal to a configured template up to parameter
 * syntax takes the configured spelling, so its metadata applies.
 *
 * Names are cached per method and route, so the common case allocates nothing.
 */
import type { Attributes } from '@opentelemetry/api';
import { SEMCONV } from '../attribute-names.js';

const OPERATION_NAME = /^([A-Z]+) (\/\S*)$/;
const PARAMETER = /\{[^/}]+\}|:[^/]+/g;

interface Template {
  readonly name: string;
  readonly method: string;
  readonly path: RegExp;
}

/** `/orders/{id}` and `/orders/:id` both become `/orders/{}`. */
function shape(path: string): string {
  return path.replace(PARAMETER, '{}');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class OperationNamer {
  private readonly byShape = new Map<string, string>();
  private readonly templates: Template[] = [];
  private readonly byMethodAndRoute = new Map<string, Map<string, string>>();
  private cachedRoutes = 0;

  /**
   * @param operationNames configured and declared operation names; those of the form
   *   `<METHOD> <path>` serve as templates.
   * @param maxCachedRoutes bound on the (method, route) cache.
   */
  constructor(
    operationNames: Iterable<string>,
    private readonly maxCachedRoutes = 1000,
  ) {
    for (const name of operationNames) {
      const match = OPERATION_NAME.exec(name);
      if (!match) continue;
      const [, method, path] = match as unknown as [string, string, string];
      this.byShape.set(`${method} ${shape(path)}`, name);
      const pattern = path.split(PARAMETER).map(escapeRegExp).join('[^/]+');
      this.templates.push({ name, method, path: new RegExp(`^${pattern}/?$`) });
    }
  }

  nameServerSpan(attributes: Attributes, spanName: string): string {
    const method = attributes[SEMCONV.httpMethod];
    const route = attributes[SEMCONV.httpRoute];
    if (typeof method === 'string' && typeof route === 'string' && route !== '') return this.routeName(method, route);
    const path = attributes[SEMCONV.urlPath] ?? attributes[SEMCONV.httpTarget];
    if (typeof method === 'string' && typeof path === 'string') {
      const withoutQuery = path.includes('?') ? path.slice(0, path.indexOf('?')) : path;
      for (const template of this.templates) {
        if (template.method === method && template.path.test(withoutQuery)) return template.name;
      }
    }
    return spanName;
  }

  private routeName(method: string, route: string): string {
    let routes = this.byMethodAndRoute.get(method);
    const cached = routes?.get(route);
    if (cached !== undefined) return cached;
    const name = this.byShape.get(`${method} ${shape(route)}`) ?? `${method} ${route}`;
    if (this.cachedRoutes < this.maxCachedRoutes) {
      if (!routes) this.byMethodAndRoute.set(method, (routes = new Map()));
      routes.set(route, name);
      this.cachedRoutes++;
    }
    return name;
  }
}
