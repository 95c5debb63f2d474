/**
 * A replica's link to its fleet on Redis (docs/state.md, Fleet view): every publish interval it
 * publishes its summary and the minutes of its history not yet written, then reads every
 * replica's and merges them into the fleet view. Both run on an unref'd timer, off the request
 * path and the tool calls, in pieces of about 1 ms (PIECE_MS, src/fleet/replica-summary.ts)
 * between turns of the event loop (building the summary; decoding each summary and each minute
 * read; merging), so a request or a tool call never waits behind a whole round. A Redis that
 * fails turns the view off (the tools then show this replica's own figures, saying so) until a
 * round succeeds.
 *
 * Keys, beside the store's collections under `svc:{<service name>}:`:
 * - `fleet:replicas`: a sorted set of replica ids by last publish (the replicas' clocks);
 * - `fleet:replica:<id>`: its summary (src/fleet/replica-summary.ts), expiring after
 *   `svc.fleet.replica-ttl`: a replica that stops publishing leaves the fleet then;
 * - `fleet:minutes:<id>`: a hash of its minutes (minute start → operations), expiring with the
 *   history (`limits.history-minutes`) after its last publish.
 */

import type { AnalysisEngine } from '../analysis/analysis-engine.js';
import type { Clock } from '../analysis/clock.js';
import type { RedisStore } from '../store/redis-store.js';
import { readFields, readKeys } from './bounded-read.js';
import type { FleetView } from './fleet-view.js';
import { decodeMinute, decodeSummary, MAX_REPLICA_ID_CHARS, MAX_SUMMARY_BYTES, nextTurn, ReplicaSummarizer, type ReplicaSummary } from './replica-summary.js';

/** Replicas read at most (the most recently published first); more are counted and named in the note. */
export const MAX_REPLICAS = 100;
const MINUTE_MS = 60_000;
/** Summaries read per call, so at most this many (each up to MAX_SUMMARY_BYTES) are held undecoded at once. */
const SUMMARIES_PER_READ = 8;
/** Closed minutes read per replica per merge (oldest first; the rest at the next merges): a replica publishes two per interval. */
const MINUTES_PER_READ = 10;

/**
 * The replica index, most recent first: ids longer than any replica's (a rogue or corrupt entry)
 * are removed in Redis rather than sent. Returns the index's size, then the ids.
 */
const READ_INDEX = `local ids = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local out = {}
for _, id in ipairs(ids) do
  if #id <= tonumber(ARGV[2]) then table.insert(out, id) else redis.call('ZREM', KEYS[1], id) end
end
table.insert(out, 1, redis.call('ZCARD', KEYS[1]))
return out`;

export interface FleetLinkOptions {
  readonly store: RedisStore;
  readonly engine: AnalysisEngine;
  readonly view: FleetView;
  readonly instanceId: string;
  readonly startedAt: number;
  readonly publishIntervalMs: number;
  readonly replicaTtlMs: number;
  readonly historyMinutes: number;
  readonly maxOperations: number;
  readonly clock: Clock;
  /** Told what failed, once per outage. */
  readonly report?: (line: string) => void;
}

export class FleetLink {
  /** Closed minutes written since they closed: not written again. */
  private readonly written = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private down = false;
  private readonly summarizer: ReplicaSummarizer;
  /** The size in bytes of the last summary published (for the figures in docs/state.md). */
  lastSummaryBytes = 0;

  constructor(private readonly options: FleetLinkOptions) {
    this.summarizer = new ReplicaSummarizer(options.engine, options.instanceId, options.startedAt, options.historyMinutes);
  }

  private key(name: string): string {
    return this.options.store.key(name);
  }

  start(): this {
    this.timer ??= setInterval(() => void this.round(), this.options.publishIntervalMs).unref();
    void this.round();
    return this;
  }

  /** One publish and one merge; a round still running is not started twice. */
  round(): Promise<void> {
    this.running ??= this.publishAndMerge().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async publishAndMerge(): Promise<void> {
    try {
      await this.publish();
      await this.merge();
      if (this.down) this.options.report?.('fleet: Redis answers again; the tools show the fleet');
      this.down = false;
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.options.view.failed(why);
      if (!this.down) this.options.report?.(`fleet: Redis does not answer (${why}); the tools show this replica's own figures until it does`);
      this.down = true;
    }
  }

  async publish(): Promise<void> {
    const { instanceId, clock, historyMinutes, replicaTtlMs } = this.options;
    const now = clock.now();
    const { text, currentMinute, minutes } = await this.summarizer.summarize(now, this.written);
    await nextTurn();
    this.lastSummaryBytes = Buffer.byteLength(text);
    const oldest = currentMinute - historyMinutes * MINUTE_MS;
    const gone = [...this.written].filter((m) => m < oldest);
    await this.options.store.run(async (client) => {
      const multi = client.multi();
      multi.set(this.key(`fleet:replica:${instanceId}`), text, { expiration: { type: 'PX', value: replicaTtlMs } });
      multi.zAdd(this.key('fleet:replicas'), { score: now, value: instanceId });
      const minutesKey = this.key(`fleet:minutes:${instanceId}`);
      for (const [minute, text] of minutes) multi.hSet(minutesKey, String(minute), text);
      if (gone.length) multi.hDel(minutesKey, gone.map(String));
      multi.pExpire(minutesKey, (historyMinutes + 1) * MINUTE_MS + replicaTtlMs);
      await multi.exec();
    });
    for (const m of gone) this.written.delete(m);
    for (const minute of minutes.keys()) if (minute < currentMinute) this.written.add(minute);
  }

  async merge(): Promise<void> {
    const { view, maxOperations, clock } = this.options;
    const history = view.history;
    const summaries = await this.options.store.run(async (client) => {
      const index = this.key('fleet:replicas');
      const [total, ...ids] = (await client.eval(READ_INDEX, { keys: [index], arguments: [String(MAX_REPLICAS), String(MAX_REPLICA_ID_CHARS)] })) as [number, ...string[]];
      const live: ReplicaSummary[] = [];
      const unread: string[] = [];
      for (let start = 0; start < ids.length; start += SUMMARIES_PER_READ) {
        const chunk = ids.slice(start, start + SUMMARIES_PER_READ);
        const texts = await readKeys(
          client,
          chunk.map((id) => this.key(`fleet:replica:${id}`)),
          MAX_SUMMARY_BYTES,
        );
        for (const [i, id] of chunk.entries()) {
          const text = texts[i];
          if (typeof text === 'string') await nextTurn();
          const summary = typeof text === 'string' ? decodeSummary(text, maxOperations) : undefined;
          if (summary && summary.id === id) live.push(summary);
          // Expired, refused, or not a summary this svc reads: out of the index, so it holds no place among the replicas read (a replica that publishes is added back at once).
          else unread.push(id);
        }
      }
      if (unread.length) await client.zRem(index, unread);
      // Each replica's closed minutes not yet read (MINUTES_PER_READ at most), and its current one: one read per replica, one at a time.
      const now = clock.now();
      for (const s of live) {
        const wanted = [...history.wanted(s.id, s.minutes, s.currentMinute, now).slice(0, MINUTES_PER_READ), ...(history.keeps(s.currentMinute, now) ? [s.currentMinute] : [])];
        const texts = await readFields(client, this.key(`fleet:minutes:${s.id}`), wanted.map(String), MAX_SUMMARY_BYTES);
        for (const [j, minute] of wanted.entries()) {
          const text = texts[j];
          if (typeof text !== 'string') continue;
          await nextTurn();
          const data = decodeMinute(text, maxOperations);
          if (!data) continue;
          if (minute === s.currentMinute) history.setOpen(s.id, minute, data);
          else history.fold(s.id, minute, data);
        }
        for (const [name, op] of s.operations) history.noteFirst(name, op.firstAt);
      }
      return { live, leftOut: Math.max(0, total - ids.length) };
    });
    const liveIds = new Set(summaries.live.map((s) => s.id));
    for (const id of history.replicaIds()) if (!liveIds.has(id)) history.leave(id);
    history.prune(clock.now());
    await nextTurn();
    await view.update(summaries.live, summaries.leftOut);
  }

  /** Stops publishing and leaves the fleet at once (a replica that is killed leaves after the TTL). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    const id = this.options.instanceId;
    await this.options.store
      .run(async (client) => {
        await client
          .multi()
          .del(this.key(`fleet:replica:${id}`))
          .zRem(this.key('fleet:replicas'), id)
          .exec();
      })
      .catch(() => undefined);
  }
}
