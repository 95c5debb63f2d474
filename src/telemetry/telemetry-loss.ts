/**
 * Telemetry the exporters could not deliver, reported so that an operator learns it is lost:
 * - the first failure of each signal at once, naming the endpoint and the error: a failed attempt
 *   that the exporter will retry (export-attempts.ts) or a failed export, whichever comes first;
 * - then, every report interval, what was lost since the last report, per signal and endpoint:
 *   failed batches and their items, items dropped because the processor's queue was full; nothing
 *   when nothing was lost;
 * - and once more when the process ends, with the items still being exported then.
 * An item counts as lost when its export's result is a failure, never for a failed attempt.
 * An endpoint that refused everything so far is not waited for when the process ends (`undeliverable`).
 * Counting happens once per exported batch (in the exporter's result callback) and once per
 * dropped item, never per delivered span or log record.
 */
import type { Clock } from '../analysis/clock.js';
import { printable } from '../shared/printable.js';

export type TelemetrySignal = 'traces' | 'logs';

const ITEM_NAMES: Record<TelemetrySignal, readonly [string, string]> = { traces: ['span', 'spans'], logs: ['log record', 'log records'] };
const MAX_ERROR_LENGTH = 200;

function itemCount(signal: TelemetrySignal, count: number): string {
  return `${count} ${ITEM_NAMES[signal][count === 1 ? 0 : 1]}`;
}

/** `250 ms`, `42 s`, `5 min`. */
export function describeDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** The error's message on one line, bounded: exporter errors carry no request headers. */
function errorText(error: unknown): string {
  const text = (error instanceof Error ? error.message || error.name : String(error ?? '')).replace(/\s+/g, ' ').trim() || 'unknown error';
  return printable(text, MAX_ERROR_LENGTH);
}

/** What a tally tells the `TelemetryLoss` it belongs to. */
interface TallyEvents {
  /** Reported when it is the signal's first. */
  failure(tally: ExportTally, error: string): void;
  /** The items in flight or the delivery record changed. */
  changed(): void;
}

/** What one signal lost on its way to one endpoint. The exporter wrapper, the attempt watcher and the drop counter call it. */
export class ExportTally {
  private batches = 0;
  private failedBatches = 0;
  private failedItems = 0;
  private droppedItems = 0;
  private inFlightItems = 0;
  private lastError = '';
  private delivered = false;
  private failed = false;

  constructor(
    readonly signal: TelemetrySignal,
    readonly endpoint: string,
    private readonly events: TallyEvents,
  ) {}

  /** An attempt failed, and nothing was ever delivered. */
  get refusedEverything(): boolean {
    return this.failed && !this.delivered;
  }

  get exporting(): boolean {
    return this.inFlightItems > 0;
  }

  exportStarted(items: number): void {
    this.inFlightItems += items;
  }

  exportSucceeded(items: number): void {
    this.inFlightItems -= items;
    this.batches++;
    this.delivered = true;
    this.events.changed();
  }

  exportFailed(items: number, error: unknown): void {
    this.inFlightItems -= items;
    this.batches++;
    this.failedBatches++;
    this.failedItems += items;
    this.lastError = errorText(error);
    this.recordFailure(this.lastError);
  }

  /** One attempt failed; the exporter may retry it, so nothing is counted as lost. */
  attemptFailed(error: unknown): void {
    this.recordFailure(errorText(error));
  }

  private recordFailure(error: string): void {
    this.failed = true;
    this.events.failure(this, error);
    this.events.changed();
  }

  /** Items the processor dropped because its queue was full. */
  dropped(items: number): void {
    this.droppedItems += items;
  }

  /** What was lost since the last call, or undefined; `ending` adds the items still being exported. Resets the counts. */
  takeSummary(ending: boolean): string | undefined {
    const parts: string[] = [];
    if (this.failedBatches > 0) {
      parts.push(`${this.failedBatches} of ${this.batches} batches failed (${itemCount(this.signal, this.failedItems)}, last error: ${this.lastError})`);
    }
    if (this.droppedItems > 0) parts.push(`${itemCount(this.signal, this.droppedItems)} dropped (queue full)`);
    if (ending && this.inFlightItems > 0) parts.push(`${itemCount(this.signal, this.inFlightItems)} still being exported`);
    this.batches = this.failedBatches = this.failedItems = this.droppedItems = 0;
    this.lastError = '';
    return parts.length > 0 ? `${this.signal} to ${this.endpoint}: ${parts.join(', ')}` : undefined;
  }
}

/** Runs `run` every `intervalMs` until the returned function is called. */
export type Schedule = (run: () => void, intervalMs: number) => () => void;

/** The default schedule: an `unref()`'d interval, which never keeps the process alive. */
export const unrefInterval: Schedule = (run, intervalMs) => {
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
};

export interface TelemetryLossOptions {
  /** Where a report goes: one line, without the `svc: ` prefix. */
  readonly report: (line: string) => void;
  /** How often the counts are reported (named in the first failure's report). */
  readonly reportIntervalMs: number;
  readonly clock: Clock;
}

export class TelemetryLoss {
  private readonly allTallies: ExportTally[] = [];
  private readonly reportedSignals = new Set<TelemetrySignal>();
  private readonly undeliverableWaiters: (() => void)[] = [];
  private since: number;

  constructor(private readonly options: TelemetryLossOptions) {
    this.since = options.clock.now();
  }

  get tallies(): readonly ExportTally[] {
    return this.allTallies;
  }

  /** The tally for `signal` sent to `endpoint` (an OTLP URL without credentials). */
  tally(signal: TelemetrySignal, endpoint: string): ExportTally {
    const tally = new ExportTally(signal, endpoint, {
      failure: (t, error) => this.firstFailure(t, error),
      changed: () => this.resolveIfUndeliverable(),
    });
    this.allTallies.push(tally);
    return tally;
  }

  /**
   * Resolves once what is being exported cannot be delivered: an endpoint refused everything so
   * far, and no other endpoint has items in flight. The end of the process stops waiting then.
   */
  undeliverable(): Promise<void> {
    return new Promise((resolve) => {
      this.undeliverableWaiters.push(resolve);
      this.resolveIfUndeliverable();
    });
  }

  /** Reports what was lost since the last report; nothing when nothing was. */
  reportCounts(): void {
    this.reportSince(false);
  }

  /** The last report, when the process ends: also names the items still being exported. */
  reportAtEnd(): void {
    this.reportSince(true);
  }

  /** Calls `reportCounts` every report interval; returns the function that stops it. */
  startReporting(schedule: Schedule = unrefInterval): () => void {
    return schedule(() => this.reportCounts(), this.options.reportIntervalMs);
  }

  private firstFailure(tally: ExportTally, error: string): void {
    if (this.reportedSignals.has(tally.signal)) return;
    this.reportedSignals.add(tally.signal);
    this.emit(`${tally.signal} export to ${tally.endpoint} failed: ${error}; what is lost is counted and reported every ${describeDuration(this.options.reportIntervalMs)}`);
  }

  private resolveIfUndeliverable(): void {
    if (this.undeliverableWaiters.length === 0) return;
    const refused = this.allTallies.some((t) => t.refusedEverything);
    const deliverable = this.allTallies.some((t) => t.exporting && !t.refusedEverything);
    if (!refused || deliverable) return;
    for (const resolve of this.undeliverableWaiters.splice(0)) resolve();
  }

  private reportSince(ending: boolean): void {
    const now = this.options.clock.now();
    const summaries = this.allTallies.map((t) => t.takeSummary(ending)).filter((s): s is string => s !== undefined);
    const period = describeDuration(now - this.since);
    this.since = now;
    if (summaries.length > 0) this.emit(`telemetry lost in the last ${period}${ending ? ' (the process is ending)' : ''}: ${summaries.join('; ')}`);
  }

  private emit(line: string): void {
    try {
      this.options.report(line);
    } catch {
      // stderr itself is gone: there is no one left to tell
    }
  }
}
