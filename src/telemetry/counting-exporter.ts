/**
 * An exporter wrapper that counts every export result, whatever the processor around it does
 * with the result (the batch processors hand a failure to the replaceable global error handler,
 * which by default logs to `diag` only, so with no diag logger nothing is seen). The work is one
 * addition when a batch starts and one when its result arrives; the result reaches the processor
 * unchanged.
 */
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { ExportTally } from './telemetry-loss.js';

/** The shape shared by `SpanExporter` and `LogRecordExporter`. */
export interface BatchExporter<Item> {
  export(items: Item[], resultCallback: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}

export class CountingExporter<Item> implements BatchExporter<Item> {
  constructor(
    private readonly exporter: BatchExporter<Item>,
    private readonly tally: ExportTally,
  ) {}

  export(items: Item[], resultCallback: (result: ExportResult) => void): void {
    const count = items.length;
    this.tally.exportStarted(count);
    try {
      this.exporter.export(items, (result) => {
        if (result.code === ExportResultCode.SUCCESS) this.tally.exportSucceeded(count);
        else this.tally.exportFailed(count, result.error);
        resultCallback(result);
      });
    } catch (error) {
      this.tally.exportFailed(count, error);
      throw error;
    }
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }
}
