/**
 * Remediation actions that act for real, in-process:
 * - built-ins (see remediation-kinds.ts) on an operation (`enable_fallback:<op>`,
 *   `disable_fallback:<op>`, `reset_baseline:<op>`, `escalate:<op>`) or on a registered circuit
 *   breaker (`open_circuit_breaker:<breaker>`, `close_circuit_breaker:<breaker>`);
 * - custom actions the app registers with a handler, a description, an approval requirement and
 *   the operations they apply to.
 *
 * An action that needs approval runs only once a credential that may approve has approved it
 * (approvals.ts): the caller's own, or a second credential's approval named by its id in
 * `approvedBy`. `approve:<id>` is the approver's act, `decline:<id>` its refusal (the reason
 * given is the requester's answer). Every execution, refused ones and
 * approvals too, goes to the audit trail, and a health snapshot is taken for
 * verify_remediation_effect. A successful one is recorded as a `remediation` change (an action
 * taken, never ranked as the cause of an incident).
 *
 * Persisted (docs/state.md) as the `remediation` collection: each active fallback flag
 * (`fallback:<operation>`) and each circuit breaker an agent opened (`breaker:<name>`). At start
 * the flags are set again and the breakers opened again (once the app registers them).
 *
 * In a fleet (docs/state.md, Fleet) a successful fallback, breaker or baseline action, or a
 * custom one marked `fleetWide`, is announced (`onFleetAction`) and applied by the other
 * replicas (`applyFromFleet`), which do not audit it again.
 */

import type { AnalysisEngine } from '../analysis/analysis-engine.js';
import type { ChangeTarget } from '../analysis/change-tracker.js';
import { AgentError } from '../shared/agent-error.js';
import { canonicalOperationName } from '../shared/operation-name.js';
import { printable } from '../shared/printable.js';
import { NO_SINK, type StateSink } from '../shared/state-sink.js';
import type { Actor } from './actor.js';
import { APPROVE_PREFIX, ApprovalError, type Approvals, DECLINE_PREFIX } from './approvals.js';
import type { AuditEntry, AuditTrail } from './audit-trail.js';
import { BUILT_IN_ACTIONS, type BuiltInActionKind } from './remediation-kinds.js';
import type { Verifier } from './verification.js';

export const REMEDIATION_COLLECTION = 'remediation';

export interface RemediationContext {
  readonly action: string;
  readonly operation: string | undefined;
  readonly reason: string;
  readonly caller: Actor;
}

export interface CustomActionDefinition {
  readonly name: string;
  readonly description: string;
  readonly requiresApproval?: boolean;
  /** Operations the action applies to; omit for every operation. */
  readonly operations?: readonly string[];
  /**
   * In a fleet (docs/state.md, Fleet): run the handler on every replica (it acts on something
   * each process holds, such as an in-process cache). Default false: it runs once, on the replica
   * that executed it (it may act on something the replicas share).
   */
  readonly fleetWide?: boolean;
  readonly handler: (context: RemediationContext) => unknown;
}

/** An action executed on one replica, for the others to apply (docs/state.md, Fleet). */
export interface FleetRemediation {
  readonly action: string;
  readonly reason: string;
  readonly agentName: string;
  readonly role: string;
}

/** Built-in kinds every replica applies when one executes them; `escalate` notifies once. */
const FLEET_WIDE_KINDS: ReadonlySet<string> = new Set(['enable_fallback', 'disable_fallback', 'open_circuit_breaker', 'close_circuit_breaker', 'reset_baseline'] satisfies BuiltInActionKind[]);

export interface RemediationAction {
  readonly name: string;
  readonly kind: BuiltInActionKind | 'custom' | 'approval';
  readonly description: string;
  readonly requiresApproval: boolean;
  readonly destructive: boolean;
  /** The operation or circuit breaker it acts on. */
  readonly target: string;
}

export interface ExecutionResult {
  readonly outcome: 'success' | 'failed' | 'refused';
  readonly message: string;
  readonly audit: AuditEntry;
}

export class RemediationRefused extends AgentError {}

/** Built-in kinds whose target is an operation (the others target a circuit breaker). */
const OPERATION_KINDS: ReadonlySet<string> = new Set(['enable_fallback', 'disable_fallback', 'reset_baseline', 'escalate'] satisfies BuiltInActionKind[]);

/** `escalate:GET /orders/:id` → `escalate:GET /orders/{id}`: an operation's actions in its one spelling. */
function canonicalActionName(name: string): string {
  const separator = name.indexOf(':');
  if (separator <= 0 || !OPERATION_KINDS.has(name.slice(0, separator))) return name;
  return `${name.slice(0, separator + 1)}${canonicalOperationName(name.slice(separator + 1))}`;
}

/** Fallback flags, and opened breakers, held at most: what other replicas (or the store) name beyond is refused. */
export const MAX_FLAGS = 1000;

export class Remediation {
  private readonly fallbacks = new Set<string>();
  /** Breakers an agent opened: kept open across restarts until an agent closes them. */
  private readonly openedBreakers = new Set<string>();
  private readonly custom = new Map<string, CustomActionDefinition>();
  /** Flags and breakers from other replicas or the store refused beyond MAX_FLAGS. */
  refused = 0;
  private sink: StateSink = NO_SINK;
  /** Told of each successful fleet-wide action, for the other replicas (src/fleet/fleet-sync.ts). */
  onFleetAction: ((action: FleetRemediation) => void) | undefined;

  constructor(
    private readonly engine: AnalysisEngine,
    private readonly audit: AuditTrail,
    private readonly verifier: Verifier,
    readonly approvals: Approvals,
    private readonly escalationOf: (operation: string) => { level: string; channel: string },
    /** Operations known from configuration and decorators, even before their first request. */
    private readonly isKnownByName: (operation: string) => boolean = () => false,
  ) {}

  private knownOperation(operation: string): boolean {
    return this.engine.health.operations().includes(operation) || this.isKnownByName(operation);
  }

  /** How many fallback flags and opened breakers this replica holds. */
  heldFlags(): { fallbacks: number; breakers: number } {
    return { fallbacks: this.fallbacks.size, breakers: this.openedBreakers.size };
  }

  /** Whether the app should serve the operation's fallback (the flag enable_fallback turns on). */
  isFallbackEnabled(operation: string): boolean {
    return this.fallbacks.has(canonicalOperationName(operation));
  }

  /** Persists every flag and breaker change from now on, and the ones set so far. */
  attachStore(sink: StateSink): void {
    this.sink = sink;
    for (const operation of this.fallbacks) this.persistFallback(operation);
    for (const breaker of this.openedBreakers) this.persistBreaker(breaker);
  }

  private persistFallback(operation: string): void {
    if (this.fallbacks.has(operation)) this.sink.put(REMEDIATION_COLLECTION, `fallback:${operation}`, () => ({ kind: 'fallback', target: operation }));
    else this.sink.delete(REMEDIATION_COLLECTION, `fallback:${operation}`);
  }

  private persistBreaker(name: string): void {
    if (this.openedBreakers.has(name)) this.sink.put(REMEDIATION_COLLECTION, `breaker:${name}`, () => ({ kind: 'breaker', target: name, state: 'open' }));
    else this.sink.delete(REMEDIATION_COLLECTION, `breaker:${name}`);
  }

  /** Sets the fallback flags and opens the breakers of a previous run again; returns how many records did not read back. */
  restore(records: readonly { key: string; value: unknown }[]): number {
    let skipped = 0;
    for (const { value } of records) {
      const record = value as { kind?: unknown; target?: unknown } | null;
      const target = typeof record?.target === 'string' ? record.target.slice(0, 1024) : undefined;
      if (target !== undefined && record?.kind === 'fallback') this.addFallback(canonicalOperationName(target));
      else if (target !== undefined && record?.kind === 'breaker') {
        if (this.addBreaker(target)) this.engine.circuitBreakers.forceWhenRegistered(target, 'open');
      } else skipped++;
    }
    return skipped;
  }

  /**
   * Applies an action another replica executed (and audited): flags, breakers and baselines
   * here as there, a fleet-wide custom action's handler run here. Not audited or persisted again.
   */
  async applyFromFleet(remote: FleetRemediation): Promise<void> {
    const separator = remote.action.indexOf(':');
    const kind = separator > 0 ? remote.action.slice(0, separator) : remote.action;
    const target = remote.action.slice(separator + 1);
    switch (kind) {
      case 'enable_fallback':
        this.addFallback(canonicalOperationName(target));
        return;
      case 'disable_fallback':
        this.fallbacks.delete(canonicalOperationName(target));
        return;
      case 'open_circuit_breaker':
      case 'close_circuit_breaker': {
        if (kind === 'open_circuit_breaker') {
          if (this.addBreaker(target)) this.engine.circuitBreakers.forceWhenRegistered(target, 'open');
        } else {
          this.openedBreakers.delete(target);
          this.engine.circuitBreakers.forceWhenRegistered(target, 'closed');
        }
        return;
      }
      case 'reset_baseline':
        if (this.knownOperation(target)) this.engine.resetBaseline(target);
        return;
      default: {
        const custom = this.custom.get(remote.action);
        if (!custom?.fleetWide) return;
        const caller: Actor = { agentName: remote.agentName, role: remote.role, permissions: new Set(), credential: 'fleet', tokenAgent: undefined };
        await custom.handler({ action: remote.action, operation: undefined, reason: remote.reason, caller });
      }
    }
  }

  /** Another replica wrote a flag or breaker record (read from the store after its notice): applied here too. */
  mergeRemote(value: unknown): void {
    const record = value as { kind?: unknown; target?: unknown } | null;
    if (typeof record?.target !== 'string') return;
    const target = record.target.slice(0, 1024);
    if (record.kind === 'fallback') this.addFallback(canonicalOperationName(target));
    else if (record.kind === 'breaker' && !this.openedBreakers.has(target) && this.addBreaker(target)) this.engine.circuitBreakers.forceWhenRegistered(target, 'open');
  }

  /** A flag from another replica, unless MAX_FLAGS are held (then counted in `refused`). */
  private addFallback(operation: string): void {
    if (this.fallbacks.has(operation)) return;
    if (this.fallbacks.size >= MAX_FLAGS) this.refused++;
    else this.fallbacks.add(operation);
  }

  private addBreaker(name: string): boolean {
    if (this.openedBreakers.has(name)) return true;
    if (this.openedBreakers.size >= MAX_FLAGS) {
      this.refused++;
      return false;
    }
    this.openedBreakers.add(name);
    return true;
  }

  /** Another replica deleted a flag or breaker record (`fallback:<op>`, `breaker:<name>`): undone here too. */
  forget(key: string): void {
    if (key.startsWith('fallback:')) this.fallbacks.delete(canonicalOperationName(key.slice('fallback:'.length)));
    else if (key.startsWith('breaker:') && this.openedBreakers.delete(key.slice('breaker:'.length))) this.engine.circuitBreakers.forceWhenRegistered(key.slice('breaker:'.length), 'closed');
  }

  /** The flags and opened breakers as the store holds them (after notices may have been missed): added and removed to match. */
  reconcile(records: readonly { key: string; value: unknown }[]): void {
    const keys = new Set(records.map((r) => r.key));
    for (const operation of [...this.fallbacks]) if (!keys.has(`fallback:${operation}`)) this.forget(`fallback:${operation}`);
    for (const name of [...this.openedBreakers]) if (!keys.has(`breaker:${name}`)) this.forget(`breaker:${name}`);
    for (const { value } of records) this.mergeRemote(value);
  }

  registerAction(definition: CustomActionDefinition): void {
    if (!/^[A-Za-z0-9_.-]+$/.test(definition.name)) throw new Error(`remediation action name "${definition.name}": use letters, digits, "_", "." or "-"`);
    if (definition.name in BUILT_IN_ACTIONS) throw new Error(`remediation action name "${definition.name}" is a built-in kind`);
    if (this.custom.has(definition.name)) throw new Error(`a remediation action named "${definition.name}" is already registered`);
    this.custom.set(definition.name, definition);
  }

  /** The actions that apply to an operation: its built-ins, every circuit breaker, matching custom actions. */
  actionsFor(operation: string): RemediationAction[] {
    const builtIn = (kind: BuiltInActionKind, target: string): RemediationAction => ({
      name: `${kind}:${target}`,
      kind,
      description: BUILT_IN_ACTIONS[kind].description,
      requiresApproval: BUILT_IN_ACTIONS[kind].requiresApproval,
      destructive: BUILT_IN_ACTIONS[kind].destructive,
      target,
    });
    const actions = [builtIn(this.fallbacks.has(operation) ? 'disable_fallback' : 'enable_fallback', operation)];
    for (const breaker of this.engine.circuitBreakers.statuses()) {
      if (!breaker.controllable) continue;
      actions.push(builtIn(breaker.state === 'closed' ? 'open_circuit_breaker' : 'close_circuit_breaker', breaker.name));
    }
    actions.push(builtIn('reset_baseline', operation), builtIn('escalate', operation));
    for (const custom of this.custom.values()) {
      if (custom.operations && !custom.operations.includes(operation)) continue;
      actions.push({ name: custom.name, kind: 'custom', description: custom.description, requiresApproval: custom.requiresApproval ?? false, destructive: true, target: operation });
    }
    return actions;
  }

  /** `approve:<id>` for each open approval request, for callers who may approve. */
  approvalActions(): RemediationAction[] {
    return this.approvals.pending().map((request) => ({
      name: `${APPROVE_PREFIX}${request.id}`,
      kind: 'approval',
      description: `Approve ${request.action}, requested by ${request.requestedBy} because "${request.reason}", open until ${new Date(request.expiresAt).toISOString()}`,
      requiresApproval: false,
      destructive: false,
      target: request.action,
    }));
  }

  private describe(name: string): { kind: BuiltInActionKind | 'custom'; target: string | undefined; requiresApproval: boolean } {
    const separator = name.indexOf(':');
    const kind = separator > 0 ? name.slice(0, separator) : name;
    if (Object.hasOwn(BUILT_IN_ACTIONS, kind) && separator > 0) {
      const target = name.slice(separator + 1);
      if (OPERATION_KINDS.has(kind) && !this.knownOperation(target))
        throw new RemediationRefused(`unknown operation "${printable(target, 100)}"; list_remediation_actions names the actions of known operations`);
      return { kind: kind as BuiltInActionKind, target: name.slice(separator + 1), requiresApproval: BUILT_IN_ACTIONS[kind as BuiltInActionKind].requiresApproval || this.approvals.needsPerson(name) };
    }
    const custom = this.custom.get(name);
    if (!custom) {
      const known = [...Object.keys(BUILT_IN_ACTIONS).map((k) => `${k}:<target>`), `${APPROVE_PREFIX}<approval id>`, `${DECLINE_PREFIX}<approval id>`, ...this.custom.keys()];
      throw new RemediationRefused(
        `unknown action "${printable(name, 100)}"; call list_remediation_actions for an operation to get action names (known forms: ${known.slice(0, 12).join(', ')}${known.length > 12 ? ` and ${known.length - 12} more` : ''})`,
      );
    }
    return { kind: 'custom', target: undefined, requiresApproval: (custom.requiresApproval ?? false) || this.approvals.needsPerson(name) };
  }

  /** Runs an action for a caller; refusals throw RemediationRefused after being audited. */
  async execute(given: string, reason: string, approvedBy: string | undefined, caller: Actor): Promise<ExecutionResult> {
    const name = canonicalActionName(given);
    const base = { agentName: caller.agentName, role: caller.role, action: name, reason, approvedBy: undefined, approver: undefined };
    // An approver's own acts name them as the approver, so they can be kept from callers who cannot approve.
    const approverBase = { ...base, approver: this.approvals.mayApprove(caller) ? caller.agentName : undefined };
    if (name.startsWith(APPROVE_PREFIX)) return this.decide(name.slice(APPROVE_PREFIX.length), approverBase, caller, undefined);
    if (name.startsWith(DECLINE_PREFIX)) return this.decide(name.slice(DECLINE_PREFIX.length), approverBase, caller, reason);
    let described: ReturnType<Remediation['describe']>;
    try {
      described = this.describe(name);
    } catch (error) {
      this.audit.record({ ...base, approval: 'not_required', outcome: 'refused', detail: (error as Error).message });
      throw error;
    }
    let approved: { approvedBy: string | undefined; approver: string | undefined } = { approvedBy: undefined, approver: undefined };
    if (described.requiresApproval) {
      try {
        approved = this.approvalOf(name, reason, approvedBy, caller);
      } catch (error) {
        if (!(error instanceof ApprovalError)) throw error;
        this.audit.record({ ...base, approval: 'missing', outcome: 'refused', detail: error.message });
        throw new RemediationRefused(error.message);
      }
    }
    const approval = described.requiresApproval ? 'approved' : 'not_required';
    const operation = described.kind === 'custom' ? undefined : described.kind.endsWith('circuit_breaker') ? undefined : described.target;
    this.verifier.recordBefore(name, operation);
    try {
      const message = await this.run(name, described, reason, caller);
      const audit = this.audit.record({ ...base, ...approved, approval, outcome: 'success', detail: message });
      if (this.onFleetAction && (FLEET_WIDE_KINDS.has(described.kind) || (described.kind === 'custom' && this.custom.get(name)?.fleetWide)))
        this.onFleetAction({ action: name, reason, agentName: caller.agentName, role: caller.role });
      this.engine.changes.record('remediation', `${name} by ${caller.agentName} (${caller.role}): ${reason}`, { action: name, agent: caller.agentName }, undefined, this.touchedBy(described));
      return { outcome: 'success', message, audit };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const audit = this.audit.record({ ...base, ...approved, approval, outcome: 'failed', detail: message });
      return { outcome: 'failed', message, audit };
    }
  }

  /** What an action acts on, for the change record: its operation, or its breaker's dependency. */
  private touchedBy(described: ReturnType<Remediation['describe']>): ChangeTarget {
    if (described.kind === 'custom' || described.target === undefined) return {};
    if (!described.kind.endsWith('circuit_breaker')) return { operation: described.target };
    const dependency = this.engine.circuitBreakers.statuses().find((b) => b.name === described.target)?.dependency;
    return dependency ? { dependency } : {};
  }

  /**
   * Who approved: the caller's own credential, or the approval `approvedBy` names. Without
   * either, opens an approval request and throws ApprovalError saying how to complete it.
   */
  private approvalOf(action: string, reason: string, approvedBy: string | undefined, caller: Actor): { approvedBy: string; approver: string | undefined } {
    if (this.approvals.mayApprove(caller) && (caller.person || !this.approvals.needsPerson(action))) return { approvedBy: 'own credential', approver: undefined };
    if (approvedBy) {
      const used = this.approvals.use(approvedBy, action, caller);
      return { approvedBy: used.id, approver: used.approvedBy! };
    }
    const request = this.approvals.request(action, reason, caller);
    const until = new Date(request.expiresAt).toISOString();
    const who = request.humanOnly ? `a person approves it on the status page (svc.mcp.human-approval)` : `an approver executes "${APPROVE_PREFIX}${request.id}" with their own credential`;
    throw new ApprovalError(
      `${action} needs approval by ${request.humanOnly ? 'a person' : 'a credential that may approve'}. Approval request ${request.id} is open until ${until}: ${who}, then execute ${action} again with approved_by "${request.id}".`,
    );
  }

  /** `approve:<id>` (no `declineReason`) or `decline:<id>`: the approver's act, audited under the approver's credential. */
  private decide(id: string, base: Omit<AuditEntry, 'timestamp' | 'approval' | 'outcome' | 'detail'>, caller: Actor, declineReason: string | undefined): ExecutionResult {
    try {
      const request = declineReason === undefined ? this.approvals.approve(id, caller) : this.approvals.decline(id, caller, declineReason);
      const message =
        declineReason === undefined
          ? `approved ${request.action} requested by ${request.requestedBy} because "${request.reason}"; it may be executed once with approved_by "${request.id}" until ${new Date(request.expiresAt).toISOString()}`
          : `declined ${request.action} requested by ${request.requestedBy} because "${request.reason}"; its next execution with approved_by "${request.id}" is refused with this reason`;
      return { outcome: 'success', message, audit: this.audit.record({ ...base, approval: 'not_required', outcome: 'success', detail: message }) };
    } catch (error) {
      if (!(error instanceof ApprovalError)) throw error;
      this.audit.record({ ...base, approval: 'not_required', outcome: 'refused', detail: error.message });
      throw new RemediationRefused(error.message);
    }
  }

  private async run(name: string, described: ReturnType<Remediation['describe']>, reason: string, caller: Actor): Promise<string> {
    const target = described.target!;
    switch (described.kind) {
      case 'enable_fallback':
        this.fallbacks.add(target);
        this.persistFallback(target);
        return `fallback enabled for ${target}; the app serves its fallback while isFallbackEnabled("${target}") is true`;
      case 'disable_fallback':
        this.fallbacks.delete(target);
        this.persistFallback(target);
        return `fallback disabled for ${target}`;
      case 'open_circuit_breaker':
      case 'close_circuit_breaker': {
        const state = described.kind === 'open_circuit_breaker' ? 'open' : 'closed';
        if (!this.engine.circuitBreakers.force(target, state)) throw new Error(`no controllable circuit breaker named "${target}"`);
        if (state === 'open') this.openedBreakers.add(target);
        else this.openedBreakers.delete(target);
        this.persistBreaker(target);
        return `circuit breaker ${target} ${state === 'open' ? 'opened' : 'closed'}`;
      }
      case 'reset_baseline':
        this.engine.resetBaseline(target);
        return `baseline of ${target} reset: its learned normal and rolling window are learned again from its next requests (a normal judges from ${this.engine.normals.rules.minSamples} samples), so its current level becomes normal`;
      case 'escalate': {
        const { level, channel } = this.escalationOf(target);
        return `escalated ${target} at level ${level}${channel ? ` to ${channel}` : ' (no on-call channel configured)'}`;
      }
      case 'custom': {
        const custom = this.custom.get(name)!;
        const result = await custom.handler({ action: name, operation: undefined, reason, caller });
        return result === undefined ? `${name} done` : typeof result === 'string' ? result : JSON.stringify(result);
      }
    }
  }
}
