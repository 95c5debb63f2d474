/**
 * Route templates inferred from paths (src/telemetry/route-inference.ts): typed placeholders for
 * values, collapsed high-cardinality positions, bounded names.
 */
import { describe, expect, it } from 'vitest';
import { placeholderOf, RouteInference } from '../../src/telemetry/route-inference.js';

/** Paths as a router-less service receives them, with the template a reader would name. */
const RECORDED: readonly (readonly [string, string])[] = [
  ['/', '/'],
  ['/health', '/health'],
  ['/api/v1/users/48213', '/api/v1/users/{param:int}'],
  ['/api/v1/users/48213/', '/api/v1/users/{param:int}'],
  ['/api/v1/users/7/orders/20931', '/api/v1/users/{param:int}/orders/{param:int}'],
  ['/api/v1/users/me', '/api/v1/users/me'],
  ['/orders/3f2b8c1e-9d4a-4e7b-a1c2-5f6e7d8c9b0a', '/orders/{param:uuid}'],
  ['/orders/3F2B8C1E-9D4A-4E7B-A1C2-5F6E7D8C9B0A/items', '/orders/{param:uuid}/items'],
  ['/repos/acme/widgets/commits/9fceb02d0ae598e95dc970b74767f19372d61af8', '/repos/acme/widgets/commits/{param:hex}'],
  ['/products/64b7f3a2e4b0c1d2e3f4a5b6', '/products/{param:hex}'],
  ['/reports/daily/2026-11-22', '/reports/daily/{param:date}'],
  ['/events/2026-11-22T19:05:00Z', '/events/{param:date}'],
  ['/reset-password/eyJhbGciOiJIUzI1NiJ9xyzABCdefGHI', '/reset-password/{param:token}'],
  ['/customers/cus_NffrFeUfNV2Hib', '/customers/{param:token}'],
  ['/files/report.pdf', '/files/report.pdf'],
  ['/v2/search', '/v2/search'],
  ['/deadbeef', '/deadbeef'],
  ['/static/app.js', '/static/app.js'],
];

describe('typed placeholders', () => {
  it.each(RECORDED)('%s → %s', (path, template) => {
    expect(new RouteInference().templateOf(path)).toBe(template);
  });

  it('keeps words, versions and short codes as literals', () => {
    for (const segment of ['users', 'v1', 'v2024', 'me', 'en-US', 'deadbeef', 'checkout', 'a1b2']) expect(placeholderOf(segment), segment).toBeUndefined();
  });
});

describe('high-cardinality positions', () => {
  it('collapse to {param:str} after 25 distinct segments, forgetting what was kept below them', () => {
    const inference = new RouteInference();
    const names = new Set<string>();
    for (let i = 0; i < 10_000; i++) names.add(inference.templateOf(`/users/user-${'abcdefghijklmnopqrstuvwxyz'[i % 26]}${Math.floor(i / 26)}x/repos`));
    // 25 usernames kept while they looked like a fixed set, then one template for all.
    expect(names.size).toBeLessThanOrEqual(26);
    expect(inference.templateOf('/users/someone-new/repos')).toBe('/users/{param:str}/repos');
    expect(inference.templateOf('/users/user-a0x/repos')).toBe('/users/{param:str}/repos');
  });

  it('keep a fixed set of siblings apart', () => {
    const inference = new RouteInference();
    const resources = ['users', 'orders', 'carts', 'products', 'payments', 'invoices', 'shipments', 'reviews'];
    for (let round = 0; round < 100; round++) for (const r of resources) inference.templateOf(`/api/${r}/${round}`);
    expect(resources.map((r) => inference.templateOf(`/api/${r}/1`))).toEqual(resources.map((r) => `/api/${r}/{param:int}`));
  });

  it('stay bounded whatever the paths: distinct names and their length', () => {
    const inference = new RouteInference({ literalsPerPosition: 25, maxNodes: 500, maxSegments: 12 });
    const names = new Set<string>();
    let longest = 0;
    for (let i = 0; i < 50_000; i++) {
      const depth = 1 + (i % 20);
      const path = `/${Array.from({ length: depth }, (_, d) => `s${(i * 7919 + d * 104729) % 100_003}q`).join('/')}`;
      const name = inference.templateOf(path);
      names.add(name);
      longest = Math.max(longest, name.length);
    }
    expect(inference.templateOf('/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o')).toMatch(/\/\{param:rest\}$/);
    // At most one name per node, plus the collapsed forms; and 12 short segments at most.
    expect(names.size).toBeLessThan(2000);
    expect(longest).toBeLessThanOrEqual(12 * 20 + '/{param:rest}'.length);
  });
});
