/** verify_remediation_effect: compares the health snapshot at execution with the traffic since. The action name echoed is cut at 256 characters. */

import { MAX_PENDING } from '../../incidents/verification.js';
import { shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { INPUT_LIMITS } from '../input-limits.js';
import { fields, isoTime, ms } from '../text-layout.js';
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
    const sign = (value: number, format: (v: number) => string) => `${value >= 0 ? '+' : '-'}${format(Math.abs(value))}`;
    const text = fields([
      ['Action', action],
      ['Effective', verification.effective ? 'YES' : 'NO'],
      ['Why', verification.why],
      ['Operation', verification.operation === undefined ? 'service-wide' : shownName(verification.operation)],
      ['Latency delta', `${sign(verification.latencyDeltaMs, ms)} (p50 ${ms(verification.before.p50)} -> ${ms(verification.after.p50)})`],
      ['Error rate delta', `${sign(verification.errorRateDelta, (v) => v.toFixed(4))} (${verification.before.errorRate.toFixed(4)} -> ${verification.after.errorRate.toFixed(4)})`],
      ['Requests since', String(verification.after.requestCount)],
      ['Health before', verification.before.status],
      ['Health after', verification.after.status],
      ['Verified at', isoTime(verification.verifiedAt)],
    ]).join('\n');
    return textResult(text, {
      action,
      effective: verification.effective,
      latencyDeltaMs: verification.latencyDeltaMs,
      errorRateDelta: verification.errorRateDelta,
      before: verification.before.status,
      after: verification.after.status,
    });
  },
});
