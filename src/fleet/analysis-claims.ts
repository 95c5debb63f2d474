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
 * replica's own records are not restored when another took them (a restart with the same id
 * may claim them again). A replica claims its own for `ownMs` (`svc.fleet.replica-ttl`): by then
 * its summary says it is live, and no other replica takes the records it now writes to again.
 */
import type { RedisStore } from '../store/redis-store.js';
import { runSafely } from './fleet-channel.js';

// KEYS: the owner's summary, the claim. ARGV: the claimer, the claim's life (ms), '1' for its own records.
// Its own: unless another holds them. Another's: only while it has no summary, and only once.
const CLAIM = `local held = redis.call('GET', KEYS[2])
if ARGV[3] == '1' then
  if held and held ~= ARGV[1] then return 0 end
elseif held or redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 1`;

/** A departed replica's records are deleted once taken; the claim outlives any retry of those deletes. */
const TAKEN_MS = 24 * 60 * 60_000;

/**
 * Whether the replica `instanceId` may take `owner`'s records (`owner` as Checkpoints keys it,
 * URI-encoded): its own, unless another replica just took them; another's, once it left the fleet.
 */
export function analysisClaims(store: RedisStore, instanceId: string, ownMs: number): (owner: string, own: boolean) => Promise<boolean> {
  return async (owner, own) => {
    let id: string;
    try {
      id = decodeURIComponent(owner);
    } catch {
      // Not a replica's id: nobody's records to take.
      return false;
    }
    const keys = [store.key(`fleet:replica:${id}`), store.key(`analysis:taken:${owner}`)];
    const taken = await runSafely(store, (client) => client.eval(CLAIM, { keys, arguments: [instanceId, String(own ? ownMs : TAKEN_MS), own ? '1' : '0'] }));
    return taken === 1;
  };
}
