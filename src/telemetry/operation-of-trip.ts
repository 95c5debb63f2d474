/**
 * Which operation a guardrail trip happened in. An agent invoked inside a request trips while the
 * request's span is still open, before svc's span processor has named its operation; so the trip
 * waits on that span, and the processor calls `operationNamed` when it names it (one WeakMap
 * lookup per operation span, and none while no trip waits). Global, like the other registries, so
 * the preload's processor and the app's copy of the API meet.
 */

interface Waiting {
  readonly bySpan: WeakMap<object, ((operation: string) => void)[]>;
  /** Trips waiting; spans that end without a name are forgotten with them (WeakMap), so this only ever over-counts. */
  count: number;
}

const KEY = Symbol.for('svc.agent-trip-operations');

function waiting(): Waiting {
  const holder = globalThis as { [KEY]?: Waiting };
  return (holder[KEY] ??= { bySpan: new WeakMap(), count: 0 });
}

/** Calls `assign` with the operation name of `span` once svc's span processor names it. */
export function whenOperationNamed(span: object, assign: (operation: string) => void): void {
  const state = waiting();
  const list = state.bySpan.get(span);
  if (list) list.push(assign);
  else state.bySpan.set(span, [assign]);
  state.count++;
}

/** Called by svc's span processor with each operation span and its operation's name. */
export function operationNamed(span: object, operation: string): void {
  const state = waiting();
  if (state.count === 0) return;
  const list = state.bySpan.get(span);
  if (!list) return;
  state.bySpan.delete(span);
  state.count = Math.max(0, state.count - list.length);
  for (const assign of list) assign(operation);
}
