/**
 * The Engine of the programmatic API and of the preload (spec "Programmatic components"): the
 * analysis engine (src/analysis/analysis-engine.ts), built from configuration and the service's metadata,
 * and the span processor that feeds it. This is where configuration meets the analysis, so that
 * src/analysis knows nothing of configuration, metadata or telemetry.
 */

import { AnalysisEngine, type AnalysisEngineOptions } from '../analysis/analysis-engine.js';
import type { Baseline, BaselineProvider, ConfiguredFigures } from '../analysis/baseline.js';
import { ChangeTracker, recordingStateChanges } from '../analysis/change-tracker.js';
import { type Clock, SpanClock, systemClock } from '../analysis/clock.js';
import { DependencyHealth } from '../analysis/dependency-health.js';
import type { EmitEvent } from '../analysis/emit-event.js';
import { NormalMemory } from '../analysis/normal-memory.js';
import { PatternMatcher } from '../analysis/pattern-matcher.js';
import { RollingBaselineProvider } from '../analysis/rolling-baseline-provider.js';
import type { SloDefinition } from '../analysis/slo-tracker.js';
import { formatProblem } from '../config/config-source.js';
import { ResolvedConfig } from '../config/resolved-config.js';
import { sloConfiguration } from '../config/slo-config.js';
import { decoratorRegistry } from '../metadata/decorator-registry.js';
import type { OperationCatalog, OperationMetadata } from '../metadata/operation-catalog.js';
import { ServiceMetadata } from '../metadata/service-metadata.js';
import { TopologyRegistry } from '../metadata/topology-registry.js';
import { SvcSpanProcessor } from '../telemetry/span-processor.js';

export interface EngineOptions extends AnalysisEngineOptions {
  /** The service's metadata; by hand, a topology (and default configuration) will do. */
  readonly metadata?: ServiceMetadata;
  readonly topology?: TopologyRegistry;
}

export class Engine extends AnalysisEngine {
  private readonly metadata: ServiceMetadata | undefined;
  private readonly topology: TopologyRegistry | undefined;
  private readonly reportOverflow: EngineOptions['onOverflow'];

  constructor(options: EngineOptions = {}) {
    const topology = options.topology;
    super({
      ...options,
      serviceName: options.serviceName ?? (topology ? () => topology.topology.service || 'unknown_service:node' : undefined),
      criticalityOf: options.criticalityOf ?? (topology ? (name) => topology.dependency(name)?.criticality : undefined),
    });
    this.metadata = options.metadata;
    this.topology = topology;
    this.reportOverflow = options.onOverflow;
  }

  /**
   * The span processor to register with the tracing SDK: naming, enrichment and this analysis.
   * Without metadata (svc assembled by hand) it uses the engine's topology, default
   * configuration and the process's decorator registry.
   */
  createSpanProcessor(metadata?: ServiceMetadata, onFirstRequest?: () => void): SvcSpanProcessor {
    const resolved = metadata ?? this.metadata ?? new ServiceMetadata(new ResolvedConfig([]), decoratorRegistry(), {}, undefined, this.topology ?? new TopologyRegistry());
    return new SvcSpanProcessor({
      metadata: resolved,
      onFirstRequest,
      analysis: this,
      staticBaselineAttributes: this.baselineSource === 'static',
      onDependencyOverflow: (count) => {
        if (count === 1) this.reportOverflow?.('undeclared dependencies', resolved.config.get<number>('limits.max-dependencies'));
      },
    });
  }

  /**
   * Builds an Engine from configuration (`svc.baselines.*`, `svc.anomaly-detection.*`,
   * `svc.patterns.*`, `svc.dependency-health.*`, `svc.slos.*`, `svc.limits.*`) and the service's
   * metadata (static baselines from operations' expected latencies, dependency criticality).
   */
  static fromConfig(
    config: ResolvedConfig,
    metadata: ServiceMetadata,
    options: {
      clock?: Clock;
      emit?: EmitEvent;
      report?: (message: string) => void;
      /** The SLOs to track, as start-up's checks found them (src/config/startup-checks.ts); else read and reported here. */
      slos?: readonly SloDefinition[];
    } = {},
  ): Engine {
    const clock = new SpanClock(options.clock ?? systemClock);
    const changes = new ChangeTracker(clock, config.get('limits.max-changes'));
    const emit = recordingStateChanges(options.emit ?? (() => {}), changes);
    const maxOperations = config.get<number>('limits.max-operations');
    // Undeclared dependencies are capped at max-dependencies by the span processor; the health
    // structures hold twice that, so declared dependencies always find room.
    const dependencySlots = 2 * config.get<number>('limits.max-dependencies');
    const report = options.report ?? (() => {});
    const staticBaselines = new CatalogBaselineProvider(metadata.operations);
    const configured = new ConfiguredFiguresOf(metadata.operations);
    const configuredOf = (operation: string) => configured.of(operation);
    const patternMatcher = new PatternMatcher({
      latencyDegradationFactor: config.get('patterns.latency-degradation-factor'),
      errorRateSpikeThreshold: config.get('patterns.error-rate-spike-threshold'),
      cascadeDependencyCount: config.get('patterns.cascade-dependency-count'),
      clock,
      configuredOf,
      learnedFirst: config.get('baselines.source') === 'rolling',
      maxOperations,
      maxDependencies: dependencySlots,
      coldStartLimitOf: () => tightestConsumerSla(metadata),
      thresholds: {
        windowMs: config.get('patterns.window'),
        minWindowSamples: config.get('patterns.min-samples'),
        outageErrorRate: config.get('patterns.outage-error-rate'),
        minLatencyDeviationMs: config.get('anomaly-detection.min-latency-deviation'),
        cascadeWindowMs: config.get('patterns.cascade-window'),
        memorySlotMs: config.get('patterns.memory-leak-slot'),
        memoryLeakSlopeBytesPerMinute: config.get<number>('patterns.memory-leak-slope-mb-per-minute') * 1024 * 1024,
        memoryLeakMinR2: config.get('patterns.memory-leak-min-r2'),
        memoryLeakLatencyFactor: config.get('patterns.memory-leak-latency-factor'),
        herdWindowMs: config.get('patterns.herd-window'),
        herdRecentMs: config.get('patterns.herd-recent-window'),
        herdRateMultiplier: config.get('patterns.herd-rate-multiplier'),
        herdMinRequests: config.get('patterns.herd-min-requests'),
        coldStartWindowMs: config.get('patterns.cold-start-window'),
        warmUpMs: config.get('patterns.warm-up'),
        coldStartFactor: config.get('patterns.cold-start-factor'),
        coldStartLatencyMs: config.get('patterns.cold-start-latency'),
      },
    });
    const dependencyHealth = new DependencyHealth({
      clock,
      emit,
      degradedErrorRate: config.get('dependency-health.degraded-error-rate'),
      unhealthyErrorRate: config.get('dependency-health.unhealthy-error-rate'),
      windowMs: config.get('dependency-health.window'),
      minCalls: config.get('dependency-health.min-calls'),
      maxDependencies: dependencySlots,
      onRecovery: () => patternMatcher.recordRecovery(),
    });
    const engine = new Engine({
      metadata,
      clock,
      emit,
      serviceName: () => metadata.topology().registry.topology.service,
      staticBaselines,
      rollingBaselines: new RollingBaselineProvider(config.get('baselines.rolling-window-size'), config.get('baselines.rolling-min-samples'), maxOperations, (capacity) =>
        report(`more than ${capacity} operations (svc.limits.max-operations); further ones are not analysed`),
      ),
      normals: new NormalMemory({
        clock,
        horizonMs: config.get('baselines.horizon'),
        acceptAfterMs: config.get('baselines.accept-after'),
        minSamples: config.get('baselines.rolling-min-samples'),
        longestHorizonMs: patternMatcher.longestHorizonMs,
        learnFromMs: patternMatcher.learnFromMs,
        maxAcceptedErrorRate: config.get('patterns.outage-error-rate'),
        maxOperations,
      }),
      patternMatcher,
      dependencyHealth,
      changes,
      baselineSource: config.get('baselines.source'),
      configuredOf,
      anomalyDetection: {
        enabled: config.get('anomaly-detection.enabled'),
        threshold: config.get('anomaly-detection.z-score-threshold'),
        persistence: config.get('anomaly-detection.persistence'),
        persistenceMs: config.get('anomaly-detection.persistence-window'),
        minLatencyDeviationMs: config.get('anomaly-detection.min-latency-deviation'),
        eventIntervalMs: config.get('anomaly-detection.event-interval'),
      },
      maxOperations,
      historyMinutes: config.get('limits.history-minutes'),
      healthRecentMinutes: config.get('health.recent-minutes'),
      criticalityOf: (name) => metadata.topology().registry.dependency(name)?.criticality,
      onOverflow: (what, capacity) => report(`more than ${capacity} ${what} tracked; further ones are counted as overflow`),
    });
    let slos = options.slos;
    if (!slos) {
      const read = sloConfiguration(config, metadata.operations);
      for (const problem of read.problems) report(formatProblem(problem));
      slos = read.definitions;
    }
    for (const definition of slos) {
      try {
        engine.sloTracker.register(definition);
      } catch (error) {
        report((error as Error).message);
      }
    }
    return engine;
  }
}

/**
 * The tightest latency SLA of the service's declared consumers (a cold start slower than it is a
 * detection by itself); undefined when none declares one. Consumers are declared per service, so
 * it is the same for every operation.
 */
function tightestConsumerSla(metadata: ServiceMetadata): number | undefined {
  let tightest: number | undefined;
  for (const consumer of metadata.topology().registry.consumers()) if (consumer.slaLatencyMs > 0 && (tightest === undefined || consumer.slaLatencyMs < tightest)) tightest = consumer.slaLatencyMs;
  return tightest;
}

/**
 * Each operation's configured figures (`expected-latency-p50`, `expected-latency-p99`,
 * `expected-error-rate`), one by one; `expected-error-rate: -1` given explicitly (not the default)
 * leaves its errors unjudged (rule 9). One object per resolved metadata: read at every judging.
 */
class ConfiguredFiguresOf {
  private readonly figures = new WeakMap<OperationMetadata, ConfiguredFigures>();

  constructor(private readonly operations: OperationCatalog) {}

  of(operation: string): ConfiguredFigures {
    const metadata = this.operations.resolve(operation);
    let figures = this.figures.get(metadata);
    if (!figures) {
      figures = Object.freeze({
        latencyP50Ms: metadata.expectedLatencyP50Ms,
        latencyP99Ms: metadata.expectedLatencyP99Ms,
        errorRate: metadata.expectedErrorRate,
        errorsUnjudged: metadata.expectedErrorRate === undefined && metadata.sources.expectedErrorRate?.kind !== 'default',
      });
      this.figures.set(metadata, figures);
    }
    return figures;
  }
}

/** The spec's static baseline record from operations' expected latencies: needs both p50 and p99 (each figure also counts alone: ConfiguredFiguresOf). */
export class CatalogBaselineProvider implements BaselineProvider {
  /** One baseline object per resolved metadata, so the per-span lookups allocate nothing. */
  private readonly baselines = new WeakMap<OperationMetadata, Baseline | null>();

  constructor(private readonly operations: OperationCatalog) {}

  getBaseline(operation: string): Baseline | undefined {
    const metadata = this.operations.resolve(operation);
    let baseline = this.baselines.get(metadata);
    if (baseline === undefined) {
      const { expectedLatencyP50Ms: p50, expectedLatencyP99Ms: p99 } = metadata;
      baseline = p50 === undefined || p99 === undefined ? null : Object.freeze({ latencyP50Ms: p50, latencyP99Ms: p99, errorRate: metadata.expectedErrorRate });
      this.baselines.set(metadata, baseline);
    }
    return baseline ?? undefined;
  }
}
