/**
 * The SLOs of `svc.slos.*` as the engine tracks them, and what in them cannot work: a LATENCY_P99
 * SLO without a threshold is ignored (an error); an SLO on an operation nothing in svc.yml
 * declares may never see a request (a warning: a route or an `@AgentOperation` may name it, which
 * neither `svc check` nor the preload's start can see yet). Start-up and `svc check` both get
 * them from here (startup-checks.ts).
 */
import type { SloDefinition, SloType } from '../analysis/slo-tracker.js';
import { canonicalOperationName } from '../shared/operation-name.js';
import { printableValue } from '../shared/printable.js';
import { formatKey } from './config-key.js';
import type { ConfigProblem } from './config-source.js';
import { didYouMean } from './did-you-mean.js';
import type { ResolvedConfig } from './resolved-config.js';

/** What the SLOs need to know of an operation: the operation catalog answers it. */
export interface OperationLookup {
  resolve(name: string): { readonly declared: boolean; readonly expectedLatencyP99Ms?: number | undefined };
}

const PARAMETER = /\{[^/}]+\}/g;

/** A configured operation the name was probably meant to be: the same route with other parameter names, or a near spelling. */
function likelyMeant(name: string, configured: readonly string[]): string | undefined {
  const shape = name.replace(PARAMETER, '{}');
  return configured.find((c) => c.replace(PARAMETER, '{}') === shape) ?? didYouMean(name, configured);
}

export function sloConfiguration(config: ResolvedConfig, operations: OperationLookup): { definitions: SloDefinition[]; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  // The one spelling (`GET /orders/{id}` for `GET /orders/:id`), as the operation catalog and span names use.
  const configured = config.names('operations').map(canonicalOperationName);
  const definitions = config.names('slos').flatMap((name): SloDefinition[] => {
    const operation = config.member<string>('slos', name, 'operation-name')!;
    const operationName = canonicalOperationName(operation.value);
    const type = config.memberOrDefault<SloType>('slos', name, 'type');
    const resolved = operations.resolve(operationName);
    if (!resolved.declared) {
      const meant = likelyMeant(operationName, configured);
      problems.push({
        level: 'warning',
        key: `svc.${formatKey(['slos', name, 'operation-name'])}`,
        where: operation.source.where,
        message:
          `no operation ${printableValue(operationName)} under svc.operations${meant ? `; did you mean ${printableValue(meant)}?` : ''}; ` +
          'fine if a route or an @AgentOperation has exactly this name, otherwise the SLO never sees a request and reports INSUFFICIENT_DATA forever',
      });
    }
    const latencyThresholdMs = config.member<number>('slos', name, 'latency-threshold')?.value ?? (type === 'LATENCY_P99' ? resolved.expectedLatencyP99Ms : undefined);
    if (type === 'LATENCY_P99' && latencyThresholdMs === undefined) {
      const typeSource = config.member('slos', name, 'type')?.source.where ?? operation.source.where;
      problems.push({
        level: 'error',
        key: `svc.${formatKey(['slos', name])}`,
        where: typeSource,
        message: `LATENCY_P99 needs svc.${formatKey(['slos', name, 'latency-threshold'])} or an expected-latency-p99 under svc.operations for ${printableValue(operationName)}; this SLO is ignored`,
      });
      return [];
    }
    return [
      {
        name,
        operationName,
        type,
        target: config.member<number>('slos', name, 'target')!.value,
        latencyThresholdMs,
        windowMs: config.memberOrDefault<number>('slos', name, 'window'),
        minEvents: config.memberOrDefault<number>('slos', name, 'min-events'),
      },
    ];
  });
  return { definitions, problems };
}
