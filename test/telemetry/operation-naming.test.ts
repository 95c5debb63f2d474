/**
 * Operation names of server spans (src/telemetry/operation-naming.ts) and their one spelling
 * (src/shared/operation-name.ts).
 */
import { describe, expect, it } from 'vitest';
import { canonicalOperationName } from '../../src/shared/operation-name.js';
import { OperationNamer } from '../../src/telemetry/operation-naming.js';
import { RouteInference } from '../../src/telemetry/route-inference.js';

describe('canonical spelling', () => {
  it.each([
    ['GET /users/:id', 'GET /users/{id}'],
    ['GET /users/{id}', 'GET /users/{id}'],
    ['GET /users/:id?', 'GET /users/{id?}'],
    ['GET /flights/:from-:to', 'GET /flights/{from}-{to}'],
    ['GET /plantae/:genus.:species', 'GET /plantae/{genus}.{species}'],
    ['POST /v1/books:search', 'POST /v1/books:search'],
    ['GET /at/12:30', 'GET /at/12:30'],
    ['GET /users/{param:int}', 'GET /users/{param:int}'],
    ['OrderService.create', 'OrderService.create'],
    ['send:queue', 'send:queue'],
  ])('%s → %s', (given, canonical) => {
    expect(canonicalOperationName(given)).toBe(canonical);
  });
});

const namer = (names: string[] = []) => new OperationNamer(names, new RouteInference());
const server = (method: string, extra: Record<string, string | number>) => ({ 'http.request.method': method, ...extra });

describe('server span names', () => {
  it('take a configured template spelled either way, whatever the route calls its parameters', () => {
    const n = namer(['GET /users/:userId', 'DELETE /carts/{cart}']);
    expect(n.nameServerSpan(server('GET', { 'http.route': '/users/:id', 'url.path': '/users/4' }), 'GET')).toBe('GET /users/{userId}');
    expect(n.nameServerSpan(server('GET', { 'url.path': '/users/4' }), 'GET')).toBe('GET /users/{userId}');
    expect(n.nameServerSpan(server('DELETE', { 'http.route': '/carts/:c', 'url.path': '/carts/9' }), 'DELETE')).toBe('DELETE /carts/{cart}');
    // A literal route is not a parameter's value.
    expect(n.nameServerSpan(server('GET', { 'http.route': '/users/me', 'url.path': '/users/me' }), 'GET')).toBe('GET /users/me');
  });

  it('add the leading segments a route lacks (Hapi plugin prefixes), per prefix', () => {
    const n = namer();
    const route = { 'http.route': '/orders/{orderId}/items/{itemId}' };
    expect(n.nameServerSpan(server('GET', { ...route, 'url.path': '/shop/orders/7/items/9' }), 'GET')).toBe('GET /shop/orders/{orderId}/items/{itemId}');
    expect(n.nameServerSpan(server('GET', { ...route, 'url.path': '/v2/shop/orders/8/items/1' }), 'GET')).toBe('GET /v2/shop/orders/{orderId}/items/{itemId}');
    expect(n.nameServerSpan(server('GET', { ...route, 'url.path': '/shop/orders/7/items/9?x=1' }), 'GET')).toBe('GET /shop/orders/{orderId}/items/{itemId}');
  });

  it('do not add a prefix to a route that spans the path, a wildcard or the root route', () => {
    const n = namer();
    expect(n.nameServerSpan(server('GET', { 'http.route': '/files/*', 'url.path': '/files/a/b/c' }), 'GET')).toBe('GET /files/*');
    expect(n.nameServerSpan(server('GET', { 'http.route': '/', 'url.path': '/anything/at/all' }), 'GET')).toBe('GET /');
  });

  it('bound the prefixes of one relative route', () => {
    const n = namer();
    const names = new Set<string>();
    for (let i = 0; i < 100; i++) names.add(n.nameServerSpan(server('GET', { 'http.route': '/items/{id}', 'url.path': `/p${i}/items/1` }), 'GET'));
    expect(names.size).toBe(9);
    expect(names).toContain('GET /items/{id}');
  });

  it('name 404s without a route as unmatched, and infer the rest', () => {
    const n = namer();
    expect(n.nameServerSpan(server('GET', { 'url.path': '/wp-admin/setup.php', 'http.response.status_code': 404 }), 'GET')).toBe('GET (unmatched route)');
    expect(n.nameServerSpan(server('POST', { 'url.path': '/users/42/avatar', 'http.response.status_code': 201 }), 'POST')).toBe('POST /users/{param:int}/avatar');
    // A route the framework matched keeps its name when the handler answers 404.
    expect(n.nameServerSpan(server('GET', { 'http.route': '/users/:id', 'url.path': '/users/0', 'http.response.status_code': 404 }), 'GET')).toBe('GET /users/{id}');
  });

  it('keep the span name when there is no method', () => {
    expect(namer().nameServerSpan({ 'url.path': '/x' }, 'custom')).toBe('custom');
  });
});
