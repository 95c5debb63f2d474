/**
 * verify_remediation_effect: compares the health snapshot at execution with the traffic since,
 * for the scope the action acted on (src/incidents/verification.ts). A side without requests says
 * so instead of showing figures. The action name echoed is cut at 256 characters.
 */

import { type HealthSnapshot, MAX_PENDING, type Verification } from '../../incidents/verification.js';
import { operationLabel, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { INPUT_LIMITS } from '../input-limits.js';
import { fields, isoTime, listSome, ms, plural } from '../text-layout.js';
import { ToolError, textResult } from '../tool-definition.js';
import { text } from '../tool-params.js';

export const verifyRemediationEffect = defineTool({
  name: 'verify_remediation_effect',
  title: 'Verify remediation',
  description:
    'Compares the health snapshot taken when an action was executed with the traffic since, once the verification delay (default 30 s) has passed: effective YES or NO, latency and error-rate deltas, health before and after. Calling earlier says how long to wait.',
  permission: 'DIAGNOSE',
  readOnly: true,
  params: { action_name: text('The action name given to execute_remediation', { required: true, maxLength: INPUT_LIMITS.actionName }) },
  handler(args, { services }) {
    const verification = services.verifier.verify(args.action_name);
    const action = shownName(args.action_name);
    if (verification.state === 'unknown') {
      const evicted = services.verifier.evicted ? ` (${services.verifier.evicted} older ones were dropped: at most ${MAX_PENDING} actions await verification)` : '';
      throw new ToolError(`no execution of "${action}" to verify${evicted}; execute it with execute_remediation first (see get_recent_agent_actions)`);
    }
    if (verification.state === 'wait') {
      const seconds = Math.ceil(verification.waitMs / 1000);
      return { text: `Action: ${action}\nToo early to verify: executed at ${isoTime(verification.executedAt)}; call again in ${seconds}s.`, isError: true };
    }
    const { before, after } = verification;
    const rate = (v: number) => v.toFixed(4);
    const text = fields([
      ['Action', action],
      ['Effective', verification.effective ? 'YES' : 'NO'],
      ['Why', verification.why],
      ['Operation', scopeText(verification)],
      ['Latency delta', `${signed(verification.latencyDeltaMs, ms)} (p50 ${figure(before, before.p50, ms)} -> ${figure(after, after.p50, ms)})`],
      ['Error rate delta', `${signed(verification.errorRateDelta, rate)} (${figure(before, before.errorRate, rate)} -> ${figure(after, after.errorRate, rate)})`],
      ['Requests before', `${before.requestCount} in the ${plural(services.analysis.recentMinutes, 'minute')} before the action`],
      ['Requests since', String(after.requestCount)],
      ['Health before', verification.before.status],
      ['Health after', verification.after.status],
      ['Verified at', isoTime(verification.verifiedAt)],
    ]).join('\n');
    return textResult(text, {
      action,
      effective: verification.effective,
      operation: verification.operation ?? null,
      scope: verification.scope.map((name) => shownName(name)),
      requestsBefore: before.requestCount,
      requestsSince: after.requestCount,
      latencyDeltaMs: verification.latencyDeltaMs ?? null,
      errorRateDelta: verification.errorRateDelta ?? null,
      before: verification.before.status,
      after: verification.after.status,
    });
  },
});

const NO_REQUESTS = 'no requests in the window';

/** A side's figure, or that it had no requests: never a 0 standing for no data. */
function figure(snapshot: HealthSnapshot, value: number, format: (v: number) => string): string {
  return snapshot.requestCount === 0 ? NO_REQUESTS : format(value);
}

function signed(value: number | undefined, format: (v: number) => string): string {
  return value === undefined ? 'not measured' : `${value >= 0 ? '+' : '-'}${format(Math.abs(value))}`;
}

function scopeText(verification: Extract<Verification, { state: 'verified' }>): string {
  if (verification.operation !== undefined) return operationLabel(verification.operation);
  if (verification.scope.length === 0) return 'service-wide: no operation had traffic at the action';
  const which = verification.before.errorRate > 0 ? 'failing' : 'with traffic';
  const names = listSome(
    verification.scope.map((name) => shownName(name)),
    5,
  );
  return `service-wide, measured on the ${plural(verification.scope.length, 'operation')} ${which} at the action: ${names}`;
}
