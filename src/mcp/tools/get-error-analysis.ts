/**
 * get_error_analysis: an operation's errors over the recent minutes (health window) against its baseline error
 * rate, how much the learned normal can be trusted, and its error categories (since start), so
 * an agent in the PLAN phase can pick a remedy; the SUGGESTION line names one.
 *
 * Categories (src/analysis/error-categories.ts): an exception by its type and normalised message,
 * with the first frame in the app's own code on the line under it; an error without an exception
 * by its error.type or HTTP status:
 *
 *     ERROR CATEGORIES (9 errors since start)
 *       TypeError: Cannot read properties of undefined (reading <str>)  6  66.7%
 *         at UsersService.update (src/users.service.ts:31:40)
 *       HTTP 503                                                        3  33.3%
 *
 * Deviation: against the operation's baseline error rate, configured or learned (with its source,
 * as every tool quotes it): ELEVATED with the health aggregator's rule (more than 5 points above it
 * and over twice it, floored at 1 %), below baseline by the mirror rule (more than 5 points below
 * and under half of it), normal otherwise; `not judged yet: learning (n samples)` before a normal
 * formed, and `not judged (expected-error-rate: -1)` where configuration says so. Baseline
 * confidence is the learned normal's, by its samples (LOW under 30, MEDIUM under 100, HIGH) with
 * how long it covers.
 *
 * Bounded (src/mcp/bounded-output.ts): category names and frames are cut at 128 characters, the
 * suggestion at 1/16 of `svc.mcp.max-output-bytes`, and categories beyond what fits (at most 20
 * are kept per operation, the rest counted as `other`) are paged, most frequent first:
 * `… 12 more error categories left out; call get_error_analysis with ... page=2`.
 */

import type { AnalysisReads } from '../../analysis/analysis-reads.js';
import { confidenceOf } from '../../analysis/baseline.js';
import type { ErrorCategory } from '../../analysis/error-categories.js';
import { durationText, ERROR_RATE_FLOOR, type OperationBaseline } from '../../analysis/operation-baseline.js';
import { callFor, cutField, fieldChars, maxOutputBytes, operationLabel, pageText, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { blocks, columns, fields, isoTime, listSome, multiple, percent, plural, section } from '../text-layout.js';
import { textResult } from '../tool-definition.js';
import { operationName, page } from '../tool-params.js';

const DEVIATION_POINTS = 0.05;
const TIMEOUT = /time.?out|deadline|ETIMEDOUT|AbortError/i;
const UNREACHABLE = /ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|socket hang up/i;
// error.type holds the status code itself for HTTP errors (semantic conventions); svc writes `HTTP 503`.
const MAX_CATEGORY_CHARS = 128;
const SERVER_ERROR = /^(HTTP )?5\d\d$/;
const CLIENT_ERROR = /^(HTTP )?4\d\d$/;

export const getErrorAnalysis = defineTool({
  name: 'get_error_analysis',
  title: 'Error analysis',
  description:
    'Errors of one operation: requests, errors and error rate over the recent minutes (svc.health.recent-minutes), deviation from the baseline error rate, baseline confidence, the breakdown by error category (an exception by type and normalised message with the stack frame in the app that threw it; else error.type or HTTP status) and a suggested remedy. Use it to choose a remediation.',
  permission: 'READ',
  readOnly: true,
  params: { operation_name: operationName(), page: page() },
  handler(args, { services }) {
    const { analysis } = services;
    const operation = args.operation_name;

    const health = analysis.operationHealth(operation);
    const requests = health?.requestCount ?? 0;
    const errors = health?.errorCount ?? 0;
    const errorRate = health?.errorRate ?? 0;
    const baseline = health?.baseline;
    const categories = analysis.errorCategoriesOf(operation);
    const categorized = categories.reduce((sum, c) => sum + c.count, 0);

    const maxBytes = maxOutputBytes(services);
    const request = { tool: 'get_error_analysis', maxBytes, page: args.page, call: callFor('get_error_analysis', { operation_name: operation }) };
    const head = [
      `ERROR ANALYSIS: ${operationLabel(operation)}`,
      ...fields([
        ['Window', `last ${analysis.recentMinutes} minutes`],
        ['Total requests', String(requests)],
        ['Error count', String(errors)],
        ['Error rate', percent(errorRate)],
        ['Deviation', deviation(requests, errorRate, baseline, analysis.recentMinutes)],
        ['Baseline confidence', confidence(baseline, analysis.minNormalSamples)],
      ]),
    ].join('\n');
    const suggested = `SUGGESTION: ${cutField(suggestion(analysis, errors, categories[0]), fieldChars(maxBytes))}`;
    const lines = columns(
      categories.map((c) => [shownName(c.name, MAX_CATEGORY_CHARS), String(c.count), percent(c.count / categorized, 1)]),
      60,
    ).map((line, i) => withFrame(line, categories[i]!.frame));
    const { text } = pageText(request, [{ noun: ['error category', 'error categories'], items: lines }], ([shown]) =>
      blocks(head, section(`ERROR CATEGORIES (${categorized} errors since start)`, shown!), suggested),
    );
    return textResult(text);
  },
});

/** A category's line, and under it where its exception was thrown. */
function withFrame(line: string, frame: string | undefined): string {
  return frame === undefined ? line : `${line}\n    at ${shownName(frame, MAX_CATEGORY_CHARS)}`;
}

/** The error rate against its baseline (configured or learned, with where it comes from), by the health aggregator's rule. */
function deviation(requests: number, rate: number, baseline: OperationBaseline | undefined, recentMinutes: number): string {
  if (requests === 0) return `no requests in the last ${recentMinutes} minutes`;
  const expected = baseline?.errorRate;
  if (expected === undefined) {
    return baseline?.errorRateSource === 'unjudged' ? `${baseline.describe('unjudged')}; an outage still is` : `not judged yet: ${baseline?.describe('learning') ?? 'learning (0 samples)'}`;
  }
  const versus = `${percent(rate)} vs baseline ${percent(expected)} (${baseline!.describe(baseline!.errorRateSource)})${expected > 0 ? `, ${multiple(rate / expected)}` : ''}`;
  if (rate > expected + DEVIATION_POINTS && rate > 2 * Math.max(expected, ERROR_RATE_FLOOR)) return `ELEVATED (${versus})`;
  if (rate < expected - DEVIATION_POINTS && rate < expected / 2) return `below baseline (${versus})`;
  return `normal (${versus})`;
}

/** How far the learned normal can be trusted: its confidence by samples and how long it covers, or configured, or learning. */
function confidence(baseline: OperationBaseline | undefined, minSamples: number): string {
  if (!baseline?.formed) {
    const learning = `${plural(baseline?.samples ?? 0, 'sample')}; a baseline forms at ${minSamples}`;
    return baseline?.state === 'configured' ? `configured figures; the learned normal is still learning (${learning})` : `learning (${learning})`;
  }
  return `${confidenceOf(baseline.samples)} (${plural(baseline.samples, 'sample')}, learned over ${durationText(baseline.learnedOverMs)})`;
}

/** One remedy for the PLAN phase, from the most frequent error category. */
function suggestion(analysis: AnalysisReads, recentErrors: number, category: ErrorCategory | undefined): string {
  if (category === undefined)
    return recentErrors ? 'errors are not categorised; check dependency health (get_service_health) and recent changes.' : 'no errors recorded; nothing to remedy for errors.';
  const top = shownName(category.name, MAX_CATEGORY_CHARS);
  // Stale states (no call in the window) describe the past: not a current suspect.
  const unwell = analysis.dependencyStatuses().filter((d) => d.state !== 'healthy' && !d.stale);
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
  const thrownAt = category.frame === undefined ? '' : ` thrown at ${shownName(category.frame, MAX_CATEGORY_CHARS)}`;
  const exceptions = `mostly ${category.exceptionType === undefined ? top : shownName(category.exceptionType, MAX_CATEGORY_CHARS)} exceptions${thrownAt}`;
  const deployment = analysis.lastDeployment();
  return deployment
    ? `${exceptions}: check the latest deployment (${cutField(deployment.description, 200)}, ${isoTime(deployment.timestamp)}) and roll it back if the errors started after it.`
    : `${exceptions}: check recent code or configuration changes for the failing path.`;
}
