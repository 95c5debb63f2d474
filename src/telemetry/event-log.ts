/**
 * svc's structured events as OpenTelemetry log records: `event.name` (attribute and the record's
 * event name), a severity, and a body that is a map of the event's fields.
 */
import { type AnyValue, type Logger, logs, SeverityNumber } from '@opentelemetry/api';
import type { EventSeverity } from '../analysis/emit-event.js';
import { EVENT_NAME } from '../shared/attribute-names.js';
import { reportError } from '../shared/report-error.js';

const SEVERITY_NUMBER: Record<EventSeverity, SeverityNumber> = {
  INFO: SeverityNumber.INFO,
  WARN: SeverityNumber.WARN,
  ERROR: SeverityNumber.ERROR,
};

export class EventLog {
  constructor(private readonly logger: Logger = logs.getLogger('@svc/register')) {}

  emit(name: string, severity: EventSeverity, body: Record<string, AnyValue>): void {
    try {
      this.logger.emit({
        eventName: name,
        severityNumber: SEVERITY_NUMBER[severity],
        severityText: severity,
        body,
        attributes: { [EVENT_NAME]: name },
      });
    } catch (error) {
      reportError(`emitting ${name}`, error);
    }
  }
}
