/**
 * get_playbook: the step graph for a pattern, or for the patterns detected on an operation
 * (src/incidents/playbooks.ts), laid out as text here. Playbooks are fixed (about 2 KB of text);
 * only the operation name in the title varies, cut at 256 characters (src/mcp/bounded-output.ts).
 */
import { INCIDENT_PATTERNS } from '../../analysis/pattern-matcher.js';
import { type Playbook, type PlaybookStep, selectPlaybook } from '../../incidents/playbooks.js';
import { operationLabel, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { blocks, fields, section } from '../text-layout.js';
import { textResult } from '../tool-definition.js';
import { operationName, text } from '../tool-params.js';

export const getPlaybook = defineTool({
  name: 'get_playbook',
  title: 'Playbook',
  description:
    'A machine-readable playbook: numbered CHECK, DECISION and ACTION steps with conditions, action names from the remediation catalog, successors per outcome and approval markers. Selected by pattern (e.g. cascade_failure, error_rate_spike), else by the patterns detected on operation_name, else the generic playbook.',
  readOnly: true,
  params: {
    operation_name: operationName({ required: false }),
    pattern: text(`Incident pattern: ${INCIDENT_PATTERNS.join(', ')}`),
  },
  handler(args, { services }) {
    const operation = args.operation_name;
    // Most recent pattern first: an incident that began as a cold start and turned into an error spike needs the latter's playbook.
    const operationPatterns = operation ? [...(services.incidents.openIncident(operation)?.patterns ?? [])].reverse() : [];
    // An unknown pattern throws UnknownPatternError, an AgentError naming the accepted ones.
    const playbook = selectPlaybook({ pattern: args.pattern, operationPatterns });
    return textResult(formatPlaybook(playbook, operation === undefined ? undefined : shownName(operation)), {
      playbook: playbook.name,
      triggerPatterns: [...playbook.triggerPatterns],
      steps: playbook.steps.map((s) => ({ ...s })),
    });
  },
});

function successors(step: PlaybookStep): string {
  const { success, failure, yes, no } = step.next;
  if (step.kind === 'DECISION') return `If yes -> ${yes ?? 'END'}, if no -> ${no ?? 'END'}`;
  return `On success -> ${success ?? 'END'}, on failure -> ${failure ?? 'END'}`;
}

function stepLines(step: PlaybookStep): string[] {
  const head = `${step.index}. `;
  const indent = ' '.repeat(head.length);
  const detail = step.kind === 'ACTION' ? `Action: ${step.action}${step.requiresApproval ? ' REQUIRES APPROVAL' : ''}` : `Condition: ${step.condition}`;
  return [`${head}[${step.kind}] ${step.description}`, `${indent}${detail}`, `${indent}${successors(step)}`];
}

/** get_playbook's text layout: the PLAYBOOK line, Trigger Patterns, then the numbered Steps. */
export function formatPlaybook(playbook: Playbook, operationName?: string): string {
  const title = `PLAYBOOK ${playbook.name}${operationName ? ` for ${operationLabel(operationName)}` : ''}`;
  const header = [
    title,
    ...fields([
      ['Trigger Patterns', playbook.triggerPatterns.length ? playbook.triggerPatterns.join(', ') : 'any'],
      ['Description', playbook.description],
    ]),
  ].join('\n');
  return blocks(header, section('Steps:', playbook.steps.flatMap(stepLines)));
}
