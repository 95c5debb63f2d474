/**
 * Who acts on incidents, remediation and sessions: an agent with a role, its permissions and the
 * credential it acts under. The tool server establishes it (its `CallerIdentity`); this layer only
 * reads it, so it depends on nothing above it.
 */
import type { Permission } from '../shared/enums.js';

export interface Actor {
  readonly agentName: string;
  readonly role: string;
  readonly permissions: ReadonlySet<Permission>;
  /** How the identity was established: `token:<agent>` or the anonymous pool; sessions and approvals belong to it. */
  readonly credential: string;
  /** The agent the bearer token was issued to; undefined for anonymous callers, whose names nothing vouches for. */
  readonly tokenAgent: string | undefined;
  /** A person signed in on the status page, not an agent: only a person approves the kinds of `svc.mcp.human-approval`. */
  readonly person?: boolean;
}
