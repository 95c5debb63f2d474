/**
 * Reads of what other replicas (or anyone with access to the store) wrote, bounded in Redis: a
 * value larger than allowed, or of the wrong type, is refused by a Lua script on the server and
 * never sent, so a corrupt or rogue key costs the reader nothing but its name.
 */
import type { RedisClient } from '../store/redis-store.js';

/** A value as read: its text, absent, refused (too large or not a string), or left for a later read (the read's budget was spent). */
export type BoundedValue = string | null | typeof REFUSED | typeof DEFERRED;
export const REFUSED = 0;
export const DEFERRED = 1;

const READ_KEYS = `local max = tonumber(ARGV[1])
local out = {}
for i, key in ipairs(KEYS) do
  local t = redis.call('TYPE', key).ok
  if t == 'none' then out[i] = false
  elseif t ~= 'string' or redis.call('STRLEN', key) > max then out[i] = ${REFUSED}
  else out[i] = redis.call('GET', key) end
end
return out`;

const READ_FIELDS = `local max, budget, used = tonumber(ARGV[1]), tonumber(ARGV[2]), 0
local out = {}
local hash = redis.call('TYPE', KEYS[1]).ok == 'hash'
for i = 3, #ARGV do
  local n = hash and redis.call('HSTRLEN', KEYS[1], ARGV[i]) or 0
  if n == 0 then out[i - 2] = false
  elseif n > max then out[i - 2] = ${REFUSED}
  elseif used > 0 and used + n > budget then out[i - 2] = ${DEFERRED}
  else
    used = used + n
    out[i - 2] = redis.call('HGET', KEYS[1], ARGV[i])
  end
end
return out`;

/** The string values of `keys` up to `maxBytes` each. */
export async function readKeys(client: RedisClient, keys: readonly string[], maxBytes: number): Promise<BoundedValue[]> {
  if (keys.length === 0) return [];
  return (await client.eval(READ_KEYS, { keys: [...keys], arguments: [String(maxBytes)] })) as BoundedValue[];
}

/** The values of `fields` of the hash `key` up to `maxBytes` each, and about `budgetBytes` in all (always at least one). */
export async function readFields(client: RedisClient, key: string, fields: readonly string[], maxBytes: number, budgetBytes = Number.MAX_SAFE_INTEGER): Promise<BoundedValue[]> {
  if (fields.length === 0) return [];
  return (await client.eval(READ_FIELDS, { keys: [key], arguments: [String(maxBytes), String(budgetBytes), ...fields] })) as BoundedValue[];
}
