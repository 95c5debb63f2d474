/**
 * The span processor: in `onEnding` (the span is complete but still writable) it adds
 * - to server spans, and to internal spans of a decorated or configured operation: the operation
 *   name, its decision metadata and its static baseline;
 * - to client spans: the dependency they call and its declared metadata;
 * - to every span: the deployment attributes.
 * Each operation's and dependency's attributes are built once and cached; per span the work is a
 * few map lookups and one `setAttributes`. Nothing here throws into the host.
 */
import { SpanKind, type Attributes, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import type { OperationMetadata } from '../metadata/operation-catalog.js';
import type { ServiceMetadata } from '../metadata/service-metadata.js';
import { reportError } from '../report-error.js';
import { BASELINE, OPERATION } from './attribute-names.js';
import { DependencyMatcher } from './dependency-matcher.js';
import { OperationNamer } from './operation-naming.js';

export interface SvcSpanProcessorOptions {
  readonly metadata: ServiceMetadata;
  readonly deploymentAttributes: Attributes;
  /** Reports when more undeclared dependencies appear than `limits.max-dependencies`. */
  readonly onDependencyOverflow?: (count: number) => void;
  /** Called once when the first server span starts: the app is initialised and serving. */
  readonly onFirstRequest?: () => void;
}

export function operationAttributes(metadata: OperationMetadata): Attributes {
  const attributes: Attributes = {
    [OPERATION.name]: metadata.name,
    [OPERATION.retryable]: metadata.retryable,
    [OPERATION.retryAfterMs]: metadata.retryAfterMs,
    [OPERATION.idempotent]: metadata.idempotent,
    [OPERATION.escalationLevel]: metadata.escalationLevel,
    [OPERATION.safeToRestart]: metadata.safeToRestart,
  };
  if (metadata.profile) attributes[OPERATION.profile] = metadata.profile;
  if (metadata.runbookUrl) attributes[OPERATION.runbookUrl] = metadata.runbookUrl;
  if (metadata.fallbackDescription) attributes[OPERATION.fallbackDescription] = metadata.fallbackDescription;
  const hasBaseline = metadata.expectedLatencyP50Ms !== undefined || metadata.expectedLatencyP99Ms !== undefined || metadata.expectedErrorRate !== undefined;
  if (metadata.expectedLatencyP50Ms !== undefined) attributes[BASELINE.latencyP50Ms] = metadata.expectedLatencyP50Ms;
  if (metadata.expectedLatencyP99Ms !== undefined) attributes[BASELINE.latencyP99Ms] = metadata.expectedLatencyP99Ms;
  if (metadata.expectedErrorRate !== undefined) attributes[BASELINE.errorRate] = metadata.expectedErrorRate;
  if (hasBaseline) attributes[BASELINE.source] = 'static';
  return Object.freeze(attributes);
}

export class SvcSpanProcessor implements SpanProcessor {
  private readonly attributesOf = new WeakMap<OperationMetadata, Attributes>();
  private namer!: OperationNamer;
  private dependencies!: DependencyMatcher;
  private builtVersion = -1;
  private firstRequestSeen = false;

  constructor(private readonly options: SvcSpanProcessorOptions) {
    this.rebuildIfDeclared();
  }

  onStart(span: Span, _parentContext: Context): void {
    if (this.firstRequestSeen || span.kind !== SpanKind.SERVER) return;
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
    const { metadata, deploymentAttributes } = this.options;
    this.rebuildIfDeclared();
    switch (span.kind) {
      case SpanKind.SERVER: {
        const name = this.namer.nameServerSpan(span.attributes, span.name);
        const handler = metadata.decorators.operationOfSpan.get(span);
        span.setAttributes(this.cachedAttributes(metadata.operations.resolve(name, handler)));
        break;
      }
      case SpanKind.INTERNAL: {
        const name = metadata.decorators.operationOfSpan.get(span);
        if (name !== undefined) span.setAttributes(this.cachedAttributes(metadata.operations.resolve(name)));
        break;
      }
      case SpanKind.CLIENT:
      case SpanKind.PRODUCER: {
        const dependency = this.dependencies.match(span.attributes);
        if (dependency) span.setAttributes(dependency.attributes);
        break;
      }
    }
    span.setAttributes(deploymentAttributes);
  }

  /** Decorators declare operations and dependencies while the app loads; naming follows them. */
  private rebuildIfDeclared(): void {
    const { metadata } = this.options;
    if (this.builtVersion === metadata.version) return;
    this.builtVersion = metadata.version;
    this.namer = new OperationNamer(metadata.operations.names());
    const maxDependencies = metadata.config.get<number>('limits.max-dependencies');
    this.dependencies = new DependencyMatcher(metadata.topology().registry.dependencies(), maxDependencies, this.options.onDependencyOverflow);
  }

  private cachedAttributes(metadata: OperationMetadata): Attributes {
    let attributes = this.attributesOf.get(metadata);
    if (!attributes) this.attributesOf.set(metadata, (attributes = operationAttributes(metadata)));
    return attributes;
  }
}
