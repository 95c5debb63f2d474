/** How analysis components hand an event on (the log pipeline's `EventLog.emit`, or a test's collector). */
import type { AnyValue } from '@opentelemetry/api';

export type EventSeverity = 'INFO' | 'WARN' | 'ERROR';

export type EmitEvent = (name: string, severity: EventSeverity, body: Record<string, AnyValue>) => void;
