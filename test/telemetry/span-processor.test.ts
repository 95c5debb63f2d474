/**
 * The span processor in a real TracerProvider: operation naming (route, template, span name),
 * dependency matching by each identifying attribute, undeclared dependencies and their cap.
 */
import { type Attributes, SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { ServiceMetadata } from '../../src/metadata/service-metadata.js';
import { MCP_INSTRUMENTATION_SCOPE } from '../../src/shared/attribute-names.js';
import { SvcSpanProcessor } from '../../src/telemetry/span-processor.js';
import { newRegistry } from '../support/registry.js';
import { tempDir } from '../support/temp-dir.js';

const YAML = `dependencies:
  - { name: Orders-DB, type: database, criticality: required }
  - { name: payments-api, type: rest_api, criticality: required, health-endpoint: "https://payments.internal/health" }
  - { name: kafka, type: message_broker, criticality: degraded }
  - { name: pricing.v1.Pricing, type: grpc, criticality: optional }
operations:
  GET /orders/{id}:
    retryable: true
  DELETE /carts/:cart:
    idempotent: true
limits:
  max-dependencies: 4
`;

function harness(registry = newRegistry()) {
  const { config } = loadConfig({ cwd: tempDir({ 'svc.yml': YAML }), args: [], env: {} });
  const overflow: number[] = [];
  const processor = new SvcSpanProcessor({
    metadata: new ServiceMetadata(config, registry),
    onDependencyOverflow: (n) => overflow.push(n),
  });
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('test');
  const span = (name: string, kind: SpanKind, attributes: Attributes) => {
    tracer.startSpan(name, { kind, attributes }).end();
    const finished = exporter.getFinishedSpans();
    return finished[finished.length - 1]!.attributes;
  };
  return { span, overflow };
}

describe('server span operation names', () => {
  const { span } = harness();
  it('uses http.route, in the canonical {name} spelling', () => {
    expect(span('GET /orders/:id', SpanKind.SERVER, { 'http.request.method': 'GET', 'http.route': '/orders/:id' })['svc.operation.name']).toBe('GET /orders/{id}');
    expect(span('x', SpanKind.SERVER, { 'http.request.method': 'PUT', 'http.route': '/items/:id' })['svc.operation.name']).toBe('PUT /items/{id}');
  });
  it('matches configured templates against url.path when there is no route', () => {
    const attributes = span('DELETE', SpanKind.SERVER, { 'http.request.method': 'DELETE', 'url.path': '/carts/c-77' });
    // Configured as `DELETE /carts/:cart`, shown in the one spelling.
    expect(attributes).toMatchObject({ 'svc.operation.name': 'DELETE /carts/{cart}', 'svc.operation.idempotent': true });
    // No template matches: a template inferred from the path; a 404 is the unmatched operation.
    expect(span('GET', SpanKind.SERVER, { 'http.request.method': 'GET', 'url.path': '/orders/1/items' })['svc.operation.name']).toBe('GET /orders/{param:int}/items');
    expect(span('GET', SpanKind.SERVER, { 'http.request.method': 'GET', 'url.path': '/nope', 'http.response.status_code': 404 })['svc.operation.name']).toBe('GET (unmatched route)');
  });
  it('leaves the name out of a span already named after its operation, and keeps its metadata', () => {
    const attributes = span('DELETE /carts/{cart}', SpanKind.SERVER, { 'http.request.method': 'DELETE', 'http.route': '/carts/{cart}' });
    expect(attributes).not.toHaveProperty('svc.operation.name');
    expect(attributes['svc.operation.idempotent']).toBe(true);
    expect(Object.keys(span('GET /x', SpanKind.SERVER, { 'http.request.method': 'GET', 'http.route': '/x' })).filter((k) => k.startsWith('svc.'))).toEqual([]);
  });
  it('leaves default decision metadata out, and adds nothing to plain internal spans', () => {
    const defaults = span('GET', SpanKind.SERVER, { 'http.request.method': 'GET', 'http.route': '/x' });
    expect(Object.keys(defaults).filter((k) => k.startsWith('svc.'))).toEqual(['svc.operation.name']);
    const attributes = span('middleware', SpanKind.INTERNAL, { 'http.route': '/orders/:id' });
    expect(Object.keys(attributes).filter((k) => k.startsWith('svc.'))).toEqual([]);
  });
});

describe('client span dependencies', () => {
  it.each([
    ['peer.service, case-insensitive', { 'peer.service': 'orders-db' }, 'Orders-DB'],
    ['db.system.name', { 'db.system.name': 'orders-db' }, 'Orders-DB'],
    ['db.namespace', { 'db.system.name': 'postgresql', 'db.namespace': 'Orders-DB' }, 'Orders-DB'],
    ['messaging.system', { 'messaging.system': 'kafka' }, 'kafka'],
    ['rpc.service', { 'rpc.service': 'pricing.v1.Pricing' }, 'pricing.v1.Pricing'],
    ['health-endpoint host and port', { 'server.address': 'payments.internal', 'server.port': 443 }, 'payments-api'],
  ])('matches a declared dependency by %s', (_how, attributes, expected) => {
    const { span } = harness();
    expect(span('call', SpanKind.CLIENT, attributes)).toMatchObject({ 'svc.dependency.name': expected, 'svc.dependency.declared': true });
  });

  it('names undeclared dependencies, caps them and reports the overflow', () => {
    const { span, overflow } = harness();
    expect(span('q', SpanKind.CLIENT, { 'db.system.name': 'redis', 'server.address': 'cache.local' })).toMatchObject({ 'svc.dependency.name': 'redis', 'svc.dependency.declared': false });
    expect(span('GET', SpanKind.CLIENT, { 'server.address': 'api.example.com', 'server.port': 443 })['svc.dependency.name']).toBe('api.example.com:443');
    expect(span('GET', SpanKind.CLIENT, { 'server.address': 'api.example.com', 'server.port': 443 })['svc.dependency.name']).toBe('api.example.com:443');
    // The cap (4) also bounds the declared list, so all four declared ones fit; undeclared ones are capped at 4 of their own.
    for (const host of ['two.example.com', 'three.example.com']) expect(span('GET', SpanKind.CLIENT, { 'server.address': host, 'server.port': 80 })['svc.dependency.name']).toBe(`${host}:80`);
    expect(overflow).toEqual([]);
    expect(span('GET', SpanKind.CLIENT, { 'server.address': 'third.example.com', 'server.port': 80 })['svc.dependency.name']).toBe('undeclared-overflow');
    expect(overflow).toEqual([1]);
  });
});

describe('SLO operation names', () => {
  it('count routes spelled either way toward the SLO', async () => {
    const { loadConfig: load } = await import('../../src/config/load-config.js');
    const { Engine } = await import('../../src/wiring/service-engine.js');
    const { config } = load({ cwd: tempDir({ 'svc.yml': 'slos:\n  lookups:\n    operation-name: GET /items/{id}\n    target: 0.99\n' }), args: [], env: {} });
    const metadata = new ServiceMetadata(config, newRegistry());
    const engine = Engine.fromConfig(config, metadata);
    const tracer = new TracerProvider({ spanProcessors: [engine.createSpanProcessor(metadata)] }).getTracer('t');
    tracer.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', 'http.route': '/items/:id' } }).end();
    tracer.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', 'http.route': '/items/{itemId}' } }).end();
    expect(engine.sloTracker.getStatus('lookups')!.totalRequests).toBe(2);
  });
});

describe("the tool server's own spans", () => {
  it('are neither enriched, observed as operations, nor the first request', () => {
    const { config } = loadConfig({ cwd: tempDir({ 'svc.yml': YAML }), args: [], env: {} });
    const observed: string[] = [];
    let firstRequests = 0;
    const processor = new SvcSpanProcessor({
      metadata: new ServiceMetadata(config, newRegistry()),
      analysis: { observeOperation: (_span, operation) => observed.push(operation.name), observeDependency: () => undefined },
      onFirstRequest: () => firstRequests++,
    });
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor({ exporter })] });
    provider
      .getTracer(MCP_INSTRUMENTATION_SCOPE)
      .startSpan('tools/call get_service_health', { kind: SpanKind.SERVER, attributes: { 'mcp.method.name': 'tools/call' } })
      .end();
    expect(firstRequests).toBe(0);
    expect(observed).toEqual([]);
    expect(exporter.getFinishedSpans()[0]!.attributes['svc.operation.name']).toBeUndefined();
    provider
      .getTracer('app')
      .startSpan('GET /orders/:id', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', 'http.route': '/orders/:id' } })
      .end();
    expect(firstRequests).toBe(1);
    expect(observed).toEqual(['GET /orders/{id}']);
  });
});
