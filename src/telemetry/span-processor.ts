/**
 * The span processor: in `onEnding` (the span is complete but still writable) it adds
 * - to server spans, and to internal spans of a decorated or configured operation: the operation
 *   name (when the span is not already named after it), its decision metadata and its static
 *   baseline;
 * - to client spans: the dependency they call and its declared metadata.
 * Each operation's and dependency's attributes are built once and cached; per span the work is a
 * few map lookups and at most one `setAttributes`. An exception recorded on a span of a request
 * other than its server span is passed up to the server span's operation (request-exceptions.ts).
 * Nothing here throws into the host.
 *
 * The tool server's own spans (`tools/call <tool>`, kind SERVER as the MCP conventions ask, scope
 * MCP_INSTRUMENTATION_SCOPE) are skipped: an agent's tool call is not one of the app's operations
 * nor its first request.
 */
import { type Attributes, type Context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace';
import type { OperationMetadata } from '../metadata/operation-catalog.js';
import type { ServiceMetadata } from '../metadata/service-metadata.js';
import { BASELINE, MCP_INSTRUMENTATION_SCOPE, OPERATION } from '../shared/attribute-names.js';
import { reportError } from '../shared/report-error.js';
import { DependencyMatcher } from './dependency-matcher.js';
import { OperationNamer } from './operation-naming.js';
import { operationNamed } from './operation-of-trip.js';
import { RequestExceptions } from './request-exceptions.js';
import { RouteInference } from './route-inference.js';

/** What the analysis engine receives from the processor; it may write attributes on the span. */
export interface SpanAnalysis {
  /** `requestException`: the request's exception recorded on another of its spans (request-exceptions.ts). */
  observeOperation(span: Span, operation: OperationMetadata, latencyMs: number, isError: boolean, requestException?: TimedEvent): void;
  observeDependency(dependency: string, latencyMs: number, isError: boolean): void;
}

export interface SvcSpanProcessorOptions {
  readonly metadata: ServiceMetadata;
  readonly analysis?: SpanAnalysis;
  /** Put the configured static baseline on operation spans (baselines.source static). Default true. */
  readonly staticBaselineAttributes?: boolean;
  /** Reports when more undeclared dependencies appear than `limits.max-dependencies`. */
  readonly onDependencyOverflow?: (count: number) => void;
  /** Called once when the first server span starts: the app is initialised and serving. */
  readonly onFirstRequest?: () => void;
}

/** A span of svc's tool server. */
function isToolCall(span: Span): boolean {
  return span.instrumentationScope.name === MCP_INSTRUMENTATION_SCOPE;
}

function durationMs(span: Span): number {
  const [seconds, nanos] = span.duration;
  return seconds * 1000 + nanos / 1e6;
}

/**
 * The attributes of an operation span. Decision metadata equal to the configuration default
 * (retryable false, idempotent false, escalation auto_resolve, safe to restart true, no retry
 * delay) is left out: every attribute costs export time on every span (bench/export-cost.mjs),
 * and an absent one reads as the documented default. Likewise the operation name, when the span
 * is already named after the operation. The static baseline is added when configured.
 * Undefined when there is nothing to add.
 */
export function operationAttributes(metadata: OperationMetadata, { staticBaseline = true, name = true } = {}): Attributes | undefined {
  const attributes: Attributes = {};
  if (name) attributes[OPERATION.name] = metadata.name;
  if (metadata.retryable) attributes[OPERATION.retryable] = true;
  if (metadata.retryAfterMs) attributes[OPERATION.retryAfterMs] = metadata.retryAfterMs;
  if (metadata.idempotent) attributes[OPERATION.idempotent] = true;
  if (metadata.escalationLevel !== 'auto_resolve') attributes[OPERATION.escalationLevel] = metadata.escalationLevel;
  if (!metadata.safeToRestart) attributes[OPERATION.safeToRestart] = false;
  if (metadata.profile) attributes[OPERATION.profile] = metadata.profile;
  if (metadata.runbookUrl) attributes[OPERATION.runbookUrl] = metadata.runbookUrl;
  if (metadata.fallbackDescription) attributes[OPERATION.fallbackDescription] = metadata.fallbackDescription;
  if (staticBaseline) {
    if (metadata.expectedLatencyP50Ms !== undefined) attributes[BASELINE.latencyP50Ms] = metadata.expectedLatencyP50Ms;
    if (metadata.expectedLatencyP99Ms !== undefined) attributes[BASELINE.latencyP99Ms] = metadata.expectedLatencyP99Ms;
    if (metadata.expectedErrorRate !== undefined) attributes[BASELINE.errorRate] = metadata.expectedErrorRate;
  }
  return Object.keys(attributes).length > 0 ? Object.freeze(attributes) : undefined;
}

/** An operation's attributes for spans named otherwise, and for spans named after it. */
interface OperationAttributes {
  readonly withName: Attributes | undefined;
  readonly withoutName: Attributes | undefined;
}

export class SvcSpanProcessor implements SpanProcessor {
  private readonly attributesOf = new WeakMap<OperationMetadata, OperationAttributes>();
  private namer!: OperationNamer;
  private readonly inference = new RouteInference();
  private readonly requestExceptions = new RequestExceptions();
  private dependencies!: DependencyMatcher;
  private builtVersion = -1;
  private firstRequestSeen = false;

  constructor(private readonly options: SvcSpanProcessorOptions) {
    this.rebuildIfDeclared();
  }

  onStart(span: Span, _parentContext: Context): void {
    if (this.firstRequestSeen || span.kind !== SpanKind.SERVER || isToolCall(span)) return;
    this.firstRequestSeen = true;
    try {
      this.options.onFirstRequest?.();
    } catch (error) {
      reportError('span processor onStart', error);
    }
  }

  onEnding(span: Span): void {
    try {
      this.enrich(span);
    } catch (error) {
      reportError('span processor onEnding', error);
    }
  }

  onEnd(_span: ReadableSpan): void {}

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}

  private enrich(span: Span): void {
    const { metadata, analysis } = this.options;
    this.rebuildIfDeclared();
    const passedUp = this.requestExceptions.take(span);
    switch (span.kind) {
      case SpanKind.SERVER: {
        // A server span ends its request here: nothing is passed up from it.
        if (isToolCall(span)) return;
        const name = this.namer.nameServerSpan(span.attributes, span.name);
        this.enrichOperation(span, metadata.operations.resolve(name, metadata.decorators.operationOfSpan.get(span)), passedUp);
        return;
      }
      case SpanKind.INTERNAL: {
        const name = metadata.decorators.operationOfSpan.get(span);
        if (name !== undefined) this.enrichOperation(span, metadata.operations.resolve(name), passedUp);
        break;
      }
      case SpanKind.CLIENT:
      case SpanKind.PRODUCER: {
        const dependency = this.dependencies.match(span.attributes);
        if (!dependency) break;
        span.setAttributes(dependency.attributes);
        analysis?.observeDependency(dependency.name, durationMs(span), span.status.code === SpanStatusCode.ERROR);
        break;
      }
    }
    this.requestExceptions.passUp(span, passedUp);
  }

  private enrichOperation(span: Span, operation: OperationMetadata, requestException: TimedEvent | undefined): void {
    const cached = this.cachedAttributes(operation);
    const attributes = span.name === operation.name ? cached.withoutName : cached.withName;
    if (attributes) span.setAttributes(attributes);
    // Guardrail trips of agents that ran in this operation learn its name (nothing to do while none waits).
    operationNamed(span, operation.name);
    this.options.analysis?.observeOperation(span, operation, durationMs(span), span.status.code === SpanStatusCode.ERROR, requestException);
  }

  /** Decorators declare operations and dependencies while the app loads; naming follows them. */
  private rebuildIfDeclared(): void {
    const { metadata } = this.options;
    if (this.builtVersion === metadata.version) return;
    this.builtVersion = metadata.version;
    this.namer = new OperationNamer(metadata.operations.names(), this.inference);
    const maxDependencies = metadata.config.get<number>('limits.max-dependencies');
    this.dependencies = new DependencyMatcher(metadata.topology().registry.dependencies(), maxDependencies, this.options.onDependencyOverflow);
  }

  private cachedAttributes(metadata: OperationMetadata): OperationAttributes {
    let attributes = this.attributesOf.get(metadata);
    if (!attributes) {
      const staticBaseline = this.options.staticBaselineAttributes ?? true;
      attributes = { withName: operationAttributes(metadata, { staticBaseline }), withoutName: operationAttributes(metadata, { staticBaseline, name: false }) };
      this.attributesOf.set(metadata, attributes);
    }
    return attributes;
  }
}
