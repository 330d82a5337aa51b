/**
 * Where the upstream cursors behind the gateway's cursors are kept: the cursor family's
 * `nextCursor` is 300 to 700 characters (and grows with the filters), so a gateway cursor carries
 * a 12-byte reference to it instead. In process without `REDIS_URL`; in Redis with it, so a
 * cursor issued by one replica is honoured by every other.
 *
 * Both stores are bounded in bytes: an entry lives `ttlMs` (the upstream cursor's own life) and,
 * when the budget is full, the oldest entries go first, so a client paging forever costs at most
 * the budget, never more.
 */
import { randomBytes } from 'node:crypto';
import { guardRedis, type RedisConnection } from '../redis/connection.js';

export const REF_BYTES = 12;
/** What an entry costs besides its text: the reference, the bookkeeping, the map or key overhead. */
const ENTRY_OVERHEAD_BYTES = 96;

export interface UpstreamCursorStore {
  /**
   * Keeps `cursor` for the store's TTL; resolves to its reference: `ref` when given (it replaces
   * what was kept under it), else a random one.
   */
  keep(cursor: string, ref?: Buffer): Promise<Buffer>;
  /** The cursor kept under `ref`; null once it expired or was evicted. */
  recall(ref: Buffer): Promise<string | null>;
}

export interface CursorStoreOptions {
  /** How long a kept cursor stays recallable, in ms. */
  ttlMs: number;
  /** Most bytes all kept cursors may take together. */
  maxBytes: number;
  now?: () => number;
}

interface MemoryEntry {
  cursor: string;
  expiresAt: number;
  size: number;
}

export function createMemoryCursorStore(options: CursorStoreOptions): UpstreamCursorStore & { readonly bytes: number; readonly size: number } {
  const now = options.now ?? Date.now;
  // Insertion order is expiry order (one TTL for all), so the oldest entry is always the first.
  const entries = new Map<string, MemoryEntry>();
  let bytes = 0;

  function drop(key: string, entry: MemoryEntry): void {
    entries.delete(key);
    bytes -= entry.size;
  }

  return {
    get bytes() {
      return bytes;
    },
    get size() {
      return entries.size;
    },
    keep(cursor, given) {
      const time = now();
      for (const [key, entry] of entries) {
        if (entry.expiresAt > time) break;
        drop(key, entry);
      }
      const ref = given ?? randomBytes(REF_BYTES);
      const id = ref.toString('base64url');
      const previous = entries.get(id);
      // Deleted first, so the new entry goes to the end: insertion order stays expiry order.
      if (previous !== undefined) drop(id, previous);
      const size = cursor.length + ENTRY_OVERHEAD_BYTES;
      entries.set(id, { cursor, expiresAt: time + options.ttlMs, size });
      bytes += size;
      for (const [key, entry] of entries) {
        if (bytes <= options.maxBytes) break;
        drop(key, entry);
      }
      return Promise.resolve(ref);
    },
    recall(ref) {
      const entry = entries.get(ref.toString('base64url'));
      return Promise.resolve(entry !== undefined && entry.expiresAt > now() ? entry.cursor : null);
    },
  };
}

// One hash tag for all: keeping a cursor touches its entry, the index and the byte count at once,
// which on a Redis Cluster must share a slot.
const KEY_PREFIX = 'gateway:cursor:{cursors}:';
const INDEX_KEY = 'gateway:cursors:{cursors}';
const BYTES_KEY = 'gateway:cursor-bytes:{cursors}';

/**
 * One round trip per kept cursor: drop the expired entries from the index (their keys expired by
 * themselves) and the entry the new one replaces (a reference given again), add the new one, then take the oldest out of the index while over budget and
 * return their references, whose keys the caller deletes (the script touches only the keys it is
 * given, as a cluster requires). Index members are `<ref>:<size>`, so an entry's size is known
 * after its key has gone.
 *
 * KEYS: index, bytes counter, the new entry. ARGV: ref, cursor, ttl ms, now ms, budget, overhead.
 * Returns the references evicted.
 */
const KEEP_SCRIPT = `
local index, counter, entry = KEYS[1], KEYS[2], KEYS[3]
local evicted = {}
local function drop(members, delete)
  local freed = 0
  for i = 1, #members do
    local member = members[i]
    local colon = string.find(member, ':', 1, true)
    freed = freed + tonumber(string.sub(member, colon + 1))
    if delete then table.insert(evicted, string.sub(member, 1, colon - 1)) end
    redis.call('ZREM', index, member)
  end
  if freed > 0 then redis.call('DECRBY', counter, freed) end
end
local now, ttl = tonumber(ARGV[4]), tonumber(ARGV[3])
drop(redis.call('ZRANGEBYSCORE', index, '-inf', now), false)
local previous = redis.call('GET', entry)
if previous then drop({ARGV[1] .. ':' .. (string.len(previous) + tonumber(ARGV[6]))}, false) end
local size = string.len(ARGV[2]) + tonumber(ARGV[6])
redis.call('SET', entry, ARGV[2], 'PX', ttl)
redis.call('ZADD', index, now + ttl, ARGV[1] .. ':' .. size)
local total = redis.call('INCRBY', counter, size)
local budget = tonumber(ARGV[5])
while total > budget do
  local oldest = redis.call('ZRANGE', index, 0, 15)
  if #oldest == 0 then
    redis.call('SET', counter, 0)
    break
  end
  drop(oldest, true)
  total = tonumber(redis.call('GET', counter) or '0')
end
return evicted
`;

export function createRedisCursorStore(connection: RedisConnection, options: CursorStoreOptions): UpstreamCursorStore {
  const now = options.now ?? Date.now;
  return {
    async keep(cursor, given) {
      const ref = given ?? randomBytes(REF_BYTES);
      const id = ref.toString('base64url');
      await guardRedis('keep cursor', async () => {
        const evicted = (await connection.commands.eval(
          KEEP_SCRIPT,
          3,
          INDEX_KEY,
          BYTES_KEY,
          KEY_PREFIX + id,
          id,
          cursor,
          String(options.ttlMs),
          String(now()),
          String(options.maxBytes),
          String(ENTRY_OVERHEAD_BYTES),
        )) as string[];
        // Out of the index and the count already; their keys share the slot, so one DEL.
        if (evicted.length > 0) await connection.commands.del(...evicted.map((ref) => KEY_PREFIX + ref));
      });
      return ref;
    },
    recall(ref) {
      return guardRedis('recall cursor', () => connection.commands.get(KEY_PREFIX + ref.toString('base64url')));
    },
  };
}
