/**
 * The longest string an agent may send for each thing svc stores or echoes. Longer input is
 * refused with a message naming the limit, never cut silently (docs/mcp.md "Limits"). With
 * every stored string bounded, each store's size in bytes follows from its count caps
 * (src/mcp/agent-state-ceiling.ts). A stored agent name is at most `<token agent>/<declared name>`
 * or `<declared name> (unverified)`: STORED_AGENT_NAME characters.
 */
export const INPUT_LIMITS = Object.freeze({
  /** A self-declared agent name (X-Agent-Name, `_meta.agentName`). */
  agentName: 128,
  /** The agent a token is issued to (`svc.mcp.tokens.<agent>`), which prefixes declared names. */
  tokenAgent: 64,
  /** A self-declared role (X-Agent-Role, `_meta.agentRole`). */
  role: 64,
  /** An id an agent sends back: session, incident, approval. */
  id: 64,
  /** An operation name (the span names svc tracks are bounded by what the app serves). */
  operationName: 512,
  /** A remediation action name: a kind and an operation or breaker. */
  actionName: 600,
  /** A remediation reason, kept in the audit trail. */
  reason: 1000,
  /** A session entry's content. */
  content: 4000,
  /** Any other argument, custom tools' included. */
  argument: 8192,
});

export const STORED_AGENT_NAME = INPUT_LIMITS.tokenAgent + 1 + INPUT_LIMITS.agentName;

/** Characters counted as UTF-16 code units, as JavaScript stores them. */
export function tooLong(what: string, value: string, limit: number): string | undefined {
  return value.length > limit ? `${what} is ${value.length} characters long; at most ${limit} are accepted` : undefined;
}
