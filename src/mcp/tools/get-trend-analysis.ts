/**
 * get_trend_analysis: how an operation's latency, error rate and throughput moved over the last
 * `window_minutes` whole minutes and the current minute so far.
 *
 * Each minute weighs by the part of it observed (from the operation's first request, up to now):
 * a partial first or current minute counts by its observed fraction, so a constant rate reads
 * STABLE, and the tool answers from the first seconds of traffic, saying how much data it rests
 * on (`Samples: 42 requests over 38 s`).
 *
 * Direction rule: start and end are the weighted means of the first and last third of the
 * observed time (whole minutes, at least one each); the end more than 10 % above the start is
 * RISING, more than 10 % below FALLING, otherwise STABLE. The error rate must also move by more
 * than one percentage point, since a rate near zero doubles with a single error. Latency and error
 * rate use the minutes with traffic; throughput (requests per observed minute) counts every minute
 * from the first with traffic, quiet ones as zero, so traffic that stops reads as FALLING.
 *
 * Fixed in size: four lines of numbers; names echoed are cut (src/mcp/bounded-output.ts).
 *
 * In a fleet the minutes are the fleet's, as of its last merge, with a FLEET line.
 */
import type { MinuteStats } from '../../analysis/minute-history.js';
import type { OperationHistory } from '../../fleet/fleet-history.js';
import { cutField, operationLabel, shownName } from '../bounded-output.js';
import { defineTool, type ToolParam } from '../define-tool.js';
import { blocks, columns, fields, isoTime, listSome, ms, percent, perMinute, plural, signedChange } from '../text-layout.js';
import { ToolError, textResult } from '../tool-definition.js';
import { operationName } from '../tool-params.js';
import { readHistory } from '../views/history-view.js';

const MINUTE_MS = 60_000;
const DEFAULT_WINDOW_MINUTES = 30;
const BAND = 0.1;
const MIN_ERROR_RATE_CHANGE = 0.01;

type Direction = 'RISING' | 'FALLING' | 'STABLE';

interface Trend {
  readonly start: number;
  readonly end: number;
  readonly direction: Direction;
}

/** `window_minutes`: whole minutes from 1 to the history kept (limits.history-minutes), 30 when not sent. */
const WINDOW_MINUTES: ToolParam<number> = {
  type: 'string',
  description: `Whole minutes to look back, default ${DEFAULT_WINDOW_MINUTES}, at most the history kept (limits.history-minutes, 60 by default)`,
  required: false,
  parse(value, { services }) {
    const historyMinutes = services.metadata.config.get<number>('limits.history-minutes');
    const text = value?.trim() || String(DEFAULT_WINDOW_MINUTES);
    const minutes = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!(minutes >= 1 && minutes <= historyMinutes)) {
      throw new ToolError(`window_minutes must be a whole number of minutes from 1 to ${historyMinutes}; got "${cutField(value ?? '', 40)}" (omit it for ${DEFAULT_WINDOW_MINUTES})`);
    }
    return minutes;
  },
};

export const getTrendAnalysis = defineTool({
  name: 'get_trend_analysis',
  title: 'Trend analysis',
  description:
    'Trend of one operation over the last minutes and the current one: latency p50 and p99, error rate and throughput, each with start and end value, direction (RISING, FALLING or STABLE, beyond +-10% between the first and last third of the time observed; a partly observed minute counts by the part observed) and percent change, and an assessment. Answers from the first seconds of traffic and says how many requests over how long it rests on.',
  permission: 'READ',
  readOnly: true,
  params: { operation_name: operationName(), window_minutes: WINDOW_MINUTES },
  handler(args, { services }) {
    const { analysis, metadata } = services;
    const known = analysis.operationNames();
    const operation = args.operation_name;
    const windowMinutes = args.window_minutes;
    const historyMinutes = metadata.config.get<number>('limits.history-minutes');

    // A fleet's history is as of its last merge (each replica's minutes at most one publish interval older).
    const { history, now } = readHistory(services, operation)!;
    const currentMinute = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    const samples = history.series(now, windowMinutes + 1).filter((s) => s.observedMs > 0);
    if (samples.length === 0) {
      throw new ToolError(
        `no traffic for "${shownName(operation)}" in the last ${windowMinutes} minutes; try a larger window_minutes (up to ${historyMinutes}) or another operation: ${listSome(known.map((name) => shownName(name, 120)))}`,
      );
    }

    const weights = samples.map((s) => s.observedMs);
    const throughput = throughputSeries(history, samples, currentMinute, now);
    const trends = {
      p50: trendOf(
        samples.map((s) => s.p50),
        weights,
      ),
      p99: trendOf(
        samples.map((s) => s.p99),
        weights,
      ),
      errorRate: trendOf(
        samples.map((s) => s.errorRate),
        weights,
        MIN_ERROR_RATE_CHANGE,
      ),
      throughput: trendOf(throughput.rates, throughput.weights),
    };
    const requests = samples.reduce((sum, s) => sum + s.count, 0);
    const observedMs = throughput.weights.reduce((sum, w) => sum + w, 0);
    const line = (label: string, trend: Trend, format: (value: number) => string) => [
      label,
      `start ${format(trend.start)}`,
      `end ${format(trend.end)}`,
      trend.direction,
      signedChange(trend.start, trend.end),
    ];

    return textResult(
      blocks(
        [
          `TREND ANALYSIS: ${operationLabel(operation)}`,
          ...fields([
            ['Window', `${windowMinutes} minutes and the current one, up to ${isoTime(now)}`],
            ['Samples', `${plural(requests, 'request')} over ${elapsed(observedMs)} (${plural(samples.length, 'minute')} with traffic)`],
            ['Rule', 'start and end are the means of the first and last third of the time observed, each minute weighed by the part observed; more than 10% apart is RISING or FALLING'],
          ]),
        ].join('\n'),
        columns([
          line('LATENCY P50', trends.p50, ms),
          line('LATENCY P99', trends.p99, ms),
          line('ERROR RATE', trends.errorRate, (v) => percent(v)),
          line('THROUGHPUT', trends.throughput, perMinute),
        ]).join('\n'),
        `ASSESSMENT: ${assessment(trends)}`,
        services.fleet?.note(),
      ),
    );
  },
});

function trendOf(values: readonly number[], weights: readonly number[], minChange = 0): Trend {
  const third = weights.reduce((sum, w) => sum + w, 0) / 3;
  const start = weightedMean(values, weights, [...weights.keys()], third);
  const end = weightedMean(values, weights, [...weights.keys()].reverse(), third);
  const moved = Math.abs(end - start) > minChange;
  const direction: Direction = moved && end > start * (1 + BAND) ? 'RISING' : moved && end < start * (1 - BAND) ? 'FALLING' : 'STABLE';
  return { start, end, direction };
}

/** The weighted mean of the values at `order`'s indexes, taken until `upTo` of weight is in (at least one). */
function weightedMean(values: readonly number[], weights: readonly number[], order: readonly number[], upTo: number): number {
  let sum = 0;
  let weight = 0;
  for (const i of order) {
    if (weight > 0 && weight >= upTo) break;
    sum += values[i]! * weights[i]!;
    weight += weights[i]!;
  }
  return sum / weight;
}

/**
 * Requests per observed minute, from the first minute with traffic to the current one, quiet
 * minutes as zero, each weighed by the part of it observed.
 */
function throughputSeries(history: OperationHistory, samples: readonly MinuteStats[], currentMinute: number, now: number): { rates: number[]; weights: number[] } {
  const counts = new Map(samples.map((s) => [s.minuteStart, s.count]));
  const rates: number[] = [];
  const weights: number[] = [];
  for (let minute = samples[0]!.minuteStart; minute <= currentMinute; minute += MINUTE_MS) {
    const observed = history.observedMs(minute, now);
    if (observed <= 0) continue;
    rates.push(((counts.get(minute) ?? 0) / observed) * MINUTE_MS);
    weights.push(observed);
  }
  return { rates, weights };
}

/** `38 s`, `12 min 5 s`: time observed. */
function elapsed(durationMs: number): string {
  const seconds = Math.round(durationMs / 1000);
  if (seconds < 60) return `${seconds} s`;
  return seconds % 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds / 60} min`;
}

function assessment(t: { p50: Trend; p99: Trend; errorRate: Trend; throughput: Trend }): string {
  const latencyRising = t.p50.direction === 'RISING' || t.p99.direction === 'RISING';
  const errorsRising = t.errorRate.direction === 'RISING';
  if (latencyRising && errorsRising) return 'Degrading: latency and error rate are both rising; check dependencies and recent changes (get_incident_context).';
  if (errorsRising) return 'Error rate is rising while latency holds; see get_error_analysis for the failing category.';
  if (latencyRising && t.throughput.direction === 'RISING') return 'Latency is rising with throughput: likely load-related; consider scaling out or shedding load.';
  if (latencyRising) return 'Latency is rising without more traffic: suspect a slow dependency, resource exhaustion or a recent change.';
  if ([t.p50, t.p99, t.errorRate].some((trend) => trend.direction === 'FALLING')) return 'Improving: latency or error rate is falling.';
  if (t.throughput.direction !== 'STABLE') return `Traffic is ${t.throughput.direction.toLowerCase()} while latency and error rate hold steady.`;
  return 'Stable: no metric moved more than 10% over the window.';
}
