/**
 * The built-in remediation actions. Each acts in-process on one target: an operation (fallback
 * flag, baseline) or a registered circuit breaker. Their full names are `<kind>:<target>`, for
 * example `enable_fallback:GET /orders/{id}`; playbooks name the kinds.
 */
export const BUILT_IN_ACTIONS = {
  enable_fallback: { description: "Turn on the operation's fallback flag, which the app reads with isFallbackEnabled()", requiresApproval: false, destructive: false },
  disable_fallback: { description: "Turn the operation's fallback flag off again", requiresApproval: false, destructive: false },
  open_circuit_breaker: { description: 'Open the circuit breaker of a dependency: calls fail fast instead of waiting on it', requiresApproval: true, destructive: true },
  close_circuit_breaker: { description: 'Close the circuit breaker of a dependency: calls go through again', requiresApproval: false, destructive: false },
  reset_baseline: { description: "Forget the operation's learned normal after an intended change of behaviour, so its current level becomes normal", requiresApproval: true, destructive: true },
  escalate: { description: "Escalate to the on-call channel at the operation's escalation level; recorded in the incident and audit trail", requiresApproval: false, destructive: false },
} as const;

export type BuiltInActionKind = keyof typeof BUILT_IN_ACTIONS;
export const BUILT_IN_ACTION_KINDS = Object.keys(BUILT_IN_ACTIONS) as BuiltInActionKind[];
