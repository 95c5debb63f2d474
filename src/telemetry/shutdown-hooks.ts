/**
 * Flushes telemetry when the process ends, without changing how it ends:
 * - natural end (`beforeExit`): shut the SDK down, which exports what is queued;
 * - SIGTERM / SIGINT: flush (bounded by `flushTimeoutMs`); if the app has no handler of its own
 *   for that signal, re-raise it so the process dies by the signal exactly as it would have;
 *   if it has one, the app's handler decides, as before.
 * A `process.exit()` called by the app cannot be waited for; spans still queued then are lost.
 */
const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

export interface Flushable {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export function installShutdownHooks(telemetry: Flushable, flushTimeoutMs: number): () => void {
  const bounded = (work: Promise<void>): Promise<void> =>
    Promise.race([work.catch(() => {}), new Promise<void>((resolve) => setTimeout(resolve, flushTimeoutMs).unref())]);

  const onBeforeExit = (): void => {
    void bounded(telemetry.shutdown());
  };
  process.once('beforeExit', onBeforeExit);

  const handlers = SIGNALS.map((signal) => {
    const handler = (): void => {
      const appHandles = process.listenerCount(signal) > 1;
      void bounded(telemetry.forceFlush()).then(() => {
        if (appHandles) return;
        process.removeListener(signal, handler);
        process.kill(process.pid, signal);
      });
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });

  return () => {
    process.removeListener('beforeExit', onBeforeExit);
    for (const [signal, handler] of handlers) process.removeListener(signal, handler);
  };
}
