/**
 * The dependency matcher's attribute sets: declared metadata left unset is left out, and no
 * dependency is named by an empty attribute.
 */
import { describe, expect, it } from 'vitest';
import type { Dependency } from '../../src/metadata/topology-registry.js';
import { DependencyMatcher } from '../../src/telemetry/dependency-matcher.js';

const BARE: Dependency = { name: 'inventory', type: 'internal_service', criticality: 'degraded', protocol: '', timeoutMs: 0, circuitBreaker: false, fallback: '', healthEndpoint: '' };
const FULL: Dependency = { ...BARE, name: 'payments', protocol: 'https', timeoutMs: 800, circuitBreaker: true, fallback: 'queue the payment' };

describe('DependencyMatcher', () => {
  it('leaves out protocol and fallback a dependency does not declare, and keeps them when declared', () => {
    const matcher = new DependencyMatcher([BARE, FULL], 10);
    expect(matcher.match({ 'peer.service': 'inventory' })?.attributes).toEqual({
      'svc.dependency.name': 'inventory',
      'svc.dependency.declared': true,
      'svc.dependency.type': 'internal_service',
      'svc.dependency.criticality': 'degraded',
      'svc.dependency.timeout_ms': 0,
      'svc.dependency.circuit_breaker': false,
    });
    expect(matcher.match({ 'peer.service': 'payments' })?.attributes).toMatchObject({ 'svc.dependency.protocol': 'https', 'svc.dependency.fallback': 'queue the payment' });
  });

  it('names no dependency after an empty address or name attribute', () => {
    const matcher = new DependencyMatcher([BARE], 10);
    expect(matcher.match({ 'server.address': '' })).toBeUndefined();
    expect(matcher.match({ 'server.address': '', 'server.port': 443 })).toBeUndefined();
    expect(matcher.match({ 'peer.service': '', 'db.system.name': '' })).toBeUndefined();
    expect(matcher.undeclaredNames()).toEqual([]);
  });
});
