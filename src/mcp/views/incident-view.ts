/**
 * What get_incident_context and the status page read of an operation's incident: its complete
 * context (as the incident response builds it, src/incidents/incident-context.ts), the guardrail trips of agents inside the app in
 * that operation, and the fleet's outliers. The page reads it for every open incident.
 */
import type { GuardrailTrip } from '../../agentic/agent-activity.js';
import type { FleetSnapshot } from '../../fleet/fleet-view.js';
import type { IncidentContext } from '../../incidents/incident-context.js';
import type { ToolServices } from '../tool-services.js';

export interface IncidentView {
  readonly context: IncidentContext;
  readonly trips: readonly GuardrailTrip[];
  /** In a fleet, its current snapshot (outlier replicas). */
  readonly fleet: FleetSnapshot | undefined;
}

export function readIncident(services: ToolServices, operation: string): IncidentView {
  return { context: services.incidentContext(operation), trips: services.agents?.recentTrips(operation) ?? [], fleet: services.fleet?.current() };
}

/** Every open incident's view, oldest first. */
export function readOpenIncidents(services: ToolServices): IncidentView[] {
  return services.incidents
    .openIncidents()
    .sort((a, b) => a.openedAt - b.openedAt)
    .map((incident) => readIncident(services, incident.operation));
}
