/**
 * Flushes telemetry (and what goes `alongside` it: the state store) when the process ends,
 * waiting at most `timeoutMs` (`svc.telemetry.shutdown-timeout`), and for telemetry no longer once
 * it is `undeliverable`, without otherwise changing how it ends:
 * - natural end (`beforeExit`): shut the SDK down, which exports what is queued. If that has not
 *   finished when the wait ends, the process is ended with `process.exit()`, whose exit code is
 *   `process.exitCode` as at a natural end: with a collector down, the OTLP exporters retry for
 *   up to `OTEL_EXPORTER_OTLP_TIMEOUT` (10 s by default) on timers that keep the process alive;
 * - SIGTERM / SIGINT: flush (bounded); if the app has no handler of its own for that signal,
 *   re-raise it so the process dies by the signal exactly as it would have; if it has one, the
 *   app's handler decides, as before.
 * `onEnd` runs when the process is about to end: before a re-raised signal, else at `exit`.
 * A `process.exit()` called by the app cannot be waited for; spans still queued then are lost.
 */
const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

export interface Flushable {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface ShutdownHookOptions {
  /** The longest the end of the process waits for telemetry. */
  readonly timeoutMs: number;
  /** Resolves once the telemetry being flushed cannot be delivered: the end stops waiting for it. */
  readonly undeliverable?: () => Promise<void>;
  /** Flushed and shut down with telemetry, and waited for within the bound even when telemetry is not. */
  readonly alongside?: Flushable;
  /** Runs when the process is about to end (for the last report); must not throw. */
  readonly onEnd?: () => void;
}

/**
 * True when `work` settled (either way) within `timeoutMs`, false when the time ran out or
 * `stopWaiting` resolved first; the timer never keeps the process alive.
 */
export function settledWithin(work: Promise<unknown>, timeoutMs: number, stopWaiting?: Promise<unknown>): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
    const settled = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    work.then(settled, settled);
    void stopWaiting?.then(() => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

export function installShutdownHooks(telemetry: Flushable, options: ShutdownHookOptions): () => void {
  const { timeoutMs, alongside } = options;
  const onEnd = (): void => options.onEnd?.();
  /** True when both finished within the wait. */
  const waitForEnd = async (telemetryWork: Promise<void>, alongsideWork: Promise<void> = Promise.resolve()): Promise<boolean> => {
    const [telemetryDone, alongsideDone] = await Promise.all([settledWithin(telemetryWork, timeoutMs, options.undeliverable?.()), settledWithin(alongsideWork, timeoutMs)]);
    return telemetryDone && alongsideDone;
  };

  const onBeforeExit = (): void => {
    void waitForEnd(telemetry.shutdown(), alongside?.shutdown()).then((finished) => {
      if (!finished) process.exit();
    });
  };
  process.once('beforeExit', onBeforeExit);
  process.on('exit', onEnd);

  const handlers = SIGNALS.map((signal) => {
    const handler = (): void => {
      const appHandles = process.listenerCount(signal) > 1;
      void waitForEnd(telemetry.forceFlush(), alongside?.forceFlush()).then(() => {
        if (appHandles) return;
        process.removeListener(signal, handler);
        process.removeListener('exit', onEnd);
        onEnd();
        process.kill(process.pid, signal);
      });
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });

  return () => {
    process.removeListener('beforeExit', onBeforeExit);
    process.removeListener('exit', onEnd);
    for (const [signal, handler] of handlers) process.removeListener(signal, handler);
  };
}
