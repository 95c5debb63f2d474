/**
 * What an approver reads of each open approval request (the status page's approvals): who asked,
 * which action, why, until when, the open incident the action answers (the one of its operation,
 * or whose suggested actions include it) and what that incident's playbook says of the action's
 * kind (its ACTION steps of that kind, or that it has none).
 */
import type { ApprovalRequest } from '../../incidents/approvals.js';
import type { Incident } from '../../incidents/incident-tracker.js';
import { type Playbook, type PlaybookStep, selectPlaybook } from '../../incidents/playbooks.js';
import type { CallerIdentity } from '../tool-definition.js';
import type { ToolServices } from '../tool-services.js';
import { executeRemediation } from '../tools/execute-remediation.js';

export interface ApprovalView {
  readonly request: ApprovalRequest;
  readonly incident: Incident | undefined;
  readonly playbook: Playbook;
  /** The playbook's ACTION steps of the action's kind; empty when it has none. */
  readonly steps: readonly PlaybookStep[];
}

export function readApprovals(services: ToolServices): ApprovalView[] {
  const open = services.incidents.openIncidents();
  return services.remediation.approvals.pending().map((request) => {
    const incident = open.find((i) => services.remediation.actionsFor(i.operation).some((a) => a.name === request.action));
    // Most recent pattern first, as get_playbook selects for an operation.
    const playbook = selectPlaybook({ operationPatterns: incident ? [...incident.patterns].reverse() : [] });
    const kind = request.action.split(':')[0];
    return { request, incident, playbook, steps: playbook.steps.filter((s) => s.kind === 'ACTION' && s.action === kind) };
  });
}

/** Whether a caller may decide approval requests: as through execute_remediation, with that tool's permission and a credential that may approve. */
export function mayDecide(services: ToolServices, caller: CallerIdentity): boolean {
  return caller.permissions.has(executeRemediation.permission) && services.remediation.approvals.mayApprove(caller);
}
