/**
 * Who takes a replica's analysis records on a fleet's Redis (docs/state.md, Fleet, "Analysis
 * state"): SLO budgets and minute histories are kept per replica, under its instance id
 * (src/store/checkpoints.ts). A replica restores its own records, and takes over those of a
 * replica that left the fleet (no summary: stopped, or silent for `svc.fleet.replica-ttl`), so a
 * deploy that replaces every replica keeps the fleet's budgets.
 *
 * Each take is claimed in one Lua script, `svc:{<service>}:analysis:taken:<owner>`, so two
 * replicas starting at once never both add the same counts: a departed replica's records go to
 * the first that claims them (the claim lives a day; they are deleted once taken), and a
 * replica's own records are not restored when another took them in the minute before.
 */
import type { RedisStore } from '../store/redis-store.js';
import { runSafely } from './fleet-channel.js';

const CLAIM = `if ARGV[3] ~= '1' and redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;

/** A departed replica's records are deleted once taken; the claim outlives any retry of those deletes. */
const TAKEN_MS = 24 * 60 * 60_000;
/** Long enough that a replica taking them at its start sees this one's own restore. */
const OWN_MS = 60_000;

/**
 * Whether the replica `instanceId` may take `owner`'s records (`owner` as Checkpoints keys it,
 * URI-encoded): its own, unless another replica just took them; another's, once it left the fleet.
 */
export function analysisClaims(store: RedisStore, instanceId: string): (owner: string, own: boolean) => Promise<boolean> {
  return async (owner, own) => {
    let id: string;
    try {
      id = decodeURIComponent(owner);
    } catch {
      // Not a replica's id: nobody's records to take.
      return false;
    }
    const keys = [store.key(`fleet:replica:${id}`), store.key(`analysis:taken:${owner}`)];
    const taken = await runSafely(store, (client) => client.eval(CLAIM, { keys, arguments: [instanceId, String(own ? OWN_MS : TAKEN_MS), own ? '1' : '0'] }));
    return taken === 1;
  };
}
