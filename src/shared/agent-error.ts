/**
 * An error an agent can act on: its message says what was wrong and what is accepted instead.
 * Every refusal svc gives an agent (a bad argument, a missing approval, a full session, an
 * unknown pattern, a declared role above the credential's) is one; the tool server answers it
 * as a tool result with `isError: true`, never as a protocol error, so the model reads it and
 * can try again. Any other error is svc's own failure, reported once and answered as
 * `<tool> failed inside the service: ...`.
 *
 * @example
 * throw new AgentError(`window_minutes must be a whole number from 1 to 60; got "${value}"`);
 */
export class AgentError extends Error {
  override readonly name: string = 'AgentError';
}
