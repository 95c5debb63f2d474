/**
 * The most memory agents can make svc hold, in bytes, for a configuration: every store an agent
 * can fill is capped in count, every string in it is bounded (input-limits.ts), so each store has
 * a worst case; `svc check` prints them and their sum. Strings are counted at two bytes a
 * character (V8 keeps one byte for Latin-1 text), records at RECORD_OVERHEAD_BYTES each.
 * Measured figures the bounds rest on (2026-11-23, heap per session or stream with 160 open): an
 * MCP session (SDK server, transport and its initialize request's capabilities) holds 15 KB, and
 * 61 KB when that request is the widest of MAX_KEPT_REQUEST_BYTES (4 KiB of empty objects), counted
 * as 64 KiB; a 2026-07-28 subscriptions/listen stream 29-39 KB (heap and external), counted as 48
 * KiB; a verification's window of 1,000 observations 24 KB.
 */
import type { ResolvedConfig } from '../config/resolved-config.js';
import { MAX_REQUESTS_PER_CREDENTIAL } from '../incidents/approvals.js';
import { MAX_DETAIL_LENGTH } from '../incidents/audit-trail.js';
import { MAX_PENDING, SAMPLES_SINCE } from '../incidents/verification.js';
import { formatBytes, recordBytes } from '../shared/memory-size.js';
import { MAX_CALLERS } from '../shared/rate-limiter.js';
import { MAX_KNOWN_GOOD } from './auth-failure-limiter.js';
import { INPUT_LIMITS, STORED_AGENT_NAME } from './input-limits.js';

export interface CeilingLimits {
  readonly maxSessionBytes: number;
  readonly maxAuditEntries: number;
  readonly maxChanges: number;
  readonly maxIncidents: number;
  readonly maxOperations: number;
  /** Configured tokens, plus the anonymous pool. */
  readonly credentials: number;
  readonly maxSessionsPerCredential: number;
  readonly approvalsPerCredential: number;
}

export interface CeilingPart {
  readonly name: string;
  readonly bytes: number;
  /** What bounds it and what is evicted first. */
  readonly rule: string;
}

const MCP_SESSION_BYTES = 64 * 1024;
const LISTEN_STREAM_BYTES = 48 * 1024;
/** A rate-limit or address table entry: key (an address or credential) and its bucket. */
const TABLE_ENTRY_BYTES = recordBytes('x'.repeat(INPUT_LIMITS.agentName));
const ISO_TIME = 'x'.repeat(24);

function chars(n: number): string {
  return 'x'.repeat(n);
}

export function agentStateCeiling(limits: CeilingLimits): { parts: CeilingPart[]; totalBytes: number } {
  const agentName = chars(STORED_AGENT_NAME);
  const role = chars(INPUT_LIMITS.role);
  const auditEntry = recordBytes(agentName, role, chars(INPUT_LIMITS.actionName), chars(INPUT_LIMITS.reason), chars(INPUT_LIMITS.id), agentName, chars(MAX_DETAIL_LENGTH + 40));
  const change = recordBytes(chars(INPUT_LIMITS.actionName), agentName, role, chars(INPUT_LIMITS.reason), ISO_TIME);
  // An incident names its operation, patterns, SLOs, a cause quoting one change and a resolution naming an action and agent.
  const incident = recordBytes(
    chars(INPUT_LIMITS.id),
    chars(INPUT_LIMITS.operationName),
    chars(200),
    chars(INPUT_LIMITS.actionName + INPUT_LIMITS.reason + 200),
    chars(INPUT_LIMITS.actionName),
    agentName,
  );
  const verification = recordBytes(chars(INPUT_LIMITS.actionName)) + 8 * (4 + 3 * SAMPLES_SINCE);
  const approval = recordBytes(chars(INPUT_LIMITS.id), chars(INPUT_LIMITS.actionName), chars('token:'.length + INPUT_LIMITS.tokenAgent), agentName, chars(INPUT_LIMITS.reason), agentName);
  const parts: CeilingPart[] = [
    { name: 'shared sessions', bytes: limits.maxSessionBytes, rule: 'limits.max-session-bytes; the oldest sessions are evicted' },
    {
      name: 'audit trail',
      bytes: limits.maxAuditEntries * auditEntry,
      rule: `${limits.maxAuditEntries} entries (limits.max-audit-entries) of at most ${formatBytes(auditEntry)}; the oldest is evicted`,
    },
    { name: 'change history', bytes: limits.maxChanges * change, rule: `${limits.maxChanges} entries (limits.max-changes) of at most ${formatBytes(change)}; the oldest is evicted` },
    {
      name: 'incidents',
      bytes: (limits.maxIncidents + limits.maxOperations) * incident,
      rule: `one open per operation (limits.max-operations) and ${limits.maxIncidents} resolved (limits.max-incidents) of at most ${formatBytes(incident)}; the oldest resolved is evicted`,
    },
    { name: 'verification snapshots', bytes: MAX_PENDING * verification, rule: `${MAX_PENDING} pending actions of ${formatBytes(verification)}; the oldest is evicted` },
    { name: 'approval requests', bytes: limits.credentials * limits.approvalsPerCredential * approval, rule: `${limits.approvalsPerCredential} per credential; a credential's oldest is evicted` },
    {
      name: 'MCP sessions',
      bytes: limits.credentials * limits.maxSessionsPerCredential * MCP_SESSION_BYTES,
      rule: `${limits.maxSessionsPerCredential} per credential (mcp.max-sessions-per-credential) of ${formatBytes(MCP_SESSION_BYTES)}; a credential's least recently used is closed`,
    },
    {
      name: 'MCP subscription streams',
      bytes: limits.credentials * limits.maxSessionsPerCredential * LISTEN_STREAM_BYTES,
      rule: `${limits.maxSessionsPerCredential} open per credential (mcp.max-sessions-per-credential) of ${formatBytes(LISTEN_STREAM_BYTES)}; a credential's next one is refused until one closes`,
    },
    {
      name: 'rate-limit tables',
      bytes: (2 * MAX_CALLERS + MAX_KNOWN_GOOD) * TABLE_ENTRY_BYTES,
      rule: `requests and failed authentications, ${MAX_CALLERS} callers each, and ${MAX_KNOWN_GOOD} known addresses; the oldest is evicted`,
    },
  ];
  return { parts, totalBytes: parts.reduce((sum, part) => sum + part.bytes, 0) };
}

export function ceilingLimitsFromConfig(config: ResolvedConfig): CeilingLimits {
  const tokens = config.names('mcp.tokens');
  return {
    maxSessionBytes: config.get('limits.max-session-bytes'),
    maxAuditEntries: config.get('limits.max-audit-entries'),
    maxChanges: config.get('limits.max-changes'),
    maxIncidents: config.get('limits.max-incidents'),
    maxOperations: config.get('limits.max-operations'),
    credentials: tokens.length + 1,
    maxSessionsPerCredential: config.get('mcp.max-sessions-per-credential'),
    approvalsPerCredential: MAX_REQUESTS_PER_CREDENTIAL,
  };
}
