/**
 * get_error_analysis: an operation's errors over the recent minutes (health window) against its baseline error
 * rate, how much the rolling baseline can be trusted, and its error categories (since start), so
 * an agent in the PLAN phase can pick a remedy; the SUGGESTION line names one.
 *
 * Deviation: against the operation's expected error rate only (rule 9): ELEVATED with the health
 * aggregator's rule (more than 5 points above it and over twice it), below baseline by the mirror
 * rule (more than 5 points below and under half of it), normal otherwise. With no expected error
 * rate (`expected-error-rate` unset) it says `not judged`, with the rolling baseline's error rate
 * marked as learned once one formed. Baseline confidence is the rolling baseline's; before it
 * forms, `LOW (n samples; ...)` for an operation with a configured baseline and
 * `learning (n samples; ...)` for one without.
 *
 * Bounded (src/mcp/bounded-output.ts): category names are cut at 128 characters, the suggestion
 * at 1/16 of `svc.mcp.max-output-bytes`, and categories beyond what fits (at most 21 are kept per
 * operation) are paged, most frequent first:
 * `… 12 more error categories left out; call get_error_analysis with ... page=2`.
 */
import type { Engine } from '../../analysis/engine.js';
import { callFor, cutField, fieldChars, maxOutputBytes, pageText, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { blocks, columns, fields, isoTime, listSome, multiple, percent, plural, section } from '../text-layout.js';
import { textResult } from '../tool-definition.js';
import { operationName, page } from '../tool-params.js';

const DEVIATION_POINTS = 0.05;
const TIMEOUT = /time.?out|deadline|ETIMEDOUT|AbortError/i;
const UNREACHABLE = /ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|socket hang up/i;
// error.type holds the status code itself for HTTP errors (semantic conventions); svc writes `HTTP 503`.
const SERVER_ERROR = /^(HTTP )?5\d\d$/;
const CLIENT_ERROR = /^(HTTP )?4\d\d$/;
const MAX_CATEGORY_CHARS = 128;

export const getErrorAnalysis = defineTool({
  name: 'get_error_analysis',
  title: 'Error analysis',
  description:
    'Errors of one operation: requests, errors and error rate over the recent minutes (svc.health.recent-minutes), deviation from the baseline error rate, baseline confidence, the breakdown by error category (error.type, exception type or HTTP status) and a suggested remedy. Use it to choose a remediation.',
  permission: 'READ',
  readOnly: true,
  params: { operation_name: operationName(), page: page() },
  handler(args, { services }) {
    const { engine } = services;
    const operation = args.operation_name;

    let requests = 0;
    let errors = 0;
    for (const minute of engine.health.historyOf(operation, engine.health.recentMinutes)) {
      requests += minute.count;
      errors += minute.errors;
    }
    const errorRate = requests ? errors / requests : 0;
    const health = engine.health.getOperationHealth(operation);
    const snapshot = engine.rollingBaselines.getSnapshot(operation);
    const categories = engine.errorCategories.of(operation);
    const categorized = categories.reduce((sum, c) => sum + c.count, 0);

    const maxBytes = maxOutputBytes(services);
    const request = { tool: 'get_error_analysis', maxBytes, page: args.page, call: callFor('get_error_analysis', { operation_name: operation }) };
    const head = [
      `ERROR ANALYSIS: ${shownName(operation)}`,
      ...fields([
        ['Window', `last ${engine.health.recentMinutes} minutes`],
        ['Total requests', String(requests)],
        ['Error count', String(errors)],
        ['Error rate', percent(errorRate)],
        ['Deviation', deviation(requests, errorRate, health?.expectedErrorRate, health?.learnedErrorRate, engine.health.recentMinutes)],
        [
          'Baseline confidence',
          snapshot
            ? `${snapshot.confidence} (${snapshot.sampleCount} samples)`
            : health?.baselineState === 'configured'
              ? `LOW (${plural(health.samples, 'sample')}; the rolling baseline forms at ${engine.rollingBaselines.minSamples})`
              : `learning (${plural(health?.samples ?? 0, 'sample')}; a baseline forms at ${engine.rollingBaselines.minSamples})`,
        ],
      ]),
    ].join('\n');
    const suggested = `SUGGESTION: ${cutField(suggestion(engine, errors, categories[0]?.category), fieldChars(maxBytes))}`;
    const lines = columns(
      categories.map((c) => [shownName(c.category, MAX_CATEGORY_CHARS), String(c.count), percent(c.count / categorized, 1)]),
      60,
    );
    const { text } = pageText(request, [{ noun: ['error category', 'error categories'], items: lines }], ([shown]) =>
      blocks(head, section(`ERROR CATEGORIES (${categorized} errors since start)`, shown!), suggested),
    );
    return textResult(text);
  },
});

function deviation(requests: number, rate: number, expected: number | undefined, learned: number | undefined, recentMinutes: number): string {
  if (requests === 0) return `no requests in the last ${recentMinutes} minutes`;
  if (expected === undefined) {
    const known = learned === undefined ? 'no error-rate baseline' : `learned rate ${percent(learned)}, shown, not judged`;
    return `not judged: no expected error rate (expected-error-rate unset; ${known})`;
  }
  const versus = `${percent(rate)} vs baseline ${percent(expected)}${expected > 0 ? `, ${multiple(rate / expected)}` : ''}`;
  if (rate > expected + DEVIATION_POINTS && rate > 2 * expected) return `ELEVATED (${versus})`;
  if (rate < expected - DEVIATION_POINTS && rate < expected / 2) return `below baseline (${versus})`;
  return `normal (${versus})`;
}

/** One remedy for the PLAN phase, from the most frequent error category. */
function suggestion(engine: Engine, recentErrors: number, category: string | undefined): string {
  const top = category === undefined ? undefined : shownName(category, MAX_CATEGORY_CHARS);
  if (top === undefined) return recentErrors ? 'errors are not categorised; check dependency health (get_service_health) and recent changes.' : 'no errors recorded; nothing to remedy for errors.';
  // Stale states (no call in the window) describe the past: not a current suspect.
  const unwell = engine.dependencyHealth.statuses().filter((d) => d.state !== 'healthy' && !d.stale);
  const dependencies = listSome(
    unwell.map((d) => `${shownName(d.name)} (${d.state})`),
    3,
  );
  if (TIMEOUT.test(top)) return `mostly timeouts (${top}): put a circuit breaker with a shorter timeout on the slow dependency and serve a fallback while it is open.`;
  if (UNREACHABLE.test(top)) return `mostly unreachable dependencies (${top}): check ${unwell.length ? dependencies : 'the dependency'} and fail over or open its circuit breaker.`;
  if (SERVER_ERROR.test(top)) {
    return unwell.length
      ? `mostly ${top} while ${dependencies} is not healthy: check that dependency and enable its fallback or open its circuit breaker.`
      : `mostly ${top} with healthy dependencies: the service itself fails; check the latest deployment and its logs.`;
  }
  if (CLIENT_ERROR.test(top)) return `mostly client errors (${top}): callers send requests the service rejects; check recent API or validation changes before remediating.`;
  if (top === 'unknown') return 'errors carry no error.type, exception or HTTP status; record exceptions on the spans to classify them, and check dependency health meanwhile.';
  const deployment = engine.changes.lastDeployment();
  return deployment
    ? `mostly ${top} exceptions: check the latest deployment (${cutField(deployment.description, 200)}, ${isoTime(deployment.timestamp)}) and roll it back if the errors started after it.`
    : `mostly ${top} exceptions: check recent code or configuration changes for the failing path.`;
}
