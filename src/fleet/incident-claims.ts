/**
 * One open incident per operation across a fleet (docs/state.md, Fleet): the replica that
 * detects an operation's problem claims `svc:{<service>}:incident:<operation>` for its incident
 * in one Lua script (set when absent, else answer who holds it), so two replicas that detect the
 * same fault at once get one answer. A replica whose incident lost the claim joins the holder's
 * (IncidentTracker.join). The claim lives `resolveAfterMs` after the last detection on any
 * replica (each detection renews it), the length of an episode's quiet gap, and is deleted when
 * its incident resolves.
 *
 * While Redis does not answer, a replica keeps its own incident; its next detection after
 * Redis returns claims again and joins the fleet's if another replica opened one meanwhile.
 */
import type { Incident, IncidentFleet, IncidentTracker } from '../incidents/incident-tracker.js';
import type { RedisStore } from '../store/redis-store.js';
import { runSafely } from './fleet-channel.js';

const CLAIM = `local held = redis.call('GET', KEYS[1])
if not held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
if held == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return held`;

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export class IncidentClaims implements IncidentFleet {
  /** Operations with a claim under way: its answer serves the detections meanwhile too. */
  private readonly inFlight = new Set<string>();
  /** Claims that failed (Redis down): the incident stayed this replica's own. */
  failed = 0;
  /** Incidents of this replica that joined another replica's. */
  joined = 0;

  constructor(
    private readonly store: RedisStore,
    readonly instanceId: string,
    private readonly tracker: () => IncidentTracker | undefined,
  ) {}

  private key(operation: string): string {
    return this.store.key(`incident:${operation}`);
  }

  claim(incident: Incident): void {
    if (this.inFlight.has(incident.operation)) return;
    this.inFlight.add(incident.operation);
    const tracker = this.tracker();
    const ttlMs = String(tracker?.resolveAfterMs ?? 120_000);
    runSafely(this.store, (client) => client.eval(CLAIM, { keys: [this.key(incident.operation)], arguments: [incident.id, ttlMs] })).then(
      (held) => {
        this.inFlight.delete(incident.operation);
        if (typeof held === 'string' && held !== incident.id && incident.status === 'open') {
          this.joined++;
          tracker?.join(incident.id, held);
        }
      },
      () => {
        this.inFlight.delete(incident.operation);
        this.failed++;
      },
    );
  }

  release(incident: Incident): void {
    runSafely(this.store, (client) => client.eval(RELEASE, { keys: [this.key(incident.operation)], arguments: [incident.id] })).catch(() => this.failed++);
  }
}
